// Where the search index lives in the output: a folder per shard, as the
// build writes them and the search page lists them. Kept apart from the
// indexing itself, so that what needs the layout does not load Pagefind.

/** Where the index lives in the output: a folder per shard (see searchIndexes). */
export const SEARCH_DIR = 'pagefind';

/**
 * Talks per index. Pagefind holds an index whole in memory until it is written, about 45 KB a
 * record (measured: 235 MB at 5,000, 450 MB at 10,000, 935 MB at 21,713, 5 GB at 108,565), so a
 * larger catalogue is indexed in shards of at most this many talks, one after another, and the
 * search page searches them all. Not smaller: each shard costs the browser its own copy of
 * Pagefind and a few requests a query, and scores from different shards compare less well than
 * scores from one index. The pyvideo catalogue (21,713 talks) stays one index.
 */
export const SEARCH_SHARD_SIZE = 25_000;

/** How many shards `total` talks make; an empty catalogue still has one, empty index. */
export const shardCount = (total: number, size = SEARCH_SHARD_SIZE) => Math.max(1, Math.ceil(total / size));

/**
 * The shards' folders under SEARCH_DIR, as the search page lists them: newest first. Shard 0 holds
 * the oldest talks, so that new talks fill the last shard or start one, and leave the others as
 * they were. The page puts results of equal score in the order of their shards: results found by
 * filters alone then come newest first, as from one index.
 */
export function searchIndexes(total: number, size = SEARCH_SHARD_SIZE): string[] {
  const count = shardCount(total, size);
  return Array.from({ length: count }, (_, i) => `/${shardDir(count - 1 - i)}/`);
}

/**
 * The index of the site's own pages (About and the like), beside the talks' shards: an index of its
 * own, so that editing a page does not index a shard of 25,000 talks again, and the search page
 * can tell a page found from a talk.
 */
export const PAGES_INDEX = `${SEARCH_DIR}/pages`;

/** Shard `n`'s folder in the output. */
export const shardDir = (n: number) => `${SEARCH_DIR}/${n}`;

/** The shard folder (`pagefind/<n>`) a file of the output's index belongs to. */
export function shardOf(file: string): string {
  const end = file.indexOf('/', SEARCH_DIR.length + 1);
  return end < 0 ? file : file.slice(0, end);
}
