import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byRecordedThenTitle, byTitleThenSlug, categoryItem, listPages, listUrl, speakerId, speakerItems, videoListJson } from '../src/api-lists.ts';
import { build } from '../src/build.ts';
import { RECORD_FILE } from '../src/headers.ts';
import type { CatalogueEvent, CatalogueTalk } from '../src/load.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';

const talk = (id: number, recorded: string | null, title: string, added = '2020-01-01T00:00:00') => ({ id, recorded, title, added }) as CatalogueTalk;

describe('list pages', () => {
  it('splits by the endpoint page size and always has a first page', () => {
    expect(listPages('video', [])).toEqual([{ name: 'video', count: 0, page: 1, pages: 1, items: [] }]);
    const pages = listPages('video', Array.from({ length: 41 }, (_, i) => i));
    expect(pages.map((p) => p.items.length)).toEqual([20, 20, 1]);
    expect(pages.every((p) => p.count === 41 && p.pages === 3)).toBe(true);
    expect(listPages('speaker', Array.from({ length: 50 }, (_, i) => i))).toHaveLength(1);
  });

  it('orders records newest recorded first, undated last, then by title', () => {
    const sorted = [talk(1, null, 'A'), talk(2, '2020-01-01', 'B'), talk(3, '2021-01-01', 'Z'), talk(4, '2021-01-01', 'M')].sort(byRecordedThenTitle);
    expect(sorted.map((t) => t.id)).toEqual([4, 3, 2, 1]);
    expect([talk(9, '2021-01-01', 'M'), talk(7, '2021-01-01', 'M')].sort(byRecordedThenTitle).map((t) => t.id)).toEqual([7, 9]);
  });

  it('writes page links as Django REST framework does: absolute, page 1 without a query', () => {
    expect(listUrl('https://talks.example.org', 'video', 1)).toBe('https://talks.example.org/api/v2/video/');
    expect(listUrl('https://talks.example.org', 'category', 3)).toBe('https://talks.example.org/api/v2/category/?page=3');
  });

  it('links each page to the pages either side of it, and the first and last to none beyond', () => {
    const pages = listPages('video', Array.from({ length: 41 }, (_, i) => i));
    const base = 'https://talks.example.org';
    expect(pages.map((page) => JSON.parse(videoListJson(page, base, [])))).toEqual([
      { count: 41, next: `${base}/api/v2/video/?page=2`, previous: null, results: [] },
      { count: 41, next: `${base}/api/v2/video/?page=3`, previous: `${base}/api/v2/video/`, results: [] },
      { count: 41, next: null, previous: `${base}/api/v2/video/?page=2`, results: [] },
    ]);
    expect(JSON.parse(videoListJson(pages[0]!, base, ['{"id":1}', '{"id":2}'])).results).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('gives speakers ids that depend on their slug only', () => {
    const a = speakerItems([{ slug: 'ada-lovelace', names: ['Ada Lovelace'] }, { slug: 'alan-turing', names: ['Alan Turing'] }]);
    const b = speakerItems([{ slug: 'alan-turing', names: ['Alan Turing'] }]);
    expect(a.find((s) => s.slug === 'alan-turing')!.id).toBe(b[0]!.id);
    expect(Number.isSafeInteger(speakerId('x'))).toBe(true);
    expect(a.map((s) => s.name)).toEqual(['Ada Lovelace', 'Alan Turing']);
    // A–Z by slug, as the speakers index: not by code units, where " Ann" and "Żygimantas" come before "adam".
    const odd = speakerItems([{ slug: 'adam-goucher', names: ['adam goucher'] }, { slug: 'ann', names: [' Ann'] }, { slug: 'zygimantas', names: ['Żygimantas'] }]);
    expect(odd.map((s) => s.name)).toEqual(['adam goucher', ' Ann', 'Żygimantas']);
  });

  it('dates an event without `added` by its earliest talk, and lists only live talks', () => {
    const event = { slug: 'conf', title: 'Conf', description: '', url: '', start_date: null, end_date: null, whiteboard: '' } as unknown as CatalogueEvent;
    const item = categoryItem(event, [talk(5, null, 'x', '2020-05-01T00:00:00'), talk(2, null, 'y', '2019-01-01T00:00:00')]);
    expect(item).toMatchObject({ videos: [2, 5], added: '2019-01-01T00:00:00', slug: 'conf' });
    expect(categoryItem({ ...event, added: '2018-01-01T00:00:00' } as CatalogueEvent, [])).toMatchObject({ videos: [], added: '2018-01-01T00:00:00' });
  });

  it('lists events by title, then slug', () => {
    const item = (title: string, slug: string) => categoryItem({ slug, title, description: '', url: '', start_date: null, whiteboard: '' } as unknown as CatalogueEvent, []);
    const items = [item('PyCon', 'pycon-b'), item('DjangoCon', 'djangocon'), item('PyCon', 'pycon-a')].sort(byTitleThenSlug);
    expect(items.map((i) => i.slug)).toEqual(['djangocon', 'pycon-a', 'pycon-b']);
  });
});

describe('list endpoints of the demo build', () => {
  let out: string;
  let root: string;
  const read = async (rel: string) => readFile(path.join(out, rel), 'utf8');
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-lists-'));
    out = path.join(root, 'dist');
    const result = await build({ content: DEMO_CONTENT, out, templates: TEMPLATES, baseUrl: 'https://talks.example.org' });
    if (!result.ok) throw new Error(result.errors.join('\n'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('pages every published record, byte for byte as its own address serves it', async () => {
    const records = (await fg('api/v2/video/*', { cwd: out })).filter((p) => RECORD_FILE.test(p));
    const first = JSON.parse(await read('api/v2/video/page.1'));
    expect(first.count).toBe(records.length);
    expect(first.previous).toBeNull();
    expect(first.next).toBe('https://talks.example.org/api/v2/video/?page=2');
    const pages = Math.ceil(records.length / 20);
    const seen: number[] = [];
    for (let n = 1; n <= pages; n++) {
      const text = await read(`api/v2/video/page.${n}`);
      const page = JSON.parse(text);
      expect(page.results.length).toBe(n < pages ? 20 : records.length - 20 * (pages - 1));
      for (const record of page.results) expect(text).toContain(await read(`api/v2/video/${record.id}`));
      seen.push(...page.results.map((r: { id: number }) => r.id));
      if (n === pages) expect(page.next).toBeNull();
    }
    expect(seen.sort((a, b) => a - b)).toEqual(records.map((r) => Number(path.basename(r))).sort((a, b) => a - b));
    expect(await fg(`api/v2/video/page.${pages + 1}`, { cwd: out })).toEqual([]);
  });

  it('writes the last page of each list again as page.last, for ?page=last', async () => {
    for (const name of ['video', 'category', 'speaker']) {
      const numbered = (await fg(`api/v2/${name}/page.[0-9]*`, { cwd: out })).map((p) => Number(p.split('.').at(-1)));
      expect(await read(`api/v2/${name}/page.last`), name).toBe(await read(`api/v2/${name}/page.${Math.max(...numbered)}`));
    }
  });

  it('lists every event with its record URLs, and each event on its own', async () => {
    const list = JSON.parse(await read('api/v2/category/page.1'));
    expect(list.count).toBe(4);
    for (const category of list.results) {
      expect(Object.keys(category)).toEqual(['videos', 'title', 'description', 'url', 'start_date', 'whiteboard', 'slug', 'added']);
      expect(JSON.parse(await read(`api/v2/category/${category.slug}`))).toEqual(category);
      for (const url of category.videos) expect(url).toMatch(/^https:\/\/talks\.example\.org\/api\/v2\/video\/\d+$/);
    }
  });

  it('lists speakers with id, name and slug, 50 per page', async () => {
    const first = JSON.parse(await read('api/v2/speaker/page.1'));
    expect(first.results).toHaveLength(Math.min(50, first.count));
    for (const speaker of first.results) expect(Object.keys(speaker)).toEqual(['id', 'name', 'slug']);
    expect(new Set(first.results.map((s: { id: number }) => s.id)).size).toBe(first.results.length);
  });

  it('never lets text in a record become markup in a list', async () => {
    for (const file of await fg('api/v2/**/page.*', { cwd: out })) expect(await read(file)).not.toMatch(/[<>]/);
  });
});
