// The static search index: built by Pagefind from the same catalogue as the
// pages (never by crawling them), so it cannot drift out of sync with the site.
// Pagefind splits the index into small chunks the browser fetches on demand,
// which keeps a first query on a large catalogue well under a megabyte.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fg from 'fast-glob';
import * as pagefind from 'pagefind';
import type { CatalogueTalk } from './load.ts';
import { talkPath } from './render.ts';

/** Where the index lives in the output; the search page loads `/pagefind/pagefind.js`. */
export const SEARCH_DIR = 'pagefind';

/** One searchable talk: the text Pagefind indexes, what a result shows, and the filters. */
export interface SearchRecord {
  url: string;
  content: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
}

export function searchRecord(talk: CatalogueTalk): SearchRecord {
  return {
    url: talkPath(talk),
    content: [talk.title, talk.speakers.join(', '), talk.tags.join(', '), talk.category, talk.blurb].filter(Boolean).join('\n'),
    meta: {
      title: talk.title,
      speakers: talk.speakers.join(', '),
      event: talk.category,
      recorded: talk.recorded ?? '',
      language: talk.language,
    },
    filters: {
      event: [talk.category],
      year: talk.recorded ? [talk.recorded.slice(0, 4)] : [],
      language: [talk.language],
    },
  };
}

// Pagefind's UI bundles are not used: the search page has a small script of its own.
const KEEP = /^(pagefind\.js|pagefind-worker\.js|pagefind-entry\.json|pagefind\.[\w-]+\.pf_meta|wasm\.en\.pagefind|(fragment|index|filter)\/.+)$/;

/**
 * Writes the index into `folder` (an empty folder on the output's file system,
 * see scratchFolder) and returns its files, as paths under SEARCH_DIR, sorted.
 * Pagefind writes the files itself: handing them over its pipe would hold the
 * whole index in memory at once, base64-encoded (about 90 MB on the pyvideo
 * import, five times that at five times the talks).
 */
export async function writeSearchIndex(records: SearchRecord[], folder: string): Promise<string[]> {
  try {
    // Every record is indexed as English text: talks in many languages share one index, so one query finds them all.
    const { index, errors } = await pagefind.createIndex({ forceLanguage: 'en' });
    if (!index) throw new Error(`search index: ${errors.join('; ')}`);
    // Pagefind answers over a pipe: many requests in flight hide its round trips.
    const IN_FLIGHT = 256;
    for (let i = 0; i < records.length; i += IN_FLIGHT) {
      const replies = await Promise.all(records.slice(i, i + IN_FLIGHT).map((record) => index.addCustomRecord({ ...record, language: 'en' })));
      const failed = replies.flatMap((r) => r.errors);
      if (failed.length > 0) throw new Error(`search index: ${failed.join('; ')}`);
    }
    const result = await index.writeFiles({ outputPath: path.join(folder, SEARCH_DIR) });
    if (result.errors.length > 0) throw new Error(`search index: ${result.errors.join('; ')}`);
    return (await fg('**/*', { cwd: path.join(folder, SEARCH_DIR), onlyFiles: true }))
      .filter((name) => KEEP.test(name))
      .map((name) => `${SEARCH_DIR}/${name}`)
      .sort();
  } finally {
    await pagefind.close();
  }
}

/**
 * Writes the index, with `thread` in a worker thread of its own: Pagefind is
 * fed its records over a pipe by an event loop, and the main thread's is busy
 * planning the site meanwhile.
 */
export function buildSearchIndex(records: SearchRecord[], folder: string, thread = false): Promise<string[]> {
  if (!thread) return writeSearchIndex(records, folder);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./search-worker.mjs', import.meta.url), { workerData: { records, folder } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`search index: its thread stopped (exit code ${code})`)));
  });
}
