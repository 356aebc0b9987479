import { cp, mkdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSignature, listContent, WatchedListing } from '../src/listing.ts';
import { DEMO_CONTENT, tempDir } from './helpers.ts';

describe('the content listing', () => {
  it('lists the data files and the pages sorted, without dot files or other files, and its signature moves with any of them', async () => {
    const content = path.join(await tempDir('vc-listing-'), 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    await writeFile(path.join(content, 'notes.txt'), 'x');
    await writeFile(path.join(content, '.hidden.yaml'), 'x');
    // Markdown is content only under _pages/.
    await writeFile(path.join(content, 'README.md'), 'x');
    await writeFile(path.join(content, 'tidewater-python-2024', 'notes.md'), 'x');
    // What editors leave beside a page they save is not content; any other file under _pages/ is, for the loader to refuse.
    for (const leftover of ['about.md~', '#about.md#', 'about.md.swp', 'about.md.orig', '4913']) await writeFile(path.join(content, '_pages', leftover), 'x');
    await writeFile(path.join(content, '_pages', 'notes.txt'), 'x');
    // A link is listed, marked, where it stands for content (a folder, a data file, a page), for the loader to refuse.
    const elsewhere = await tempDir('vc-listing-');
    await symlink(elsewhere, path.join(content, 'linked-event'));
    await symlink(path.join(elsewhere, 'talk.yaml'), path.join(content, 'tidewater-python-2024', 'videos', 'linked.yaml'));
    await symlink(path.join(elsewhere, 'notes'), path.join(content, 'notes-link.txt'));
    const entries = await listContent(content);
    expect(entries.filter((e) => e.link).map((e) => e.path)).toEqual(['linked-event', 'tidewater-python-2024/videos/linked.yaml']);
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths.every((p) => (/\.(ya?ml|json)$/.test(p) || /^_pages\/.+\.(md|txt)$/.test(p) || p === 'linked-event') && !p.split('/').some((part) => part.startsWith('.')))).toBe(true);
    expect(paths.filter((p) => p.startsWith('_pages/'))).toEqual(['_pages/about.md', '_pages/notes.txt']);
    const signature = contentSignature(entries);
    expect(contentSignature(await listContent(content))).toBe(signature);

    const talk = paths.find((p) => p.includes('/videos/'))!;
    await utimes(path.join(content, talk), new Date(), new Date(Date.now() + 5000));
    const touched = contentSignature(await listContent(content));
    expect(touched).not.toBe(signature);
    await writeFile(path.join(content, 'notes.txt'), 'changed, but not content');
    expect(contentSignature(await listContent(content))).toBe(touched);
    await rm(path.join(content, talk));
    const removed = contentSignature(await listContent(content));
    expect(removed).not.toBe(touched);
    await writeFile(path.join(content, '_pages', 'faq.md'), '---\ntitle: FAQ\n---\n');
    expect(contentSignature(await listContent(content))).not.toBe(removed);
    // Written again, and its modification time put back (cp -p, rsync -t): only the change time tells.
    const other = path.join(content, paths.find((p) => p.includes('/videos/') && p !== talk)!);
    await utimes(other, 1_700_000_000, 1_700_000_000);
    const before = contentSignature(await listContent(content));
    // The change time comes from the kernel's coarse clock: a few milliseconds apart, the write gets another one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(other, await readFile(other));
    await utimes(other, 1_700_000_000, 1_700_000_000);
    expect(contentSignature(await listContent(content))).not.toBe(before);
    // A content folder that is not there is no empty catalogue: its build would unpublish the site.
    await expect(listContent(path.join(content, 'gone'))).rejects.toThrow('the content folder is not there');
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
    // A data file in a hidden folder is no more listed when the watcher sees it than when the folder is listed.
    await mkdir(path.join(content, 'aaa-new-event', '.drafts'));
    await writeFile(path.join(content, 'aaa-new-event', '.drafts', 'talk.yaml'), 'title: Draft\n');
    await writeFile(path.join(content, 'aaa-new-event', 'notes.txt'), 'x');
    await writeFile(path.join(content, '_pages', 'faq.md'), '---\ntitle: FAQ\n---\n');
    await writeFile(path.join(content, 'aaa-new-event', 'notes.md'), 'x');
    for (const name of [first!, second!, added, 'aaa-new-event/videos/.a-new-talk.yaml.swp', 'aaa-new-event/.drafts/talk.yaml', 'aaa-new-event/notes.txt', '_pages/faq.md', 'aaa-new-event/notes.md']) listing.saw(name);
    const patched = await listing.current();
    expect(patched).toEqual(await listContent(content));
    expect(patched.map((e) => e.path)).toContain(added);
    expect(patched.map((e) => e.path)).toContain('_pages/faq.md');
    expect(patched.map((e) => e.path)).not.toContain(second);

    // Unseen changes stay unseen until the watcher says it cannot tell what changed.
    await rm(path.join(content, added));
    expect(await listing.current()).toEqual(patched);
    listing.saw();
    expect(await listing.current()).toEqual(await listContent(content));
  });
});
