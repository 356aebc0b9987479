import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLive, listContent, loadContent, loadFullTalk, WatchedListing } from '../src/load.ts';
import { BAD_CASES, BAD_FIXTURES, DEMO_CONTENT, tempDir } from './helpers.ts';

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

describe('a watched listing', () => {
  it('equals a fresh listing after the files the watcher saw change are stated again, and lists afresh when told it cannot say', async () => {
    const content = path.join(await tempDir('vc-listing-'), 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const listing = new WatchedListing(content);
    expect(await listing.current()).toEqual(await listContent(content));

    const [first, second] = (await listContent(content)).map((e) => e.path).filter((p) => p.includes('/videos/'));
    await writeFile(path.join(content, first!), `${await readFile(path.join(content, first!), 'utf8')}\n`);
    await rm(path.join(content, second!));
    const added = 'aaa-new-event/videos/a-new-talk.yaml';
    await mkdir(path.join(content, 'aaa-new-event', 'videos'), { recursive: true });
    await writeFile(path.join(content, added), 'title: New\n');
    await writeFile(path.join(content, 'aaa-new-event', 'videos', '.a-new-talk.yaml.swp'), 'x');
    await writeFile(path.join(content, 'aaa-new-event', 'notes.txt'), 'x');
    for (const name of [first!, second!, added, 'aaa-new-event/videos/.a-new-talk.yaml.swp', 'aaa-new-event/notes.txt']) listing.saw(name);
    const patched = await listing.current();
    expect(patched).toEqual(await listContent(content));
    expect(patched.map((e) => e.path)).toContain(added);
    expect(patched.map((e) => e.path)).not.toContain(second);

    // Unseen changes stay unseen until the watcher says it cannot tell what changed.
    await rm(path.join(content, added));
    expect(await listing.current()).toEqual(patched);
    listing.saw();
    expect(await listing.current()).toEqual(await listContent(content));
  });
});
