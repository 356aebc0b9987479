// The import of the real pyvideo/data snapshot (../shared/data). In CI a
// missing snapshot fails the suite; elsewhere these tests are skipped with a note.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeHTML, decodeHTMLStrict } from 'entities';
import fg from 'fast-glob';
import { iso6393 } from 'iso-639-3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { RECORD_FILE } from '../src/headers.ts';
import { importPyvideo, STATE_FILE, type ImportState } from '../src/importer.ts';
import { loadContent } from '../src/load.ts';
import { checkContent } from '../src/locks.ts';
import { ownTag } from '../src/processes.ts';
import { API_FIELDS } from '../src/record.ts';
import { fragmentFiles } from '../src/search.ts';
import { fingerprint, PYVIDEO_SNAPSHOT, TEMPLATES, unlikeSanitised } from './helpers.ts';

const available = existsSync(PYVIDEO_SNAPSHOT);
if (!available && process.env.CI) {
  it('has the pyvideo/data snapshot beside the checkout', () => {
    throw new Error(`${PYVIDEO_SNAPSHOT} is missing: CI must provide ../shared/data`);
  });
} else if (!available) {
  console.warn(`skipping the pyvideo import tests: ${PYVIDEO_SNAPSHOT} is not there`);
}

const FIRST = new Date('2026-01-02T03:04:05.678Z');
const SECOND = new Date('2026-02-03T04:05:06.789Z');

describe.skipIf(!available)('importing pyvideo/data', () => {
  let root: string;
  let source: string;
  let content: string;
  /** The build of the import (the build test makes it, the fidelity test reads it). */
  let out: string;
  let sourceRecords: Map<string, Record<string, unknown>>;
  const readState = async () => JSON.parse(await readFile(path.join(content, STATE_FILE), 'utf8')) as ImportState;
  /** The talks the first import wrote, by id: read once for the tests that look at them before the next import. */
  let imported: Promise<Map<number, Record<string, unknown>>> | undefined;
  const talkFiles = () =>
    (imported ??= fg('*/videos/*.json', { cwd: content }).then((files) => {
      const talks = new Map<number, Record<string, unknown>>();
      for (const f of files) {
        const talk = JSON.parse(readFileSync(path.join(content, f), 'utf8'));
        talks.set(talk.id, talk);
      }
      return talks;
    }));

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-pyvideo-'));
    const unpacked = spawnSync('tar', ['xzf', PYVIDEO_SNAPSHOT, '-C', root]);
    expect(unpacked.status).toBe(0);
    source = path.join(root, 'pyvideo-data');
    content = path.join(root, 'content');
    out = path.join(root, 'dist');
    sourceRecords = new Map();
    // Read at once, as every file read below: a promise per file takes several times the CPU, 21,715 times over.
    for (const f of await fg('*/videos/*.json', { cwd: source })) sourceRecords.set(f, JSON.parse(readFileSync(path.join(source, f), 'utf8')));
  }, 120_000);
  // rm(1), not fs.rm: Node's walks the snapshot, its import and their build (tens of thousands of files each) a promise at a time, at four times the CPU;
  // even so, its build's 180,000 files take rm over a minute on a disk shared with other work.
  afterAll(() => {
    if (root) expect(spawnSync('rm', ['-rf', root]).status).toBe(0);
  }, 180_000);

  it('imports every event and talk, keeping the ids records have and giving the others new ones', async () => {
    const report = await importPyvideo({ source, content, now: FIRST });
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
    const withId = [...sourceRecords.values()].filter((r) => Number.isInteger(r.id));
    expect(report.talks).toBe(sourceRecords.size);
    expect(report.talks).toBe(21715);
    expect(report.events).toBe(540);
    expect(report.keptIds).toBe(withId.length);
    expect(report.newIds).toBe(sourceRecords.size - withId.length);
    const state = await readState();
    for (const [file, record] of sourceRecords) {
      if (Number.isInteger(record.id)) expect(state.talks[file]!.id).toBe(record.id);
    }
    const highestOwn = Math.max(...withId.map((r) => r.id as number));
    const given = Object.values(state.talks).map((t) => t.id);
    expect(new Set(given).size).toBe(given.length);
    expect(state.highestId).toBe(highestOwn + report.newIds);
  });

  it('makes the talks in NO_PUBLISH.json drafts', async () => {
    const noPublish = JSON.parse(await readFile(path.join(source, 'NO_PUBLISH.json'), 'utf8')) as number[];
    const talks = await talkFiles();
    for (const id of noPublish) expect(talks.get(id)?.state).toBe(2);
    expect([...talks.values()].filter((t) => t.state === 2).length).toBe(noPublish.length);
  });

  it('maps languages and media formats as the source has them', async () => {
    const talks = await talkFiles();
    const state = await readState();
    const count = (pred: (r: Record<string, unknown>) => boolean) => [...sourceRecords.values()].filter(pred).length;
    const ours = (pred: (t: Record<string, unknown>) => boolean) => [...talks.values()].filter(pred).length;
    expect(ours((t) => t.language === 'Spanish')).toBe(count((r) => r.language === 'spa'));
    expect(ours((t) => t.language === 'Japanese')).toBe(count((r) => r.language === 'jpn'));
    expect(ours((t) => t.language === 'English')).toBe(count((r) => r.language === 'eng' || r.language == null));
    const hasType = (r: Record<string, unknown>, type: string) => (r.videos as { type: string }[]).some((v) => v.type === type);
    for (const fmt of ['mp4', 'webm', 'ogv', 'flv']) expect(ours((t) => !!t[`video_${fmt}_url`])).toBe(count((r) => hasType(r, fmt)));
    // Every URL of the source is somewhere in what we wrote.
    for (const [file, record] of sourceRecords) {
      const talk = talks.get(state.talks[file]!.id)!;
      const text = JSON.stringify(talk);
      for (const v of record.videos as { url: string }[]) expect(text, file).toContain(JSON.stringify(v.url).slice(1, -1));
    }
  });

  it('renders every description and summary of the snapshot as sanitize-html would', () => {
    const texts = [...sourceRecords.values()].flatMap((r) => [r.description, r.summary]).filter((t): t is string => typeof t === 'string' && t.trim() !== '');
    expect(texts.length).toBeGreaterThan(18_000);
    expect(unlikeSanitised(texts)).toEqual([]);
  });

  it('writes content the build accepts without a single error', async () => {
    const { errors, catalogue } = await loadContent(content);
    expect(errors.map(String)).toEqual([]);
    expect(catalogue.talks.length).toBe(21715);
  });

  it('a second import of the same snapshot changes no file, not even its modification time', async () => {
    const before = await fingerprint(content);
    const report = await importPyvideo({ source, content, now: SECOND });
    expect(report.ok).toBe(true);
    expect(report.written).toBe(0);
    expect(report.newIds).toBe(0);
    expect(await fingerprint(content)).toEqual(before);
  });

  it('a newer snapshot keeps every id given, retires removed ones and gives new talks new ids', async () => {
    const before = await readState();
    const files = [...sourceRecords.keys()];
    const withOwnId = files.find((f) => Number.isInteger(sourceRecords.get(f)!.id))!;
    const withoutId = files.filter((f) => !Number.isInteger(sourceRecords.get(f)!.id));
    const removed = [withOwnId, withoutId[0]!, withoutId[1]!];
    const changed = withoutId[2]!;
    for (const f of removed) await rm(path.join(source, f));
    await writeFile(path.join(source, changed), JSON.stringify({ ...sourceRecords.get(changed), title: 'A corrected title' }));
    const added = ['pycon-us-2014/videos/a-talk-added-later.json', 'pycon-us-2014/videos/another-new-one.json'];
    for (const f of added) await writeFile(path.join(source, f), JSON.stringify({ ...sourceRecords.get(withoutId[3]!), title: `New: ${f}` }));

    const report = await importPyvideo({ source, content, now: SECOND });
    expect(report.errors).toEqual([]);
    expect(report.newIds).toBe(2);
    expect(report.removed).toBe(3);
    expect(report.changed).toBe(1);
    const after = await readState();
    for (const [file, talk] of Object.entries(before.talks)) {
      if (removed.includes(file)) expect(after.talks[file]).toBeUndefined();
      else expect(after.talks[file]!.id).toBe(talk.id);
    }
    const newIds = added.map((f) => after.talks[f]!.id).sort((a, b) => a - b);
    expect(newIds).toEqual([before.highestId + 1, before.highestId + 2]);
    expect(after.highestId).toBe(before.highestId + 2);
    for (const f of removed) expect(existsSync(path.join(content, before.talks[f]!.event, 'videos', `${before.talks[f]!.slug}.json`))).toBe(false);

    const changedTalk = JSON.parse(await readFile(path.join(content, after.talks[changed]!.event, 'videos', `${after.talks[changed]!.slug}.json`), 'utf8'));
    expect(changedTalk.title).toBe('A corrected title');
    expect(changedTalk.added).toBe('2026-01-02T03:04:05');
    expect(changedTalk.updated).toBe('2026-02-03T04:05:06.789');
    const untouched = after.talks[withoutId[4]!]!;
    expect(untouched.updated).toBe('2026-01-02T03:04:05.678');

    // A removed talk put back is matched by its event folder and file name, as before it left: its id, slug and dates are its own again.
    await writeFile(path.join(source, withoutId[0]!), JSON.stringify(sourceRecords.get(withoutId[0]!)));
    await writeFile(path.join(source, 'pycon-us-2014/videos/a-third-new-one.json'), JSON.stringify({ ...sourceRecords.get(withoutId[3]!), title: 'New: a third' }));
    const again = await importPyvideo({ source, content, now: SECOND });
    const last = await readState();
    expect(last.talks[withoutId[0]!]).toEqual(before.talks[withoutId[0]!]);
    expect(last.talks['pycon-us-2014/videos/a-third-new-one.json']!.id).toBe(before.highestId + 3);
    expect(again.newIds).toBe(1);
  });

  it('builds: every live talk gets its API record, its page and redirects from its old addresses', async () => {
    const result = await build({ content, out, templates: TEMPLATES });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const live = result.catalogue!.talks.filter((t) => t.state === 1);
    expect(result.summary.talks).toBe(live.length);
    const records = new Set((await fg('api/v2/video/*', { cwd: out })).filter((p) => RECORD_FILE.test(p)));
    const pages = new Set(await fg('video/*/*/index.html', { cwd: out }));
    expect(records.size).toBe(live.length);
    for (const talk of live) {
      expect(records.has(`api/v2/video/${talk.id}`)).toBe(true);
      expect(pages.has(`video/${talk.id}/${talk.slug}/index.html`)).toBe(true);
    }
    for (const talk of live.filter((_, i) => i % 100 === 0)) {
      const record = JSON.parse(await readFile(path.join(out, 'api/v2/video', String(talk.id)), 'utf8'));
      expect(Object.keys(record)).toEqual([...API_FIELDS]);
      expect(record.id).toBe(talk.id);
      for (const alias of talk.aliases) {
        const file = alias.endsWith('.html') ? alias : `${alias}index.html`;
        expect(await readFile(path.join(out, file), 'utf8')).toContain(`url=/video/${talk.id}/${talk.slug}/`);
      }
    }
    // Every talk keeps its pyvideo.org page: as pyvideo.org's Pelican named it (the event's title, the talk's slug or title), and as its file is named, in whatever script, unless the name has a space (the import reports it).
    expect(live.filter((t) => !t.aliases.some((a) => a.endsWith('.html'))).map((t) => t.name)).toEqual([]);
    const mightier = live.find((t) => t.name === 'pycon-us-2017/videos/brandon-rhodes-the-dictionary-even-mightier-pycon-2017.json')!;
    expect(await readFile(path.join(out, 'pycon-us-2017/the-dictionary-even-mightier.html'), 'utf8')).toContain(`url=/video/${mightier.id}/${mightier.slug}/`);
    const named = live.filter((t) => t.aliases.some((a) => /[^\x00-\x7f]/.test(a)));
    // 146 in the snapshot, less any that the tests above removed.
    expect(named.length).toBeGreaterThan(140);
    for (const talk of named) {
      const page = talk.aliases.find((a) => a.endsWith('.html'))!;
      expect(await readFile(path.join(out, page), 'utf8')).toContain(`url=/video/${talk.id}/${talk.slug}/`);
    }
    // Every event keeps its pyvideo.org page, and richard's addresses that redirects.txt lists (69 events, both cases of each).
    const events = result.catalogue!.events;
    expect(events.filter((e) => !e.aliases.some((a) => /^\/events\/[^/]+\.html$/.test(a))).map((e) => e.slug)).toEqual([]);
    expect(events.flatMap((e) => e.aliases.filter((a) => a.startsWith('/category/'))).length).toBe(136);
    expect(events.find((e) => e.slug === 'djangocon-2009')!.aliases).toEqual(expect.arrayContaining(['/events/djangocon-us-2009.html', '/events/djangocon-2009.html', '/category/1/DjangoCon-2009']));
    for (const event of events) {
      for (const alias of event.aliases) expect(await readFile(path.join(out, alias.endsWith('.html') ? alias : `${alias}/index.html`), 'utf8')).toContain(`url=/events/${event.slug}/"`);
    }
    // pyvideo.org's speaker pages, tag pages named otherwise and three indexes lead to ours: one per spelling Pelican slugged apart.
    const siteRedirects = result.catalogue!.redirects.flatMap((file) => file.redirects);
    expect(siteRedirects.length).toBeGreaterThan(12_500);
    expect(siteRedirects.filter((r) => r.from.startsWith('/tag/')).length).toBeGreaterThan(90);
    expect(await readFile(path.join(out, 'speaker/guido-van-rossum.html'), 'utf8')).toContain('url=/speaker/guido-van-rossum/"');
    expect(await readFile(path.join(out, 'tag/aspnet/index.html'), 'utf8')).toContain('url=/tag/asp-net/"');
    expect(await readFile(path.join(out, 'speakers.html'), 'utf8')).toContain('url=/speakers/"');
    const drafts = result.catalogue!.talks.filter((t) => t.state === 2);
    for (const talk of drafts) expect(records.has(`api/v2/video/${talk.id}`)).toBe(false);
    // The search index, built in a thread of its own at this size, its fragments bundled into at most a tenth as many files.
    const fragments = await fg('pagefind/*/fragment/*', { cwd: out });
    expect(fragments.length).toBeGreaterThan(0);
    expect(fragments.length).toBeLessThanOrEqual(fragmentFiles(live.length));
  }, 180_000);

  // Issue 3: nothing is dropped silently. The import's notes account for what it changes; this holds what it keeps, record by record.
  it('shows every URL of every record and event on its page (or in its API record, the whiteboard and thumbnail no page shows), and keeps speakers and tags exactly, the date of `recorded`, the language, and a null thumbnail as ""', async () => {
    const state = await readState();
    const languages = new Map(iso6393.map((l) => [l.iso6393, l.name]));
    // An address in a text ends where Markdown's syntax or CJK punctuation begins (`](…)`, `)'s`, `)。`); trailing punctuation is tried off.
    const URL_IN_TEXT = /https?:\/\/[^\s<>"`\])\u3000-\u303f\uff00-\uffef]+/gi;
    const percentDecoded = (text: string) => text.replace(/(?:%[0-9a-f]{2})+/gi, (m) => { try { return decodeURIComponent(m); } catch { return m; } });
    const listed = (value: unknown): unknown[] => (value == null ? [] : Array.isArray(value) ? value : [value]);
    const urlOf = (entry: unknown) => (typeof entry === 'string' ? entry : (entry as { url?: unknown } | null)?.url);
    const lost: string[] = [];
    let urls = 0;
    /** The URLs of a record, or of an event, missing from what its page shows (and its record's whiteboard and thumbnail, which no page shows). */
    const missing = (shown: string, addresses: unknown[], texts: unknown[]) => {
      let decoded: string | undefined;
      const found = (url: string) => shown.includes(url) || (decoded ??= percentDecoded(shown)).includes(percentDecoded(url));
      // Markdown's escapes (`Kalman\_filter`) taken out, as the import repairs a URL's, and a page shows a text's in a link's
      // text and address (`[…\_…](…\_…)`), though not in an address written bare, which Markdown takes as it is.
      const unescaped = (u: string) => u.replace(/\\(?=[!-/:-@[-`{-~]|$)/g, '');
      const written = texts.flatMap((text) => (typeof text === 'string' ? text.match(URL_IN_TEXT) ?? [] : []));
      // As the import repairs them: character references decoded, white space trimmed, Markdown's escapes taken out.
      const repaired = (u: string) => unescaped(decodeHTMLStrict(u).trim());
      const candidates = [...addresses.filter((u): u is string => typeof u === 'string' && u !== '').map(repaired), ...written];
      urls += candidates.length;
      return candidates.filter((url) => {
        for (let u = url; u !== ''; u = u.slice(0, -1)) {
          if (found(u) || found(unescaped(u))) return false;
          if (!/[.,;:!?'*_\\]$/.test(u)) break;
        }
        return true;
      });
    };
    for (const [file, talk] of Object.entries(state.talks)) {
      if (talk.draft) continue;
      // Read at once: 65,000 reads one after another take a seventh of the time the promises' take.
      const given = JSON.parse(readFileSync(path.join(source, file), 'utf8'));
      const record = JSON.parse(readFileSync(path.join(out, 'api/v2/video', String(talk.id)), 'utf8'));
      const page = decodeHTML(readFileSync(path.join(out, 'video', String(talk.id), talk.slug, 'index.html'), 'utf8'));
      const addresses = [...[given.videos, given.related_urls, given.related_url].flatMap(listed).map(urlOf), given.thumbnail_url, given.source_url];
      const texts = [given.description, given.summary, given.abstract, given.copyright_text, given.quality_notes];
      for (const url of missing(`${page}\n${record.whiteboard}\n${record.thumbnail_url}`, addresses, texts)) lost.push(`${file}: ${url}`);
      const keptAs = (field: string, value: unknown, expected: unknown) => {
        if (JSON.stringify(value) !== JSON.stringify(expected)) lost.push(`${file}: ${field} ${JSON.stringify(expected)} became ${JSON.stringify(value)}`);
      };
      keptAs('speakers', record.speakers, given.speakers ?? []);
      keptAs('tags', record.tags, given.tags ?? []);
      keptAs('recorded', record.recorded, typeof given.recorded === 'string' ? given.recorded.slice(0, 10) : null);
      keptAs('language', record.language, given.language == null ? 'English' : languages.get(given.language));
      keptAs('thumbnail_url', record.thumbnail_url, given.thumbnail_url ?? '');
    }
    for (const [folder, slug] of Object.entries(state.folders)) {
      const event = JSON.parse(readFileSync(path.join(source, folder, 'category.json'), 'utf8'));
      const page = decodeHTML(readFileSync(path.join(out, 'events', slug, 'index.html'), 'utf8'));
      for (const url of missing(page, [event.url], [event.description])) lost.push(`${folder}/category.json: ${url}`);
    }
    expect(lost).toEqual([]);
    expect(urls).toBeGreaterThan(75_000);
  }, 30_000);
});

/** A hand-made pyvideo/data checkout in a temporary folder, and the content folder it is imported into. */
async function handMade(run: (snapshot: { source: string; content: string; write: (rel: string, value: unknown) => Promise<void> }) => Promise<void>) {
  const root = await mkdtemp(path.join(tmpdir(), 'vc-pyvideo-small-'));
  const source = path.join(root, 'source');
  const write = async (rel: string, value: unknown) => {
    await mkdir(path.dirname(path.join(source, rel)), { recursive: true });
    await writeFile(path.join(source, rel), JSON.stringify(value));
  };
  try {
    await run({ source, content: path.join(root, 'content'), write });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const talkIn = async (content: string, event: string, slug: string) => JSON.parse(await readFile(path.join(content, event, 'videos', `${slug}.json`), 'utf8'));

describe('importing hand-made snapshots', () => {
  it('drafts only the records whose own id NO_PUBLISH.json lists, gives file names that are slugs to their talks, and moves `updated` when the list changes', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/with-id.json', { id: 50, title: 'Withdrawn' });
      // Sorted before the others, so it gets id 51 and picks its slug first: the title's slug is another file's name.
      await write('conf/videos/A_Talk.json', { title: 'Intro talk' });
      await write('conf/videos/intro-talk.json', { title: 'Something else' });
      await write('conf/videos/no-id.json', { title: 'Kept' });
      // 51–53 are the ids this import gives: they are not pyvideo's ids of these talks.
      await write('NO_PUBLISH.json', [50, 51, 52, 53]);

      const first = await importPyvideo({ source, content, now: FIRST });
      expect(first.errors).toEqual([]);
      expect(first.drafts).toBe(1);
      expect((await talkIn(content, 'conf', 'with-id')).state).toBe(2);
      expect((await talkIn(content, 'conf', 'no-id')).state).toBe(1);
      expect((await talkIn(content, 'conf', 'intro-talk')).title).toBe('Something else');
      const renamed = await talkIn(content, 'conf', 'intro-talk-51');
      expect([renamed.id, renamed.title, renamed.state]).toEqual([51, 'Intro talk', 1]);

      await write('NO_PUBLISH.json', []);
      const second = await importPyvideo({ source, content, now: SECOND });
      expect(second.changed).toBe(1);
      const published = await talkIn(content, 'conf', 'with-id');
      expect([published.state, published.added, published.updated]).toEqual([1, '2026-01-02T03:04:05', '2026-02-03T04:05:06.789']);
      expect((await talkIn(content, 'conf', 'no-id')).updated).toBe('2026-01-02T03:04:05.678');
    }));

  it('keeps a talk whose id NO_PUBLISH.json lists a draft when its record no longer names the id, at its file or moved to another event', () =>
    handMade(async ({ source, content, write }) => {
      const video = (id: string) => [{ type: 'youtube', url: `https://www.youtube.com/watch?v=${id}` }];
      for (const event of ['conf', 'other']) await write(`${event}/category.json`, { title: event });
      await write('conf/videos/stays.json', { id: 50, title: 'Stays', videos: video('aaaaaaaaaaa') });
      await write('conf/videos/moves.json', { id: 51, title: 'Moves', videos: video('bbbbbbbbbbb') });
      await write('NO_PUBLISH.json', [50, 51]);
      expect((await importPyvideo({ source, content, now: FIRST })).drafts).toBe(2);

      await write('conf/videos/stays.json', { title: 'Stays', videos: video('aaaaaaaaaaa') });
      await rm(path.join(source, 'conf', 'videos', 'moves.json'));
      await write('other/videos/moves.json', { title: 'Moves', videos: video('bbbbbbbbbbb') });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect([report.errors, report.drafts]).toEqual([[], 2]);
      const [stays, moves] = [await talkIn(content, 'conf', 'stays'), await talkIn(content, 'other', 'moves')];
      expect([stays.id, stays.state, moves.id, moves.state]).toEqual([50, 2, 51, 2]);
      // Still pyvideo's ids to the imports after: taken off the list, they are published.
      await write('NO_PUBLISH.json', []);
      expect((await importPyvideo({ source, content, now: SECOND })).drafts).toBe(0);
      await write('NO_PUBLISH.json', [50, 51]);
      expect((await importPyvideo({ source, content, now: SECOND })).drafts).toBe(2);
    }));

  it("removes the temporary files an import killed as it wrote left beside the talks', and keeps a live writer's", () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/a-talk.json', { title: 'A talk' });
      await importPyvideo({ source, content, now: FIRST });
      const videos = path.join(content, 'conf', 'videos');
      const killed = [path.join(videos, `.a-talk.json.tmp-${2 ** 22 + 17}_5-k9x`), path.join(content, `.pyvideo-import.json.tmp-${2 ** 22 + 17}_5-a1`)];
      const live = path.join(videos, `.a-talk.json.tmp-${ownTag()}-live`);
      for (const file of [...killed, live]) await writeFile(file, '{"title": "half');
      await write('conf/videos/a-talk.json', { title: 'A talk, retitled' });
      await importPyvideo({ source, content, now: SECOND });
      expect([...killed, live].map((file) => existsSync(file))).toEqual([false, false, true]);
    }));

  it('keeps the event folder given before when a newer snapshot brings a folder of that name', () =>
    handMade(async ({ source, content, write }) => {
      await write('python_porto/category.json', { title: 'Python Porto' });
      await write('python_porto/videos/first.json', { id: 1, title: 'First' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      expect(existsSync(path.join(content, 'python-porto', 'videos', 'first.json'))).toBe(true);

      await write('python-porto/category.json', { title: 'Python Porto, the other one' });
      await write('python-porto/videos/second.json', { id: 2, title: 'Second' });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      expect(report.changed).toBe(0);
      expect(report.notes.get('event folder already given to another event: renamed')?.example).toBe('python-porto');
      expect(await fg('**/*.json', { cwd: content })).toEqual(
        expect.arrayContaining(['python-porto/category.json', 'python-porto/videos/first.json', 'python-porto-2/category.json', 'python-porto-2/videos/second.json']),
      );
      expect(JSON.parse(await readFile(path.join(content, 'python-porto', 'category.json'), 'utf8')).title).toBe('Python Porto');
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it('takes event folders named like the properties every object has for the folders they are', () =>
    handMade(async ({ source, content, write }) => {
      await write('constructor/category.json', { title: 'Constructor' });
      await write('constructor/videos/first.json', { id: 1, title: 'First' });
      await write('__proto__/category.json', { title: 'Proto' });
      await write('__proto__/videos/second.json', { id: 2, title: 'Second' });
      for (const now of [FIRST, SECOND]) {
        const report = await importPyvideo({ source, content, now });
        expect(report.errors).toEqual([]);
        expect((await talkIn(content, 'constructor', 'first')).id).toBe(1);
        expect((await talkIn(content, 'proto', 'second')).id).toBe(2);
      }
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it("keeps the id given when the record names another since, gives a talk that comes back its id, and never gives a removed talk's id to another", () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/given.json', { title: 'Given' });
      await write('conf/videos/own.json', { id: 10, title: 'Own' });
      await write('conf/videos/away.json', { title: 'Away for a while' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      expect([(await talkIn(content, 'conf', 'away')).id, (await talkIn(content, 'conf', 'given')).id]).toEqual([11, 12]);

      await write('conf/videos/given.json', { id: 70, title: 'Given' });
      await rm(path.join(source, 'conf', 'videos', 'own.json'));
      await rm(path.join(source, 'conf', 'videos', 'away.json'));
      // Own's record, moved to another file: it names pyvideo's id of it.
      await write('conf/videos/moved.json', { id: 10, title: 'Own' });
      // Records that name ids this import gave: 11 to a talk that left, 12 to one still here.
      await write('conf/videos/other.json', { id: 11, title: 'Other' });
      await write('conf/videos/late.json', { id: 12, title: 'Late' });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'given')).id).toBe(12);
      const moved = await talkIn(content, 'conf', 'moved');
      expect([moved.id, moved.added]).toEqual([10, '2026-01-02T03:04:05']);
      expect([(await talkIn(content, 'conf', 'late')).id, (await talkIn(content, 'conf', 'other')).id]).toEqual([71, 72]);
      expect([...report.notes.keys()]).toEqual(
        expect.arrayContaining([
          'record names an id other than the one it was given: that one kept',
          'record that left under another file name is back: its id kept',
          'record names the id of a talk that was removed: given a new one',
          'record names the id given to another talk: given a new one',
        ]),
      );

      // Back under its own file name, a talk has its id, slug and dates back.
      await write('conf/videos/away.json', { title: 'Away for a while' });
      const back = await importPyvideo({ source, content, now: SECOND });
      expect([back.errors, back.newIds]).toEqual([[], 0]);
      const away = await talkIn(content, 'conf', 'away');
      expect([away.id, away.added, away.updated]).toEqual([11, '2026-01-02T03:04:05', '2026-01-02T03:04:05.678']);
    }));

  it('moves `updated` when what the record says changes (its event renamed too), not when its file is only reformatted', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/talk.json', { id: 3, title: 'Talk', speakers: ['Ann'] });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      await writeFile(path.join(source, 'conf/videos/talk.json'), JSON.stringify({ id: 3, title: 'Talk', speakers: ['Ann'] }, null, 4));
      const reformatted = await importPyvideo({ source, content, now: SECOND });
      expect([reformatted.changed, (await talkIn(content, 'conf', 'talk')).updated]).toEqual([0, '2026-01-02T03:04:05.678']);
      await write('conf/category.json', { title: 'Conf, renamed' });
      const renamed = await importPyvideo({ source, content, now: SECOND });
      expect([renamed.changed, (await talkIn(content, 'conf', 'talk')).updated]).toEqual([1, '2026-02-03T04:05:06.789']);
    }));

  it('refuses a record it cannot read and an entry of NO_PUBLISH.json that is not an id, and writes nothing', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/talk.json', { id: 3, title: 'Talk' });
      await write('NO_PUBLISH.json', ['3']);
      const first = await importPyvideo({ source, content, now: FIRST });
      expect([first.errors, (await talkIn(content, 'conf', 'talk')).state]).toEqual([[], 2]);

      await symlink(path.join(source, 'nowhere.json'), path.join(source, 'conf/videos/dangling.json'));
      await rm(path.join(source, 'conf/videos/talk.json'));
      await symlink(path.join(source, 'nowhere.json'), path.join(source, 'conf/videos/talk.json'));
      await write('NO_PUBLISH.json', [3, 'x']);
      await writeFile(path.join(source, 'conf/videos/broken.json'), '{"title": ');
      // Named otherwise than a slug, its slug would come from its title: it has none to give.
      await write('conf/videos/Not A Slug.json', null);
      await write('conf/videos/new.json', { title: 'New' });
      const before = await fingerprint(content);
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.ok).toBe(false);
      expect(report.errors).toEqual([
        { file: 'NO_PUBLISH.json', reason: '"x" is not an id; list ids as numbers' },
        { file: 'conf/videos/broken.json', reason: expect.stringMatching(/^not valid JSON/) },
        { file: 'conf/videos/dangling.json', reason: 'cannot be read (ENOENT)' },
        { file: 'conf/videos/talk.json', reason: 'cannot be read (ENOENT)' },
        { file: 'conf/videos/Not A Slug.json', reason: 'not a JSON object' },
      ]);
      // Not even the talk it could convert is written; and the one whose file cannot be read has not left the snapshot: its file and id stay.
      expect(await fingerprint(content)).toEqual(before);
      expect((await talkIn(content, 'conf', 'talk')).id).toBe(3);
    }));

  it('never replaces a talk written by hand, and gives an old address shared by two records to the first', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/first.json', { id: 1, title: 'First', alias: 'video/99/shared' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      await writeFile(path.join(content, 'conf/videos/mine.yaml'), 'id: 50\ntitle: Mine\nadded: 2026-01-01T00:00:00\nupdated: 2026-01-01T00:00:00\n');

      await write('conf/videos/mine.json', { id: 2, title: 'Mine too', alias: 'video/99/shared' });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      expect(await readFile(path.join(content, 'conf/videos/mine.yaml'), 'utf8')).toContain('title: Mine\n');
      const imported = await talkIn(content, 'conf', 'mine-2');
      expect(imported.id).toBe(2);
      expect(imported.aliases).not.toContain('/video/99/shared/');
      expect((await talkIn(content, 'conf', 'first')).aliases).toContain('/video/99/shared/');
      expect(report.notes.get('old address already the address of another event or talk: no redirect made')).toEqual({ count: 1, example: 'conf/videos/mine.json' });
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  // Where case is ignored (macOS, Windows) the two are one file, which the build refuses to write twice.
  it('gives an old address two records spell in different cases to the first', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/first.json', { id: 1, title: 'First', alias: 'old/99/shared' });
      await write('conf/videos/second.json', { id: 2, title: 'Second', alias: 'Old/99/Shared' });
      const report = await importPyvideo({ source, content, now: FIRST });
      expect(report.errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'first')).aliases).toContain('/old/99/shared/');
      expect((await talkIn(content, 'conf', 'second')).aliases).not.toContain('/Old/99/Shared/');
      expect(report.notes.get('old address already the address of another event or talk: no redirect made')).toEqual({ count: 1, example: 'conf/videos/second.json' });
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  // Where case is ignored, /old/ and /Old/ are one folder, named as the build first writes it: the other's address is not found in a copy made there.
  it('gives a folder two records spell in different cases to the first, and a folder of a page of its own to the page', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/first.json', { id: 1, title: 'First', alias: 'old/99/first' });
      await write('conf/videos/second.json', { id: 2, title: 'Second', alias: 'Old/99/second' });
      await write('conf/videos/third.json', { id: 3, title: 'Third', alias: 'video/1/First/old' });
      const report = await importPyvideo({ source, content, now: FIRST });
      expect(report.errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'first')).aliases).toContain('/old/99/first/');
      expect((await talkIn(content, 'conf', 'second')).aliases).toEqual(['/conf/second.html']);
      expect((await talkIn(content, 'conf', 'third')).aliases).toEqual(['/conf/third.html']);
      expect(report.notes.get("old address in a folder that another event's or talk's address, or a talk's page, spells otherwise: no redirect made")).toEqual({ count: 2, example: 'conf/videos/second.json' });
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  // On macOS a letter is one however Unicode encodes it: "café" with U+00E9 and with e and U+0301 are one file there.
  it('gives an old address two records spell in different encodings of a letter to the first', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/cafe\u0301.json', { id: 1, title: 'First' });
      await write('conf/videos/caf\u00e9.json', { id: 2, title: 'Second' });
      const report = await importPyvideo({ source, content, now: FIRST });
      expect(report.errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'first')).aliases).toContain('/conf/cafe\u0301.html');
      expect((await talkIn(content, 'conf', 'second')).aliases).toEqual(['/conf/second.html']);
      expect(report.notes.get('old address already the address of another event or talk: no redirect made')).toEqual({ count: 1, example: 'conf/videos/caf\u00e9.json' });
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it("redirects pyvideo.org's indexes and the pages of the speakers and tags of live talks to ours", () =>
    handMade(async ({ source, content, write }) => {
      await write('NO_PUBLISH.json', [3]);
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/first.json', { id: 1, title: 'First', speakers: ['Mike Müller', "Sean O'Connor"], tags: ['py.test', '#python'] });
      await write('conf/videos/second.json', { id: 2, title: 'Second', speakers: ['Mike Muller', '  '], tags: ['python', 'Py.Test'] });
      await write('conf/videos/third.json', { id: 3, title: 'Third', speakers: ['Only In A Draft'], tags: ['draft.only'] });
      const report = await importPyvideo({ source, content, now: FIRST });
      expect(report.errors).toEqual([]);
      // Pelican slugged "Mike Müller" and "Mike Muller" the same: one page there, which leads to the first one's here.
      expect(JSON.parse(await readFile(path.join(content, '_redirects', 'pyvideo.json'), 'utf8'))).toEqual({
        '/events.html': '/events/',
        '/speaker/mike-muller.html': '/speaker/mike-mueller/',
        '/speaker/sean-oconnor.html': '/speaker/sean-o-connor/',
        '/speakers.html': '/speakers/',
        // Pelican named the page of "py.test" and "Py.Test" otherwise than we do; "#python"'s was the page of "python", which is ours too.
        '/tag/pytest/': '/tag/py-test/',
        '/tags.html': '/tags/',
      });
      expect(report.notes.get("pyvideo.org speaker's, tag's or index page → redirect")).toEqual({ count: 6, example: '_redirects/pyvideo.json' });
      const out = path.join(source, '..', 'dist');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
      expect(await readFile(path.join(out, 'speaker/sean-oconnor.html'), 'utf8')).toContain('url=/speaker/sean-o-connor/"');
      expect(await readFile(path.join(out, 'tag/pytest/index.html'), 'utf8')).toContain('url=/tag/py-test/"');
      // A second import of the same snapshot leaves the file as it was.
      expect((await importPyvideo({ source, content, now: SECOND })).written).toBe(0);
    }));

  it("gives each event its pyvideo.org page, and richard's addresses that redirects.txt sends to it, as redirects", () =>
    handMade(async ({ source, content, write }) => {
      await write('djangocon-2009/category.json', { title: 'DjangoCon US 2009' });
      await write('djangocon-2009/videos/first.json', { title: 'First' });
      await write('pycon-2010/category.json', { title: 'PyCon 2010' });
      await write('pycon-2010/videos/second.json', { title: 'Second' });
      await write('pycon-2010-again/category.json', { title: 'PyCon 2010' });
      await write('pycon-2010-again/videos/third.json', { title: 'Third' });
      await writeFile(
        path.join(source, 'redirects.txt'),
        [
          '/category/1/DjangoCon-2009 /events/djangocon-2009.html',
          '/category/1/djangocon-2009 /events/djangocon-2009.html',
          '/category/2/pycon-2010 /events/pycon-2010.html',
          '/category/2/pycon-2010 /events/pycon-2010.html',
          '/category/3/gone /events/gone.html',
          '/category/4/odd',
          '',
        ].join('\n'),
      );
      const report = await importPyvideo({ source, content, now: FIRST });
      expect(report.errors).toEqual([]);
      const aliases = async (event: string) => JSON.parse(await readFile(path.join(content, event, 'category.json'), 'utf8')).aliases;
      // Named after the event's title on pyvideo.org; redirects.txt names the page after the event's folder, as it was before the title changed.
      expect(await aliases('djangocon-2009')).toEqual(['/events/djangocon-us-2009.html', '/events/djangocon-2009.html', '/category/1/DjangoCon-2009', '/category/1/djangocon-2009']);
      expect(await aliases('pycon-2010')).toEqual(['/events/pycon-2010.html', '/category/2/pycon-2010']);
      // Two events of one title had one page on pyvideo.org: the first keeps its address.
      expect(await aliases('pycon-2010-again')).toEqual([]);
      expect(Object.fromEntries([...report.notes].filter(([kind]) => /redirects\.txt|another event/.test(kind)))).toEqual({
        "redirects.txt: old path → redirect to the event's page": { count: 3, example: 'redirects.txt:1' },
        'redirects.txt: a line given before, skipped': { count: 1, example: 'redirects.txt:4' },
        "redirects.txt: not to an event's page, skipped": { count: 1, example: 'redirects.txt:5' },
        'redirects.txt: not "<old path> <new path>", skipped': { count: 1, example: 'redirects.txt:6' },
        'old address already the address of another event or talk: no redirect made': { count: 1, example: 'pycon-2010-again/category.json' },
      });
      const out = path.join(source, '..', 'dist');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
      for (const page of ['events/djangocon-us-2009.html', 'events/djangocon-2009.html', 'category/1/DjangoCon-2009/index.html']) {
        expect(await readFile(path.join(out, page), 'utf8')).toContain('url=/events/djangocon-2009/"');
      }
    }));

  it('stops at SIGINT or SIGTERM before it writes, writing nothing; once it writes, it finishes, so that a re-import finds no talk it half wrote', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/named.json', { id: 7, title: 'Named' });
      await write('conf/videos/unnamed.json', { title: 'Unnamed' });
      const stopped = await importPyvideo({ source, content, now: FIRST, signal: AbortSignal.abort() });
      expect(stopped.stopped).toBe(true);
      expect(stopped.ok).toBe(false);
      expect(existsSync(content)).toBe(false);

      const stop = new AbortController();
      const progress = { start: (label: string) => label.startsWith('files') && stop.abort(), tick: () => undefined, done: () => undefined };
      const finished = await importPyvideo({ source, content, now: FIRST, progress, signal: stop.signal });
      expect(stop.signal.aborted).toBe(true);
      expect([finished.ok, finished.stopped, finished.written]).toEqual([true, undefined, 5]);
      const again = await importPyvideo({ source, content, now: SECOND });
      expect(again.errors).toEqual([]);
      expect([again.written, again.keptIds, again.newIds]).toEqual([0, 2, 0]);
    }));

  it('says which imported talk files it writes again that were edited (by hand, or through the API) or removed since the last import', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      for (const name of ['edited', 'removed', 'left-alone', 'changed']) await write(`conf/videos/${name}.json`, { title: name });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const edited = path.join(content, 'conf', 'videos', 'edited.json');
      const imported = await readFile(edited, 'utf8');
      await writeFile(edited, imported.replace('"title": "edited"', '"title": "Edited by hand"'));
      await rm(path.join(content, 'conf', 'videos', 'removed.json'));
      await writeFile(path.join(content, 'conf', 'videos', 'changed.json'), '{}');
      await write('conf/videos/changed.json', { title: 'changed in the snapshot' });

      const again = await importPyvideo({ source, content, now: SECOND });
      expect(again.errors).toEqual([]);
      // Its record as the site served it changed (back): `updated` says so, as a PATCH's did, for feeds and clients that follow it.
      expect(await readFile(edited, 'utf8')).toBe(imported.replace('"updated": "2026-01-02T03:04:05.678"', '"updated": "2026-02-03T04:05:06.789"'));
      expect((await talkIn(content, 'conf', 'left-alone')).updated).toBe('2026-01-02T03:04:05.678');
      expect((await talkIn(content, 'conf', 'removed')).updated).toBe('2026-01-02T03:04:05.678');
      expect((await talkIn(content, 'conf', 'removed')).title).toBe('removed');
      expect(again.notes.get('talk file edited since the last import: replaced by its record')).toEqual({ count: 1, example: path.join('conf', 'videos', 'edited.json') });
      expect(again.notes.get('talk file removed since the last import: written again')).toEqual({ count: 1, example: path.join('conf', 'videos', 'removed.json') });
      expect(again.written).toBe(4);
    }));

  it("says which events' category.json it writes again that were edited by hand or removed since the last import, as it says it of talk files", () =>
    handMade(async ({ source, content, write }) => {
      for (const event of ['edited', 'removed', 'left-alone', 'changed']) {
        await write(`${event}/category.json`, { title: event });
        await write(`${event}/videos/talk.json`, { title: 'Talk' });
      }
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const category = (event: string) => path.join(content, event, 'category.json');
      const imported = await readFile(category('edited'), 'utf8');
      await writeFile(category('edited'), imported.replace('"title": "edited"', '"title": "Edited by hand"'));
      await rm(category('removed'));
      // Changed in the snapshot, and the file written by the import: no edit of anyone's is lost.
      await write('changed/category.json', { title: 'changed in the snapshot' });

      const again = await importPyvideo({ source, content, now: SECOND });
      expect(again.errors).toEqual([]);
      expect(await readFile(category('edited'), 'utf8')).toBe(imported);
      expect(JSON.parse(await readFile(category('removed'), 'utf8')).title).toBe('removed');
      expect(JSON.parse(await readFile(category('changed'), 'utf8')).title).toBe('changed in the snapshot');
      expect(again.notes.get('event file edited since the last import: replaced by its record')).toEqual({ count: 1, example: path.join('edited', 'category.json') });
      expect(again.notes.get('event file removed since the last import: written again')).toEqual({ count: 1, example: path.join('removed', 'category.json') });
      const third = await importPyvideo({ source, content, now: SECOND });
      expect([...third.notes.keys()].filter((kind) => kind.includes('since the last import'))).toEqual([]);
    }));

  it('says nothing of a removed file of a talk that left the snapshot and came back: the import removed it', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      for (const name of ['stays', 'away']) await write(`conf/videos/${name}.json`, { title: name });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      await rm(path.join(source, 'conf', 'videos', 'away.json'));
      expect((await importPyvideo({ source, content, now: SECOND })).removed).toBe(1);

      await write('conf/videos/away.json', { title: 'away' });
      const back = await importPyvideo({ source, content, now: SECOND });
      expect([back.errors, back.keptIds, back.written]).toEqual([[], 2, 2]);
      expect([...back.notes.keys()].filter((kind) => kind.includes('since the last import'))).toEqual([]);
      expect((await talkIn(content, 'conf', 'away')).updated).toBe('2026-01-02T03:04:05.678');
    }));

  it('refuses to give again the id of a talk file it wrote that was moved or rewritten as YAML by hand, and writes nothing', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/talk.json', { id: 3, title: 'Talk' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const imported = path.join(content, 'conf', 'videos', 'talk.json');
      const talk = JSON.parse(await readFile(imported, 'utf8'));
      await rm(imported);
      await writeFile(path.join(content, 'conf', 'videos', 'talk.yaml'), `# checked by hand\nid: 3\ntitle: Talk\nadded: ${talk.added}\nupdated: ${talk.updated}\n`);
      expect((await loadContent(content)).errors).toEqual([]);

      const before = await fingerprint(content);
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([{ file: 'conf/videos/talk.json', reason: `id 3 is already used by a talk in ${content} that this import did not write: conf/videos/talk.yaml` }]);
      expect(await fingerprint(content)).toEqual(before);
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it('refuses to take away the event of talks written by hand when the event leaves the snapshot (its folder renamed), and writes nothing', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/talk.json', { title: 'Talk' });
      // Written beside the event's imported talks, before or after they were.
      await mkdir(path.join(content, 'conf', 'videos'), { recursive: true });
      await writeFile(path.join(content, 'conf', 'videos', 'mine.yaml'), 'id: 50\ntitle: Mine\nadded: 2026-01-01T00:00:00\nupdated: 2026-01-01T00:00:00\n');
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      await rename(path.join(source, 'conf'), path.join(source, 'conf-2026'));

      const before = await fingerprint(content);
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([
        { file: 'conf/category.json', reason: `the event left the snapshot, but its folder ${path.join(content, 'conf')} holds talks this import did not write (mine): move them to another event's folder` },
      ]);
      expect(await fingerprint(content)).toEqual(before);
      expect((await loadContent(content)).errors).toEqual([]);

      await rename(path.join(content, 'conf', 'videos', 'mine.yaml'), path.join(content, 'mine.yaml'));
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      await rename(path.join(content, 'mine.yaml'), path.join(content, 'conf-2026', 'videos', 'mine.yaml'));
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it('counts as written and removed only the files whose bytes it changed or that it removed: not the state when it is the same, nor a file already gone', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/kept.json', { title: 'Kept' });
      await write('conf/videos/gone.json', { title: 'Gone' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      await rm(path.join(content, 'conf', 'videos', 'gone.json'));
      await rm(path.join(source, 'conf', 'videos', 'gone.json'));
      const left = await importPyvideo({ source, content, now: SECOND });
      expect([left.errors, left.removed, left.written]).toEqual([[], 0, 1]);

      const event = path.join(content, 'conf', 'category.json');
      const imported = await readFile(event, 'utf8');
      await writeFile(event, imported.replace('"title": "Conf"', '"title": "Conf, by hand"'));
      const state = (await fingerprint(content))[STATE_FILE];
      const again = await importPyvideo({ source, content, now: SECOND });
      expect([again.errors, again.written, again.unchanged]).toEqual([[], 1, 3]);
      expect(await readFile(event, 'utf8')).toBe(imported);
      expect((await fingerprint(content))[STATE_FILE]).toBe(state);
    }));

  it('refuses a state file it cannot read (a merge conflict in it), where it gave every talk a new id beside its file, and writes nothing', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/talk.json', { title: 'Talk' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const state = path.join(content, STATE_FILE);
      await writeFile(state, `<<<<<<< HEAD\n${await readFile(state, 'utf8')}`);

      const before = await fingerprint(content);
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([{ file: path.resolve(state), reason: expect.stringMatching(/^not valid JSON \(.*\): it holds the ids earlier imports gave; restore it \(from git, a backup\) and import again$/) }]);
      expect(await fingerprint(content)).toEqual(before);
    }));

  it('says of a file given as the snapshot or as the content folder that it is a file, before it reads the snapshot', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      const file = path.join(source, 'conf', 'category.json');
      const importer = (snapshot: string, folder: string) =>
        spawnSync(process.execPath, [path.join(import.meta.dirname, '..', 'scripts', 'run.mjs'), 'import', 'pyvideo', snapshot, '--content', folder], { encoding: 'utf8' });
      const asSnapshot = importer(file, content);
      expect([asSnapshot.status, asSnapshot.stderr]).toEqual([2, `import: ${file}: is a file, not a folder; nothing was written\n`]);
      const asContent = importer(source, file);
      expect([asContent.status, asContent.stderr.split('\n')[0]]).toEqual([2, `import: --content ${file}: is a file, not a folder`]);
      expect(existsSync(content)).toBe(false);
    }));

  it('finishes, when imported into again, an import whose writing failed part way, keeping the ids it gave', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/named.json', { id: 7, title: 'Named' });
      await write('conf/videos/unnamed.json', { title: 'Unnamed' });
      await write('later/category.json', { title: 'Later' });
      await write('later/videos/talk.json', { title: 'Talk' });
      // A file where the import needs a folder: its talk cannot be written, those of the other event are.
      await mkdir(path.join(content, 'later'), { recursive: true });
      await writeFile(path.join(content, 'later', 'videos'), '');
      await expect(importPyvideo({ source, content, now: FIRST })).rejects.toThrow();
      expect((await talkIn(content, 'conf', 'named')).id).toBe(7);
      // Builds refuse the half catalogue until the import is finished.
      expect(String(checkContent(content))).toMatch(/^.*\.import\.lock:1:1 an import into this folder stopped before it had written every file/);

      await rm(path.join(content, 'later', 'videos'));
      const again = await importPyvideo({ source, content, now: SECOND });
      expect(again.errors).toEqual([]);
      expect([again.keptIds, again.newIds]).toEqual([3, 0]);
      expect(again.notes.has('talk file removed since the last import: written again')).toBe(false);
      expect((await fg('*/videos/*.json', { cwd: content })).sort()).toEqual(['conf/videos/named.json', 'conf/videos/unnamed.json', 'later/videos/talk.json']);
      expect([(await talkIn(content, 'conf', 'unnamed')).id, (await talkIn(content, 'later', 'talk')).id]).toEqual([8, 9]);
      expect((await talkIn(content, 'later', 'talk')).added).toBe('2026-01-02T03:04:05');
      expect(checkContent(content)).toBeUndefined();
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it('gives new ids above those of talks written by hand beside the imported ones, and no record takes one', () =>
    handMade(async ({ source, content, write }) => {
      await write('conf/category.json', { title: 'Conf' });
      await write('conf/videos/first.json', { title: 'First' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'first')).id).toBe(1);

      await writeFile(path.join(content, 'conf', 'videos', 'by-hand.yaml'), 'id: 40\ntitle: By hand\nadded: 2026-01-01T00:00:00\nupdated: 2026-01-01T00:00:00\n');
      await write('conf/videos/second.json', { title: 'Second' });
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      expect((await talkIn(content, 'conf', 'second')).id).toBe(41);
      expect((await loadContent(content)).errors).toEqual([]);

      await write('conf/videos/third.json', { id: 40, title: 'Third' });
      const clash = await importPyvideo({ source, content, now: SECOND });
      expect(clash.errors).toEqual([{ file: 'conf/videos/third.json', reason: expect.stringContaining('id 40 is already used by a talk') }]);
      expect(existsSync(path.join(content, 'conf', 'videos', 'third.json'))).toBe(false);
    }));

  it("keeps the ids of an event's talks when pyvideo/data renames its folder (and a file), on evidence one talk alone gives, and redirects their old addresses", () =>
    handMade(async ({ source, content, write }) => {
      const video = (id: string) => [{ type: 'youtube', url: `https://www.youtube.com/watch?v=${id}` }];
      await write('conf/category.json', { title: 'Conf 2026' });
      await write('conf/videos/with-video.json', { title: 'With video', videos: video('aaaaaaaaaaa') });
      await write('conf/videos/dated.json', { title: 'Dated', recorded: '2026-05-01' });
      // Two records of one title and date (pycon-us-2013's keynote-0 and keynote-1): no evidence of which is which.
      for (const name of ['keynote-0', 'keynote-1']) await write(`conf/videos/${name}.json`, { title: 'Keynote', recorded: '2026-05-02' });
      await write('conf/videos/gone.json', { title: 'Gone', videos: video('bbbbbbbbbbb') });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const first = JSON.parse(await readFile(path.join(content, STATE_FILE), 'utf8')) as ImportState;
      const idOf = (file: string) => first.talks[`conf/videos/${file}.json`]!.id;
      await rm(path.join(source, 'conf', 'videos', 'gone.json'));
      expect((await importPyvideo({ source, content, now: FIRST })).removed).toBe(1);

      await rename(path.join(source, 'conf'), path.join(source, 'conf-2026'));
      await rename(path.join(source, 'conf-2026', 'videos', 'dated.json'), path.join(source, 'conf-2026', 'videos', 'dated-talk.json'));
      // The video of a talk removed before: its id is retired, never given again.
      await write('conf-2026/videos/back.json', { title: 'Gone', videos: video('bbbbbbbbbbb') });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      const withVideo = await talkIn(content, 'conf-2026', 'with-video');
      const dated = await talkIn(content, 'conf-2026', 'dated-talk');
      expect([withVideo.id, withVideo.added, withVideo.updated]).toEqual([idOf('with-video'), '2026-01-02T03:04:05', '2026-02-03T04:05:06.789']);
      expect(dated.id).toBe(idOf('dated'));
      expect(withVideo.aliases).toEqual(['/conf-2026/with-video.html', '/conf/with-video.html']);
      expect(dated.aliases).toEqual(expect.arrayContaining(['/conf/dated.html', `/video/${dated.id}/dated/`]));
      const given = [...['back', 'keynote-0', 'keynote-1'].map(async (name) => (await talkIn(content, 'conf-2026', name)).id)];
      expect(await Promise.all(given)).toEqual([first.highestId + 1, first.highestId + 2, first.highestId + 3]);
      expect([report.keptIds, report.newIds]).toEqual([2, 3]);
      expect(Object.fromEntries([...report.notes].filter(([kind]) => /talk that left|source moved/.test(kind)))).toEqual({
        'record of a talk that left, under another event folder or file name (the same video): its id kept': { count: 1, example: 'conf-2026/videos/with-video.json' },
        'record of a talk that left, under another event folder or file name (the same title and recording date in its event): its id kept': { count: 1, example: 'conf-2026/videos/dated-talk.json' },
        'record that may be of a talk that left (its video, or its title and date, shared with others): given a new id': { count: 2, example: 'conf-2026/videos/keynote-0.json' },
        'talk whose source moved: its old addresses → redirects': { count: 2, example: 'conf-2026/videos/dated-talk.json' },
      });
      expect(existsSync(path.join(content, 'conf'))).toBe(false);

      const out = path.join(source, '..', 'dist');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
      expect(await readFile(path.join(out, 'conf/with-video.html'), 'utf8')).toContain(`url=/video/${withVideo.id}/with-video/"`);
      expect(await readFile(path.join(out, `video/${dated.id}/dated/index.html`), 'utf8')).toContain(`url=/video/${dated.id}/dated-talk/"`);
      // The old addresses are kept with the talk: the next import, which finds it where it is, gives them again.
      const again = await importPyvideo({ source, content, now: SECOND });
      expect([again.errors, again.written, again.changed]).toEqual([[], 0, 0]);
    }));

  it('keeps the id of a talk pyvideo/data moves to another event by its video, not by its title and date, which are evidence only within one event', () =>
    handMade(async ({ source, content, write }) => {
      for (const event of ['spring', 'autumn']) await write(`${event}/category.json`, { title: event });
      await write('spring/videos/talk.json', { title: 'Talk', recorded: '2026-04-01', videos: [{ type: 'mp4', url: 'https://e.org/talk.mp4' }] });
      await write('spring/videos/dated.json', { title: 'Dated', recorded: '2026-04-02' });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const [talk, dated] = [await talkIn(content, 'spring', 'talk'), await talkIn(content, 'spring', 'dated')];
      await mkdir(path.join(source, 'autumn', 'videos'));
      for (const name of ['talk', 'dated']) await rename(path.join(source, 'spring', 'videos', `${name}.json`), path.join(source, 'autumn', 'videos', `${name}.json`));

      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      const moved = await talkIn(content, 'autumn', 'talk');
      expect([moved.id, moved.aliases]).toEqual([talk.id, ['/autumn/talk.html', '/spring/talk.html']]);
      expect((await talkIn(content, 'autumn', 'dated')).id).toBe(Math.max(talk.id, dated.id) + 1);
      expect(existsSync(path.join(content, 'spring', 'videos'))).toBe(false);
      expect((await loadContent(content)).errors).toEqual([]);
    }));

  it("gives a moved talk's old address to the new talk whose own address it is now, whichever event's folder sorts first", () =>
    handMade(async ({ source, content, write }) => {
      const video = (id: string) => [{ type: 'youtube', url: `https://www.youtube.com/watch?v=${id}` }];
      for (const event of ['conf', 'before']) await write(`${event}/category.json`, { title: event });
      await write('conf/videos/intro.json', { title: 'Intro', videos: video('aaaaaaaaaaa') });
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const { id } = await talkIn(content, 'conf', 'intro');
      await mkdir(path.join(source, 'before', 'videos'));
      await rename(path.join(source, 'conf', 'videos', 'intro.json'), path.join(source, 'before', 'videos', 'intro.json'));
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      expect((await talkIn(content, 'before', 'intro')).aliases).toEqual(['/before/intro.html', '/conf/intro.html']);

      // pyvideo.org's /conf/intro.html is the new talk's page now: the moved talk's old address is no longer its.
      await write('conf/videos/intro.json', { title: 'Another intro', videos: video('bbbbbbbbbbb') });
      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      const [moved, added] = [await talkIn(content, 'before', 'intro'), await talkIn(content, 'conf', 'intro')];
      expect([moved.id, moved.aliases]).toEqual([id, ['/before/intro.html']]);
      expect(added.aliases).toEqual(['/conf/intro.html', '/conf/another-intro.html']);
      const out = path.join(source, '..', 'dist');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
      expect(await readFile(path.join(out, 'conf/intro.html'), 'utf8')).toContain(`url=/video/${added.id}/intro/"`);
    }));

  it("redirects the old addresses of an event whose talks all moved to one other event (its folder renamed, or merged into another's), not of one split among several, and no longer once a real event takes the name", () =>
    handMade(async ({ source, content, write }) => {
      let videos = 0;
      const talk = (rel: string) => write(rel, { title: rel, videos: [{ type: 'youtube', url: `https://www.youtube.com/watch?v=${String(++videos).padStart(11, 'v')}` }] });
      const events = { 'bay-piggies': 'Bay Piggies', 'caipyra-2016': 'Caipyra 2016', 'caipyra-2018': 'Caipyra 2018', split: 'Split', one: 'One', two: 'Two' };
      for (const [event, title] of Object.entries(events)) {
        await write(`${event}/category.json`, { title });
        for (const name of ['a', 'b']) await talk(`${event}/videos/${name}.json`);
      }
      expect((await importPyvideo({ source, content, now: FIRST })).errors).toEqual([]);
      const move = async (from: string, to: string) => {
        await mkdir(path.dirname(path.join(source, to)), { recursive: true });
        await rename(path.join(source, from), path.join(source, to));
      };
      await move('bay-piggies', 'baypiggies');
      await write('baypiggies/category.json', { title: 'BayPiggies' });
      for (const year of ['2016', '2018']) {
        for (const name of ['a', 'b']) await move(`caipyra-${year}/videos/${name}.json`, `caipyra/videos/${year}-${name}.json`);
        await rm(path.join(source, `caipyra-${year}`), { recursive: true });
      }
      await write('caipyra/category.json', { title: 'Caipyra' });
      await move('split/videos/a.json', 'one/videos/split-a.json');
      await move('split/videos/b.json', 'two/videos/split-b.json');
      await rm(path.join(source, 'split'), { recursive: true });

      const report = await importPyvideo({ source, content, now: SECOND });
      expect(report.errors).toEqual([]);
      expect(report.notes.get('event whose talks all moved to one other event (its folder renamed, or merged): its old addresses → redirects')).toEqual({ count: 3, example: 'bay-piggies' });
      expect(report.notes.get('event whose talks moved to several events (split): no redirect')).toEqual({ count: 1, example: 'split' });
      const category = async (event: string) => JSON.parse(await readFile(path.join(content, event, 'category.json'), 'utf8'));
      expect((await category('baypiggies')).aliases).toEqual(['/events/baypiggies.html', '/events/bay-piggies.html']);
      expect((await category('caipyra')).aliases).toEqual(['/events/caipyra.html', '/events/caipyra-2016.html', '/events/caipyra-2018.html']);
      expect([(await category('one')).aliases, (await category('two')).aliases]).toEqual([['/events/one.html'], ['/events/two.html']]);
      const redirects = async () => JSON.parse(await readFile(path.join(content, '_redirects', 'pyvideo.json'), 'utf8'));
      expect(await redirects()).toMatchObject({ '/events/bay-piggies/': '/events/baypiggies/', '/events/caipyra-2016/': '/events/caipyra/', '/events/caipyra-2018/': '/events/caipyra/' });
      expect((await redirects())['/events/split/']).toBeUndefined();
      const out = path.join(source, '..', 'dist');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
      expect(await readFile(path.join(out, 'events/bay-piggies/index.html'), 'utf8')).toContain('url=/events/baypiggies/"');
      expect(await readFile(path.join(out, 'events/bay-piggies.html'), 'utf8')).toContain('url=/events/baypiggies/"');
      expect(await readFile(path.join(out, 'events/caipyra-2016.html'), 'utf8')).toContain('url=/events/caipyra/"');
      // Kept for the imports after, which change nothing.
      const again = await importPyvideo({ source, content, now: SECOND });
      expect([again.errors, again.written, again.changed]).toEqual([[], 0, 0]);

      // A real event of the old name: its own addresses are its.
      await write('bay-piggies/category.json', { title: 'Bay Piggies' });
      await talk('bay-piggies/videos/c.json');
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      expect((await category('baypiggies')).aliases).toEqual(['/events/baypiggies.html']);
      expect((await category('bay-piggies')).aliases).toEqual(['/events/bay-piggies.html']);
      expect((await redirects())['/events/bay-piggies/']).toBeUndefined();
      expect((await redirects())['/events/caipyra-2016/']).toBe('/events/caipyra/');
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);

      // An event that moved on takes along the addresses of those that moved into it.
      await move('caipyra', 'python-caipyra');
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      expect((await category('python-caipyra')).aliases).toEqual(['/events/caipyra.html', '/events/caipyra-2016.html', '/events/caipyra-2018.html']);
      expect(await redirects()).toMatchObject({ '/events/caipyra/': '/events/python-caipyra/', '/events/caipyra-2016/': '/events/python-caipyra/', '/events/caipyra-2018/': '/events/python-caipyra/' });
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);

      // So is an event written by hand under the old name.
      await mkdir(path.join(content, 'caipyra-2018', 'videos'), { recursive: true });
      await writeFile(path.join(content, 'caipyra-2018', 'category.yaml'), 'title: Mine\n');
      await writeFile(path.join(content, 'caipyra-2018', 'videos', 'mine.yaml'), 'id: 500\ntitle: Mine\nadded: 2026-01-01T00:00:00\nupdated: 2026-01-01T00:00:00\n');
      expect((await importPyvideo({ source, content, now: SECOND })).errors).toEqual([]);
      expect((await redirects())['/events/caipyra-2018/']).toBeUndefined();
      expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
    }));
});
