// Shows the example record exactly as the server sends it. The text goes into
// the page as text, never as markup.
const link = document.getElementById('example-link');
const out = document.querySelector('#example code');
if (link && out) {
  fetch(link.getAttribute('href'), { headers: { Accept: 'application/json' } })
    .then(async (res) => {
      const head = ['Content-Type', 'Vary', 'Allow'].map((name) => `${name}: ${res.headers.get(name)}`).join('\n');
      out.textContent = `HTTP ${res.status}\n${head}\n\n${JSON.stringify(JSON.parse(await res.text()), null, 2)}`;
    })
    .catch((err) => {
      out.textContent = `The record could not be fetched: ${err}`;
    });
}
