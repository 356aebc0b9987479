// The search index: Pagefind fed from the catalogue, in-process or in a thread
// of its own, and stopped cleanly when the build that wanted it is gone.
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadContent } from '../src/load.ts';
import { childrenNamed, running } from '../src/processes.ts';
import { buildSearchIndex, indexedText, pageSearchRecord, pagefindStopped, searchRecord, SearchThread, spaceCjkWords, spacesAdded, writeIndex, writeIndexes, type SearchRecord } from '../src/search.ts';
import { contentHashes, DEMO_CONTENT, fingerprint, ROOT, runCommand, tempDir } from './helpers.ts';

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

describe('searchRecord', () => {
  it("leaves out bidirectional formatting, which would reverse the rest of an excerpt, and marks the excerpt's language by its letters", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const record = searchRecord({ ...talk, title: 'RTL \u202eoverride\u202c and \u2067isolate\u2069', blurb: 'In \u2067English\u2069.', language: 'Hebrew' });
    expect(record.content).toMatch(/^In English\.\n—\n/);
    expect([record.filters.lang, record.filters.titleLang]).toEqual([['en'], undefined]);
    expect(searchRecord({ ...talk, title: 'פייתון', blurb: '', language: 'Hebrew' }).filters.lang).toEqual(['he']);
  });

  it("names a result's speakers as its page does: not a blank one (pyvideo has them), and each isolated, so that an override left open cannot turn round the next", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const record = searchRecord({ ...talk, title: 'T', blurb: '', speakers: ['', '\u202eRLO first', 'Second Person'], tags: [' ', 'zz'], category: 'Conf' });
    expect(record.meta.speakers).toBe('\u2068\u202eRLO first\u2069, Second Person');
    expect(record.content).toBe('RLO first, Second Person\n—\nzz\n—\nConf');
  });

  it("keeps the title out of the text a result's excerpt is cut from, in the title Pagefind searches and ranks first, its Chinese and Japanese words spaced as the text's", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const record = searchRecord({ ...talk, title: 'Five Outages', blurb: 'Incidents.', speakers: ['Ann Lee'], tags: [], category: 'Conf' });
    expect([record.content, record.meta.title, record.meta.heading]).toEqual(['Incidents.\n—\nAnn Lee\n—\nConf', 'Five Outages', undefined]);
    const japanese = searchRecord({ ...talk, title: 'Raspberry Pi で鴨川の水位を見守る', blurb: 'Sensors.' });
    expect([japanese.meta.title, japanese.meta.heading]).toEqual(['Raspberry Pi で 鴨川 の 水位 を 見守る', 'Raspberry Pi で鴨川の水位を見守る']);
    expect(japanese.content).not.toContain('水位');
  });

  // In one line of names set left to right, the "!" that ends a Hebrew name stood on its other side, by the comma.
  it("isolates each of a result's speakers written right to left, as the talk's lists set each apart", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const record = searchRecord({ ...talk, speakers: ['Ann Lee', 'דוד כהן!', 'مريم'] });
    expect(record.meta.speakers).toBe('Ann Lee, \u2068דוד כהן!\u2069, \u2068مريم\u2069');
    expect(record.content).toContain('Ann Lee, דוד כהן!, مريم');
  });

  it("tags a result's speakers with their language where each name has the same, as the talk's page tags each, and names of several with none", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const speakersLang = (speakers: string[], language: string) => searchRecord({ ...talk, speakers, language }).filters.speakersLang;
    expect(speakersLang(['山田 花子', '佐藤 健太'], 'Japanese')).toEqual(['ja']);
    expect([speakersLang(['山田 花子', 'Emily Carter'], 'Japanese'), speakersLang(['山田 花子'], 'English'), speakersLang(['Ann Lee'], 'Japanese'), speakersLang([], 'Japanese')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('indexedText', () => {
  // Pagefind weighs a match in the text by how much of the word it is, and a match in the meta alike for any word it starts.
  it("puts the title's words before the text, as the search page counts them from the title (spaced, without bidirectional formatting), to cut the excerpt after them", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    const record = searchRecord({ ...talk, title: 'Five Outages', blurb: 'Incidents.', speakers: ['Ann Lee'], tags: [], category: 'Conf' });
    expect(indexedText(record)).toBe('Five Outages\n—\nIncidents.\n—\nAnn Lee\n—\nConf');
    const japanese = searchRecord({ ...talk, title: '\u202e鴨川の水位 ', blurb: 'Sensors.', speakers: [], tags: [], category: 'Conf' });
    expect(indexedText(japanese)).toBe('鴨川 の 水位\n—\nSensors.\n—\nConf');
    const page = (await loadContent(DEMO_CONTENT)).catalogue.pages[0]!;
    expect(indexedText(pageSearchRecord({ ...page, title: 'About us', description: 'Who we are', body: 'Text.' }))).toBe('About us\n—\nWho we are\nText.');
  });
});

describe('pageSearchRecord', () => {
  it("leaves out bidirectional formatting, as a talk's record does: an override in a page's text reversed the rest of its excerpt", async () => {
    const page = (await loadContent(DEMO_CONTENT)).catalogue.pages[0]!;
    const record = pageSearchRecord({ ...page, title: 'About \u202eus', description: 'Who \u2067we\u2069 are', body: 'The \u202bbody\u202c text.' });
    expect(record.content).toBe('Who we are\nThe body text.');
    expect(record.meta.title).toBe('About \u202eus');
  });
});

describe('search index', () => {
  it('is the same files whether Pagefind is fed from this thread or its own, shard by shard', async () => {
    const [here, there] = [await tempDir('vc-search-'), await tempDir('vc-search-')];
    const all = records(500);
    const shards = (dir: string) => [
      { records: all.slice(0, 300), dir: path.join(dir, '0') },
      { records: all.slice(300), dir: path.join(dir, '1') },
    ];
    const files = await buildSearchIndex(shards(here));
    expect(files).toHaveLength(2);
    for (const shard of files) {
      expect(shard).toContain('pagefind.js');
      expect(shard.some((f) => f.startsWith('fragment/'))).toBe(true);
    }
    // Each shard holds its own records: its filter lists the years of those alone.
    const entries = await Promise.all(['0', '1'].map(async (n) => JSON.parse(await readFile(path.join(here, n, 'pagefind-entry.json'), 'utf8'))));
    expect(entries.map((entry) => entry.languages.en.page_count)).toEqual([300, 200]);
    const thread = new SearchThread();
    try {
      expect(await buildSearchIndex(shards(there), thread)).toEqual(files);
      for (const [n, shard] of files.entries()) for (const file of shard) expect(await readFile(path.join(there, String(n), file))).toEqual(await readFile(path.join(here, String(n), file)));
    } finally {
      await thread.close();
    }
  });

  it('fails rather than write an index that lacks records that were sent, or leave records out', async () => {
    const some = records(300);
    await expect(writeIndex([some.slice(0, 256)].values(), some.length, await tempDir('vc-search-'))).rejects.toThrow('300 records were sent, 256 arrived');
    const dir = await tempDir('vc-search-');
    await expect(writeIndexes([some.slice(0, 256), some.slice(256)], [{ count: 256, dir: path.join(dir, '0') }], undefined)).rejects.toThrow('more records were sent than its shards hold');
  });

  it("fails, rather than wait for ever, when Pagefind's process is stopped from outside (Ctrl+C in a terminal reaches it too)", async () => {
    const many = records(40_000);
    const batches = Array.from({ length: Math.ceil(many.length / 500) }, (_, i) => many.slice(i * 500, i * 500 + 500));
    const writing = writeIndex(batches.values(), many.length, await tempDir('vc-search-'));
    const outcome = writing.then(
      () => 'finished',
      (err: unknown) => String(err),
    );
    let children: string[] = [];
    while ((children = await pagefindChildren()).length === 0) await new Promise((r) => setTimeout(r, 20));
    process.kill(Number(children[0]!.split(' ')[0]), 'SIGINT');
    expect(await outcome).toMatch(/search index: Pagefind's process \(\d+\) stopped before the index was written/);
  });

  it("says once that Pagefind's process stopped, without its client's stack trace for each record then on its way (a screenful on Ctrl+C in a terminal)", async () => {
    const logged = vi.spyOn(console, 'error');
    try {
      const many = records(1000);
      // Pagefind's process ends between two batches, as a Ctrl+C meets it while the records go.
      function* batches() {
        yield many.slice(0, 500);
        const pid = childrenNamed(process.pid, ['pagefind', 'pagefind_extend']).at(-1)!;
        process.kill(pid, 'SIGINT');
        while (running(pid));
        yield many.slice(500);
      }
      await expect(writeIndex(batches(), many.length, await tempDir('vc-search-'))).rejects.toThrow(/search index: Pagefind's process \(\d+\) stopped before the index was written/);
      // Its client's writes fail one after another once the pipe is gone.
      await new Promise((r) => setTimeout(r, 200));
      expect(logged.mock.calls.filter(([first]) => first === 'Service stopped')).toEqual([]);
    } finally {
      logged.mockRestore();
    }
  });

  it("fails a build with its message and exit code 1, rather than end it silently, when Pagefind's process ends as it writes the index (as on a full disk)", async () => {
    const dir = await tempDir('vc-search-');
    const [content, out] = [path.join(dir, 'content'), path.join(dir, 'dist')];
    await cp(DEMO_CONTENT, content, { recursive: true });
    const args = (out: string, cache: string) => ['--content', content, '--out', out, '--cache', cache];
    expect(runCommand('build', args(out, path.join(dir, 'cache'))).status).toBe(0);
    const before = await fingerprint(out);
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: "Indexed again"'));
    // The pages were written by then, and nothing but Pagefind's pipes kept the process alive: it ended as they
    // closed, with exit code 0 and no word, leaving its temporary files, its staging folder and its lock.
    const failed = runCommand('build', args(out, path.join(dir, 'cache')), { node: ['--import', path.join(ROOT, 'test', 'fixtures', 'pagefind-dies.mjs')] });
    expect(failed.stderr).toMatch(/^build: search index: Pagefind's process \(\d+\) stopped before the index was written$/m);
    expect(failed.status).toBe(1);
    expect(await fingerprint(out)).toEqual(before);
    expect((await readdir(dir)).sort()).toEqual(['cache', 'content', 'dist']);
    expect(runCommand('build', args(out, path.join(dir, 'cache'))).status).toBe(0);
    expect(runCommand('build', args(path.join(dir, 'clean'), path.join(dir, 'clean-cache'))).status).toBe(0);
    expect(await contentHashes(out)).toEqual(await contentHashes(path.join(dir, 'clean')));
  });

  it('stops when its build is stopped, leaves no Pagefind process behind, and builds the next index', async () => {
    const thread = new SearchThread();
    const stop = new AbortController();
    const indexing = buildSearchIndex([{ records: records(40_000), dir: await tempDir('vc-search-') }], thread, stop.signal);
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
      expect((await buildSearchIndex([{ records: records(300), dir: await tempDir('vc-search-') }], thread))[0]).toContain('pagefind.js');
      for (let wait = 0; wait < 100 && (await pagefindChildren()).length > 0; wait++) await new Promise((r) => setTimeout(r, 20));
      expect(await pagefindChildren()).toEqual([]);
    } finally {
      await thread.close();
    }
  });
});

describe("Pagefind's process stopping", () => {
  // It panics when a write of its fails (a full disk), and says why only on its own stderr.
  it('is told as a full disk, with the folder and what to do, when the disk it wrote to has next to no space left', () => {
    expect(pagefindStopped(4242, '/srv/dist.staging-search', 12 * 1024)).toBe(
      "search index: Pagefind's process (4242) stopped before the index was written: the disk that holds /srv/dist.staging-search is full (12 KiB free); free some space there and build again",
    );
    expect(pagefindStopped(4242, '/srv/dist.staging-search', 5e9)).toBe("search index: Pagefind's process (4242) stopped before the index was written");
    expect(pagefindStopped(4242, '/srv/dist.staging-search', undefined)).toBe("search index: Pagefind's process (4242) stopped before the index was written");
  });
});

describe('spaceCjkWords', () => {
  it('puts spaces around the words of Chinese and Japanese runs, and leaves other text as it is', () => {
    expect(spaceCjkWords('NEologdで作るサーバレス日本語形態素解析API')).toBe('NEologd で 作る サーバ レス 日本語 形態素 解析 API');
    expect(spaceCjkWords('Raspberry Pi で鴨川の水位を見守る')).toBe('Raspberry Pi で 鴨川 の 水位 を 見守る ');
    expect(spaceCjkWords('Café über 한국어 text')).toBe('Café über 한국어 text');
  });
});

describe('spacesAdded', () => {
  it('marks each space between the words that spaceCjkWords put there (+), where the text has none, apart from its own (-)', () => {
    const text = 'Pythonで機械学習 and 山田 花子';
    expect(spaceCjkWords(text)).toBe('Python で 機械 学習 and 山田 花子 ');
    expect(spacesAdded(text, spaceCjkWords(text))).toBe('+++');
    expect(spacesAdded('Raspberry Pi で鴨川', spaceCjkWords('Raspberry Pi で鴨川'))).toBe('--+');
    expect(spacesAdded('plain text', 'plain text')).toBe('');
    // A line break between Japanese sentences is no space as the text is read, nor a space after a full stop (a line break
    // an excerpt folded); one before a dash or Latin word is.
    const lines = 'ハンズオンです。\nブラウザ\nだけで。 参加\n—\nAnn';
    expect(spacesAdded(lines, spaceCjkWords(lines))).toBe('++++++++');
  });

  it("is a record's meta where the index spaced its text, and absent where not", async () => {
    const talk = (await loadContent(DEMO_CONTENT)).catalogue.talks[0]!;
    expect(searchRecord({ ...talk, blurb: 'Pythonで機械学習', speakers: ['山田 花子'], tags: [], category: 'Conf' }).meta.joined).toBe('+++');
    expect(searchRecord({ ...talk, blurb: 'Plain text.', speakers: ['Ann Lee'], tags: [], category: 'Conf' }).meta.joined).toBeUndefined();
    const page = (await loadContent(DEMO_CONTENT)).catalogue.pages[0]!;
    expect(pageSearchRecord({ ...page, description: '鴨川の水位', body: '' }).meta.joined).toBe('++');
  });
});
