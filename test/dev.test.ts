// The dev loop against a real server: a saved file is rebuilt, open pages are
// told to reload, and a content error is reported while the last good build stays.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { DEV_CLIENT, DEV_EVENTS, startDev, type DevOptions, type DevResult, type DevServer } from '../src/dev.ts';
import { CONTENT_LOCK } from '../src/locks.ts';
import { hasState, stateDirFor } from '../src/state.ts';
import { contentHashes, DEMO_CONTENT, fingerprint, startCommand, TEMPLATES, tempDir, writeManyTalks } from './helpers.ts';
import { raw } from './http.ts';

/** Reads server-sent events from a live connection. */
async function events(url: string) {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next(name: string): Promise<unknown> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event === name) return JSON.parse(/^data: (.*)$/m.exec(block)![1]!);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended');
        buffer += value;
      }
    },
    close: () => controller.abort(),
  };
}

/** `npm run build` in a process of its own, as someone would run it by hand beside the dev server. */
async function buildElsewhere(args: string[]): Promise<void> {
  const child = startCommand('build', args);
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`build exited with ${code}\n${output}`);
}

let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});

/** The dev server on a copy of the demo catalogue, and the results of its builds as they come. */
async function devOnDemo(options: Partial<DevOptions> = {}, root?: string) {
  root ??= await tempDir('vc-dev-');
  const content = path.join(root, 'content');
  await cp(DEMO_CONTENT, content, { recursive: true });
  const results: DevResult[] = [];
  const server = await startDev({ content, templates: TEMPLATES, out: path.join(root, 'dist'), cache: path.join(root, 'cache'), host: '127.0.0.1', port: 0, log: (r) => results.push(r), ...options });
  dev = server;
  return { server, root, content, results };
}

describe('npm run dev', () => {
  it('--clean: its first build writes every file, and the builds after it only what changed', async () => {
    const first = await devOnDemo();
    await first.server.close();
    const again = await devOnDemo({}, first.root);
    await again.server.close();
    expect(again.results.map((r) => r.ok && r.summary.written)).toEqual([0]);
    const { server, content, results } = await devOnDemo({ clean: true }, first.root);
    expect(results).toHaveLength(1);
    const cold = results[0]!;
    expect(cold.ok && cold.summary.written === cold.summary.outputs && !cold.summary.incremental).toBe(true);
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^duration: .*$/m, 'duration: 1234'));
    while (results.length < 2) await new Promise((r) => setTimeout(r, 20));
    await server.idle();
    const edit = results[1]!;
    expect(edit.ok && edit.summary.incremental && edit.summary.written).toBeGreaterThan(0);
    expect(edit.ok && edit.summary.written).toBeLessThan(20);
  });

  it('rebuilds on save, reloads open pages, then updates the search index, and shows content errors while serving the last good build', async () => {
    const { server, root, content, results } = await devOnDemo();
    expect(results.map((r) => r.ok)).toEqual([true]);

    const page = await raw(server.url, 'GET', '/');
    expect(page.text).toContain(`<script src="${DEV_CLIENT}"></script></body>`);
    const client = await raw(server.url, 'GET', DEV_CLIENT);
    expect(client.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(client.text).toContain('EventSource');

    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    const original = await readFile(file, 'utf8');
    const searchEntry = async () => (await raw(server.url, 'GET', '/pagefind/0/pagefind-entry.json')).text;
    const entry = await searchEntry();
    await writeFile(file, original.replace(/^title: .*$/m, 'title: "Edited while the dev server ran"'));
    await stream.next('reload');
    expect(JSON.parse((await raw(server.url, 'GET', '/api/v2/video/12')).text).title).toBe('Edited while the dev server ran');
    // The pages came first; the search index, which holds titles, follows in a build of its own.
    expect(results.at(-1)).toMatchObject({ ok: true, summary: { searchPending: true } });
    await stream.next('search');
    expect(results.at(-1)).toMatchObject({ ok: true, summary: { searchPending: false } });
    expect(await searchEntry()).not.toBe(entry);

    await writeFile(file, `${original}tittle: typo\n`);
    const problems = (await stream.next('problems')) as { errors: string[]; built: boolean };
    expect(problems.built).toBe(true);
    expect(problems.errors.join('\n')).toMatch(/asyncio-in-production-lessons\.yaml:\d+:1 tittle: unknown field; did you mean `title`\?/);
    expect(JSON.parse((await raw(server.url, 'GET', '/api/v2/video/12')).text).title).toBe('Edited while the dev server ran');

    await writeFile(file, original);
    await stream.next('reload');
    expect(JSON.parse((await raw(server.url, 'GET', '/api/v2/video/12')).text).title).toMatch(/^asyncio in Production/);

    // The watcher's events keep the build's listing of the content: added and removed files are seen.
    const added = path.join(content, 'tidewater-python-2024', 'videos', 'added-while-running.yaml');
    await writeFile(added, 'id: 901\ntitle: Added while the dev server ran\nrecorded: "2024-05-18"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00.000"\n');
    await stream.next('reload');
    expect(JSON.parse((await raw(server.url, 'GET', '/api/v2/video/901')).text).title).toBe('Added while the dev server ran');
    await rm(added);
    await stream.next('reload');
    expect((await raw(server.url, 'GET', '/api/v2/video/901')).status).toBe(404);
    stream.close();
    await server.idle();
    expect(results.some((r) => !r.ok)).toBe(true);
    expect(results.at(-1)?.ok).toBe(true);

    // Its builds leave the state for when it is idle or stops: once stopped, a build finds nothing to do and loads nothing.
    await server.close();
    dev = undefined;
    const next = await build({ content, templates: TEMPLATES, out: path.join(root, 'dist'), cache: path.join(root, 'cache') });
    expect(next).toMatchObject({ ok: true, summary: { written: 0, removed: 0 } });
    expect(next.ok && next.catalogue).toBeUndefined();
  });

  it("rebuilds when a page of the site's own is saved, added or removed, and shows its errors", async () => {
    const { server, content } = await devOnDemo();
    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const about = path.join(content, '_pages', 'about.md');
    const original = await readFile(about, 'utf8');
    await writeFile(about, original.replace('This catalogue gathers', 'Saved while the dev server ran: this catalogue gathers'));
    await stream.next('reload');
    expect((await raw(server.url, 'GET', '/about/')).text).toContain('Saved while the dev server ran');

    await writeFile(about, original.replace(/^title: .*$/m, 'titel: About'));
    const problems = (await stream.next('problems')) as { errors: string[] };
    expect(problems.errors.join('\n')).toMatch(/_pages\/about\.md:3:1 titel: unknown field; did you mean `title`\?/);

    const faq = path.join(content, '_pages', 'faq.md');
    await writeFile(about, original);
    await writeFile(faq, '---\ntitle: FAQ\nnav: true\n---\nAsk away.\n');
    await stream.next('reload');
    await server.idle();
    expect((await raw(server.url, 'GET', '/faq/')).text).toContain('<p>Ask away.</p>');
    expect((await raw(server.url, 'GET', '/')).text).toContain('<li><a href="/faq/">FAQ</a></li>');
    await rm(faq);
    await stream.next('reload');
    await server.idle();
    expect((await raw(server.url, 'GET', '/faq/')).status).toBe(404);
    expect((await raw(server.url, 'GET', '/')).text).not.toContain('/faq/');
    stream.close();
  });

  it('serves a site built for a folder of its host under that folder, its reloading script and events too', async () => {
    const { server, content } = await devOnDemo({ baseUrl: 'http://127.0.0.1:8080/talks/' });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/talks\/$/);
    const page = await raw(server.url, 'GET', '/talks/');
    expect(page.text).toContain(`<script src="/talks${DEV_CLIENT}"></script></body>`);
    const client = await raw(server.url, 'GET', `/talks${DEV_CLIENT}`);
    expect([client.status, client.text]).toEqual([200, expect.stringContaining(`new EventSource("/talks${DEV_EVENTS}")`)]);
    expect((await raw(server.url, 'GET', DEV_CLIENT)).status).toBe(404);
    const stream = await events(new URL(`/talks${DEV_EVENTS}`, server.url).href);
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: "Edited under a folder"'));
    await stream.next('reload');
    expect(JSON.parse((await raw(server.url, 'GET', '/talks/api/v2/video/12', { accept: 'application/json' })).text).title).toBe('Edited under a folder');
    stream.close();
  });

  it("has the search page reload once the search index is built, at any of its addresses, and no other page", async () => {
    const { server } = await devOnDemo();
    const client = (await raw(server.url, 'GET', DEV_CLIENT)).text;
    /** The client run in a page at `pathname` whose search form is there or not, as a browser would run it; what the page did on each event. */
    const pageAt = (pathname: string, searchForm: boolean) => {
      const listeners = new Map<string, () => void>();
      const reloads: string[] = [];
      const page = {
        EventSource: class {
          addEventListener(name: string, listener: () => void) {
            listeners.set(name, listener);
          }
        },
        location: { pathname, reload: () => reloads.push(pathname) },
        document: { querySelector: (selector: string) => (searchForm && selector === '[data-indexes]' ? {} : null) },
      };
      runInNewContext(client, page);
      listeners.get('search')!();
      return reloads;
    };
    expect(pageAt('/search/', true)).toEqual(['/search/']);
    expect(pageAt('/search/index.html', true)).toEqual(['/search/index.html']);
    expect(pageAt('/talks/', false)).toEqual([]);
  });

  it('answers only GET and HEAD on its own paths, and has browsers revalidate what they keep', async () => {
    const { server } = await devOnDemo();
    for (const method of ['PUT', 'POST', 'DELETE', 'OPTIONS']) {
      const res = await raw(server.url, method, DEV_EVENTS);
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    const head = await raw(server.url, 'HEAD', DEV_EVENTS);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream');
    expect((await raw(server.url, 'HEAD', DEV_CLIENT)).headers['content-length']).toBe((await raw(server.url, 'GET', DEV_CLIENT)).headers['content-length']);
    // An edited stylesheet shows on the reload: the browser asks again rather than using its copy for an hour.
    expect((await raw(server.url, 'GET', '/assets/style.css')).headers['cache-control']).toBe('no-cache');
  });

  it('shows the first build’s errors on the page when there is nothing built yet, and reloads it once they are fixed', async () => {
    const root = await tempDir('vc-dev-');
    const broken = path.join(root, 'content', 'tidewater-python-2024', 'videos', 'broken.yaml');
    await cp(DEMO_CONTENT, path.join(root, 'content'), { recursive: true });
    await writeFile(broken, 'id: [1\n');
    const { server, results } = await devOnDemo({}, root);
    expect(results.map((r) => r.ok)).toEqual([false]);
    const page = await raw(server.url, 'GET', '/');
    expect(page.status).toBe(404);
    expect(page.text).toContain(`<script src="${DEV_CLIENT}"></script></body>`);
    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const problems = (await stream.next('problems')) as { errors: string[]; built: boolean };
    // No build to show yet: the page says so rather than "the last good build is shown" over a 404.
    expect(problems.built).toBe(false);
    expect(problems.errors.join('\n')).toMatch(/broken\.yaml:\d+:\d+ YAML syntax error/);
    await rm(broken);
    await stream.next('reload');
    expect((await raw(server.url, 'GET', '/')).status).toBe(200);
    stream.close();
  });

  it('answers at once while there is no output at all, rather than wait on every look for a build to swap one in', async () => {
    const root = await tempDir('vc-dev-');
    await cp(DEMO_CONTENT, path.join(root, 'content'), { recursive: true });
    await writeFile(path.join(root, 'content', 'tidewater-python-2024', 'videos', 'broken.yaml'), 'id: [1\n');
    const { server, results } = await devOnDemo({}, root);
    expect(results.map((r) => r.ok)).toEqual([false]);
    for (const address of ['/', '/about', '/assets/style.css']) {
      const started = performance.now();
      expect((await raw(server.url, 'GET', address)).status).toBe(404);
      // The server waits up to a second for a folder a build is swapping in, on each of a request's looks.
      expect(performance.now() - started, address).toBeLessThan(500);
    }
  });

  it('gives the pages of a layout that leaves out the optional </body> its script all the same', async () => {
    const root = await tempDir('vc-dev-');
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const layout = path.join(templates, 'layout.eta');
    await writeFile(layout, (await readFile(layout, 'utf8')).replace('</body>\n</html>\n', ''));
    const { server, results } = await devOnDemo({ templates }, root);
    expect(results.map((r) => r.ok)).toEqual([true]);
    expect((await raw(server.url, 'GET', '/')).text).toMatch(new RegExp(`</footer>\n<script src="${DEV_CLIENT}"></script>$`));
  });

  it("counts each of the templates' problems as an error, in the terminal as on the page", async () => {
    const root = await tempDir('vc-dev-');
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    await writeFile(path.join(templates, 'talk.eta'), '<% if ( { %>\n');
    await writeFile(path.join(templates, 'page.eta'), '<p>\n<%= it.title ) %>\n');
    const { results } = await devOnDemo({ templates }, root);
    expect(results.map((r) => !r.ok && r.errors.map((e) => String(e).replace(templates, 'T')))).toEqual([[expect.stringMatching(/^T\/page\.eta:2:\d+: syntax error/), expect.stringMatching(/^T\/talk\.eta:1(:\d+)?: syntax error/)]]);
    // Counted as the templates' errors, which the terminal's summary says they are.
    expect(results.map((r) => 'templates' in r && r.templates)).toEqual([2]);
  });

  it('says in its summary that the errors are in the templates, as the build says it', async () => {
    const root = await tempDir('vc-dev-');
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const talk = path.join(templates, 'talk.eta');
    await writeFile(talk, `<%= it.nosuch.deep %>\n${await readFile(talk, 'utf8')}`);
    const out = path.join(root, 'dist');
    const child = startCommand('dev', ['--content', DEMO_CONTENT, '--templates', templates, '--out', out, '--cache', path.join(root, 'cache'), '--port', '0']);
    let stderr = '';
    const summary = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const line = /^build failed: .*$/m.exec(stderr)?.[0];
        if (line) resolve(line);
      });
      child.on('exit', () => reject(new Error(`dev exited before its build failed\n${stderr}`)));
    });
    try {
      expect(await summary).toBe('build failed: 1 error in the templates; nothing written');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('shows a template that fails on a page as it shows one that does not compile, in the terminal as on the page, serving the last good build', async () => {
    const root = await tempDir('vc-dev-');
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const { server, results } = await devOnDemo({ templates }, root);
    expect(results.map((r) => r.ok)).toEqual([true]);
    const address = '/video/12/asyncio-in-production-lessons/';
    const page = (await raw(server.url, 'GET', address)).text;
    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const talk = path.join(templates, 'talk.eta');
    const original = await readFile(talk, 'utf8');
    await writeFile(talk, `<% if (it.id === 12) { %>\n  <%= it.nosuch.deep %>\n<% } %>\n${original}`);
    const error = `${talk}:2:17, rendering ${address}: Cannot read properties of undefined (reading 'deep')`;
    expect(await stream.next('problems')).toEqual({ errors: [error], built: true });
    expect(results.at(-1)).toEqual({ ok: false, errors: [error], templates: 1 });
    expect((await raw(server.url, 'GET', address)).text).toBe(page);
    await writeFile(talk, original);
    await stream.next('reload');
    stream.close();
  });

  it('fails on a port in use before it builds anything', async () => {
    const { server, root } = await devOnDemo();
    const port = Number(new URL(server.url).port);
    const out = path.join(root, 'second-dist');
    await expect(startDev({ content: path.join(root, 'content'), templates: TEMPLATES, out, cache: path.join(root, 'second-cache'), host: '127.0.0.1', port, log: () => undefined })).rejects.toThrow(/is already in use .* pick another port with --port N/);
    expect(existsSync(out)).toBe(false);
  });

  it('rebuilds a renamed talk file without a failed build on the way (the watcher reports the old name gone at once)', async () => {
    const { server, content, results } = await devOnDemo();
    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const videos = path.join(content, 'pennine-web-2012', 'videos');
    await rename(path.join(videos, 'screen-readers-101.yaml'), path.join(videos, 'screen-readers-102.yaml'));
    await stream.next('reload');
    await server.idle();
    stream.close();
    expect(results.length).toBeGreaterThan(1);
    expect(results.map((r) => (r.ok ? 'ok' : r.errors.join('\n')))).toEqual(results.map(() => 'ok'));
    expect((await raw(server.url, 'GET', '/video/35/screen-readers-102/')).status).toBe(200);
    expect((await raw(server.url, 'GET', '/video/35/screen-readers-101/')).status).toBe(404);
  });

  it("neither builds nor reloads the pages for files no build reads: editors' swap, lock and autosave files, a git repository's own", async () => {
    const root = await tempDir('vc-dev-');
    const templates = path.join(root, 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const { server, content, results } = await devOnDemo({ templates }, root);
    const stream = await events(new URL(DEV_EVENTS, server.url).href);
    const videos = path.join(content, 'tidewater-python-2024', 'videos');
    // Written while a file is open, not on a save: vim's swap file every few seconds of typing, emacs's lock and autosave.
    await writeFile(path.join(videos, '.asyncio-in-production-lessons.yaml.swp'), 'swap');
    await symlink('someone@host.1:2', path.join(videos, '.#asyncio-in-production-lessons.yaml'));
    await writeFile(path.join(videos, '#asyncio-in-production-lessons.yaml#'), 'autosave');
    await writeFile(path.join(templates, '.talk.eta.swp'), 'swap');
    await writeFile(path.join(templates, '#talk.eta#'), 'autosave');
    await writeFile(path.join(templates, 'assets', '#style.css#'), 'autosave');
    // Vim's, on a save: it writes this file and removes it, to learn whether it may write the folder.
    await writeFile(path.join(content, '_pages', '4913'), '');
    await rm(path.join(content, '_pages', '4913'));
    // A catalogue kept in a repository of its own: git add, git commit.
    await mkdir(path.join(content, '.git', 'objects', '4b'), { recursive: true });
    await writeFile(path.join(content, '.git', 'index'), 'index');
    await writeFile(path.join(content, '.git', 'objects', '4b', '825dc642cb6eb9a060e54bf8d69288fbee4904'), 'object');
    await new Promise((r) => setTimeout(r, 300));
    await server.idle();
    expect(results).toHaveLength(1);
    const file = path.join(videos, 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^duration: .*$/m, 'duration: 1234'));
    await stream.next('reload');
    await server.idle();
    stream.close();
    expect(results.map((r) => r.ok)).toEqual([true, true]);
  });

  it('follows a content folder removed and made again, or another put in its place, publishing nothing while it is gone, and builds an output removed by hand again', async () => {
    const { server, root, content, results } = await devOnDemo();
    const talk = 'tidewater-python-2024/videos/asyncio-in-production-lessons.yaml';
    const page = '/video/12/asyncio-in-production-lessons/';
    const title = async () => /<h1[^>]*>([^<]*)<\/h1>/.exec((await raw(server.url, 'GET', page)).text)?.[1];
    const retitled = async (dir: string, text: string) => writeFile(path.join(dir, talk), (await readFile(path.join(DEMO_CONTENT, talk), 'utf8')).replace(/^title: .*$/m, `title: ${text}`));
    await rm(content, { recursive: true });
    await expect.poll(() => results.length).toBeGreaterThan(1);
    await server.idle();
    expect(results.at(-1)).toMatchObject({ ok: false, errors: [expect.stringContaining('the content folder is not there')] });
    expect(await title()).toBe('asyncio in Production: Five Outages and What They Taught Us');
    // Made again: a copy moved into its place.
    const copy = path.join(root, 'copy');
    await cp(DEMO_CONTENT, copy, { recursive: true });
    await retitled(copy, 'Made again');
    await rename(copy, content);
    await expect.poll(title, { timeout: 10_000 }).toBe('Made again');
    await retitled(content, 'Saved in the new folder');
    await expect.poll(title, { timeout: 10_000 }).toBe('Saved in the new folder');
    // Swapped for another by renames, as a checkout of a branch may.
    await cp(content, copy, { recursive: true });
    await retitled(copy, 'Swapped in');
    await rename(content, path.join(root, 'old'));
    await rename(copy, content);
    await expect.poll(title, { timeout: 10_000 }).toBe('Swapped in');
    await retitled(content, 'Saved after the swap');
    await expect.poll(title, { timeout: 10_000 }).toBe('Saved after the swap');
    // Once the search index's build that follows the title is done too: removed while that build moves its files in, rm would fail (ENOTEMPTY).
    await server.idle();
    // The output removed by hand is built again, whole.
    await rm(path.join(root, 'dist'), { recursive: true });
    await expect.poll(title, { timeout: 10_000 }).toBe('Saved after the swap');
    await server.idle();
    expect(results.at(-1)).toMatchObject({ ok: true, summary: { incremental: false } });
  }, 60_000);

  it('builds an output emptied by hand (rm -rf dist/*) again whole, and the edits after it', async () => {
    const { server, root, content, results } = await devOnDemo();
    const out = path.join(root, 'dist');
    // The folder stays (the same inode and birth time): only its files go.
    for (const entry of await readdir(out)) await rm(path.join(out, entry), { recursive: true });
    await expect.poll(() => results.length, { timeout: 10_000 }).toBeGreaterThan(1);
    await server.idle();
    expect(results.at(-1)).toMatchObject({ ok: true, summary: { incremental: false } });
    expect((await raw(server.url, 'GET', '/api/v2/video/12')).status).toBe(200);
    const built = results.length;
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: Saved after the output was emptied'));
    await expect.poll(() => results.length, { timeout: 10_000 }).toBeGreaterThan(built);
    await server.idle();
    expect(results.slice(built).map((r) => (r.ok ? 'ok' : r.errors.join('\n')))).toEqual(results.slice(built).map(() => 'ok'));
    const clean = path.join(root, 'clean');
    expect((await build({ content, templates: TEMPLATES, out: clean })).ok).toBe(true);
    expect(await contentHashes(out)).toEqual(await contentHashes(clean));
  }, 60_000);

  /** `npm run dev` on a catalogue large enough that its first build is still writing its staging folder when SIGINT comes: its exit and what it said. */
  async function interruptedFirstBuild(root: string, args: string[] = []) {
    const child = startCommand('dev', ['--content', path.join(root, 'content'), '--templates', TEMPLATES, '--out', path.join(root, 'dist'), '--cache', path.join(root, 'cache'), '--port', '0', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = once(child, 'exit');
    const staging = async () => (await readdir(root)).some((name) => name.startsWith('.dist.staging-'));
    await expect.poll(staging, { timeout: 30_000, interval: 10 }).toBe(true);
    child.kill('SIGINT');
    const [code, signal] = await exited;
    return { code, signal, stdout, stderr };
  }

  it('stops its first build on Ctrl+C as it stops the others, says that nothing was written and exits 130, as a build stopped so does, leaving no staging folder or lock behind', async () => {
    const root = await tempDir('vc-dev-');
    await writeManyTalks(path.join(root, 'content'), 10, 100);
    const { code, signal, stdout, stderr } = await interruptedFirstBuild(root);
    expect({ code, signal, stdout, stderr }).toEqual({ code: 130, signal: null, stdout: '', stderr: 'dev: stopped by SIGINT during the first build; nothing written\n' });
    expect(await readdir(root)).toEqual(['cache', 'content']);
    expect(existsSync(path.join(stateDirFor(path.join(root, 'cache'), path.join(root, 'dist')), 'lock'))).toBe(false);
  }, 60_000);

  it('says that an output built before is left as it was when Ctrl+C stops its first build', async () => {
    const root = await tempDir('vc-dev-');
    const content = path.join(root, 'content');
    await writeManyTalks(content, 10, 100);
    const out = path.join(root, 'dist');
    expect((await build({ content, templates: TEMPLATES, out, cache: path.join(root, 'cache') })).ok).toBe(true);
    const before = await fingerprint(out);
    // --clean: the first build writes the output whole, in a staging folder beside it.
    const { code, stderr } = await interruptedFirstBuild(root, ['--clean']);
    expect({ code, stderr }).toEqual({ code: 130, stderr: `dev: stopped by SIGINT during the first build; ${out} left as it was\n` });
    expect(await fingerprint(out)).toEqual(before);
  }, 60_000);

  it('lives through what its watcher cannot follow (a link that leads to itself): the build shows the error, and its fix builds', async () => {
    const { server, root, content, results } = await devOnDemo();
    const link = path.join(content, 'tidewater-python-2024', 'videos', 'loop.yaml');
    await symlink('loop.yaml', link);
    await expect.poll(() => results.length, { timeout: 10_000 }).toBeGreaterThan(1);
    await server.idle();
    const failed = results.at(-1)!;
    expect(!failed.ok && failed.errors.map(String)).toEqual([expect.stringMatching(/loop\.yaml:1:1 is a symbolic link/)]);
    await rm(link);
    await expect.poll(() => results.at(-1)?.ok, { timeout: 10_000 }).toBe(true);
    await server.idle();
    const clean = path.join(root, 'clean');
    expect((await build({ content, templates: TEMPLATES, out: clean })).ok).toBe(true);
    expect(await contentHashes(path.join(root, 'dist'))).toEqual(await contentHashes(clean));
  });

  // A live process that holds the output's lock, as a build by hand or a write through the API would, or the content's, as an import.
  it.each([
    ['the output', (root: string) => path.join(stateDirFor(path.join(root, 'cache'), path.join(root, 'dist')), 'lock'), 'another build (process PID) is writing this output'],
    ['the content', (root: string) => path.join(root, 'content', CONTENT_LOCK), 'another import (process PID) is writing ROOT/content'],
  ])('tries a build again once another process lets go of %s, rather than leave the edit for the next save, and says so once', async (_, lockOf, said) => {
    const { server, root, content, results } = await devOnDemo();
    await server.idle();
    const holder = spawn('sleep', ['60']);
    const lock = lockOf(root);
    await writeFile(lock, String(holder.pid));
    try {
      const built = results.length;
      const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: Saved while locked'));
      while (results.length === built) await new Promise((r) => setTimeout(r, 20));
      expect(results[built]).toMatchObject({ ok: false, errors: [expect.stringContaining(said.replace('PID', String(holder.pid)).replace('ROOT', root))] });
      // Tried again every half second, and not said again.
      await new Promise((r) => setTimeout(r, 1600));
      expect(results.length).toBe(built + 1);
    } finally {
      holder.kill();
    }
    await rm(lock);
    await server.idle();
    expect(results.at(-1)!.ok).toBe(true);
    expect(JSON.parse((await raw(server.url, 'GET', '/api/v2/video/12')).body.toString()).title).toBe('Saved while locked');
  });

  it('starts its next build from the state a build in another process left, and its output equals a clean build', async () => {
    const { server, root, content, results } = await devOnDemo();
    const out = path.join(root, 'dist');
    const cache = path.join(root, 'cache');
    // Once the dev server has saved its state (a second after its build): the other build patches the output from it.
    while (!hasState(stateDirFor(cache, out))) await new Promise((r) => setTimeout(r, 50));
    const talk5 = 'tidewater-python-2024/videos/escaping-is-not-enough-xss-in-templates.yaml';
    // Another checkout, with a talk retitled, built by hand into the same output and cache.
    const other = path.join(root, 'other');
    await cp(content, other, { recursive: true });
    await writeFile(path.join(other, talk5), (await readFile(path.join(other, talk5), 'utf8')).replace(/^title: .*$/m, 'title: Built elsewhere'));
    await buildElsewhere(['--content', other, '--out', out, '--templates', TEMPLATES, '--cache', cache]);
    expect(JSON.parse(await readFile(path.join(out, 'api/v2/video/5'), 'utf8')).title).toBe('Built elsewhere');
    // The dev server's next build, for an edit of another talk, takes the retitling back.
    const built = results.length;
    const file = path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^duration: .*$/m, 'duration: 1234'));
    while (results.length === built) await new Promise((r) => setTimeout(r, 20));
    await server.idle();
    expect(results.slice(built).map((r) => r.ok)).not.toContain(false);
    const clean = path.join(root, 'clean');
    expect((await build({ content, templates: TEMPLATES, out: clean })).ok).toBe(true);
    expect(await contentHashes(out)).toEqual(await contentHashes(clean));
  }, 60_000);
});
