// The search index: Pagefind fed from the catalogue, in-process or in a thread
// of its own, and stopped cleanly when the build that wanted it is gone.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, SearchThread, writeIndex, type SearchRecord } from '../src/search.ts';
import { tempDir } from './helpers.ts';

const records = (n: number): SearchRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    url: `/video/${i}/talk-${i}/`,
    content: `Talk ${i} about ${['asyncio', 'descriptors', 'packaging', 'testing'][i % 4]} and the ${i % 97}th way to do it`,
    meta: { title: `Talk ${i}` },
    filters: { year: [String(2000 + (i % 20))] },
  }));

/** This process's children that are Pagefind, running or not yet reaped, from /proc. */
async function pagefindChildren(): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(path.join('/proc', pid, 'stat'), 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
    const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat) ?? [];
    const [state, ppid] = (rest ?? '').split(' ');
    if (comm?.startsWith('pagefind') && Number(ppid) === process.pid) found.push(`${pid} ${state}`);
  }
  return found;
}

describe('search index', () => {
  it('is the same files whether Pagefind is fed from this thread or its own', async () => {
    const [here, there] = [await tempDir('vc-search-'), await tempDir('vc-search-')];
    const files = await buildSearchIndex(records(300), here);
    expect(files).toContain('pagefind.js');
    expect(files.some((f) => f.startsWith('fragment/'))).toBe(true);
    const thread = new SearchThread();
    try {
      expect(await buildSearchIndex(records(300), there, thread)).toEqual(files);
      for (const file of files) expect(await readFile(path.join(there, file))).toEqual(await readFile(path.join(here, file)));
    } finally {
      await thread.close();
    }
  });

  it('fails rather than write an index that lacks records that were sent', async () => {
    const some = records(300);
    await expect(writeIndex([some.slice(0, 256)], some.length, await tempDir('vc-search-'))).rejects.toThrow('300 records were sent, 256 arrived');
  });

  it('stops when its build is stopped, leaves no Pagefind process behind, and builds the next index', async () => {
    const thread = new SearchThread();
    const stop = new AbortController();
    const indexing = buildSearchIndex(records(40_000), await tempDir('vc-search-'), thread, stop.signal);
    const outcome = indexing.then(
      () => 'finished',
      (err: unknown) => String(err),
    );
    while ((await pagefindChildren()).length === 0) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    expect(await outcome).toMatch(/AbortError/);
    // Reaped by the thread, which lives on: its Pagefind process is not even a zombie.
    for (let wait = 0; wait < 100 && (await pagefindChildren()).length > 0; wait++) await new Promise((r) => setTimeout(r, 20));
    expect(await pagefindChildren()).toEqual([]);
    try {
      expect(await buildSearchIndex(records(300), await tempDir('vc-search-'), thread)).toContain('pagefind.js');
      for (let wait = 0; wait < 100 && (await pagefindChildren()).length > 0; wait++) await new Promise((r) => setTimeout(r, 20));
      expect(await pagefindChildren()).toEqual([]);
    } finally {
      await thread.close();
    }
  });
});
