// The static search index: built by Pagefind from the same catalogue as the
// pages (never by crawling them), so it cannot drift out of sync with the site.
// Pagefind splits the index into small chunks the browser fetches on demand,
// which keeps a first query on a large catalogue well under a megabyte.
import { statfsSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import fg from 'fast-glob';
import * as pagefind from 'pagefind';
import type { CataloguePage, CatalogueTalk } from './load.ts';
import { blurb } from './markdown.ts';
import { sitePagePath } from './pages.ts';
import { childrenNamed, running } from './processes.ts';
import { threadEntry } from './program.ts';
import { named, talkPath } from './collections.ts';
import { nameLanguageTag, textLanguageTag } from './languages.ts';
import { isolatedAmongWords, withoutBidiFormatting } from './bidi.ts';

/** The names Pagefind's service process runs under, as /proc shows them (cut at 15 characters). */
const PAGEFIND_PROGRAMS = ['pagefind', 'pagefind_extend'];

/** One searchable talk: its text, which a result's excerpt is cut from (Pagefind indexes it after the title: indexedText), what a result shows, and the filters. */
export interface SearchRecord {
  url: string;
  content: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
}

/** A character of Chinese or Japanese script, which are written without spaces between words. */
const CJK = '[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}]';
const CJK_RUN = new RegExp(`${CJK}+`, 'gu');
/** A Chinese or Japanese character that ends a text, and one that starts it at lastIndex. */
const CJK_LAST = new RegExp(`${CJK}$`, 'u');
const CJK_NEXT = new RegExp(CJK, 'uy');
const cjkWords = new Intl.Segmenter('ja', { granularity: 'word' });
/**
 * The blocks of kana and ideographs (those past U+FFFF by their surrogates): a cheap first look. A text
 * without them has no run worth splitting, only marks the scripts share with others (·, tone letters).
 */
const MAYBE_CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\ud82c\ud840-\ud8bf]/;

/**
 * Text with spaces around the words of its Chinese and Japanese runs. Pagefind indexes every talk
 * as English (one index finds them all), whose words end at spaces: a run was one word, and a word
 * inside it (日本語 in サーバレス日本語形態素解析) could not be found. The search page splits a
 * query the same way (templates/assets/search.js).
 */
export function spaceCjkWords(text: string): string {
  // Most talks have none: a plain class finds that in a fraction of the time the script properties take.
  if (!MAYBE_CJK.test(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${Array.from(cjkWords.segment(run), (s) => s.segment).join(' ')} `).replace(/ {2,}/g, ' ');
}

/** Where Pagefind ends a word in a record's text: at white space, as the search page counts words (wordsOf in templates/assets/search.js). */
const WORD_BREAK = /[^\S\uFEFF]+/;

/** A Chinese or Japanese comma or full stop that ends a text: such text puts no space after one. */
const CJK_STOP_LAST = /[、。！？]$/u;

/**
 * Whether the white space of `text` from `start` to `end` is none as the text is read: none at all, or a line break
 * between Chinese or Japanese characters (as CSS drops one there), or a space after their comma or full stop, which is
 * such a line break a summary's excerpt folded ("です。 ブラウザ" of two lines).
 */
function readAsNone(text: string, start: number, end: number): boolean {
  if (start === end) return true;
  CJK_NEXT.lastIndex = end;
  if (!CJK_NEXT.test(text)) return false;
  const before = text.slice(Math.max(0, start - 2), start);
  return CJK_STOP_LAST.test(before) || (text.slice(start, end).includes('\n') && CJK_LAST.test(before));
}

/**
 * Which of the spaces between the words of `spaced` (`text` as spaceCjkWords spaced it) the text has not: one mark
 * for each, in order, `+` for a space spaceCjkWords put there (or a line break between Japanese sentences) and `-` for
 * the text's own (the last `-`s left out), so that the search page can show an excerpt as written ("Pythonで機械学習",
 * not "Python で 機械 学習", and "山田 花子" with its space). Marks alone: Pagefind indexes no word of them, where it
 * would of the text as written.
 */
export function spacesAdded(text: string, spaced: string): string {
  let marks = '';
  let at = 0;
  for (const word of spaced.split(WORD_BREAK).filter(Boolean)) {
    // The words are the text's, in order, with nothing but white space between them there.
    const found = text.indexOf(word, at);
    if (at > 0) marks += readAsNone(text, at, found) ? '+' : '-';
    at = found + word.length;
  }
  return marks.replace(/-+$/, '');
}

/** A record's text as Pagefind indexes it (spaceCjkWords), and the meta that tells the search page which of its spaces the text has not (`joined`: spacesAdded). */
function spacedText(text: string): { content: string; meta: Record<string, string> } {
  const content = spaceCjkWords(text);
  const joined = content === text ? '' : spacesAdded(text, content);
  return { content, meta: joined ? { joined } : {} };
}

/**
 * Between the fields of a record's text. A result's excerpt is its text around a match, one line
 * to Pagefind, so the fields are told apart by a dash (not a dot: "·" is also a Chinese
 * character's mark, which spaceCjkWords spaces as a word of its own). The summary starts a record's
 * text, after the title Pagefind indexes before it (indexedText), and the fields a result shows of its
 * own come last.
 */
const FIELD_BREAK = '\n—\n';

/**
 * A result's title as Pagefind's `title` meta, which the result shows and indexedText puts before the
 * record's text: its Chinese and Japanese words spaced as the text's are, the title as written beside
 * it (`heading`, which the result shows) where that differs.
 */
function titleMeta(title: string): Record<string, string> {
  const words = spaceCjkWords(title).trim();
  return words === title ? { title } : { title: words, heading: title };
}

/**
 * The BCP 47 tag of a result's line of speakers, one text, where every name has the same and it is not the site's English
 * (see nameLanguageTag): a filter the page never offers, as `lang` is. Names of several languages take none.
 */
function speakersLang(speakers: readonly string[], language: string): { speakersLang?: string[] } {
  const tags = speakers.map((name) => nameLanguageTag(name, language));
  return tags[0] !== undefined && tags.every((tag) => tag === tags[0]) ? { speakersLang: [tags[0]] } : {};
}

export function searchRecord(talk: CatalogueTalk): SearchRecord {
  // The excerpt is mostly the summary's words (where there is none, the names, tags and event, whose language the title's letters tell best): marked as the talk page marks each.
  const lang = textLanguageTag(talk.blurb || talk.title, talk.language);
  const titleLang = textLanguageTag(talk.title, talk.language);
  const speakers = named(talk.speakers);
  // Bidirectional formatting is no word to search: an override in a summary would reverse the rest of an excerpt.
  const { content, meta } = spacedText(withoutBidiFormatting([talk.blurb, speakers.join(', '), named(talk.tags).join(', '), talk.category].filter(Boolean).join(FIELD_BREAK)));
  return {
    url: talkPath(talk),
    content,
    meta: {
      ...titleMeta(talk.title),
      ...meta,
      // One line of text in a result: a name's override left open would turn round the names after it, and the "!" that ends a Hebrew name would stand by the comma before it.
      speakers: speakers.map(isolatedAmongWords).join(', '),
      event: talk.category,
      recorded: talk.recorded ?? '',
      language: talk.language,
    },
    filters: {
      event: [talk.category],
      year: talk.recorded ? [talk.recorded.slice(0, 4)] : [],
      language: [talk.language],
      // The BCP 47 tag of the result's excerpt (see textLanguageTag), for its `lang`: a filter the page never offers, as in meta it would be a word found by "ja".
      lang: [lang],
      // A title in the site's English where the talk's language has letters of its own, as its page marks it (textLanguageTag).
      ...(titleLang !== lang ? { titleLang: [titleLang] } : {}),
      ...speakersLang(speakers, talk.language),
    },
  };
}

/**
 * One of the site's own pages, whole: pages are few. It has none of the talks' filters, so a search
 * narrowed to an event, a year or a language leaves it out; `kind` is what its result shows in the
 * line where a talk's shows its speakers and event.
 */
export function pageSearchRecord(page: CataloguePage): SearchRecord {
  // As a talk's: an override in its text would reverse the rest of the excerpt.
  const { content, meta } = spacedText(withoutBidiFormatting([page.description, blurb(page.body, Number.POSITIVE_INFINITY)].filter(Boolean).join('\n')));
  return {
    url: sitePagePath(page.slug),
    content,
    meta: { ...titleMeta(page.title), ...meta, kind: 'Page' },
    filters: {},
  };
}

/**
 * The text Pagefind indexes of a record: its title's words, then its text. A match in the meta counts
 * alike for a whole word and a word it only starts ("DjangoCon" for "django", "Gill" for "gil"); a
 * match in the text is ranked by how much of the word it is, so that a word of the title ranks its
 * talk above one whose title only has a longer word. The search page cuts a result's excerpt from
 * after the title's words and the break (excerptOf in templates/assets/search.js), counted from the
 * title meta, as they are written here.
 */
export const indexedText = (record: SearchRecord): string => `${withoutBidiFormatting(record.meta.title ?? '').trim()}${FIELD_BREAK}${record.content}`;

/**
 * Fragments (what a result shows of a talk) go one to a file up to this many talks; beyond, Pagefind
 * bundles them into at most a tenth as many files: on the pyvideo import 1,974 files instead of 21,713,
 * an eighth less of Pagefind's work writing them, and fewer files to upload (hosts limit them).
 * A result then fetches its neighbours' fragments too, a few KB.
 */
const FRAGMENT_FILES_FROM = 1000;
export const fragmentFiles = (records: number) => Math.max(FRAGMENT_FILES_FROM, Math.ceil(records / 10));

// Pagefind's UI bundles are not used: the search page has a small script of its own.
const KEEP = /^(pagefind\.js|pagefind-worker\.js|pagefind-entry\.json|pagefind\.[\w-]+\.pf_meta|wasm\.en\.pagefind|(fragment|index|filter)\/.+)$/;

/** Records handed to Pagefind at a time: it answers over a pipe, and many requests in flight hide its round trips. */
const IN_FLIGHT = 256;

/** One shard to index: its records, and the fresh folder its files go to. */
interface ShardInput {
  records: SearchRecord[];
  dir: string;
}

/** What writeIndexes needs to know of the shards besides their records. */
const countsOf = (shards: ShardInput[]) => shards.map(({ records, dir }) => ({ count: records.length, dir }));

/** The records of each shard in batches of IN_FLIGHT, shard after shard; no batch holds records of two shards. */
function* batchesOf(shards: ShardInput[]): Generator<SearchRecord[]> {
  for (const { records } of shards) for (let i = 0; i < records.length; i += IN_FLIGHT) yield records.slice(i, i + IN_FLIGHT);
}

/**
 * Builds one index into `dir`, a fresh folder, from the next `count` records
 * of `batches`, and returns the paths of the files the site serves, relative
 * to it and sorted. Pagefind writes them itself: handed over as data
 * (base64-encoded, in one message), a large index would be held in memory
 * whole, several times over. Pagefind is closed when it is done, and with it
 * the index it held.
 */
export async function writeIndex(batches: Iterator<SearchRecord[]>, count: number, dir: string, signal?: AbortSignal): Promise<string[]> {
  quietPagefindStops();
  // Every record is indexed as English text: talks in many languages share one index, so one query finds them all.
  const { index, errors } = await pagefind.createIndex({ forceLanguage: 'en', maxFragments: fragmentFiles(count) });
  const stop = () => void pagefind.close();
  // Ctrl+C in a terminal signals Pagefind's process too, and Pagefind's client would wait on it for
  // ever (it does not watch its process): once it is gone, closing the client fails what waits.
  const service = childrenNamed(process.pid, PAGEFIND_PROGRAMS).at(-1);
  let gone = false;
  // Not unreferenced: once Pagefind's process is gone (it panics on a full disk as it writes), its client's
  // pipes no longer hold this process alive, which would end with exit code 0 and nothing said.
  const watch = service === undefined ? undefined : setInterval(() => running(service) || ((gone = true), stop()), 250);
  try {
    if (!index) throw new Error(`search index: ${errors.join('; ')}`);
    let added = 0;
    // The batches of the next shard follow: no more are taken than this one's.
    while (added < count) {
      const batch = batches.next();
      if (batch.done) break;
      signal?.throwIfAborted();
      const replies = await Promise.all(batch.value.map((record) => index.addCustomRecord({ ...record, content: indexedText(record), language: 'en' })));
      const failed = replies.flatMap((r) => r.errors);
      if (failed.length > 0) throw new Error(`search index: ${failed.join('; ')}`);
      added += batch.value.length;
    }
    if (added !== count) throw new Error(`search index: ${count} records were sent, ${added} arrived`);
    signal?.throwIfAborted();
    // Writing takes seconds on a large catalogue: a stop then closes Pagefind, which fails the write. Not while
    // records are still being sent (a stop waits for the batch in flight): writes cut off make Pagefind's client log errors.
    signal?.addEventListener('abort', stop);
    const written = await index.writeFiles({ outputPath: dir });
    signal?.throwIfAborted();
    if (written.errors.length > 0) throw new Error(`search index: ${written.errors.join('; ')}`);
    return (await fg('**/*', { cwd: dir, onlyFiles: true })).filter((name) => KEEP.test(name)).sort();
  } catch (err) {
    // The reason it stopped, rather than what stopping Pagefind did to its reply.
    signal?.throwIfAborted();
    // Pagefind's client may see its process's pipes close before the watch looks: asked again here.
    if (gone || (service !== undefined && !running(service))) throw new Error(pagefindStopped(service, dir, freeSpace(dir)));
    throw err;
  } finally {
    clearInterval(watch);
    signal?.removeEventListener('abort', stop);
    await pagefind.close();
  }
}

/** The console.error that quietPagefindStops put in place last. */
let quietLog: typeof console.error | undefined;

/**
 * Pagefind's client logs each of its writes that fails once its process is gone (`Service stopped` and a stack
 * trace: one for every record on its way when Ctrl+C in a terminal signals its process too, a screenful), then
 * fails what waits. writeIndex says once why the index stopped (see pagefindStopped), so those are left out;
 * the console is the client's only way of saying them. Left in place: its last writes may fail after writeIndex.
 */
function quietPagefindStops(): void {
  if (console.error === quietLog) return;
  const log = console.error;
  quietLog = (...args: unknown[]) => {
    if (args[0] !== 'Service stopped' || (args[1] as NodeJS.ErrnoException | undefined)?.code !== 'EPIPE') log.apply(console, args);
  };
  console.error = quietLog;
}

/** Space left on the disk under which Pagefind's process stopping is taken for the disk's being full: a write it failed took the rest. */
const NEARLY_FULL = 1024 * 1024;

/** The bytes the build's user may still write on the disk that holds `dir`; undefined when that cannot be told. */
function freeSpace(dir: string): number | undefined {
  try {
    const disk = statfsSync(dir);
    return disk.bavail * disk.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Why Pagefind's process `service` stopped, as far as the disk it was writing `dir` to tells: it panics when a
 * write fails (a full disk), saying so only on its own stderr, where a build's output showed only that it stopped.
 */
export function pagefindStopped(service: number | undefined, dir: string, free: number | undefined): string {
  const stopped = `search index: Pagefind's process (${service}) stopped before the index was written`;
  if (free === undefined || free >= NEARLY_FULL) return stopped;
  return `${stopped}: the disk that holds ${dir} is full (${Math.round(free / 1024)} KiB free); free some space there and build again`;
}

/** Builds the shards one after another (see writeIndex), each from its `count` records of `batches`; the files of each shard. */
export async function writeIndexes(batches: Iterable<SearchRecord[]>, shards: { count: number; dir: string }[], signal?: AbortSignal): Promise<string[][]> {
  const next = batches[Symbol.iterator]();
  const files: string[][] = [];
  for (const { count, dir } of shards) files.push(await writeIndex(next, count, dir, signal));
  if (!next.next().done) throw new Error('search index: more records were sent than its shards hold');
  return files;
}

/**
 * A thread of its own for feeding Pagefind its records over a pipe, which
 * takes an event loop: the main thread's is busy planning the site meanwhile.
 * One thread serves every build of its owner: a thread that ends leaves its
 * Pagefind process unreaped (nodejs/node#46569), a zombie for as long as a
 * long-running owner such as the dev server lives.
 */
export class SearchThread {
  private worker: Worker | undefined;

  /**
   * See writeIndexes; one build at a time. The records go in batches on a port
   * of their own, which the thread reads a batch at a time (receiveMessageOnPort)
   * as Pagefind takes them: until then they wait there serialised, and
   * neither thread holds them all as objects while Pagefind indexes (at
   * 100,000 talks, 140 MB).
   */
  build(shards: ShardInput[], signal?: AbortSignal): Promise<string[][]> {
    const worker = this.worker ?? this.start();
    // Only a thread at work keeps the process alive: an owner that never closes it still exits.
    worker.ref();
    const { port1, port2 } = new MessageChannel();
    for (const batch of batchesOf(shards)) port1.postMessage(batch);
    worker.postMessage({ records: port2, shards: countsOf(shards) }, [port2]);
    return new Promise<string[][]>((resolve, reject) => {
      const stop = () => worker.postMessage({ stop: true });
      const settle = () => {
        port1.close();
        signal?.removeEventListener('abort', stop);
        worker.off('message', onReply).off('error', reject).off('exit', onExit);
        worker.unref();
      };
      const onReply = (reply: { files?: string[][]; error?: string }) => {
        settle();
        if (reply.files) resolve(reply.files);
        else reject(signal?.aborted ? signal.reason : new Error(reply.error));
      };
      const onExit = (code: number) => {
        settle();
        reject(new Error(`search index: its thread stopped (exit code ${code})`));
      };
      worker.on('message', onReply).once('error', reject).once('exit', onExit);
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop);
    });
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(threadEntry('search-worker'));
    // A thread that died is replaced by the next build; its error, if any, goes to the build it served, and must not take the process down when it served none.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }
}

/** The batches posted on `port` (see SearchThread.build), each read when it is needed. */
export function* received(port: MessagePort): Generator<SearchRecord[]> {
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) yield next.message as SearchRecord[];
}

/** Builds the shards' indexes (see writeIndexes), in `thread` if given, else fed by this thread's event loop. */
export function buildSearchIndex(shards: ShardInput[], thread?: SearchThread, signal?: AbortSignal): Promise<string[][]> {
  return thread ? thread.build(shards, signal) : writeIndexes(batchesOf(shards), countsOf(shards), signal);
}
