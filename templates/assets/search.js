// The search page: Pagefind's index, queried as you type. Results are built
// with DOM methods from text, so nothing in a talk's fields can run as script.
const form = document.getElementById('search-form');
// The folder of its host the site is served from (/talks), before each of its addresses; absent at a host's root.
const base = form.dataset.base ?? '';
const input = document.getElementById('q');
const status = document.getElementById('search-status');
/** Sets the status only when its words change: some screen readers read a live region out again whenever its text is replaced, even by the same words, at every keystroke. */
const say = (text) => {
  if (status.textContent !== text) status.textContent = text;
};
const list = document.getElementById('results');
const more = document.getElementById('more');
const selects = [...form.querySelectorAll('select[data-filter]')];
const PAGE = 10;
/** A result's excerpt, in words. */
const EXCERPT = 30;
/**
 * How Pagefind ranks (see docs/search.md, Ranking). A match in a meta field counts by the word's rarity alone, a longer
 * word it starts as much as the whole ("Gill" for "gil"), while a match in the text counts by how much of the word it is:
 * the title, speakers and event are in the text (indexedText in src/search.ts), so their meta copies are left to count
 * only for the title (`heading`, a title written otherwise than its words, would count it twice). A term similarity of 8
 * (1 by default) ranks the whole word well above a longer one: "gil" finds the talks on the GIL before John Gill's, "ast"
 * Python's AST before astronomy. It is that high as Pagefind adds up a talk's distinct longer words, every chunk of which
 * is loaded (loadChunksOf): with 3, "django" opened with six talks of DjangoCon 2008 ("…: GeoDjango", "…: Pinax"), "python"
 * with "…on Python3 and Python2". A term frequency of 0.6 (1 by default) keeps a talk before the About page for
 * "bytecode", a word no index has, which both answer with "by" (a shard each), as one index did with the defaults.
 */
const RANKING = { termSimilarity: 8, termFrequency: 0.6, metaWeights: { heading: 0, speakers: 0, event: 0 } };
// One letter matches nearly every talk: wait for a second one (one Chinese or Japanese character is a word, and so is an emoji: the index keeps each as one).
const MIN_LENGTH = 2;
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const CJK_RUN = new RegExp(`${CJK.source}+`, 'gu');
// Firefox before 125 has no Intl.Segmenter: there a run of Chinese or Japanese is looked up whole, and search still works.
const cjkWords = Intl.Segmenter && new Intl.Segmenter('ja', { granularity: 'word' });
/**
 * Symbols, which Pagefind's index leaves out of a word (`<canvas>` is canvas, `$PATH` path, `a=b` ab) and its
 * query does not (it takes out punctuation alone), so a word written with one found nothing. An emoji is a word of its own there.
 */
const SYMBOLS = /(?!\p{Emoji})\p{S}/gu;
/** The query's words as the index has them: without symbols, Chinese and Japanese words apart (spaceCjkWords in src/search.ts). */
const spaced = (term) =>
  term
    .replace(SYMBOLS, '')
    .replace(CJK_RUN, (run) => ` ${cjkWords ? Array.from(cjkWords.segment(run), (s) => s.segment).join(' ') : run} `)
    .replace(/\s+/g, ' ')
    .trim();

const params = new URLSearchParams(location.search);
input.value = params.get('q') ?? '';

/** Bidirectional formatting that reaches past its text, and letters written right to left: EXPLICIT_BIDI and RIGHT_TO_LEFT of src/bidi.ts. */
const EXPLICIT_BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
/**
 * An option's name (an event's), in an isolate where it is written right to left or holds explicit formatting: an option
 * holds no <bdi>, and the count after a Hebrew name stood on its left, "!" of an Arabic one between the name and the count.
 * Its own formatting is dropped, as none of it could be left open past the isolate.
 */
const optionName = (name) => (RIGHT_TO_LEFT.test(name) || name.search(EXPLICIT_BIDI) >= 0 ? `\u2068${name.replace(EXPLICIT_BIDI, '')}\u2069` : name);

// A deep link's filters are selectable at once; the full lists arrive with the index's filter counts.
for (const select of selects) {
  const wanted = params.get(select.name);
  if (wanted) select.add(new Option(optionName(wanted), wanted, true, true));
}

// The index comes in shards, newest first (see searchIndexes in src/search-shards.ts). Each is searched by the
// copy of Pagefind in its own folder: a copy keeps one WebAssembly state, which instances of it share.
// Measured on the pyvideo catalogue: starting Pagefind's worker doubles the time to a first result,
// while a search on the main thread still answers a keystroke in about 50 ms.
// The site's pages have an index of their own (PAGES_INDEX in src/search-shards.ts), searched as one more shard.
async function openIndex(dir) {
  const index = await import(`${base}${dir}pagefind.js`);
  // A result's URL is the page's path from the site's root, which Pagefind writes after baseUrl.
  await index.options({ noWorker: true, baseUrl: `${base}/`, ranking: RANKING });
  // Its script loads the index itself (its entry, metadata and WebAssembly) in the background, and a search waits
  // for that: an empty query waits for it alone, and fails if it cannot load, where a search would fail unseen.
  await index.preload('');
  chunksOf.set(index, await wordChunks(metadata.get(folderOf(`${base}${dir}`))));
  return index;
}

/**
 * Each index's chunks of words, as its metadata lists them: the first and last word of each, cut to the letters that
 * tell them from their neighbours'. Pagefind loads for a query's word only the chunk the word falls in, and finds the
 * longer words it starts in that chunk alone: "go" missed the Google talks of the next chunk, which "goo" found, and
 * "django" the talks that say only "DjangoCon".
 */
const chunksOf = new Map();
/** The metadata Pagefind fetched of each index, by its folder: read again here, not fetched again (see the fetch below). */
const metadata = new Map();
const folderOf = (url) => new URL(url, location.href).pathname.replace(/[^/]*$/, '');

/** The chunks a Pagefind metadata file lists (see chunksOf); none where the browser cannot decompress it (Safari before 16.4). */
async function wordChunks(file) {
  if (!file || typeof DecompressionStream === 'undefined') return [];
  const SIGNATURE = 'pagefind_dcd';
  let bytes = new Uint8Array(await file);
  if (new TextDecoder().decode(bytes.subarray(0, SIGNATURE.length)) !== SIGNATURE) {
    bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
  }
  // Pagefind's metadata: its version, its pages, then its chunks, each [first word, last word, file].
  const chunks = decodeCbor(bytes.subarray(SIGNATURE.length))[2];
  return chunks.map(([first, last]) => ({ first, last }));
}

/** A value written in CBOR (RFC 8949) as Pagefind writes its metadata: numbers, strings, and arrays and maps of a length given. */
function decodeCbor(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder();
  let at = 0;
  // A length or number: in the head's last 5 bits, or in the 1, 2, 4 or 8 bytes after it that they say.
  const argument = (info) => {
    if (info < 24) return info;
    const size = 2 ** (info - 24);
    const n = [() => view.getUint8(at), () => view.getUint16(at), () => view.getUint32(at), () => Number(view.getBigUint64(at))][info - 24]();
    at += size;
    return n;
  };
  const item = () => {
    const head = bytes[at++];
    const n = argument(head & 31);
    switch (head >> 5) {
      case 1:
        return -1 - n;
      case 2:
        return bytes.subarray(at, (at += n));
      case 3:
        return text.decode(bytes.subarray(at, (at += n)));
      case 4:
        return Array.from({ length: n }, item);
      case 5:
        return Object.fromEntries(Array.from({ length: n }, () => [item(), item()]));
      case 6:
        return item();
      default:
        // A number, or a float or simple value (read as its bits: the chunks have none).
        return n;
    }
  };
  return item();
}

/** The first `n` letters of a word, counted as Pagefind counts them: by code point. */
const head = (word, n) => [...word].slice(0, n).join('');

/**
 * Has `index` load every chunk that holds a word starting with one of `words`, as Pagefind does itself only for a word
 * that falls in none (its loose match): a search then finds every word that starts with the query's, whichever was
 * searched before. A chunk is loaded by a search for its last word, which falls in it (or its first, where Pagefind's
 * query would take a mark out of the last: "geospatial…" is searched as "geospatial", which falls in the chunk before).
 */
function loadChunksOf(index, words) {
  const spanned = (chunksOf.get(index) ?? []).filter(({ first, last }) => words.some((word) => head(first, [...word].length) <= word && head(last, [...word].length) >= word));
  const inChunk = ({ first, last }) => [last, first].find((word) => !/\p{P}/u.test(word)) ?? last;
  return spanned.length > 0 ? index.preload(spanned.map(inChunk).join(' ')) : undefined;
}

/** `index`'s answer to a query of `words` (bare, see below): Pagefind's, once every chunk of a start of those words is in (loadChunksOf). */
async function searchIndex(index, term, words, options) {
  await loadChunksOf(index, words);
  return index.search(term, options);
}
/**
 * Whether a chunk of the index (a word's, a filter's, a result's) could not be fetched since the page loaded: a rebuild
 * since removed the chunks the index loaded here names, or the browser is offline. Pagefind logs the failure of a
 * word's chunk and answers as if it had no match ("No talks found."); it offers no other sign of it than its fetch.
 */
let chunkFailed = false;
const fetchChunk = window.fetch.bind(window);
window.fetch = async (input, init) => {
  const chunk = /\.pf_\w+$/.test(String(input));
  try {
    const response = await fetchChunk(input, init);
    chunkFailed ||= chunk && !response.ok;
    if (response.ok && /\.pf_meta$/.test(String(input))) metadata.set(folderOf(String(input)), response.clone().arrayBuffer());
    return response;
  } catch (err) {
    chunkFailed ||= chunk;
    throw err;
  }
};

/** Says that search cannot be used, rather than leave a box that does nothing or answers wrong, and links all talks instead. */
function unavailable() {
  list.replaceChildren();
  more.hidden = true;
  // Said once, as say() does: a query typed after it would have it read out again.
  if (status.querySelector('a')) return;
  const all = document.createElement('a');
  all.href = `${base}/talks/`;
  all.textContent = 'all talks';
  status.replaceChildren('Search could not be loaded: reload the page, or browse ', all, '.');
}

/** `promise`'s value, or undefined where it failed for a chunk that could not be fetched (a result's data): see chunkFailed. */
const unlessChunkFailed = (promise) =>
  promise.catch((err) => {
    if (!chunkFailed) throw err;
  });

// A site with pages and no talks lists no shard. The index takes a second or two on a large catalogue: say so meanwhile,
// and say so if it cannot load (offline, a partial upload).
status.textContent = 'Loading the search index…';
let shards, pagesIndex;
try {
  [shards, pagesIndex] = await Promise.all([Promise.all(form.dataset.indexes.split(' ').filter(Boolean).map(openIndex)), form.dataset.pages && openIndex(form.dataset.pages)]);
} catch (err) {
  unavailable();
  throw err;
}
status.textContent = '';
/** What a query searches: the talks' shards, then the pages' index (which a filter leaves empty: pages have none of the talks' fields). */
const indexes = pagesIndex ? [...shards, pagesIndex] : shards;

/** The filter counts of every shard, added up; kept without a prototype, as the values are events' titles ("constructor", "__proto__"). */
function addCounts(all) {
  const sum = Object.create(null);
  for (const counts of all) for (const [name, values] of Object.entries(counts)) for (const [value, n] of Object.entries(values)) (sum[name] ??= Object.create(null))[value] = (sum[name][value] ?? 0) + n;
  return sum;
}

/** A word as the index compares it: lower case, without accents or punctuation; kana keep their voicing marks (グ is not ク). */
const bare = (word) =>
  word
    .normalize('NFD')
    .replace(/(?![\u3099\u309a])\p{M}/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

function sharedStart(a, b) {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}

/** A result's text in words, as Pagefind counts the words its locations point at. */
const wordsOf = (content) => (content.includes('\u200B') ? content.split('\u200B') : content.split(/[^\S\uFEFF]+/));

/** How far the words a result matched reach into each word of the query: the longest start they share. */
async function reachOf(result, words) {
  const data = await result.data();
  const text = wordsOf(data.content);
  // Pagefind indexes a word's parts too, at the word's location: "by" of "step-by-step", "params" of "rcParams".
  const parts = (word) => [word, ...word.split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u)];
  // It also finds the words of the fields that are only in a result's meta, which have no location.
  const meta = [data.meta.language, data.meta.recorded, data.meta.kind].filter(Boolean).join(' ').split(/\s+/);
  const matched = [...data.locations.map((i) => text[i] ?? ''), ...meta].flatMap(parts).map(bare);
  return words.map((word) => Math.max(0, ...matched.map((m) => sharedStart(m, word))));
}

/**
 * How far a shard's results reach into each word of the query: its first result's, or, when that falls short of a
 * word, the best of its first PAGE (Pagefind ranks a result that matched a start of the word, "confidentialité" for
 * "confe", above one that has the word, "conference").
 */
async function reachOfShard(results, words) {
  const first = await reachOf(results[0], words);
  if (first.every((r, i) => r >= words[i].length)) return first;
  const each = await Promise.all(results.slice(1, PAGE).map((result) => reachOf(result, words)));
  return words.map((_, i) => Math.max(first[i], ...each.map((r) => r[i])));
}

/**
 * Every index's results, sorted by score; shards newest first and a stable sort keep equal scores
 * (a search by filters alone) newest first. Pagefind answers a word an index lacks with the longest
 * start of it that the index has ("outages" finds "out"): one index over the whole site does so
 * only when no talk or page has the word (then with the longest start any has), a shard whenever it lacks
 * it. So a shard's results stand, as if the shards were one index, only if for each word its results
 * (reachOfShard) matched a word that starts with the whole of it, or the shard has the word (an exact search
 * finds its stem), or no shard has the word and none, filters aside, has a longer start of it. The
 * pages' results are marked as such.
 */
async function searchAll(term, filters) {
  const words = term.split(/\s+/).map(bare).filter(Boolean);
  const answers = await Promise.all(indexes.map((shard) => searchIndex(shard, term || null, words, { filters })));
  const found = indexes.map((shard, n) => ({ shard, results: answers[n].results, counts: answers[n].filters })).filter(({ results }) => results.length > 0);
  if (words.length === 0 || indexes.length === 1 || found.length === 0) return merged(found);
  const reach = await Promise.all(found.map(({ results }) => reachOfShard(results, words)));
  // Asked once per shard and word, and only of a shard whose results might have fallen back to a start.
  const asked = new Map();
  const has = (shard, word) => {
    const key = `${indexes.indexOf(shard)} ${word}`;
    if (!asked.has(key)) asked.set(key, shard.search(`"${word}"`).then((answer) => answer.results.length > 0));
    return asked.get(key);
  };
  const anywhere = (i) => found.some((_, n) => reach[n][i] >= words[i].length) || Promise.all(indexes.map((shard) => has(shard, words[i]))).then((all) => all.includes(true));
  // For a word no talk has: the longest start of it any shard has, filters aside (a shard the filters leave empty counts too).
  const furthest = new Map();
  const longest = (word) => {
    if (!furthest.has(word)) {
      const each = indexes.map(async (shard) => {
        const { results } = await searchIndex(shard, word, [word], {});
        return results.length > 0 ? (await reachOf(results[0], [word]))[0] : 0;
      });
      furthest.set(word, Promise.all(each).then((all) => Math.max(...all)));
    }
    return furthest.get(word);
  };
  const stands = await Promise.all(
    found.map(async ({ shard }, n) => {
      for (const [i, word] of words.entries()) {
        if (reach[n][i] >= word.length || (await has(shard, word))) continue;
        if ((await anywhere(i)) || reach[n][i] < (await longest(word))) return false;
      }
      return true;
    }),
  );
  return merged(found.filter((_, n) => stands[n]));
}

/** The indexes' results in one list by score, the pages' marked as such, and their filter counts added up. */
const merged = (found) => ({
  results: found.flatMap(({ shard, results }) => (shard === pagesIndex ? results.map((result) => Object.assign(result, { page: true })) : results)).sort((a, b) => b.score - a.score),
  counts: addCounts(found.map(({ counts }) => counts)),
});

/** "3 talks", "1 page"; nothing for none. */
/** A count as the site writes one, its thousands grouped (formatCount in src/cli.ts). */
const formatCount = (n) => n.toLocaleString('en');
const counted = (n, what) => (n === 0 ? '' : `${formatCount(n)} ${what}${n === 1 ? '' : 's'}`);

/** Every talk's filter values, counted: the lists' options. */
let catalogueCounts;
/** The counts of the talks the query finds, whatever the filters (null without a query): what the options show. */
let queryCounts = null;
/** Whether queryCounts come from a search run before the filters were loaded: Pagefind counts only in the filters it has loaded. */
let countedEarly = false;

/** Each option with its count: of the talks the query finds, or of all talks. */
function showCounts() {
  // Until the filters are in, the only options are a deep link's, which a count of nothing would show as (0).
  if (!catalogueCounts) return;
  const counts = queryCounts ?? catalogueCounts;
  for (const select of selects) for (const option of [...select.options].slice(1)) option.text = `${optionName(option.value)} (${formatCount(counts[select.dataset.filter]?.[option.value] ?? 0)})`;
}

/** A filter's value as a visitor may write it (a hand-typed or old link: `language=basque`), letter case and Unicode form aside. */
const folded = (value) => value.normalize('NFC').toLowerCase();

// The filter lists come from the index itself, so they always match what can be found.
async function loadFilters() {
  catalogueCounts = addCounts(await Promise.all(shards.map((shard) => shard.filters())));
  let respelled = false;
  for (const select of selects) {
    const counts = catalogueCounts[select.dataset.filter] ?? Object.create(null);
    const names = Object.keys(counts).sort((a, b) => (select.dataset.filter === 'year' ? b.localeCompare(a) : a.localeCompare(b)));
    // Pagefind's filters match a value only as the index spells it: a deep link's other spelling is taken as that option.
    const wanted = select.value;
    const current = wanted in counts ? wanted : (names.find((name) => folded(name) === folded(wanted)) ?? wanted);
    respelled ||= current !== wanted;
    select.replaceChildren(select.options[0]);
    // A deep link's value the index lacks still filters the results: the list shows it, with no talk.
    for (const name of current && !(current in counts) ? [...names, current] : names) select.add(new Option(optionName(name), name));
    select.value = current;
  }
  // Searched again as the options spell the filters, which puts that spelling in the address.
  if (respelled) await run();
  // Counts of a search run before the filters were in lack them: the options show none until they are counted again.
  else if (countedEarly) await recount();
  else showCounts();
}

/** Counts again what the query shown finds, once the filters are loaded. */
async function recount() {
  const ticket = latest;
  const { counts } = await searchAll(spaced(input.value.trim()), {});
  if (ticket !== latest) return;
  queryCounts = counts;
  countedEarly = false;
  showCounts();
}

/**
 * Where a result's excerpt starts, as Pagefind's own does but from the word `from` on: there when its matches from there
 * are all within an excerpt's length of it, else at the window of EXCERPT words that holds the most of their weight (the
 * middle one of a run of such windows, so that a lone match stands in the middle), short of the text's end.
 */
function excerptStart(weighted, from, count) {
  const weight = [];
  for (const { location, balanced_score } of weighted) if (location >= from) weight[location - from] = (weight[location - from] ?? 0) + balanced_score;
  if (weight.length <= EXCERPT) return from;
  let sum = weight.slice(0, EXCERPT).reduce((a, b) => a + (b ?? 0), 0);
  let best = sum;
  let run = [0];
  for (let start = 1; start < weight.length; start++) {
    sum += (weight[start + EXCERPT - 1] ?? 0) - (weight[start - 1] ?? 0);
    if (sum > best) [best, run] = [sum, [start]];
    else if (sum === best && run.at(-1) === start - 1) run.push(start);
  }
  return Math.max(from, Math.min(from + run[Math.floor(run.length / 2)], count - EXCERPT));
}

/**
 * A result's excerpt, its matches marked, cut from its text after its title: Pagefind indexes the title's words first
 * (indexedText in src/search.ts) and cuts its own excerpt from them too, where a result showed its title again under
 * its title. The text's words become text, so nothing in them is read as HTML.
 */
function excerptOf(data) {
  const words = wordsOf(data.content);
  // The title's words as they are indexed, and the break after them.
  const from = wordsOf(data.meta.title.replace(EXPLICIT_BIDI, '').trim()).length + 1;
  const start = excerptStart(data.weighted_locations, from, words.length);
  const marked = new Set(data.locations);
  // Which spaces between the text's words spaceCjkWords put there for the index, a "+" for each (spacesAdded in src/search.ts): the text is not written so.
  const joined = data.meta.joined ?? '';
  const p = document.createElement('p');
  p.className = 'excerpt';
  for (let i = start; i < Math.min(start + EXCERPT, words.length); i++) {
    if (!words[i]) continue;
    if (p.lastChild && joined[i - from - 1] !== '+') p.append(' ');
    p.append(marked.has(i) ? Object.assign(document.createElement('mark'), { textContent: words[i] }) : words[i]);
  }
  return p;
}

/** Text isolated from its neighbours, so that a right-to-left name cannot turn round the line around it. */
const bdi = (text, lang) => Object.assign(document.createElement('bdi'), { textContent: text }, lang ? { lang } : {});

function resultItem(data) {
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = data.url;
  a.textContent = data.meta.heading ?? data.meta.title;
  a.dir = 'auto';
  const h = document.createElement('h2');
  h.append(a);
  const meta = document.createElement('p');
  meta.className = 'muted';
  // The speakers' names are in their language where search.ts could tell it (speakersLang), as on the talk's page.
  const parts = [[data.meta.kind], [data.meta.speakers, data.filters.speakersLang?.[0]], [data.meta.event], [data.meta.recorded]].filter(([text]) => text);
  meta.append(...parts.flatMap(([text, lang], i) => (i ? [' · ', bdi(text, lang)] : [bdi(text, lang)])));
  const excerpt = excerptOf(data);
  excerpt.dir = 'auto';
  // A talk's title and text are in its language, as on every other page (but a title in the site's English, as its
  // page marks it: titleLang); a page's are the site's.
  const lang = data.filters.lang?.[0];
  if (lang) excerpt.lang = lang;
  const titleLang = data.filters.titleLang?.[0] ?? lang;
  if (titleLang) a.lang = titleLang;
  li.append(h, meta, excerpt);
  return li;
}

let latest = 0;
let results = [];
let shown = 0;
let appended = Promise.resolve();

/** The next results; `fromButton` when a click or key on "Show more" asked for them. */
function showMore(fromButton) {
  const ticket = latest;
  // Taken before the results load: a second click meanwhile asks for the batch after this one.
  const slice = results.slice(shown, shown + PAGE);
  shown += slice.length;
  more.hidden = shown >= results.length;
  const loading = unlessChunkFailed(Promise.all(slice.map((r) => r.data())));
  // Appended in the order asked for, however the loads finish.
  appended = appended.then(async () => {
    const batch = await loading;
    if (ticket !== latest) return;
    if (!batch) return unavailable();
    const items = batch.map(resultItem);
    list.append(...items);
    // The button may be gone once the last batch is shown: focus moves to the first talk it brought, not to the page.
    if (fromButton && items.length > 0) items[0].querySelector('a').focus();
  });
  return appended;
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
  // Counted as the index counts: "c#" is the one letter c, which nearly every talk has.
  const longest = Math.max(0, ...term.split(/\s+/).map((word) => bare(word).length));
  const narrowed = Object.keys(filters).length > 0;
  if (longest < MIN_LENGTH && !CJK.test(term) && !EMOJI.test(term) && !narrowed) {
    list.replaceChildren();
    more.hidden = true;
    say(term ? 'Type at least two letters.' : '');
    status.dataset.query = qs;
    queryCounts = null;
    countedEarly = false;
    showCounts();
    return;
  }
  const filtersLoaded = catalogueCounts !== undefined;
  // The options count what the query finds in each year, event or language, whichever is chosen now.
  const searched = await unlessChunkFailed(Promise.all([searchAll(spaced(term), filters), term && narrowed ? searchAll(spaced(term), {}) : undefined]));
  if (ticket !== latest) return;
  // The answer lacks what the index could not fetch: it would say "No talks found." of words that many have.
  if (chunkFailed) {
    unavailable();
    status.dataset.query = qs;
    return;
  }
  const [found, unfiltered] = searched;
  queryCounts = term ? (unfiltered ?? found).counts : null;
  countedEarly = queryCounts !== null && !filtersLoaded;
  // The filters came in during the search: they are counted now (else loadFilters does it when they come).
  if (countedEarly && catalogueCounts) recount();
  showCounts();
  results = found.results;
  shown = 0;
  list.replaceChildren();
  await showMore();
  if (ticket !== latest) return;
  const n = results.length;
  const pages = results.filter((result) => result.page).length;
  // Filters leave the pages out: they have no event, year or language.
  const none = pagesIndex && !narrowed ? 'No talks or pages found.' : 'No talks found.';
  if (chunkFailed) unavailable();
  else say(n === 0 ? none : `${[counted(n - pages, 'talk'), counted(pages, 'page')].filter(Boolean).join(' and ')} found.`);
  // Which query the status answers: lets scripts (and tests) tell fresh results from stale ones.
  status.dataset.query = qs;
}

input.addEventListener('input', run);
for (const select of selects) select.addEventListener('change', run);
form.addEventListener('submit', (event) => {
  event.preventDefault();
  run();
});
more.addEventListener('click', () => showMore(true));
// A deep-linked query runs first, then the filter lists load: loaded beside it, every filter's chunks (200 KB on
// the pyvideo catalogue) held up its first result by about half a second, and Pagefind's count for it lacked them.
const first = input.value || selects.some((s) => s.value) ? run() : Promise.resolve();
await first.finally(loadFilters);
