// The search index's layout: shards counted from the oldest talk, listed newest first.
import { describe, expect, it } from 'vitest';
import { searchIndexes, shardCount, shardOf } from '../src/search-shards.ts';

describe('searchIndexes', () => {
  it('lists the shards newest first, and one for an empty catalogue', () => {
    expect(searchIndexes(7, 3)).toEqual(['/pagefind/2/', '/pagefind/1/', '/pagefind/0/']);
    expect(searchIndexes(6, 3)).toEqual(['/pagefind/1/', '/pagefind/0/']);
    expect(searchIndexes(0)).toEqual(['/pagefind/0/']);
    expect(shardCount(25_001)).toBe(2);
  });
});

describe('shardOf', () => {
  it('gives the shard folder of an index file, however deep', () => {
    expect(shardOf('pagefind/0/pagefind.js')).toBe('pagefind/0');
    expect(shardOf('pagefind/12/fragment/en_abc.pf_fragment')).toBe('pagefind/12');
    // A file of no shard (an index from before shards) is a folder of its own, which no shard matches.
    expect(shardOf('pagefind/pagefind.js')).toBe('pagefind/pagefind.js');
  });
});
