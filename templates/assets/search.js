// The search page: Pagefind's index, queried as you type. Results are built
// with DOM methods from text, so nothing in a talk's fields can run as script.
const form = document.getElementById('search-form');
const input = document.getElementById('q');
const status = document.getElementById('search-status');
const list = document.getElementById('results');
const more = document.getElementById('more');
const selects = [...form.querySelectorAll('select[data-filter]')];
const PAGE = 10;
// One letter matches nearly every talk: wait for a second one.
const MIN_LENGTH = 2;

const params = new URLSearchParams(location.search);
input.value = params.get('q') ?? '';

// A deep link's filters are selectable at once; the full lists arrive with the index's filter counts.
for (const select of selects) {
  const wanted = params.get(select.name);
  if (wanted) select.add(new Option(wanted, wanted, true, true));
}

// The index comes in shards, newest first (see searchIndexes in src/search.ts): the first is Pagefind's
// primary index, the others are merged into it, and their results come sorted by score together.
const [primary, ...merged] = form.dataset.indexes.split(' ');
const pagefind = await import(`${primary}pagefind.js`);
// Measured on the pyvideo catalogue: starting Pagefind's worker doubles the time to a first result,
// while a search on the main thread still answers a keystroke in about 50 ms.
await pagefind.options({ excerptLength: 30, noWorker: true });
pagefind.init();
await Promise.all(merged.map((shard) => pagefind.mergeIndex(shard, { excerptLength: 30 })));

// The filter lists come from the index itself, so they always match what can be found.
async function loadFilters() {
  const available = await pagefind.filters();
  for (const select of selects) {
    const current = select.value;
    const counts = available[select.dataset.filter] ?? {};
    const names = Object.keys(counts).sort((a, b) => (select.dataset.filter === 'year' ? b.localeCompare(a) : a.localeCompare(b)));
    select.replaceChildren(select.options[0]);
    for (const name of names) select.add(new Option(`${name} (${counts[name]})`, name));
    select.value = current;
  }
}

/** Pagefind's excerpt marks hits with <mark>; only the marks are kept, everything else becomes text. */
function excerptNode(html) {
  const p = document.createElement('p');
  p.className = 'excerpt';
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const node of doc.body.childNodes) {
    if (node.nodeName === 'MARK') p.append(Object.assign(document.createElement('mark'), { textContent: node.textContent }));
    else p.append(document.createTextNode(node.textContent));
  }
  return p;
}

function resultItem(data) {
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = data.url;
  a.textContent = data.meta.title;
  const h = document.createElement('h2');
  h.append(a);
  const meta = document.createElement('p');
  meta.className = 'muted';
  meta.textContent = [data.meta.speakers, data.meta.event, data.meta.recorded].filter(Boolean).join(' · ');
  li.append(h, meta, excerptNode(data.excerpt));
  return li;
}

let latest = 0;
let results = [];
let shown = 0;

async function showMore() {
  const ticket = latest;
  const batch = await Promise.all(results.slice(shown, shown + PAGE).map((r) => r.data()));
  if (ticket !== latest) return;
  list.append(...batch.map(resultItem));
  shown += batch.length;
  more.hidden = shown >= results.length;
}

async function run() {
  const ticket = ++latest;
  const term = input.value.trim();
  const filters = {};
  const query = new URLSearchParams();
  if (term) query.set('q', term);
  for (const select of selects) {
    if (!select.value) continue;
    filters[select.dataset.filter] = select.value;
    query.set(select.name, select.value);
  }
  const qs = query.toString();
  history.replaceState(null, '', qs ? `?${qs}` : location.pathname);
  if (term.length < MIN_LENGTH && Object.keys(filters).length === 0) {
    list.replaceChildren();
    more.hidden = true;
    status.textContent = term ? 'Type at least two letters.' : '';
    status.dataset.query = qs;
    return;
  }
  const search = await pagefind.search(term || null, { filters });
  if (ticket !== latest) return;
  results = search.results;
  shown = 0;
  list.replaceChildren();
  await showMore();
  if (ticket !== latest) return;
  const n = results.length;
  status.textContent = n === 0 ? 'No talks found.' : `${n} ${n === 1 ? 'talk' : 'talks'} found.`;
  // Which query the status answers: lets scripts (and tests) tell fresh results from stale ones.
  status.dataset.query = qs;
}

input.addEventListener('input', run);
for (const select of selects) select.addEventListener('change', run);
form.addEventListener('submit', (event) => {
  event.preventDefault();
  run();
});
more.addEventListener('click', showMore);
// A deep-linked query runs first; the filter lists load beside it.
const first = input.value || selects.some((s) => s.value) ? run() : Promise.resolve();
await Promise.all([first, loadFilters()]);
