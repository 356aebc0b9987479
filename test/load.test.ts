import { spawnSync } from 'node:child_process';
import { chmod, cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SITE, isLive, loadContent, loadFullTalk, shownFolder } from '../src/load.ts';
import { WatchedListing } from '../src/listing.ts';
import { commandArgs } from '../src/program.ts';
import { BAD_CASES, BAD_FIXTURES, DEMO_CONTENT, TEMPLATES, tempDir } from './helpers.ts';

describe('the bad content corpus', () => {
  it('has cases', () => expect(BAD_CASES.length).toBeGreaterThanOrEqual(10));

  it.each(BAD_CASES)('%s: reports every problem with its exact message and position', async (name) => {
    const dir = path.join(BAD_FIXTURES, name);
    const expected = (await readFile(path.join(dir, 'expected.txt'), 'utf8')).trimEnd().split('\n');
    const { errors } = await loadContent(path.join(dir, 'content'));
    const prefix = `${path.relative(process.cwd(), dir)}/`;
    expect(errors.map((e) => String(e).replaceAll(prefix, ''))).toEqual(expected);
  });
});

describe('file names in messages', () => {
  it('are relative to the working directory inside it, and whole outside it', async () => {
    const cwd = process.cwd();
    expect(shownFolder(cwd)).toBe('.');
    expect(shownFolder(path.join(cwd, 'content'))).toBe('content');
    expect(shownFolder('content/')).toBe('content');
    expect(shownFolder(path.join(cwd, '..foo'))).toBe('..foo');
    expect(shownFolder(path.dirname(cwd))).toBe(path.dirname(cwd));
    const outside = await tempDir();
    await mkdir(path.join(outside, 'ev'));
    await writeFile(path.join(outside, 'ev', 'category.yaml'), 'title: [\n');
    const { errors } = await loadContent(outside);
    expect(String(errors[0])).toMatch(/^\S+\/ev\/category\.yaml:\d+:\d+ /);
    expect(String(errors[0]).startsWith(`${outside}/ev/category.yaml:`)).toBe(true);
  });
});

describe('a file beyond the parsers', () => {
  it("is its own error, named, not the check's crash", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'conf', 'videos'), { recursive: true });
    await writeFile(path.join(dir, 'conf', 'category.yaml'), 'title: Conf\n');
    await writeFile(path.join(dir, 'conf', 'videos', 'deep.json'), `{"id": 1, "title": "T", "tags": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    await writeFile(path.join(dir, 'conf', 'videos', 'deep.yaml'), `id: 2\ntitle: T\ntags: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const { errors } = await loadContent(dir);
    expect(errors.map((e) => `${path.basename(e.file)}:${e.pos.line} ${e.message}`)).toEqual([
      'deep.json:1 cannot check the file: it is nested too deeply to read; a content file is a mapping of fields, most of them text',
      'deep.yaml:3 YAML syntax error: nested too deeply to read; a content file is a mapping of fields, most of them text',
    ]);
  });
});

describe('a symbolic link in the content folder', () => {
  it("is an error where it stands, a folder's or a file's, rather than content left out without a word, after an edit too", async () => {
    const root = await tempDir('vc-load-');
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const listing = new WatchedListing(content);
    const first = await loadContent(content, { entries: await listing.current(), remember: true });
    const moveOut = async (name: string) => {
      await rename(path.join(content, name), path.join(root, path.basename(name)));
      await symlink(path.join(root, path.basename(name)), path.join(content, name));
    };
    // A talk file put back as a link to where it went, as the dev server's watcher sees it: not loaded from the last load's basis.
    const talk = 'tidewater-python-2024/videos/asyncio-in-production-lessons.yaml';
    await moveOut(talk);
    listing.saw(talk);
    const edited = await loadContent(content, { entries: await listing.current(), cache: first.cache, basis: first.basis, remember: true });
    await moveOut('pennine-web-2012');
    const { errors } = await loadContent(content);
    const problem = ":1:1 is a symbolic link; the build reads only the content folder's own files and folders: move or copy what it leads to here";
    const shown = shownFolder(content);
    expect(edited.errors.map(String)).toEqual([`${shown}/${talk}${problem}`]);
    expect(errors.map(String)).toEqual([`${shown}/pennine-web-2012${problem}`, `${shown}/${talk}${problem}`]);
  });
});

describe("the site's settings", () => {
  it('a file of comments alone (every field commented out) or of nothing is the defaults, as no file is', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'conf'));
    await writeFile(path.join(dir, 'conf', 'category.yaml'), 'title: Conf\n');
    for (const text of ['# name: My talks\n# edit_url: https://github.com/you/talks/edit/main/content/{path}\n', '', '---\n']) {
      await writeFile(path.join(dir, '_site.yaml'), text);
      const { errors, catalogue } = await loadContent(dir);
      expect(errors.map(String), JSON.stringify(text)).toEqual([]);
      expect(catalogue.site).toEqual(DEFAULT_SITE);
    }
  });
});

describe('a file or folder of the content that cannot be read', () => {
  it('is an error where it stands that says how to let it be read, with every other problem, rather than the end of the check', async () => {
    const root = await tempDir('vc-load-');
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    await writeFile(path.join(content, 'pennine-web-2012', 'videos', 'bad-talk.yaml'), 'id: 9000\ntitle: x\n');
    const locked = ['tidewater-python-2024/videos', 'kamogawa-python-2025/category.yaml', '_pages/about.md'];
    for (const name of locked) await chmod(path.join(content, name), 0);
    // Root reads whatever its mode: the check runs as nobody there.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if (process.getuid?.() === 0) await chmod(root, 0o755);
    const checked = spawnSync(process.execPath, commandArgs('check', '--content', content, '--templates', TEMPLATES), { ...user, cwd: root, env: { ...process.env, FORCE_COLOR: '0', HOME: root }, encoding: 'utf8' });
    // Readable again, for the temporary folder to be removed.
    for (const name of locked) await chmod(path.join(content, name), 0o755);
    const fix = (what: string, mode: string) => `cannot read the ${what} (EACCES); let the build's user read it (chmod ${mode}), or move it out of the content folder`;
    expect([checked.status, checked.stderr.trimEnd().split('\n')]).toEqual([
      1,
      [
        `content/_pages/about.md:1:1 ${fix('file', 'a+r')}`,
        `content/kamogawa-python-2025/category.yaml:1:1 ${fix('file', 'a+r')}`,
        'content/pennine-web-2012/videos/bad-talk.yaml:1:1 added: required field is missing; add it (a date-time YYYY-MM-DDThh:mm:ss)',
        'content/pennine-web-2012/videos/bad-talk.yaml:1:1 updated: required field is missing; add it (a date-time YYYY-MM-DDThh:mm:ss, with or without .fff)',
        `content/tidewater-python-2024/videos:1:1 ${fix('folder', 'a+rx')}`,
        expect.stringMatching(/^check failed: 5 errors in 4 of \d+ files$/),
      ],
    ]);
  });
});

describe('the demo catalogue', () => {
  it('loads without a problem and covers the content format', async () => {
    const { catalogue, errors } = await loadContent(DEMO_CONTENT);
    expect(errors.map(String)).toEqual([]);
    const { events } = catalogue;
    const talks = catalogue.talks.map((t) => loadFullTalk(DEMO_CONTENT, t));
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(talks.length).toBeGreaterThanOrEqual(40);
    expect(talks.some((t) => !isLive(t))).toBe(true);
    expect(talks.some((t) => t.duration === null)).toBe(true);
    for (const fmt of ['ogv', 'mp4', 'webm', 'flv'] as const) expect(talks.some((t) => t[`video_${fmt}_url`])).toBe(true);
    expect(talks.some((t) => t.video_mp4_url?.includes('Signature='))).toBe(true);
    expect(talks.some((t) => t.speakers.length === 0)).toBe(true);
    expect(talks.some((t) => t.tags.some((tag) => /^\s/.test(tag)))).toBe(true);
    expect(talks.some((t) => t.tags.some((tag) => /[.,!]$/.test(tag)))).toBe(true);
    expect(talks.some((t) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(t.title))).toBe(true);
    expect(talks.some((t) => t.summary === '')).toBe(true);
    expect(catalogue.pages.map((p) => [p.slug, p.nav])).toEqual([['about', true]]);
  });

  it('defaults slug to the file name and category to the event title', async () => {
    const { catalogue } = await loadContent(DEMO_CONTENT);
    for (const talk of catalogue.talks) {
      expect(talk.file.endsWith(`/videos/${talk.slug}.yaml`) || talk.file.endsWith(`/videos/${talk.slug}.json`)).toBe(true);
      expect(talk.category).toBe(catalogue.events.find((e) => e.slug === talk.event)?.title);
    }
  });
});

describe('loading with a cache', () => {
  it('reads only the files whose size, mtime or inode changed', async () => {
    const first = await loadContent(DEMO_CONTENT);
    expect(first.read).toBe(first.files);
    const second = await loadContent(DEMO_CONTENT, { cache: first.cache });
    expect(second.read).toBe(0);
    expect(second.catalogue).toEqual(first.catalogue);
  });

  it('gives an unchanged file the object the last load made of it, and a changed one a new object', async () => {
    const content = path.join(await tempDir('vc-load-'), 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const first = await loadContent(content);
    const edited = first.catalogue.talks[0]!;
    const file = path.join(content, edited.name);
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^(\s*"?title"?\s*:).*$/m, '$1 "Edited"'));
    const second = await loadContent(content, { cache: first.cache });
    expect(second.read).toBe(1);
    const talk = (load: typeof first, id: number) => load.catalogue.talks.find((t) => t.id === id)!;
    expect(talk(second, edited.id)).not.toBe(edited);
    expect(talk(second, edited.id).title).toBe('Edited');
    const yamlEvents = first.catalogue.events.filter((e) => e.name.endsWith('.yaml'));
    const other = first.catalogue.talks.find((t) => t.event !== edited.event && yamlEvents.some((e) => e.slug === t.event))!;
    expect(talk(second, other.id)).toBe(other);
    expect(second.catalogue.events).toEqual(first.catalogue.events);
    second.catalogue.events.forEach((event, i) => expect(event).toBe(first.catalogue.events[i]));

    // A renamed event gives its talks another category: new objects for them, the others stay.
    const category = path.join(content, yamlEvents.find((e) => e.slug === other.event)!.name);
    await writeFile(category, (await readFile(category, 'utf8')).replace(/^title:.*$/m, 'title: Renamed'));
    const third = await loadContent(content, { cache: second.cache });
    expect(talk(third, other.id)).not.toBe(other);
    expect(talk(third, other.id).category).toBe('Renamed');
    expect(talk(third, edited.id)).toBe(talk(second, edited.id));
  });

  it('reads in batches elsewhere when there are many files, with the same result', async () => {
    const inline = await loadContent(DEMO_CONTENT);
    const { readTalks } = await import('../src/load.ts');
    let calls = 0;
    const parallel = async (task: Parameters<typeof readTalks>[0]) => {
      calls++;
      return readTalks(task);
    };
    const viaBatches = await loadContent(DEMO_CONTENT, { parallel, parallelFrom: 1 });
    expect(calls).toBe(1);
    expect(viaBatches.catalogue).toEqual(inline.catalogue);
    expect(viaBatches.errors).toEqual([]);
  });
});

describe('a content file whose extension is in upper case', () => {
  it('is told all of its problems in one run, as the file it would be once renamed', async () => {
    const content = path.join(await tempDir('vc-load-'), 'content');
    await mkdir(path.join(content, 'conf', 'videos'), { recursive: true });
    await writeFile(path.join(content, 'conf', 'category.JSON'), '{"title": "Conf"}');
    await writeFile(path.join(content, 'conf', 'videos', 'Talk_One.YAML'), 'id: 1\ntitle: ""\n');
    await writeFile(path.join(content, 'conf', 'videos', 'two.Json'), '{"id": 2, "title": "Two", "added": "2024-06-01T00:00:00", "updated": "2024-06-01T00:00:00.000", "speaker": []}');
    await writeFile(path.join(content, 'conf', 'stray.Yml'), 'id: 3\n');
    const { errors } = await loadContent(content);
    // Read as JSON, not as YAML: the position is JSON's.
    expect(errors.map((e) => String(e).replace(`${content}/`, ''))).toEqual([
      "conf/category.JSON:1:1 a content file's extension is written in lower case; rename the file to category.json",
      "conf/stray.Yml:1:1 a content file's extension is written in lower case; rename the file to stray.yml",
      'conf/stray.Yml:1:1 an event folder holds its category file and a videos folder, nothing else; if this file describes the event, name it category.yml, and if it is a talk, move it into conf/videos/',
      "conf/videos/Talk_One.YAML:1:1 a content file's extension is written in lower case; rename the file to Talk_One.yaml",
      'conf/videos/Talk_One.YAML:1:1 added: required field is missing; add it (a date-time YYYY-MM-DDThh:mm:ss)',
      'conf/videos/Talk_One.YAML:1:1 updated: required field is missing; add it (a date-time YYYY-MM-DDThh:mm:ss, with or without .fff)',
      'conf/videos/Talk_One.YAML:1:1 slug: the file name "Talk_One" is not a valid slug; rename the file to talk-one.yaml, or add a slug field',
      'conf/videos/Talk_One.YAML:2:8 title: must not be empty',
      "conf/videos/two.Json:1:1 a content file's extension is written in lower case; rename the file to two.json",
      'conf/videos/two.Json:1:97 speaker: unknown field; did you mean `speakers`?',
    ]);
  });
});

describe("a talk's enclosure", () => {
  it('is its first playable file over https, else its first playable file', async () => {
    const content = path.join(await tempDir('vc-load-'), 'content');
    await mkdir(path.join(content, 'conf', 'videos'), { recursive: true });
    await writeFile(path.join(content, 'conf', 'category.yaml'), 'title: Conf\n');
    const stamps = 'added: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00.000"\n';
    await writeFile(path.join(content, 'conf', 'videos', 'a.yaml'), `id: 1\ntitle: A\n${stamps}video_mp4_url: http://e.org/a.mp4\nvideo_webm_url: https://e.org/a.webm\nvideo_webm_length: 5\n`);
    await writeFile(path.join(content, 'conf', 'videos', 'b.yaml'), `id: 2\ntitle: B\n${stamps}video_mp4_url: http://e.org/b.mp4\n`);
    const { catalogue, errors } = await loadContent(content);
    expect(errors).toEqual([]);
    expect(catalogue.talks.map((t) => t.enclosure)).toEqual([
      { url: 'https://e.org/a.webm', type: 'video/webm', length: 5 },
      { url: 'http://e.org/b.mp4', type: 'video/mp4', length: null },
    ]);
  });
});

describe('loading from the last load\'s basis', () => {
  it('gives what a load from scratch gives after each edit, and takes over the basis while nothing is wrong', async () => {
    const content = path.join(await tempDir('vc-load-'), 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const listing = new WatchedListing(content);
    let last = await loadContent(content, { entries: await listing.current(), remember: true });
    const talk12 = 'tidewater-python-2024/videos/asyncio-in-production-lessons.yaml';
    const original = await readFile(path.join(content, talk12), 'utf8');
    const write = async (name: string, text: string) => {
      await mkdir(path.dirname(path.join(content, name)), { recursive: true });
      await writeFile(path.join(content, name), text);
      listing.saw(name);
    };
    const remove = async (name: string) => {
      await rm(path.join(content, name));
      listing.saw(name);
    };
    const added = 'tidewater-python-2024/videos/a-talk-added-later.yaml';
    const talk = (id: number, more = '') => `id: ${id}\ntitle: Added later\nadded: 2024-06-01T00:00:00\nupdated: 2024-06-01T00:00:00.000\n${more}`;
    // Refused: loaded from scratch, which finds a problem.
    const steps: [string, () => Promise<void>, 'taken over' | 'from scratch' | 'refused'][] = [
      ['a new title', () => write(talk12, original.replace(/^title: .*$/m, 'title: "A new title"')), 'taken over'],
      ['a talk added', () => write(added, talk(9001, 'aliases: [/old/added-later.html]\n')), 'taken over'],
      ['an id already used', () => write(added, talk(12)), 'from scratch'],
      ['the id put right', () => write(added, talk(9002)), 'from scratch'],
      ['a slug already used', () => write(added, talk(9002, 'slug: asyncio-in-production-lessons\n')), 'from scratch'],
      ['an alias that is another talk\'s page', () => write(added, talk(9002, 'aliases: [/video/12/asyncio-in-production-lessons/]\n')), 'from scratch'],
      ['a file that does not parse', () => write(added, 'id: [9002\n'), 'from scratch'],
      ['the id put right again', () => write(added, talk(9002)), 'from scratch'],
      ["an alias that is a page's address", () => write(added, talk(9002, 'aliases: [/about/]\n')), 'from scratch'],
      ['the alias taken out', () => write(added, talk(9002)), 'from scratch'],
      // Where letter case is ignored (macOS, Windows), these are the same files.
      ["an alias that is a page's address in another case", () => write(added, talk(9002, 'aliases: [/About/]\n')), 'refused'],
      ['the alias taken out again', () => write(added, talk(9002)), 'from scratch'],
      ["an alias that is another talk's page in another case", () => write(added, talk(9002, 'aliases: [/Video/12/Asyncio-In-Production-Lessons/]\n')), 'refused'],
      ['the alias taken out once more', () => write(added, talk(9002)), 'from scratch'],
      // On macOS "é" is one letter however Unicode encodes it (U+00E9, or e and U+0301): one talk's two spellings are one file with the same bytes.
      ['an alias in both encodings of its letter', () => write(added, talk(9002, 'aliases: [/old/café.html, "/old/cafe\\u0301.html"]\n')), 'from scratch'],
      ["an alias that is another talk's in another encoding", () => write(talk12, `${original}aliases: ["/old/cafe\\u0301.html"]\n`), 'refused'],
      ['both aliases taken out', () => write(talk12, original).then(() => write(added, talk(9002))), 'from scratch'],
      ['a page edited', () => write('_pages/about.md', '---\ntitle: About us\nnav: true\n---\nEdited.\n'), 'from scratch'],
      ['a page added', () => write('_pages/faq.md', '---\ntitle: FAQ\n---\nAsk.\n'), 'from scratch'],
      ['a talk edited after the pages', () => write(added, talk(9002, 'tags: [after-the-pages]\n')), 'taken over'],
      // Where letter case is ignored, /Old/ and /old/ are one folder. One spelled otherwise than its key may be one the site writes, which a full load knows.
      ['an alias in a folder spelled otherwise', () => write(talk12, `${original}aliases: [/Old/talk-12.html, /video/9003/A-Talk-Added-Later/old.html]\n`), 'from scratch'],
      ["an alias in a folder another talk's alias spells otherwise", () => write(added, talk(9002, 'aliases: [/old/added-later.html]\n')), 'refused'],
      ['the alias in the same spelling', () => write(added, talk(9002, 'aliases: [/Old/added-later.html]\n')), 'from scratch'],
      ["a talk whose page is in a folder another talk's alias spells otherwise", () => write(added, talk(9003)), 'refused'],
      ['the aliases taken out', () => write(talk12, original).then(() => write(added, talk(9002))), 'from scratch'],
      ['the id talk 12 gives up taken by another', () => write(talk12, original.replace(/^id: 12$/m, 'id: 9003')).then(() => write(added, talk(12))), 'taken over'],
      ['talk 12 removed', () => remove(talk12), 'taken over'],
      ['the added talk removed', () => remove(added), 'taken over'],
      // Valid once renamed: the name of its extension is all that is wrong.
      ['a talk added in a file of an upper-case extension, that writes its slug', () => write('tidewater-python-2024/videos/later.YAML', talk(9004, 'slug: later\n')), 'refused'],
      ['that file removed', () => remove('tidewater-python-2024/videos/later.YAML'), 'from scratch'],
      ['an event renamed', () => write('tidewater-python-2024/category.yaml', 'title: Renamed\n'), 'from scratch'],
    ];
    for (const [name, change, expected] of steps) {
      await change();
      const next = await loadContent(content, { entries: await listing.current(), cache: last.cache, basis: last.basis, remember: true });
      const scratch = await loadContent(content);
      expect(next.errors.map(String), name).toEqual(scratch.errors.map(String));
      expect(next.catalogue, name).toEqual(scratch.catalogue);
      expect(next.basis === undefined, name).toBe(scratch.errors.length > 0);
      if (expected === 'refused') expect(scratch.errors, name).not.toEqual([]);
      if (expected === 'taken over') {
        expect(next.basis, name).toBe(last.basis);
        expect(next.read, name).toBeLessThanOrEqual(2);
      } else if (next.basis) expect(next.basis, name).not.toBe(last.basis);
      last = next;
    }
  });
});
