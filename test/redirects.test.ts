// The site's redirects: a mapping of old path to page in each file of the
// content folder's _redirects/, every problem at its line and column; where
// they may lead, held against a build's output; and the build and check that
// refuse a redirect to no page.
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { indexCatalogue } from '../src/catalogue-index.ts';
import { loadContent } from '../src/load.ts';
import { PAGE_FOLDERS, parseRedirects, redirectsFileProblem, SitePages } from '../src/redirects.ts';
import { DEMO_CONTENT, runCommand, TEMPLATES, tempDir } from './helpers.ts';

const FILE = 'content/_redirects/site.yaml';
const parse = (text: string) => parseRedirects(FILE, Buffer.from(text));
const problems = (text: string) => {
  const result = parse(text);
  return result.ok ? [] : result.errors.map(String);
};

describe('a redirects file', () => {
  it('is a mapping of old paths to the pages they lead to, in its order; empty, it has none', () => {
    expect(parse('# From the old site\n/speakers.html: /speakers/\n/speaker/ada.html: /speaker/ada-lovelace/\n')).toEqual({
      ok: true,
      value: { redirects: [{ from: '/speakers.html', to: '/speakers/' }, { from: '/speaker/ada.html', to: '/speaker/ada-lovelace/' }] },
    });
    expect(parseRedirects('content/_redirects/pyvideo.json', Buffer.from('{"/events.html": "/events/"}'))).toEqual({ ok: true, value: { redirects: [{ from: '/events.html', to: '/events/' }] } });
    expect(parse('')).toEqual({ ok: true, value: { redirects: [] } });
  });

  it('names every problem at its line and column: an old path no redirect may take, a page that is no site path, a repeated old path', () => {
    expect(problems('/ok.html: /speakers/\n/talks/old/: /talks/\n/x.html: 12\n/y.html: https://example.org/\n"/z y.html": /\n')).toEqual([
      `${FILE}:2:1 /talks/old/: "/talks/old/" is among the site's own pages and files (/talks); choose a path outside them`,
      `${FILE}:3:10 /x.html: expected the path of a page of this site such as "/speakers/", got 12`,
      `${FILE}:4:10 /y.html: expected the path of a page of this site such as "/speakers/", got "https://example.org/"`,
      `${FILE}:5:1 /z y.html: expected a path on this site such as "/pycon-2014/a-talk.html", got "/z y.html": it holds a space, which a path on the site cannot`,
    ]);
    expect(problems('/a.html: /\n/a.html: /talks/\n')).toEqual([`${FILE}:2:1 /a.html: duplicate key (also at line 1); keep only one`]);
    // A repeated old path hides none of the file's other problems.
    expect(problems('/a.html: /\n/b.html: https://example.org/\n/a.html: /talks/\n')).toEqual([
      `${FILE}:3:1 /a.html: duplicate key (also at line 1); keep only one`,
      `${FILE}:2:10 /b.html: expected the path of a page of this site such as "/speakers/", got "https://example.org/"`,
    ]);
    expect(problems('/a.html:\n')).toEqual([`${FILE}:1:9 /a.html: expected the path of a page of this site such as "/speakers/", got nothing (as a line with no value after its colon has); write the page it leads to, or remove the line`]);
    // Nor does one whose path another's begins with, as a field inside it would be named.
    expect(problems('/speakers: /speakers/\n/speakers.html: https://example.org/\n/speakers: /\n')).toEqual([
      `${FILE}:3:1 /speakers: duplicate key (also at line 1); keep only one`,
      `${FILE}:2:17 /speakers.html: expected the path of a page of this site such as "/speakers/", got "https://example.org/"`,
    ]);
    expect(parseRedirects('content/_redirects/old.json', Buffer.from('{"/a.html": "/",\n "/b c.html": "/", "/a.html": "/talks/"}'))).toEqual({
      ok: false,
      errors: [
        expect.objectContaining({ pos: { line: 2, col: 20 }, field: '/a.html', message: 'duplicate key (also at line 1); keep only one' }),
        expect.objectContaining({ pos: { line: 2, col: 2 }, field: '/b c.html' }),
      ],
    });
    // An old site's page of an event, speaker, tag or language may have had another slug; not a further page of its list, nor a page in a folder so named.
    expect(problems('/tag/pytest/: /tags/\n/events/old-name/: /events/\n/speaker/ada/: /speakers/\n/language/jp/: /languages/\n')).toEqual([]);
    expect(problems('/tag/pytest/page/2/: /tags/\n/tag/x.html/: /tags/\n/tag/: /tags/\n').map((p) => p.split(': ')[0])).toEqual([`${FILE}:1:1 /tag/pytest/page/2/`, `${FILE}:2:1 /tag/x.html/`, `${FILE}:3:1 /tag/`]);
    expect(problems('- /a.html\n')).toEqual([`${FILE}:1:1 expected a mapping of old paths to the pages they lead to, a line each: "/old/path.html: /new/page/"`]);
  });

  it('is a YAML or JSON file directly in _redirects/', () => {
    expect(redirectsFileProblem('_redirects/site.yaml')).toBeUndefined();
    expect(redirectsFileProblem('_redirects/pyvideo.json')).toBeUndefined();
    expect(redirectsFileProblem('_redirects/old/site.yaml')).toMatch(/^the _redirects folder holds redirects files, a YAML or JSON file each directly in it/);
  });
});

describe('where a redirect may lead', () => {
  it("is a page the build writes: every one of them is in the build's output", async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ content: DEMO_CONTENT, out, templates: TEMPLATES });
    expect(result.ok).toBe(true);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const site = new SitePages(catalogue, indexCatalogue(catalogue.talks));
    const pages = new Set(PAGE_FOLDERS.flatMap((folder) => [...site.in(folder)]));
    for (const page of pages) expect(site.has(page), page).toBe(true);
    const written = new Set(await fg('**/index.html', { cwd: out }));
    expect([...pages].filter((page) => !written.has(`${page.slice(1)}index.html`))).toEqual([]);
    // Every kind of page: an event's, a speaker's, a tag's, a language's, a talk's, the site's own.
    for (const prefix of ['/events/', '/speaker/', '/tag/', '/language/', '/video/']) expect([...pages].some((page) => page.startsWith(prefix) && page !== prefix), prefix).toBe(true);
    expect(pages.has('/about/')).toBe(true);
    // Not a draft's page, nor a short link (itself a redirect).
    const draft = catalogue.talks.find((talk) => talk.state === 2)!;
    expect([...pages].filter((page) => page.startsWith(`/video/${draft.id}/`) || page === `/video/${catalogue.talks[0]!.id}/`)).toEqual([]);
  });
});

describe('a build with redirects', () => {
  const withRedirects = async (text: string) => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    await mkdir(path.join(content, '_redirects'));
    await writeFile(path.join(content, '_redirects', 'site.yaml'), text);
    return { root, content, out: path.join(root, 'dist') };
  };

  it('writes a redirect page at each old path, to where it leads', async () => {
    const { content, out } = await withRedirects('/speakers.html: /speakers/\n/speaker/aiko.html: /speaker/aiko-tanabe-larsen/\n/old/index/: /\n');
    const result = await build({ content, out, templates: TEMPLATES });
    expect(result.ok).toBe(true);
    for (const [file, target] of [['speakers.html', '/speakers/'], ['speaker/aiko.html', '/speaker/aiko-tanabe-larsen/'], ['old/index/index.html', '/']]) {
      const html = await readFile(path.join(out, file!), 'utf8');
      expect(html).toContain(`<meta http-equiv="refresh" content="0; url=${target}">`);
      expect(html).toContain(`<link rel="canonical" href="http://127.0.0.1:8080${target}">`);
    }
    // A talk's short link names the talk it leads to, and fits a phone's screen as the site's pages do.
    const short = await readFile(path.join(out, 'video/12/index.html'), 'utf8');
    expect(short).toContain('<a href="/video/12/asyncio-in-production-lessons/" dir="auto">asyncio in Production: Five Outages and What They Taught Us</a>');
    expect(short).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    // Redirects are no pages of the site's own: not in its sitemaps.
    const sitemaps = (await Promise.all((await fg('sitemap-*.xml', { cwd: out })).map((file) => readFile(path.join(out, file), 'utf8')))).join('');
    expect(sitemaps).not.toContain('speakers.html');
  });

  it('refuses, as check does, a redirect to no page, saying which page was likely meant', async () => {
    const { root, content, out } = await withRedirects('/a.html: /speaker/aiko-tanabe-larsn/\n/b.html: /events\n/c.html: /speaker/nobody-at-all/\n/d.html: /speaker/\n/e.html: /video\n/f.html: /abuot/\n/g.html: /video/12/\n');
    const result = await build({ content, out, templates: TEMPLATES });
    const shown = path.join(content, '_redirects', 'site.yaml');
    const expected = [
      `${shown}:1:10 /a.html: "/speaker/aiko-tanabe-larsn/" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /speaker/aiko-tanabe-larsen/?`,
      `${shown}:2:10 /b.html: "/events" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /events/?`,
      `${shown}:3:10 /c.html: "/speaker/nobody-at-all/" is no page of this site (a speaker, tag or event without a live talk has none); point it at one, or remove the line`,
      // The folder of the speakers' pages is a redirect to their index, and of talks' to all talks.
      `${shown}:4:10 /d.html: "/speaker/" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /speakers/?`,
      `${shown}:5:10 /e.html: "/video" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /talks/?`,
      // A page of the site's own, at its root, as a speaker's is among the speakers'.
      `${shown}:6:10 /f.html: "/abuot/" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /about/?`,
      // A talk's short link is a redirect itself: its talk's page, not a page spelt near it.
      `${shown}:7:10 /g.html: "/video/12/" is no page of this site (a speaker, tag or event without a live talk has none); did you mean /video/12/asyncio-in-production-lessons/?`,
    ];
    expect(result.ok ? [] : result.errors.map(String)).toEqual(expected);
    expect(await fg('*', { cwd: root, onlyDirectories: true })).toEqual(['content']);
    const check = runCommand('check', ['--content', content, '--templates', TEMPLATES]);
    expect(check.status).toBe(1);
    expect(check.stderr.split('\n').slice(0, 8)).toEqual([...expected, 'check failed: 7 errors in 1 of 52 files']);
  });

  it("takes an old site's address of a tag's page, and refuses one that is a tag's page of this site", async () => {
    const { content, out } = await withRedirects('/tag/async-io/: /tag/asyncio/\n');
    expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
    expect(await readFile(path.join(out, 'tag/async-io/index.html'), 'utf8')).toContain('url=/tag/asyncio/"');
    // In another case, it is the tag's page's file where case is ignored: beyond ASCII too ("ſ", a long s, is "s" there).
    await writeFile(path.join(content, '_redirects', 'site.yaml'), '# From the old site\n/tag/async-io/: /tag/asyncio/\n/tag/asyncio/: /tags/\n/tag/Reliability/: /tags/\n/tag/aſyncio/: /tags/\n');
    const failed = await build({ content, out, templates: TEMPLATES });
    expect(failed.ok ? [] : failed.errors.map(String)).toEqual([
      `${path.join(content, '_redirects', 'site.yaml')}:3:1 /tag/asyncio/: "/tag/asyncio/" is a page of this site's own; remove the line`,
      `${path.join(content, '_redirects', 'site.yaml')}:4:1 /tag/Reliability/: "/tag/Reliability/" is a page of this site's own (/tag/reliability/, where letter case is ignored, as on macOS and Windows); remove the line`,
      `${path.join(content, '_redirects', 'site.yaml')}:5:1 /tag/aſyncio/: "/tag/aſyncio/" is a page of this site's own (/tag/asyncio/, where letter case is ignored, as on macOS and Windows); remove the line`,
    ]);
    expect(await readFile(path.join(out, 'tag/asyncio/index.html'), 'utf8')).not.toContain('http-equiv="refresh"');
  });

  it('refuses a redirect to a draft page, saying it is one, as the page turns draft', async () => {
    const { content, out } = await withRedirects('/about.html: /about/\n');
    expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
    const about = path.join(content, '_pages', 'about.md');
    await writeFile(about, (await readFile(about, 'utf8')).replace(/^nav: true$/m, 'nav: true\ndraft: true'));
    const failed = await build({ content, out, templates: TEMPLATES });
    expect(failed.ok ? [] : failed.errors.map(String)).toEqual([
      `${path.join(content, '_redirects', 'site.yaml')}:1:14 /about.html: "/about/" is a draft page (${about}), which the build does not write; publish it, point the line at another page, or remove the line`,
    ]);
  });

  it("fails once a speaker's last talk is gone, and builds once the redirect goes too", async () => {
    const { content, out } = await withRedirects('/speaker/bethan.html: /speaker/bethan-pryce/\n');
    expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
    const files = await fg('*/videos/*', { cwd: content });
    for (const file of files) if ((await readFile(path.join(content, file), 'utf8')).includes('Bethan Pryce')) await rm(path.join(content, file));
    const failed = await build({ content, out, templates: TEMPLATES });
    expect(failed.ok ? [] : failed.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^"\/speaker\/bethan-pryce\/" is no page of this site/)]);
    await writeFile(path.join(content, '_redirects', 'site.yaml'), '');
    expect((await build({ content, out, templates: TEMPLATES })).ok).toBe(true);
  });
});
