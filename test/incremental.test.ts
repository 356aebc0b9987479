// Incremental builds: after any sequence of edits the output is byte-identical
// to a clean build, and only the files that depend on the change are written.
import { spawn } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { cp, link, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fg from 'fast-glob';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { build, saveState, type BuildMemory, type BuildSummary } from '../src/build.ts';
import { WatchedListing } from '../src/listing.ts';
import { folderId, Patch } from '../src/output.ts';
import { TERMS_ON_ONE_PAGE, TERMS_PAGE_SIZE } from '../src/plan.ts';
import { PAGES_INDEX, SEARCH_DIR } from '../src/search-shards.ts';
import { DEFAULT_SITE_NAME } from '../src/schema.ts';
import { hasState, readState, stateDirFor, type BuildState } from '../src/state.ts';
import { contentHashes, DEMO_CONTENT, describeFiles, fingerprint, ROOT, runCommand, TEMPLATES, tempDir, writeManyTalks } from './helpers.ts';

let root: string;
let content: string;
let templates: string;
let out: string;
/** What builds share when they run in one process, as the dev server's do; none for builds run one by one. */
let memory: BuildMemory | undefined;
/** Talks per shard of the search index; the default makes one shard of the demo catalogue. */
let searchShardSize: number | undefined;

async function incremental(compress = true): Promise<BuildSummary> {
  const result = await build({ content, templates, out, cache: path.join(root, 'cache'), compress, memory, searchShardSize });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.summary;
}

/**
 * What clean builds wrote (contentHashes), by all they read: the content's and the templates' files and folders,
 * and the options. A clean build of the same input writes the same bytes; the tests that run one sequence of
 * edits one by one and in one process, or take an edit back, compare with the same clean builds again.
 */
const cleanBuilds = new Map<string, Record<string, string>>();

const folders = (dir: string) => fg('**', { cwd: dir, dot: true, onlyDirectories: true });

async function cleanBuild(compress: boolean): Promise<Record<string, string>> {
  const input = JSON.stringify([await contentHashes(content), await folders(content), await contentHashes(templates), await folders(templates), compress, searchShardSize]);
  const known = cleanBuilds.get(input);
  if (known) return known;
  const clean = path.join(root, `clean-${Date.now()}`);
  const result = await build({ content, templates, out: clean, compress, searchShardSize });
  expect(result.ok).toBe(true);
  const written = await contentHashes(clean);
  await rm(clean, { recursive: true, force: true });
  cleanBuilds.set(input, written);
  return written;
}

/** The incremental output must equal what a clean build of the same input writes. */
async function expectSameAsClean(compress = true): Promise<void> {
  expect(await contentHashes(out)).toEqual(await cleanBuild(compress));
}

/** The output files whose inode or mtime changed between two fingerprints. */
function touched(before: Record<string, string>, after: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((p) => before[p] !== after[p]).sort();
}

async function talkFile(id: number): Promise<string> {
  for (const file of await fg('*/videos/*', { cwd: content, absolute: true })) {
    if (new RegExp(`^\\s*"?id"?\\s*:\\s*${id}\\s*,?\\s*$`, 'm').test(await readFile(file, 'utf8'))) return file;
  }
  throw new Error(`no talk ${id}`);
}

async function edit(file: string, from: RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  expect(text).toMatch(from);
  await writeFile(file, text.replace(from, to));
  seen(file);
}

/** Tells a watched listing (the dev server's) what changed in the content folder, as its watcher would. */
function seen(file: string): void {
  if (memory?.listing && file.startsWith(`${content}${path.sep}`)) memory.listing.saw(path.relative(content, file).split(path.sep).join('/'));
}

/** The folders below the root a test builds in, but its output, as the first build leaves them. */
const INPUTS = ['content', 'templates', 'cache'];

/** Each file's size and modification time, which a write into it (not a new file in its place) moves. */
const stamps = (dir: string) =>
  describeFiles(dir, (file) => {
    const { size, mtimeMs } = statSync(file);
    return `${size} ${mtimeMs}`;
  });

/** `from`'s files as hard links in `to`. */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const dir of await folders(from)) await mkdir(path.join(to, dir), { recursive: true });
  for (const file of await fg('**', { cwd: from, dot: true })) await link(path.join(from, file), path.join(to, file));
}

/** Empties `dir`, leaving the folder itself. */
async function empty(dir: string, keep: string[] = []): Promise<void> {
  for (const name of await readdir(dir)) if (!keep.includes(name)) await rm(path.join(dir, name), { recursive: true, force: true });
}

/**
 * The folder of `root`, where every test builds (one root for all: a build's state is its output's, by its path
 * and folder, see stateDirFor and folderId), and of `pristine`.
 */
let base: string;
/** The first build's folders, kept for the next tests: its output's files are hard links to the output's. */
let pristine: string;
/** The output folder the first build's state describes, and its files' stamps. */
let fixture: { outId: string | undefined; stamps: Record<string, string> } | undefined;

/** The demo catalogue's first build, kept in `pristine`. */
async function firstBuild(): Promise<typeof fixture> {
  await rm(root, { recursive: true, force: true });
  await rm(pristine, { recursive: true, force: true });
  await cp(DEMO_CONTENT, content, { recursive: true });
  await cp(TEMPLATES, templates, { recursive: true });
  expect((await incremental()).incremental).toBe(false);
  for (const name of INPUTS) await cp(path.join(root, name), path.join(pristine, name), { recursive: true });
  await linkTree(out, path.join(pristine, 'dist'));
  return { outId: folderId(out), stamps: await stamps(path.join(pristine, 'dist')) };
}

/**
 * The root as the first build left it, in the same output folder: builds replace the files they write and never
 * write into one, so the output's hard links to the pristine files stay the first build's. Its content's files are
 * new ones (see statKey), which a build reads again: it finds nothing to write, and leaves its no-op record.
 */
async function restore(): Promise<void> {
  await empty(root, ['dist']);
  await empty(out);
  for (const name of INPUTS) await cp(path.join(pristine, name), path.join(root, name), { recursive: true });
  await linkTree(path.join(pristine, 'dist'), out);
  expect((await incremental()).written).toBe(0);
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'vc-incremental-'));
  root = path.join(base, 'root');
  content = path.join(root, 'content');
  templates = path.join(root, 'templates');
  out = path.join(root, 'dist');
  pristine = path.join(base, 'pristine');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

// A test that made the output folder again, or wrote into a file of the output, leaves the next a first build to make.
beforeEach(async () => {
  memory = undefined;
  searchShardSize = undefined;
  if (fixture && folderId(out) === fixture.outId && isDeepStrictEqual(await stamps(path.join(pristine, 'dist')), fixture.stamps)) await restore();
  else fixture = await firstBuild();
});

afterEach(async () => {
  await memory?.search?.close();
});

describe('incremental builds', () => {
  it('a build with nothing changed rewrites no file', async () => {
    const before = await fingerprint(out);
    const summary = await incremental();
    expect(summary.incremental).toBe(true);
    expect(summary.written).toBe(0);
    expect(summary.removed).toBe(0);
    expect(await fingerprint(out)).toEqual(before);
  });

  it('a build that keeps memory (the dev server) loads and plans on its first run even with nothing changed, and writes nothing', async () => {
    memory = {};
    const before = await fingerprint(out);
    const first = await incremental();
    expect(first.written).toBe(0);
    expect(first.removed).toBe(0);
    expect(memory.state?.manifest.size).toBe(first.outputs);
    expect(memory.plan).toBeDefined();
    expect(await fingerprint(out)).toEqual(before);
  });

  it('a build that leaves its state for later (the dev server) removes the saved state before it changes the output; saveState writes it back', async () => {
    const stateDir = stateDirFor(path.join(root, 'cache'), out);
    const saved = () => fg('state-*.v8', { cwd: stateDir });
    memory = { saveLater: true };
    await incremental();
    expect(await saved()).toHaveLength(1);
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Saved later"');
    expect((await incremental()).written).toBeGreaterThan(0);
    // A build in another process now finds no state that describes the output it would patch.
    expect(await saved()).toEqual([]);
    expect(hasState(stateDir)).toBe(false);
    await saveState(memory);
    expect(memory.unsaved).toBeUndefined();
    expect(await saved()).toHaveLength(1);
    // The saved state is the last word: a build in another process finds nothing to do without loading anything.
    const next = await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true });
    expect(next).toMatchObject({ ok: true, summary: { written: 0, removed: 0 } });
    expect(next.ok && next.catalogue).toBeUndefined();
    await expectSameAsClean();
  });

  it('saveState keeps what it has to save while another process builds, and a caller that saves later has nothing to save after a build that changed nothing', async () => {
    const stateDir = stateDirFor(path.join(root, 'cache'), out);
    const state = async () => (await fg('state-*.v8', { cwd: stateDir, stats: true }))[0]!.stats!.mtimeMs;
    // The state a build in a process of its own left is the last word: nothing changed, nothing to save.
    const saved = await state();
    memory = { saveLater: true };
    expect((await incremental()).written).toBe(0);
    expect(memory.unsaved).toBeUndefined();
    await saveState(memory);
    expect(await state()).toBe(saved);

    await edit(await talkFile(12), /^title: .*$/m, 'title: "Saved once the lock is free"');
    expect((await incremental()).written).toBeGreaterThan(0);
    expect(hasState(stateDir)).toBe(false);
    const other = spawn('sleep', ['30']);
    try {
      await writeFile(path.join(stateDir, 'lock'), String(other.pid));
      await expect(saveState(memory)).rejects.toThrow(`process ${other.pid}`);
      expect(memory.unsaved).toBeDefined();
    } finally {
      other.kill();
      await rm(path.join(stateDir, 'lock'), { force: true });
    }
    await saveState(memory);
    expect(hasState(stateDir)).toBe(true);
    await memory.search?.close();
    memory = undefined;
    expect(await incremental()).toMatchObject({ written: 0, removed: 0 });
  });

  it('two callers that save their state later (two dev servers, a dev server and the API writer) each see that the other built since', async () => {
    const first: BuildMemory = { saveLater: true };
    const second: BuildMemory = { saveLater: true };
    const file = await talkFile(12);
    const title = async (to: string, by: BuildMemory) => {
      await edit(file, /^title: .*$/m, `title: "${to}"`);
      memory = by;
      expect((await incremental()).written).toBeGreaterThan(0);
    };
    await title('Built by the first', first);
    await title('Built by the second', second);
    // The first one's memory says its title is on the page; the second one's build has put another there since.
    await title('Built by the first', first);
    await expectSameAsClean();
    for (const m of [first, second]) await m.search?.close();
  });

  it("a caller's save after another's build came between is skipped: the state on disk is never an older output's (helper-25)", async () => {
    const server: BuildMemory = { saveLater: true };
    const dev: BuildMemory = { saveLater: true };
    const file = await talkFile(12);
    for (const m of [server, dev]) {
      memory = m;
      await incremental();
      await saveState(m);
    }
    await edit(file, /^title: .*$/m, 'title: "T1"');
    const t1 = await readFile(file);
    memory = server;
    await incremental();
    await edit(file, /^title: .*$/m, 'title: "T2"');
    memory = dev;
    await incremental();
    await saveState(server);
    await saveState(dev);
    await writeFile(file, t1);
    memory = undefined;
    await incremental();
    await expectSameAsClean();
    for (const m of [server, dev]) await m.search?.close();
  });

  it("keeps the site's parts in its state, signed, whether a build in a process of its own or saveState wrote it, and builds from them what a clean build does", async () => {
    const stateDir = stateDirFor(path.join(root, 'cache'), out);
    const state = async (): Promise<BuildState> => {
      const [file] = await fg('state-*.v8', { cwd: stateDir });
      return readState(stateDir, /^state-(.*)\.v8$/.exec(file!)![1]!, out)!;
    };
    const signed = (s: BuildState) => [...s.parts!].filter(([name, part]) => name.startsWith('event\0') && part.signature).length;
    const events = (await readdir(content)).filter((name) => !name.startsWith('_')).length;
    // Left by the first build, in a process of its own.
    expect(signed(await state())).toBe(events);
    expect([...(await state()).parts!.values()].reduce((n, part) => n + part.files.length, 0)).toBe((await state()).manifest.size);

    memory = { saveLater: true, listing: new WatchedListing(content) };
    await incremental();
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Saved by the dev server"');
    await incremental();
    await saveState(memory);
    expect(signed(await state())).toBe(events);
    await memory.search?.close();

    memory = undefined;
    await edit(await talkFile(14), /^duration: .*$/m, 'duration: 999');
    expect((await incremental()).written).toBeGreaterThan(0);
    await expectSameAsClean();
  });

  it('one changed talk rewrites its record, its page and the pages that list it, nothing else', async () => {
    const before = await fingerprint(out);
    const file = await talkFile(12);
    await edit(file, /^title: .*$/m, 'title: "A new title for talk twelve"');
    const summary = await incremental();
    const changed = touched(before, await fingerprint(out));
    expect(changed).toContain('api/v2/video/12');
    expect(changed).toContain('video/12/asyncio-in-production-lessons/index.html');
    expect(changed).toContain('events/tidewater-python-2024/index.html');
    expect(changed).toContain('speaker/priya-raghunathan/index.html');
    expect(changed).toContain('tag/asyncio/feed.atom');
    expect(changed).toContain('talks/index.html');
    // Only what shows the title: its neighbours in the event, the lists and feeds it is on, the search index.
    const listsIt = /^(api\/v2\/video\/(12|page\.(\d+|last))$|video\/\d+\/([^/]+\/)?index\.html(\.br|\.gz)?$|events\/tidewater-python-2024\/|speaker\/priya-raghunathan\/|tag\/(asyncio|python|reliability)\/|language\/english\/|talks\/|feed\.|index\.html$|pagefind\/)/;
    expect(changed.filter((p) => !listsIt.test(p))).toEqual([]);
    // Its page and its neighbours' (three each side at most), with their compressed copies.
    expect(changed.filter((p) => p.startsWith('video/')).length).toBeLessThanOrEqual(3 * (1 + 2 * 3));
    expect(summary.written + summary.removed).toBe(changed.length);
    await expectSameAsClean();
  });

  it('a build without compressed copies removes them, and the next build with them writes only them', async () => {
    const compressed = async () => (await fg('**/*.{br,gz}', { cwd: out })).sort();
    const copies = await compressed();
    expect(copies.length).toBeGreaterThan(50);
    const without = await incremental(false);
    expect(without.written).toBe(0);
    expect(without.removed).toBe(copies.length);
    expect(await compressed()).toEqual([]);
    await expectSameAsClean(false);
    expect((await incremental(false)).written).toBe(0);
    const again = await incremental(true);
    expect(again.written).toBe(copies.length);
    expect(await compressed()).toEqual(copies);
    await expectSameAsClean(true);
  });

  // A fix made in dist/ by hand, then in the content: the build renders the page already there, whose copies are still of the page before.
  it('a page edited by hand to what the next build renders gets its compressed copies written again', async () => {
    const page = 'video/12/asyncio-in-production-lessons/index.html';
    await edit(await talkFile(12), /^title: .*$/m, 'title: "A title fixed by hand first"');
    const fixed = path.join(root, 'fixed');
    expect((await build({ content, templates, out: fixed, compress: true, searchShardSize })).ok).toBe(true);
    await cp(path.join(fixed, page), path.join(out, page));
    await incremental();
    await expectSameAsClean();
  });

  it('touching a file without changing it rewrites nothing', async () => {
    const before = await fingerprint(out);
    const file = await talkFile(12);
    await writeFile(file, await readFile(file));
    expect((await incremental()).written).toBe(0);
    expect(await fingerprint(out)).toEqual(before);
  });

  it('an edit that keeps the size and the modification time (touch -d, cp -p, rsync -t) is still seen: its change time is new', async () => {
    const file = await talkFile(12);
    // A whole second, which a time set again gives back exactly (the system's own has nanoseconds).
    const when = new Date('2026-01-02T03:04:05Z');
    await utimes(file, when, when);
    await incremental();
    const text = await readFile(file, 'utf8');
    const renamed = text.replace(/^(title: .*?)([a-z])/m, (_, head: string, c: string) => `${head}${c === 'x' ? 'y' : 'x'}`);
    expect(renamed.length).toBe(text.length);
    await writeFile(file, renamed);
    await utimes(file, when, when);
    expect((await incremental()).written).toBeGreaterThan(0);
    await expectSameAsClean();
  });

  it('a template change rebuilds what uses that template, and only that', async () => {
    const before = await fingerprint(out);
    await edit(path.join(templates, 'talk.eta'), /<h2 id="details-title">Details<\/h2>/, '<h2 id="details-title">About this talk</h2>');
    await incremental();
    const changed = touched(before, await fingerprint(out));
    const pages = (await fg('video/*/*/index.html{,.br,.gz}', { cwd: out })).sort();
    expect(changed).toEqual(pages);
    await expectSameAsClean();
  });

  it('an edit of the layout rebuilds the pages rendered in it, however a template calls it', async () => {
    await edit(path.join(templates, 'home.eta'), /layout\('@layout'/, 'layout("@layout"');
    await incremental();
    await edit(path.join(templates, 'layout.eta'), /<footer class="site-footer">/, '<footer class="site-footer" data-v="2">');
    await incremental();
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toContain('data-v="2"');
    await expectSameAsClean();
  });

  it('an edit of a partial rebuilds the pages that include it', async () => {
    await writeFile(path.join(templates, 'links.eta'), '<p>v1</p>');
    await edit(path.join(templates, 'layout.eta'), /<\/footer>/, "<%~ include('@links') %></footer>");
    await incremental();
    await writeFile(path.join(templates, 'links.eta'), '<p>v2</p>');
    await incremental();
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toContain('<p>v2</p>');
    await expectSameAsClean();
  });

  it.each(['one by one', 'in one process'])('additions, removals, edits, event and asset changes, in sequence, always equal a clean build (builds run %s)', async (how) => {
    if (how === 'in one process') memory = { saveLater: true, listing: new WatchedListing(content) };
    await edit(await talkFile(14), /^duration: .*$/m, 'duration: 4321');
    await incremental();
    await expectSameAsClean();
    await edit(await talkFile(14), /^title: .*$/m, 'title: "Aaa: first in every list"');
    await incremental();
    await expectSameAsClean();
    await edit(await talkFile(14), /^tags:\n(?:\s+- .*\n)+/m, 'tags: [a-tag-of-its-own]\n');
    await incremental();
    await expectSameAsClean();

    const removed = await talkFile(12);
    await rm(removed);
    seen(removed);
    await incremental();
    expect(await fg('video/12/**', { cwd: out })).toEqual([]);
    expect(await fg('api/v2/video/12', { cwd: out })).toEqual([]);
    await expectSameAsClean();

    const added = path.join(content, 'tidewater-python-2024', 'videos', 'a-brand-new-talk.yaml');
    await writeFile(
      added,
      'id: 900\ntitle: A brand new talk\nspeakers: [Someone New]\nrecorded: "2024-05-18"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00.000"\naliases: [/old/new-talk.html]\n',
    );
    seen(added);
    await incremental();
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/900'), 'utf8')).title).toBe('A brand new talk');
    expect(await readFile(path.join(out, 'old/new-talk.html'), 'utf8')).toContain('/video/900/a-brand-new-talk/');
    await expectSameAsClean();

    const renamed = path.join(content, 'tidewater-python-2024', 'videos', 'a-brand-new-talk.yaml');
    await cp(renamed, path.join(path.dirname(renamed), 'a-renamed-talk.yaml'));
    await rm(renamed);
    seen(renamed);
    seen(path.join(path.dirname(renamed), 'a-renamed-talk.yaml'));
    await incremental();
    expect(await readFile(path.join(out, 'video/900/index.html'), 'utf8')).toContain('/video/900/a-renamed-talk/');
    await expectSameAsClean();

    // Into another event: its record and pages move from one event's part of the plan to another's.
    const moved = path.join(content, 'pennine-web-2012', 'videos', 'a-renamed-talk.yaml');
    await cp(path.join(path.dirname(renamed), 'a-renamed-talk.yaml'), moved);
    await rm(path.join(path.dirname(renamed), 'a-renamed-talk.yaml'));
    seen(path.join(path.dirname(renamed), 'a-renamed-talk.yaml'));
    seen(moved);
    await incremental();
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/900'), 'utf8')).category).toBe('Pennine Web Conference 2012');
    await expectSameAsClean();

    await edit(path.join(content, 'pennine-web-2012', 'category.yaml'), /^title: .*$/m, 'title: Pennine Web Twenty-Twelve');
    const summary = await incremental();
    expect(summary.written).toBeGreaterThan(10);
    const [pennine] = await fg('pennine-web-2012/videos/*', { cwd: content });
    const id = Number(/^\s*"?id"?\s*:\s*(\d+)/m.exec(await readFile(path.join(content, pennine!), 'utf8'))![1]);
    expect(JSON.parse(await readFile(path.join(out, `api/v2/video/${id}`), 'utf8')).category).toBe('Pennine Web Twenty-Twelve');
    await expectSameAsClean();

    // An event's old addresses: redirects to its page, which follow the event's edits and go with them.
    const category = path.join(content, 'pennine-web-2012', 'category.yaml');
    await edit(category, /^title: .*$/m, '$&\naliases: [/events/pennine-2012.html, /category/3/pennine/]');
    await incremental();
    expect(await readFile(path.join(out, 'events/pennine-2012.html'), 'utf8')).toContain('url=/events/pennine-web-2012/"');
    expect(await readFile(path.join(out, 'category/3/pennine/index.html'), 'utf8')).toContain('<title>Pennine Web Twenty-Twelve · ');
    await expectSameAsClean();
    await edit(category, /^aliases: .*$/m, 'aliases: [/events/pennine-2012.html]');
    await incremental();
    expect(await fg('category/**', { cwd: out })).toEqual([]);
    await expectSameAsClean();

    // The site's redirects: written, changed and removed with their file.
    const redirects = path.join(content, '_redirects', 'site.yaml');
    await mkdir(path.dirname(redirects));
    await writeFile(redirects, '/speakers.html: /speakers/\n/was/home/: /\n');
    seen(redirects);
    await incremental();
    expect(await readFile(path.join(out, 'speakers.html'), 'utf8')).toContain('url=/speakers/"');
    await expectSameAsClean();
    await edit(redirects, /^\/was\/home\/: \/$/m, '/was/talks/: /talks/');
    await incremental();
    expect(await fg('was/**', { cwd: out })).toEqual(['was/talks/index.html']);
    await expectSameAsClean();
    await rm(redirects);
    seen(redirects);
    await incremental();
    expect(await fg(['speakers.html', 'was/**'], { cwd: out })).toEqual([]);
    await expectSameAsClean();

    await edit(path.join(templates, 'assets', 'style.css'), /^:root \{/m, ':root {\n  --extra: 1;');
    // The stylesheet and its .br and .gz copies.
    expect((await incremental()).written).toBe(3);
    await expectSameAsClean();

    await edit(path.join(templates, 'layout.eta'), /<footer class="site-footer">/, '<footer class="site-footer" data-v="2">');
    await incremental();
    await expectSameAsClean();
  });

  it.each(['one by one', 'in one process'])("the site's own pages: an edit rewrites the page alone, a change to the navigation every page and nothing else, a removal takes its file (builds run %s)", async (how) => {
    if (how === 'in one process') memory = { saveLater: true, listing: new WatchedListing(content) };
    /** The pages with the navigation: all but the redirects, which a key that moved renders again to the same bytes. */
    const pages = async () => {
      const html = (await fg('**/*.html', { cwd: out })).sort();
      const navigable = await Promise.all(html.map(async (file) => (await readFile(path.join(out, file), 'utf8')).includes('class="site-nav"')));
      return html.filter((_, i) => navigable[i]);
    };
    const copies = (files: string[]) => files.flatMap((file) => [file, `${file}.br`, `${file}.gz`]);
    const about = path.join(content, '_pages', 'about.md');
    const faq = path.join(content, '_pages', 'faq.md');
    /** Whether the last step rewrote the pages' search index (pagefind/pages/), whose files step leaves out. */
    let reindexed = false;
    /** The files a change touched; `compare` also holds the output to a clean build's (a few times: each is a whole build). */
    const step = async (change: () => Promise<void>, compare = false) => {
      const before = await fingerprint(out);
      await change();
      await incremental();
      if (compare) await expectSameAsClean();
      const files = touched(before, await fingerprint(out));
      reindexed = files.some((file) => file.startsWith(`${PAGES_INDEX}/`));
      return files.filter((file) => !file.startsWith(`${PAGES_INDEX}/`));
    };

    expect(await step(() => edit(about, /^This catalogue gathers/m, 'This catalogue, kept by volunteers, gathers'), true)).toEqual(copies(['about/index.html']));
    expect(await readFile(path.join(out, 'about/index.html'), 'utf8')).toContain('kept by volunteers');
    // Its words are found by search: the pages' index is made again, and no shard of the talks'.
    expect(reindexed).toBe(true);

    // Added outside the navigation: its page, and the sitemap that lists it.
    const added = await step(async () => {
      await writeFile(faq, '---\ntitle: FAQ\n---\nAsk <script>alert(1)</script> away.\n');
      seen(faq);
    }, true);
    expect(added).toEqual(copies(['faq/index.html', 'sitemap-1.xml']));
    expect(await readFile(path.join(out, 'faq/index.html'), 'utf8')).not.toContain('<script>');
    expect(await readFile(path.join(out, 'sitemap-1.xml'), 'utf8')).toContain('/faq/</loc>');
    expect(await step(() => edit(faq, /^title: FAQ$/m, 'title: Questions'))).toEqual(copies(['faq/index.html']));

    // Into the navigation: every page shows it, and no record, feed or sitemap changes.
    const joined = await step(() => edit(faq, /^title: Questions$/m, 'title: Questions\nnav: true\norder: 2'), true);
    const html = await pages();
    expect(joined.filter((file) => !file.endsWith('.br') && !file.endsWith('.gz'))).toEqual(html);
    expect(await readFile(path.join(out, 'video/12/asyncio-in-production-lessons/index.html'), 'utf8')).toContain('<li><a href="/faq/">Questions</a></li>');
    // Its place in the navigation is the same under another order: nothing moves.
    expect(await step(() => edit(faq, /^order: 2$/m, 'order: 3'))).toEqual([]);
    expect(reindexed).toBe(false);
    expect((await step(() => edit(faq, /^order: 3$/m, 'order: 0'))).filter((file) => file.endsWith('.html'))).toEqual(html);
    expect(await step(() => edit(faq, /^Ask/m, 'Please ask'))).toEqual(copies(['faq/index.html']));
    expect(reindexed).toBe(true);

    // A draft: its file goes, with its sitemap entry and every page's link to it; published again, all come back as they were.
    const withNav = await pages();
    const drafted = await step(() => edit(faq, /^title: Questions$/m, 'title: Questions\ndraft: true'), true);
    expect(await fg('faq/**', { cwd: out })).toEqual([]);
    expect(drafted).toEqual(expect.arrayContaining([...copies(['faq/index.html', 'sitemap-1.xml']), 'index.html']));
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).not.toContain('/faq/');
    const published = await step(() => edit(faq, /^draft: true\n/m, ''), true);
    expect(published.filter((file) => file.endsWith('.html'))).toEqual(withNav);

    const removed = await step(async () => {
      await rm(faq);
      seen(faq);
    }, true);
    expect(await fg('faq/**', { cwd: out })).toEqual([]);
    expect(removed).toEqual(expect.arrayContaining([...copies(['faq/index.html', 'sitemap-1.xml']), 'index.html']));
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).not.toContain('/faq/');
  });

  it.each(['one by one', 'in one process'])("the site's settings (_site.yaml): a new name is on every page and in the site's feeds, an edit_url links every page's file, as a clean build writes them; without the file, the defaults (builds run %s)", async (how) => {
    if (how === 'in one process') memory = { saveLater: true, listing: new WatchedListing(content) };
    const settings = path.join(content, '_site.yaml');
    const talk = path.join(out, 'video/12/asyncio-in-production-lessons/index.html');
    // The search index holds the talks' and pages' own text, none of the settings: it is not built again (a build that
    // leaves the index for later has none to leave), and stays as it was.
    const index = await fingerprint(path.join(out, 'pagefind'));
    await edit(settings, /^name: .*$/m, 'name: Talks & Co\nedit_url: https://github.com/co/talks/edit/main/content/{path}');
    const pagesFirst = await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true, memory, searchShardSize, deferSearch: true });
    expect(pagesFirst.ok && [pagesFirst.summary.written > 0, pagesFirst.summary.searchPending]).toEqual([true, false]);
    await expectSameAsClean();
    expect(await fingerprint(path.join(out, 'pagefind'))).toEqual(index);
    const page = await readFile(talk, 'utf8');
    expect(page).toMatch(/<title>[^<]* · Talks &amp; Co<\/title>/);
    expect(page).toContain('<a class="site-name" href="/">Talks &amp; Co</a>');
    expect(page).toContain('<meta property="og:site_name" content="Talks &amp; Co">');
    expect(await readFile(path.join(out, 'feed.atom'), 'utf8')).toContain('<title>Talks &amp; Co</title>');
    expect(page).toContain('<a href="https://github.com/co/talks/edit/main/content/tidewater-python-2024/videos/asyncio-in-production-lessons.yaml" rel="nofollow noopener">Edit this page</a>');
    expect(await readFile(path.join(out, 'video/12/index.html'), 'utf8')).toMatch(/<title>[^<]* · Talks &amp; Co<\/title>/);
    await rm(settings);
    seen(settings);
    await incremental();
    await expectSameAsClean();
    expect(await fingerprint(path.join(out, 'pagefind'))).toEqual(index);
    expect(await readFile(talk, 'utf8')).toContain(`<a class="site-name" href="/">${DEFAULT_SITE_NAME}</a>`);
    expect(await readFile(talk, 'utf8')).not.toContain('Edit this page');
  });

  it('saveState leaves alone the state of a build in another process since, which the next build then starts from', async () => {
    memory = { saveLater: true, listing: new WatchedListing(content) };
    await incremental();
    await edit(await talkFile(12), /^duration: .*$/m, 'duration: 4321');
    await incremental();
    // Before the dev server saves its state, `npm run build` of an edit that is then taken back.
    const file = await talkFile(5);
    const good = await readFile(file, 'utf8');
    await writeFile(file, good.replace(/^title: .*$/m, 'title: Built elsewhere'));
    expect((await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true })).ok).toBe(true);
    await saveState(memory);
    await writeFile(file, good);
    expect((await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true })).ok).toBe(true);
    await expectSameAsClean();
  });

  it('a build that fails while rendering, with Pagefind still indexing, leaves no file of the index behind', async () => {
    const before = await fingerprint(out);
    // A new title: Pagefind indexes the shard again while the talk's page fails to render.
    await edit(await talkFile(12), /^title: .*$/m, 'title: Retitled while the page template is broken');
    await edit(path.join(templates, 'talk.eta'), /^/, '<%= it.noSuchField.boom %>\n');
    await expect(build({ content, templates, out, cache: path.join(root, 'cache'), compress: true })).rejects.toThrow(/boom/);
    expect(await fingerprint(out)).toEqual(before);
    await edit(path.join(templates, 'talk.eta'), /^<%= it\.noSuchField\.boom %>\n/, '');
    await incremental();
    await expectSameAsClean();
  });

  it('a failed build changes nothing and the next good build still patches', async () => {
    const before = await fingerprint(out);
    const file = await talkFile(12);
    const good = await readFile(file, 'utf8');
    await writeFile(file, `${good}bogus_field: 1\n`);
    const failed = await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true });
    expect(failed.ok).toBe(false);
    expect(await fingerprint(out)).toEqual(before);
    await writeFile(file, good.replace(/^title: .*$/m, 'title: Fixed'));
    expect((await incremental()).incremental).toBe(true);
    await expectSameAsClean();
  });

  it("a build into an output folder removed and made again (rm -rf dist && mkdir dist) writes it whole, though the new folder often has the old one's inode (see folderId)", async () => {
    const files = (await incremental()).outputs;
    await rm(out, { recursive: true });
    await mkdir(out);
    const summary = await incremental();
    expect(summary.written).toBe(files);
    await expectSameAsClean();
  });

  it.each([
    ['emptied (rm -rf dist/*, which leaves its hidden files)', (files: string[]) => files.filter((name) => !name.startsWith('.'))],
    ['without one of its folders (rm -rf dist/video)', () => ['video']],
  ])('a build into an output folder %s, the same folder still, writes again what is gone, from its no-op record too', async (_, removed) => {
    await incremental();
    for (const name of removed(await readdir(out))) await rm(path.join(out, name), { recursive: true });
    // A build with nothing else changed, which the no-op record would answer if it trusted the output.
    expect((await incremental()).written).toBeGreaterThan(0);
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);
  });

  it.each([
    ['in a process of its own', false],
    ['that keeps memory (the dev server)', true],
  ])('a build %s that needs a file of the last build removed from the output by hand (a record, for the lists) writes the output again, and says which', async (_, keeps) => {
    if (keeps) memory = { listing: new WatchedListing(content), saveLater: true };
    await incremental();
    await rm(path.join(out, 'api/v2/video/12'));
    // Talk 13's title is in the lists of records that hold talk 12's.
    await edit(await talkFile(13), /"title": "[^"]*"/, '"title": "Beside a record gone"');
    expect((await incremental()).missing).toBe(path.join('api', 'v2', 'video', '12'));
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);
  });

  it.each([
    ['in a process of its own', false],
    ['that keeps memory (the dev server)', true],
  ])('a build %s whose output is removed while it writes says so, not which file it missed; the next build makes it whole', async (_, keeps) => {
    if (keeps) {
      memory = { listing: new WatchedListing(content), saveLater: true };
      await incremental();
    }
    await edit(await talkFile(12), /^title: .*$/m, 'title: Removed under it');
    // `rm -rf dist` as the rendering starts.
    const progress = { start: () => rmSync(out, { recursive: true, force: true }), tick() {}, done() {} };
    const failed = await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true, memory, searchShardSize, progress }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe(`${out} was removed or replaced during the build; build again`);
    await incremental();
    await expectSameAsClean();
  });

  it('a build that defers the search index publishes the pages, and the next build writes the index alone', async () => {
    const index = async () => fingerprint(path.join(out, 'pagefind'));
    const before = await index();
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Searchable under a new title"');
    const pages = (await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true, deferSearch: true })) as { ok: true; summary: BuildSummary };
    expect(pages.summary.searchPending).toBe(true);
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/12'), 'utf8')).title).toBe('Searchable under a new title');
    expect(await index()).toEqual(before);

    const afterPages = await fingerprint(out);
    const search = await incremental();
    expect(search.searchPending).toBe(false);
    const changed = touched(afterPages, await fingerprint(out));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.filter((p) => !p.startsWith('pagefind/'))).toEqual([]);
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);
  });

  it('a search index in shards: an edit rebuilds the shard of its talk alone, a new talk the newest shard', async () => {
    searchShardSize = 5;
    await incremental();
    /** The talks' shards; beside them is the pages' index. */
    const shards = async () => (await readdir(path.join(out, 'pagefind'))).filter((dir) => `${SEARCH_DIR}/${dir}` !== PAGES_INDEX).sort();
    const count = (await shards()).length;
    expect(count).toBeGreaterThan(3);
    const shardsTouched = (before: Record<string, string>, after: Record<string, string>) =>
      [...new Set(touched(before, after).filter((p) => p.startsWith('pagefind/')).map((p) => p.split('/')[1]))];

    let before = await fingerprint(out);
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Found in one shard"');
    await incremental();
    expect(shardsTouched(before, await fingerprint(out))).toHaveLength(1);
    await expectSameAsClean();

    before = await fingerprint(out);
    const newest = path.join(path.dirname(await talkFile(12)), 'the-newest-talk.yaml');
    await writeFile(newest, 'id: 991\ntitle: The newest talk\nspeakers: [Ada Newcomer]\nrecorded: "2099-01-01"\nlanguage: English\nadded: "2099-01-02T00:00:00"\nupdated: "2099-01-02T00:00:00"\n');
    await incremental();
    expect(shardsTouched(before, await fingerprint(out))).toEqual([String(count - 1)].concat((await shards()).length > count ? [String(count)] : []));
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);

    // Removed again: a shard it started goes with it.
    await rm(newest);
    await incremental();
    expect((await shards()).length).toBe(count);
    await expectSameAsClean();
  });

  it('a build that defers the search index still builds a shard that is new, which the search page it publishes lists, and every shard when talks move between them', async () => {
    searchShardSize = (await incremental()).talks;
    await incremental();
    const defer = async () => ((await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true, deferSearch: true, searchShardSize })) as { ok: true; summary: BuildSummary }).summary;
    const add = (slug: string, id: number, recorded: string) =>
      writeFile(path.join(path.dirname(dirOf12), `${slug}.yaml`), `id: ${id}\ntitle: Talk ${id}\nrecorded: "${recorded}"\nlanguage: English\nadded: "2099-01-02T00:00:00"\nupdated: "2099-01-02T00:00:00"\n`);
    const dirOf12 = await talkFile(12);

    // The newest talk of all starts shard 1 and leaves shard 0 as it was: nothing is left for later.
    await add('the-newest-talk', 991, '2099-01-01');
    expect((await defer()).searchPending).toBe(false);
    expect((await readdir(path.join(out, 'pagefind'))).sort()).toEqual(['0', '1', 'pages']);
    expect(await readFile(path.join(out, 'search/index.html'), 'utf8')).toContain('data-indexes="/pagefind/1/ /pagefind/0/"');
    await expectSameAsClean();
    await rm(path.join(path.dirname(dirOf12), 'the-newest-talk.yaml'));
    await incremental();
    expect((await readdir(path.join(out, 'pagefind'))).sort()).toEqual(['0', 'pages']);

    // An old talk moves the newest talk into a new shard 1: both are built now, as shard 0 left as it was beside the
    // new shard 1 would list the newest talk twice, and not the old one, until the next build.
    await add('an-old-talk', 992, '2001-01-01');
    expect((await defer()).searchPending).toBe(false);
    expect((await readdir(path.join(out, 'pagefind'))).sort()).toEqual(['0', '1', 'pages']);
    expect(await readFile(path.join(out, 'search/index.html'), 'utf8')).toContain('data-indexes="/pagefind/1/ /pagefind/0/"');
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);

    // Removed again, it takes shard 1 along: shard 0 is built now, as shard 0 left as it was would lose the newest talk.
    await rm(path.join(path.dirname(dirOf12), 'an-old-talk.yaml'));
    expect((await defer()).searchPending).toBe(false);
    expect((await readdir(path.join(out, 'pagefind'))).sort()).toEqual(['0', 'pages']);
    await expectSameAsClean();

    // A title edit within shard 0 still waits for the next build, the old index served meanwhile.
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Found later"');
    expect((await defer()).searchPending).toBe(true);
    expect((await incremental()).searchPending).toBe(false);
    await expectSameAsClean();
  });

  it('builds with hundreds of outputs to render, planned as threads take them, equal a clean build', async () => {
    // Enough talks that a change to every page, or to an event and the search index, renders in threads.
    const videos = path.join(content, 'pennine-web-2012', 'videos');
    for (let n = 0; n < 150; n++) {
      await writeFile(path.join(videos, `extra-${n}.yaml`), `id: ${1000 + n}\ntitle: Extra talk ${n}\nspeakers: [Extra Speaker ${n}]\ntags: [extra-${n % 7}]\nrecorded: "2012-05-${String(1 + (n % 28)).padStart(2, '0')}"\nlanguage: English\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00.000"\n`);
    }
    expect((await incremental()).written).toBeGreaterThan(800);
    await expectSameAsClean();
    await edit(path.join(templates, 'layout.eta'), /<footer class="site-footer">/, '<footer class="site-footer" data-v="3">');
    expect((await incremental()).written).toBeGreaterThan(3 * 400);
    await expectSameAsClean();
    await edit(path.join(content, 'pennine-web-2012', 'category.yaml'), /^title: .*$/m, 'title: Pennine Web, renamed');
    expect((await incremental()).written).toBeGreaterThan(3 * 400);
    await expectSameAsClean();
  });

  it.each(['one by one', 'in one process'])("the A–Z indexes' letters and their pages come and go with the speakers and tags under them, as a clean build writes them (builds run %s)", async (how) => {
    if (how === 'in one process') memory = { saveLater: true, listing: new WatchedListing(content) };
    // 16 talks of 50 speakers under A each, past a page of a letter's, and of 25 tags each, past an index of one page.
    const videos = path.join(content, 'many-names', 'videos');
    await mkdir(videos, { recursive: true });
    await writeFile(path.join(content, 'many-names', 'category.yaml'), 'title: Many Names\n');
    const talks = Array.from({ length: 16 }, (_, t) => path.join(videos, `talk-${t}.yaml`));
    for (const [t, file] of talks.entries()) {
      const names = (prefix: string, count: number) => `[${Array.from({ length: count }, (_, n) => `"${prefix} ${t}-${n}"`).join(', ')}]`;
      await writeFile(file, `id: ${2000 + t}\ntitle: Talk ${t}\nspeakers: ${names('Ada', 50)}\ntags: ${names('a', 25)}\nrecorded: "2020-01-01"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00.000"\n`);
      seen(file);
    }
    expect(16 * 50).toBeGreaterThan(TERMS_PAGE_SIZE);
    expect(16 * 25).toBeGreaterThanOrEqual(TERMS_ON_ONE_PAGE);
    await incremental(false);
    expect(await fg(['speakers/a/**', 'tags/*/**'], { cwd: out })).toEqual(expect.arrayContaining(['speakers/a/index.html', 'speakers/a/page/2/index.html', 'tags/a/index.html']));
    expect(await readFile(path.join(out, 'sitemap-1.xml'), 'utf8')).toContain('/speakers/a/page/2/</loc>');
    await expectSameAsClean(false);
    // Down to 12 talks: a page of A, and an index of tags of one page.
    for (const file of talks.slice(12)) {
      await rm(file);
      seen(file);
    }
    await incremental(false);
    expect(await fg(['speakers/a/page/**', 'tags/*/**'], { cwd: out })).toEqual([]);
    await expectSameAsClean(false);
  });

  it('a build in one process stopped after it planned leaves what the process keeps as it was', async () => {
    memory = { saveLater: true, listing: new WatchedListing(content) };
    await incremental();
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Stopped once"');
    const stop = new AbortController();
    const progress = { start: () => stop.abort(), tick: () => undefined, done: () => undefined };
    await expect(build({ content, templates, out, cache: path.join(root, 'cache'), memory, signal: stop.signal, progress })).rejects.toThrow(/abort/i);
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/12'), 'utf8')).title).not.toBe('Stopped once');
    expect((await incremental()).written).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/12'), 'utf8')).title).toBe('Stopped once');
    await expectSameAsClean();
    expect((await incremental()).written).toBe(0);
  });

  it('a build in one process that fails on a page leaves the plan as the last good build left it: after the template is taken back, an edit plans its own event again and no other', async () => {
    memory = { saveLater: true, listing: new WatchedListing(content) };
    await incremental();
    const planned = new Set(memory.written!.parts);
    const talk = path.join(templates, 'talk.eta');
    const good = await readFile(talk, 'utf8');
    // It compiles, and plans with its own fingerprint; it fails only on a page.
    await writeFile(talk, `<%= it.nope.x %>\n${good}`);
    await expect(incremental()).rejects.toThrow(/talk\.eta:1:13, rendering/);
    await writeFile(talk, good);
    expect((await incremental()).written).toBe(0);
    await edit(await talkFile(12), /^duration: .*$/m, 'duration: 4321');
    await incremental();
    const talkParts = memory.written!.parts.filter((p) => p.talks.length > 0);
    expect(talkParts.filter((p) => !planned.has(p)).map((p) => p.talks.map((job) => job.talk.id))).toEqual([expect.arrayContaining([12])]);
    await expectSameAsClean();
  });

  it('a build with only the search index to write opens the output once Pagefind is done, so a newer change stops it with nothing to put back', async () => {
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Indexed before the output opens"');
    await build({ content, templates, out, cache: path.join(root, 'cache'), compress: true, deferSearch: true });
    // Pagefind writes the index into a scratch folder beside the output; the build moves it in after opening the output.
    const indexWritten = () => fg.sync('.dist.*search/**/pagefind-entry.json', { cwd: root, dot: true }).length > 0;
    const opened: boolean[] = [];
    const open = Patch.open.bind(Patch);
    const spy = vi.spyOn(Patch, 'open').mockImplementation((...args) => (opened.push(indexWritten()), open(...args)));
    try {
      const search = await incremental();
      expect(search.searchPending).toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect(opened).toEqual([true]);
    await expectSameAsClean();
  });

  it('a build stopped while the search index is made leaves the output and its state as they were', async () => {
    await edit(await talkFile(12), /^title: .*$/m, 'title: "Stopped halfway"');
    const before = await fingerprint(out);
    const stop = new AbortController();
    // Rendering starts once Pagefind is at work on the index.
    const progress = { start: () => stop.abort(), tick: () => undefined, done: () => undefined };
    await expect(build({ content, templates, out, cache: path.join(root, 'cache'), signal: stop.signal, progress })).rejects.toThrow(/abort/i);
    expect(await fingerprint(out)).toEqual(before);
    expect(await fg('**/.*.vc-*', { cwd: out, dot: true })).toEqual([]);
    expect((await readdir(root)).filter((name) => name.startsWith('.dist.'))).toEqual([]);

    const next = await incremental();
    expect(next.written).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/12'), 'utf8')).title).toBe('Stopped halfway');
    await expectSameAsClean();
  });
});

describe('a build killed while it commits', () => {
  it.each(['journal', 'state'])('leaves its patch for the next build to clear or finish before that reads the state (killed at the %s; the edit then taken back)', async (at) => {
    const file = await talkFile(12);
    const before = await readFile(file, 'utf8');
    await edit(file, /^title: .*$/m, 'title: "Killed while committing"');
    const killed = runCommand('build', ['--content', content, '--templates', templates, '--out', out, '--cache', path.join(root, 'cache'), '--compress'], {
      node: ['--import', path.join(ROOT, 'test', 'fixtures', 'crash-at.mjs')],
      env: { ...process.env, CRASH_AT: at },
    });
    expect(killed.signal).toBe('SIGKILL');
    await writeFile(file, before);
    await incremental();
    await expectSameAsClean();
  });

  it("leaves no no-op record of the output it replaced (killed after its commit, another --base-url then put back)", async () => {
    const killed = runCommand('build', ['--content', content, '--templates', templates, '--out', out, '--cache', path.join(root, 'cache'), '--compress', '--base-url', 'https://talks.example.org'], {
      node: ['--import', path.join(ROOT, 'test', 'fixtures', 'crash-at.mjs')],
      env: { ...process.env, CRASH_AT: 'unchanged' },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toContain('https://talks.example.org/');
    // The input is the first build's again: its no-op record would take the output for that build's.
    expect((await incremental()).written).toBeGreaterThan(0);
    await expectSameAsClean();
  });
});

describe('a build that fails in one of its render threads', () => {
  it('waits for the batches the other threads are writing before it puts the output back, and leaves no file of theirs', async () => {
    const dir = await tempDir('vc-threads-');
    const content = path.join(dir, 'content');
    const templates = path.join(dir, 'templates');
    const out = path.join(dir, 'dist');
    await cp(TEMPLATES, templates, { recursive: true });
    // Enough talks for worker threads, each feeding batches of them.
    await writeManyTalks(content, 6, 100);
    const run = () => build({ content, templates, out, cache: path.join(dir, 'cache'), workers: 2 });
    expect((await run()).ok).toBe(true);
    const before = await fingerprint(out);
    // Every talk page renders again, and one of them fails in the middle of the run.
    await edit(path.join(templates, 'talk.eta'), /^/, '<% if (it.title === "Talk 300") { throw new Error("boom at talk 300") } %>\n');
    await expect(run()).rejects.toThrow(/boom at talk 300/);
    expect(await fingerprint(out)).toEqual(before);
  });
});
