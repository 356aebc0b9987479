import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { commandArgs } from '../src/program.ts';
import { RECORD_FILE } from '../src/headers.ts';
import { API_FIELDS } from '../src/record.ts';
import { isSiteRootName, LIST_FOLDERS, SITE_ROOT_NAMES, sitemapFile } from '../src/schema.ts';
import { TemplateError } from '../src/template-errors.ts';
import { BAD_CASES, BAD_FIXTURES, contentHashes, DEMO_CONTENT, fingerprint, ROOT, runCommand, TEMPLATES, tempDir, writeManyTalks } from './helpers.ts';

async function buildDemo(out: string) {
  const result = await build({ content: DEMO_CONTENT, out, templates: TEMPLATES });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.summary;
}

/** The modules `file` imports to run, followed through the project's own (type-only imports left out), and the packages they import. */
function staticImports(file: string, seen = new Set<string>(), packages = new Set<string>()) {
  if (seen.has(file)) return { seen, packages };
  seen.add(file);
  for (const [, from] of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^import (?!type )[^;]*?from '([^']+)'/gms)) {
    if (from!.startsWith('.')) staticImports(path.join(path.dirname(file), from!), seen, packages);
    else packages.add(from!);
  }
  return { seen, packages };
}

describe('build', () => {
  it("loads none of the modules that load, plan and render, nor zod, before it knows it has work: a no-op build is done first", () => {
    const { seen, packages } = staticImports('scripts/build.ts');
    const work = ['load', 'pages', 'plan', 'redirects', 'render-talks', 'render', 'search', 'schema', 'languages', 'markdown'].map((name) => `src/${name}.ts`);
    expect([...seen].filter((file) => work.includes(file))).toEqual([]);
    expect(seen.has('src/build.ts')).toBe(true);
    expect([...packages].filter((name) => ['zod', 'marked', 'pagefind', 'sanitize-html'].includes(name))).toEqual([]);
  });

  it('writes an API record and a page for every live talk, and nothing for drafts', async () => {
    const out = path.join(await tempDir(), 'dist');
    const summary = await buildDemo(out);
    const records = (await fg('api/v2/video/*', { cwd: out })).filter((p) => RECORD_FILE.test(p));
    expect(records).toHaveLength(summary.talks);
    expect(summary.drafts).toBeGreaterThan(0);
    for (const rel of records) {
      const record = JSON.parse(await readFile(path.join(out, rel), 'utf8'));
      expect(Object.keys(record)).toEqual([...API_FIELDS]);
      expect(String(record.id)).toBe(path.basename(rel));
      expect(record.state).toBe(1);
      expect(existsSync(path.join(out, 'video', String(record.id), record.slug, 'index.html'))).toBe(true);
      expect(existsSync(path.join(out, 'video', String(record.id), 'index.html'))).toBe(true);
    }
    for (const file of ['index.html', '404.html', 'assets/style.css', 'pagefind/0/pagefind.js']) expect(existsSync(path.join(out, file))).toBe(true);
    // Nothing of the build is left beside its output: no staging folder, no search index scratch folder.
    expect(await readdir(path.dirname(out))).toEqual(['dist']);
  });

  it("writes at its root only the names aliases may not take, video/ where the pages of talks are, and the site's own pages", async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = await build({ content: DEMO_CONTENT, out, templates: TEMPLATES, compress: true });
    expect(result.ok).toBe(true);
    const pages = result.ok ? result.catalogue!.pages.map((page) => page.slug) : [];
    expect(pages).toEqual(['about']);
    const names = new Set((await readdir(out)).map((name) => name.replace(/\.(br|gz)$/, '')));
    expect(new Set([...names].filter((name) => !isSiteRootName(name)))).toEqual(new Set(['video', ...pages]));
    // The list holds no name the site no longer writes; the sitemaps are numbered.
    expect([...SITE_ROOT_NAMES].filter((name) => !names.has(name))).toEqual([]);
    expect(names).toContain(sitemapFile(1));
    // Directly in the lists' folders, a page named other than index.html is free for an alias.
    for (const folder of LIST_FOLDERS) {
      const inside = await readdir(path.join(out, folder), { withFileTypes: true });
      const pages = inside.filter((entry) => !entry.isDirectory()).map((entry) => entry.name.replace(/\.(br|gz)$/, ''));
      expect(pages.filter((name) => name !== 'index.html' && name.endsWith('.html'))).toEqual([]);
    }
  });

  it('builds an empty catalogue into a site that says so, with no search to load', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await mkdir(content);
    const result = await build({ content, out: path.join(root, 'dist'), templates: TEMPLATES });
    expect(result.ok).toBe(true);
    const search = await readFile(path.join(root, 'dist', 'search', 'index.html'), 'utf8');
    expect(search).toContain('no published talks');
    expect(search).not.toContain('search.js');
    expect(JSON.parse(await readFile(path.join(root, 'dist', 'feed.json'), 'utf8')).items).toEqual([]);
  });

  it('gives byte-identical output for the same content', async () => {
    const root = await tempDir();
    await buildDemo(path.join(root, 'a'));
    await buildDemo(path.join(root, 'b'));
    const a = await contentHashes(path.join(root, 'a'));
    expect(Object.keys(a).length).toBeGreaterThan(100);
    expect(await contentHashes(path.join(root, 'b'))).toEqual(a);
  });

  it.each(BAD_CASES)('%s: fails and leaves the previous output exactly as it was', async (name) => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await buildDemo(out);
    const before = await fingerprint(out);
    const content = path.join(root, 'content');
    await cp(path.join(BAD_FIXTURES, name, 'content'), content, { recursive: true });
    const result = await build({ content, out, templates: TEMPLATES });
    expect(result.ok).toBe(false);
    expect(await fingerprint(out)).toEqual(before);
    expect((await fg('*', { cwd: root, dot: true, onlyDirectories: true })).sort()).toEqual(['content', 'dist']);
  });

  it('builds an output reached through a symbolic link into the folder it leads to, under one state by either name', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const site = path.join(root, 'site');
    const link = path.join(root, 'dist');
    await mkdir(site);
    await symlink(site, link);
    const cache = path.join(root, 'cache');
    const buildInto = async (out: string, clean = false) => expect((await build({ content, out, templates: TEMPLATES, cache, clean })).ok).toBe(true);
    // A full build swaps in the folder the link leads to, which a web server may be serving, not a folder in the link's place.
    await buildInto(link, true);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(site, 'index.html'))).toBe(true);
    const talk = path.join(content, 'tidewater-python-2024', 'videos', 'typing-protocols-in-practice.yaml');
    const text = await readFile(talk, 'utf8');
    await writeFile(talk, text.replace(/^title: .*$/m, 'title: Retitled through the link'));
    await buildInto(link);
    await writeFile(talk, text);
    // Built by its own name, the output is the link's build's, not what this name's last build left.
    await buildInto(site);
    const clean = path.join(root, 'clean');
    await buildInto(clean, true);
    expect(await contentHashes(site)).toEqual(await contentHashes(clean));
  });

  it('builds into an output folder that is a mount point of its own (a container volume), with --clean too', async (ctx) => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    // Only where this process may mount a file system (as root in a container); elsewhere the case is not made.
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', out]).status !== 0) return ctx.skip();
    try {
      const cache = path.join(root, 'cache');
      const buildInto = async (dir: string, clean = false) => expect((await build({ content: DEMO_CONTENT, out: dir, templates: TEMPLATES, cache, clean })).ok).toBe(true);
      // A partition made for the site has fsck's lost+found, with what fsck recovered: the command takes it for a new folder, and no build touches it.
      await mkdir(path.join(out, 'lost+found'));
      await writeFile(path.join(out, 'lost+found', '#1234'), 'recovered');
      const first = runCommand('build', ['--content', DEMO_CONTENT, '--out', out, '--templates', TEMPLATES, '--cache', cache]);
      expect([first.status, first.stderr]).toEqual([0, '']);
      await writeFile(path.join(out, 'stray.html'), "not the build's");
      // A mount point cannot be swapped for a staging folder: a clean build writes into it, and takes out what it does not make.
      await buildInto(out, true);
      await rm(cache, { recursive: true });
      await buildInto(out);
      const clean = path.join(root, 'clean');
      await buildInto(clean, true);
      expect(await contentHashes(out)).toEqual({ ...(await contentHashes(clean)), 'lost+found/#1234': createHash('sha256').update('recovered').digest('hex') });
      expect((await readdir(root)).sort()).toEqual(['cache', 'clean', 'dist']);
    } finally {
      spawnSync('umount', [out]);
    }
  });

  it("patches a mount point whose lost+found its user cannot read (root's, mode 0700), after a build that failed there too", async (ctx) => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    // Only as root, who may mount a file system and run the build as another user; elsewhere the case is not made.
    if (process.getuid?.() !== 0 || spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', out]).status !== 0) return ctx.skip();
    try {
      const nobody = 65534;
      await mkdir(path.join(out, 'lost+found'), { mode: 0o700 });
      const templates = path.join(root, 'templates');
      await cp(TEMPLATES, templates, { recursive: true });
      for (const dir of [root, out]) await chown(dir, nobody, nobody);
      await chmod(root, 0o755);
      const args = ['--content', DEMO_CONTENT, '--out', out, '--templates', templates, '--cache', path.join(root, 'cache')];
      const buildAsNobody = () => spawnSync(process.execPath, commandArgs('build', ...args), { cwd: ROOT, uid: nobody, gid: nobody, env: { ...process.env, FORCE_COLOR: '0', HOME: root }, encoding: 'utf8' });
      expect(buildAsNobody().status).toBe(0);
      const talk = path.join(templates, 'talk.eta');
      const good = await readFile(talk, 'utf8');
      await writeFile(talk, `<%= it.nosuch.deep %>\n${good}`);
      // The patch that failed takes out its temporary files, which are looked for everywhere in the output but there.
      const failed = buildAsNobody();
      expect([failed.status, failed.stderr.split('\n').at(-2)]).toEqual([1, `build failed: 1 error in the templates; ${out} left as it was`]);
      await writeFile(talk, good);
      const again = buildAsNobody();
      expect([again.status, again.stderr]).toEqual([0, '']);
    } finally {
      spawnSync('umount', [out]);
    }
  });

  it('reports every error of every file in one run', async () => {
    const root = await tempDir();
    for (const name of ['field-errors', 'json-types', 'layout']) await cp(path.join(BAD_FIXTURES, name, 'content'), path.join(root, 'content'), { recursive: true });
    const result = await build({ content: path.join(root, 'content'), out: path.join(root, 'dist'), templates: TEMPLATES });
    expect(!result.ok && result.errors.length).toBeGreaterThanOrEqual(20);
    expect(existsSync(path.join(root, 'dist'))).toBe(false);
  });

  /** The lines of a build of the demo with `files` written over a copy of the templates, the copy's folder shown as T. */
  async function failedWithTemplates(files: Record<string, string>): Promise<string[]> {
    const root = await tempDir();
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(templates, name), text);
    const failed = await build({ content: DEMO_CONTENT, out: path.join(root, 'dist'), templates }).then(() => '', (err: Error) => err.message);
    return failed.split('\n').map((line) => line.replace(templates, 'T'));
  }

  // A browser sends a path's letters as they are written, and one typed is most often NFC: an old address written decomposed (copied from macOS's file names) answered only in that form.
  it('writes the redirect of an old address written with decomposed letters under its composed form (NFC) too, a talk\'s, an event\'s and a redirects file\'s', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const talk = path.join(content, 'pennine-web-2012', 'videos', 'screen-readers-101.yaml');
    await writeFile(talk, `${await readFile(talk, 'utf8')}aliases:\n  - /old/cafe\u0301.html\n  - /2012/U\u0308ber/\n`);
    const event = path.join(content, 'pennine-web-2012', 'category.yaml');
    await writeFile(event, `${await readFile(event, 'utf8')}aliases:\n  - /events/pennine-we\u0301b-2012.html\n`);
    await mkdir(path.join(content, '_redirects'));
    await writeFile(path.join(content, '_redirects', 'old.yaml'), '/old/spe\u0301akers.html: /speakers/\n');
    const out = path.join(root, 'dist');
    const result = await build({ content, out, templates: TEMPLATES });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    for (const [written, composed] of [
      ['old/cafe\u0301.html', 'old/caf\u00e9.html'],
      ['2012/U\u0308ber/index.html', '2012/\u00dcber/index.html'],
      ['events/pennine-we\u0301b-2012.html', 'events/pennine-w\u00e9b-2012.html'],
      ['old/spe\u0301akers.html', 'old/sp\u00e9akers.html'],
    ] as const) {
      expect(await readFile(path.join(out, composed), 'utf8'), composed).toBe(await readFile(path.join(out, written), 'utf8'));
    }
  });

  it("names a template that does not compile with the templates folder's problems, as check does", async () => {
    expect(await failedWithTemplates({ 'talk.eta': '<% if ( { %>\n', 'home.eta': '<img src="/assets/logo.png" alt="">\n' })).toEqual([
      expect.stringMatching(/^T\/home\.eta:1:11: \/assets\/logo\.png is not a file of /),
      expect.stringMatching(/^T\/talk\.eta:1(:\d+)?: syntax error/),
    ]);
  });

  it("names the templates' problems by file and position, as the content's errors are, whatever their kind", async () => {
    expect(await failedWithTemplates({ 'api.eta': '<% if ( { %>\n', 'home.eta': '<%~ include("@nosuch") %>\n<img src="/assets/logo.png" alt="">\n' })).toEqual([
      expect.stringMatching(/^T\/api\.eta:1(:\d+)?: syntax error/),
      expect.stringMatching(/^T\/home\.eta:1:13: no template '@nosuch'/),
      expect.stringMatching(/^T\/home\.eta:2:11: \/assets\/logo\.png is not a file of /),
    ]);
  });

  it("places a template's failures in the template as written where an asset's address was spelled as its file (which moves the columns after it)", async () => {
    // café.svg named with e and U+0301, addressed with U+00E9 and percent-encoded: the pages spell both as the file, one letter longer.
    const spelled = { 'assets/cafe\u0301.svg': '<svg/>' };
    const refs = '<img src="/assets/caf\u00e9.svg" alt=""><img src="/assets/caf%C3%A9.svg" alt="">';
    // The same line with names of as many letters that are their files' already.
    const same = { 'assets/cafe.svg': '<svg/>', 'assets/cafAA.svg': '<svg/>' };
    const plain = '<img src="/assets/cafe.svg" alt=""><img src="/assets/caf%41%41.svg" alt="">';
    for (const fails of ['<%= it.talk. %>', '<%= it.talk.nosuch.deep %>']) {
      const [failure] = await failedWithTemplates({ ...spelled, 'talk.eta': `${refs}${fails}\n` });
      expect(failure).toMatch(/^T\/talk\.eta:1:\d+/);
      expect(failure).toBe((await failedWithTemplates({ ...same, 'talk.eta': `${plain}${fails}\n` }))[0]);
    }
  });

  it('names a template that fails on one page (a partial, for one talk) by file, line and column, and leaves the previous output as it was', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await buildDemo(out);
    const before = await fingerprint(out);
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const talk = path.join(templates, 'talk.eta');
    await writeFile(talk, `${await readFile(talk, 'utf8')}<%~ include('@byline', it) %>\n`);
    await writeFile(path.join(templates, 'byline.eta'), '<% if (it.id === 12) { %>\n  <%= it.speakers[0].nosuch.deep %>\n<% } %>\n');
    const failed = build({ content: DEMO_CONTENT, out, templates });
    await expect(failed).rejects.toThrow(TemplateError);
    await expect(failed).rejects.toThrow(`${path.join(templates, 'byline.eta')}:2:29, rendering /video/12/asyncio-in-production-lessons/: Cannot read properties of undefined (reading 'deep')`);
    expect(await fingerprint(out)).toEqual(before);
  });

  it("fails a build for a folder of its host whose theme writes an address from the host's root, which its pages would ask for outside the folder; builds it at a root", async () => {
    const root = await tempDir();
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const layout = path.join(templates, 'layout.eta');
    await writeFile(layout, (await readFile(layout, 'utf8')).replace('<a class="site-name" href="<%= it.site.basePath %>/">', '<a class="site-name" href="/">'));
    const failed = build({ content: DEMO_CONTENT, out: path.join(root, 'folder'), templates, baseUrl: 'https://user.github.io/talks' });
    await expect(failed).rejects.toThrow(TemplateError);
    await expect(failed).rejects.toThrow(/layout\.eta:\d+:\d+: \/ is from the host's root, outside the folder \/talks the site is built for \(--base-url\); write <%= it\.site\.basePath %>\//);
    expect(await build({ content: DEMO_CONTENT, out: path.join(root, 'root'), templates })).toMatchObject({ ok: true });
  });

  it('names a template that fails on a page rendered in a worker thread as it names one rendered on the main thread', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    const templates = path.join(root, 'templates');
    const out = path.join(root, 'dist');
    await writeManyTalks(content, 5, 100);
    await cp(TEMPLATES, templates, { recursive: true });
    // Edited, the template renders the 500 talks' pages again: in worker threads, past WORKER_THRESHOLD.
    const run = () => build({ content, templates, out, cache: path.join(root, 'cache'), workers: 2 });
    expect((await run()).ok).toBe(true);
    const before = await fingerprint(out);
    const talk = path.join(templates, 'talk.eta');
    // It fails only in a worker thread: the tests' thread, where the main thread of the build runs, has the mark.
    const marked = globalThis as { vcMainThread?: boolean };
    marked.vcMainThread = true;
    try {
      await writeFile(talk, `<% if (it.id === 300 && !globalThis.vcMainThread) { %>\n<%= it.nosuch.deep %>\n<% } %>\n${await readFile(talk, 'utf8')}`);
      const failed = run();
      await expect(failed).rejects.toThrow(TemplateError);
      await expect(failed).rejects.toThrow(`${talk}:2:15, rendering /video/300/talk-300/: Cannot read properties of undefined (reading 'deep')`);
    } finally {
      delete marked.vcMainThread;
    }
    expect(await fingerprint(out)).toEqual(before);
  });

  /** The problems a build of `content` fails with after `edit` changes a copy of the templates, and the copy's folder. */
  async function renderFailures(root: string, content: string, edit: (templates: string) => Promise<void>, workers?: number) {
    const templates = path.join(root, 'templates');
    const out = path.join(root, 'dist');
    const run = () => build({ content, templates, out, cache: path.join(root, 'cache'), workers });
    await cp(TEMPLATES, templates, { recursive: true });
    expect((await run()).ok).toBe(true);
    const before = await fingerprint(out);
    const good = await readFile(path.join(templates, 'talk.eta'), 'utf8');
    await edit(templates);
    const failed = await run().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(TemplateError);
    expect(await fingerprint(out)).toEqual(before);
    return { ...(failed as TemplateError), templates, good, run };
  }

  it('names every distinct failure of the templates on pages in one run, once each, with its first page and how many others, and commits nothing', async () => {
    const root = await tempDir();
    const { problems, count, templates, run } = await renderFailures(root, DEMO_CONTENT, async (templates) => {
      const talk = path.join(templates, 'talk.eta');
      const home = path.join(templates, 'home.eta');
      await writeFile(talk, `<% if (it.id === 12) { %><% throw new Error('not talk 12') %><% } %>\n<%= it.nosuch.deep %>\n${await readFile(talk, 'utf8')}`);
      await writeFile(home, `<%= it.nope.x %>\n${await readFile(home, 'utf8')}`);
    });
    const talks = (await readdir(path.join(root, 'dist', 'video'))).filter((name) => /^\d+$/.test(name)).length;
    expect(problems.map((p) => p.replace(templates, 'T'))).toEqual([
      "T/home.eta:1:13, rendering /: Cannot read properties of undefined (reading 'x')",
      'T/talk.eta:1:35, rendering /video/12/asyncio-in-production-lessons/: not talk 12',
      expect.stringMatching(new RegExp(`^T/talk\\.eta:2:15, rendering /video/\\d+/[\\w-]+/ and ${talks - 2} other pages: Cannot read properties of undefined \\(reading 'deep'\\)$`)),
    ]);
    expect(count).toBe(3);
    // The state was not committed: with the templates as they were, the output is current.
    await cp(TEMPLATES, templates, { recursive: true });
    expect((await run()).ok && ((await run()) as { summary: { written: number } }).summary.written).toBe(0);
  });

  it('adds up the failures of pages rendered in different worker threads, naming the first page in the order of the plan', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await writeManyTalks(content, 5, 100);
    const { problems, count, templates } = await renderFailures(
      root,
      content,
      async (templates) => {
        const talk = path.join(templates, 'talk.eta');
        await writeFile(talk, `<% if (it.id % 100 === 50) { %>\n<%= it.nosuch.deep %>\n<% } %>\n${await readFile(talk, 'utf8')}`);
      },
      2,
    );
    expect(problems.map((p) => p.replace(templates, 'T'))).toEqual(["T/talk.eta:2:15, rendering /video/50/talk-50/ and 4 other pages: Cannot read properties of undefined (reading 'deep')"]);
    expect(count).toBe(1);
  });

  it('lists twenty distinct failures of the templates and counts the others', async () => {
    const root = await tempDir();
    const { problems, count } = await renderFailures(root, DEMO_CONTENT, async (templates) => {
      const talk = path.join(templates, 'talk.eta');
      await writeFile(talk, `<% throw new Error('talk ' + it.id) %>\n${await readFile(talk, 'utf8')}`);
    });
    const talks = (await readdir(path.join(root, 'dist', 'video'))).filter((name) => /^\d+$/.test(name)).length;
    expect(count).toBe(talks);
    expect(problems).toHaveLength(21);
    expect(problems.at(-1)).toBe(`… and ${talks - 20} more failures of the templates, not listed`);
  });

  // On one thread, a batch at a time, only the talk pages use the template: the fifth batch of 200 talks reaches a thousand failed
  // pages; with 1,100 talks the last 100 are not rendered, with 1,000 that batch was the last and every page was rendered.
  it.each([
    [11, 'and says so', ['rendering stopped after 1,000 pages failed: other pages may fail too once these are fixed']],
    [10, 'and does not say it stopped when no page was left', []],
  ])('stops rendering after a thousand pages have failed (%i events of 100 talks), %s', async (events, _, stopped) => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await writeManyTalks(content, events, 100);
    const { problems, templates } = await renderFailures(
      root,
      content,
      async (templates) => {
        const talk = path.join(templates, 'talk.eta');
        await writeFile(talk, `<%= it.nosuch.deep %>\n${await readFile(talk, 'utf8')}`);
      },
      1,
    );
    expect(problems.map((p) => p.replace(templates, 'T'))).toEqual([
      expect.stringMatching(/^T\/talk\.eta:1:15, rendering \/video\/\d+\/talk-\d+\/ and 999 other pages: Cannot read properties of undefined \(reading 'deep'\)$/),
      ...stopped,
    ]);
  });
});
