import { existsSync } from 'node:fs';
import { cp, mkdtemp, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { build, DEFAULT_BASE_URL } from '../src/build.ts';
import { checkBaseUrl, runBuild, runCheck, runServer, runStart, servedAt, serverSettings } from '../src/commands.ts';
import { OptionError } from '../src/cli.ts';
import { DEMO_CONTENT, fingerprint, TEMPLATES, tempDir } from './helpers.ts';

describe('checkBaseUrl', () => {
  it('gives the origin links are written after: no trailing slash, "?" or "#", a host in punycode', () => {
    expect(checkBaseUrl('https://talks.example.org/')).toBe('https://talks.example.org');
    expect(checkBaseUrl('https://talks.example.org?')).toBe('https://talks.example.org');
    expect(checkBaseUrl('http://127.0.0.1:8080#')).toBe('http://127.0.0.1:8080');
    expect(checkBaseUrl('https://bücher.example')).toBe('https://xn--bcher-kva.example');
  });

  it('takes a folder of a host, with or without its trailing slash, which is the base path the pages write', () => {
    expect(checkBaseUrl('https://user.github.io/talks/')).toBe('https://user.github.io/talks');
    expect(checkBaseUrl('https://user.github.io/talks')).toBe('https://user.github.io/talks');
    expect(checkBaseUrl('http://127.0.0.1:8080/a/b-2_x.y~z/')).toBe('http://127.0.0.1:8080/a/b-2_x.y~z');
  });

  it('refuses what is not an http(s) host or a folder of it named as the server reads it', () => {
    for (const bad of ['talks.example.org', 'ftp://example.org', 'https://example.org/?x=1', 'https://example.org/my%20talks/', 'https://example.org//talks', 'https://example.org/tälks', 'https://example.org/talks//', 'https://example.org/.talks/', 'https://example.org/a/.b'])
      expect(() => checkBaseUrl(bad), bad).toThrow(/--base-url/);
  });

  it('refuses a URL that ends in a page or a file of the site, which would be taken for a folder of that name, naming its folder', () => {
    expect(() => checkBaseUrl('https://example.org/talks/index.html')).toThrow(
      new OptionError('--base-url must name the folder the site is served from, not a file in it ("index.html"): give https://example.org/talks, got "https://example.org/talks/index.html"'),
    );
    expect(() => checkBaseUrl('https://example.org/index.HTM')).toThrow('give https://example.org, got');
    for (const file of ['https://user.github.io/talks/feed.atom', 'https://user.github.io/talks/sitemap.xml/', 'https://example.org/a/404.html']) expect(() => checkBaseUrl(file), file).toThrow(/not a file in it/);
    // A dot in a folder's name is no file's extension.
    expect(checkBaseUrl('https://example.org/v1.2/talks.2026')).toBe('https://example.org/v1.2/talks.2026');
  });
});

describe('the server options', () => {
  const listening = { host: '127.0.0.1', port: '0', 'max-connections': '1024' };

  it('refuses an empty --host, which Node reads as every address of the machine', () => {
    expect(() => serverSettings({ ...listening, host: '' })).toThrow(OptionError);
    expect(() => serverSettings({ ...listening, host: ' ' })).toThrow('--host must name an address (127.0.0.1, ::1, or 0.0.0.0 for every address), got " "');
    expect(serverSettings({ ...listening, host: '::1' }).host).toBe('::1');
  });

  it('refuses an empty --host for dev and start too, before they build a site with its address', async () => {
    const site = { ...listening, 'base-url': 'http://127.0.0.1:8080', 'search-shard': '25000' };
    await expect(servedAt({ ...site, host: '' })).rejects.toThrow(OptionError);
    expect((await servedAt(site)).port).toMatch(/^[1-9]\d*$/);
  });

  it('says that a --dir which is a file is a file', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vc-commands-'));
    try {
      const file = path.join(root, 'dist');
      await writeFile(file, '');
      const values = { ...listening, dir: file, content: 'content', templates: 'templates', cache: '.cache', 'base-url': 'http://127.0.0.1:8080', 'search-shard': '25000' };
      await expect(runServer(values)).rejects.toThrow(`--dir ${file}: is a file, not a folder; name the folder npm run build wrote, such as dist`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

/** What `run` returns, and what it writes to stderr meanwhile, a string a write. */
async function withStderr<T>(run: () => Promise<T>): Promise<{ result: T; written: string[] }> {
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const result = await run();
    return { result, written: stderr.mock.calls.map(([text]) => String(text)) };
  } finally {
    stderr.mockRestore();
  }
}

describe('build', () => {
  it('reports a template that fails on pages as it reports one that does not compile: at its line, once however many pages, counted, exit code 1, the output as it was', async () => {
    const root = await tempDir();
    const values = { content: DEMO_CONTENT, out: path.join(root, 'dist'), templates: path.join(root, 'templates'), cache: path.join(root, 'cache'), 'base-url': DEFAULT_BASE_URL, 'search-shard': '25000' };
    await cp(TEMPLATES, values.templates, { recursive: true });
    expect((await build(values)).ok).toBe(true);
    const before = await fingerprint(values.out);
    const talk = path.join(values.templates, 'talk.eta');
    await writeFile(talk, `${await readFile(talk, 'utf8')}<%= it.nosuch.deep %>\n`);
    const line = (await readFile(talk, 'utf8')).split('\n').length - 1;
    expect(await withStderr(() => runBuild(values))).toEqual({
      result: 1,
      written: [
        expect.stringMatching(new RegExp(`^${talk}:${line}:15, rendering /video/\\d+/[\\w-]+/ and \\d+ other pages: Cannot read properties of undefined \\(reading 'deep'\\)\n$`)),
        `build failed: 1 error in the templates; ${values.out} left as it was\n`,
      ],
    });
    expect(await fingerprint(values.out)).toEqual(before);
  });

  it('with content errors, also names an address a template writes from the host\'s root in a build for a folder of its host', async () => {
    const root = await tempDir();
    const values = { content: path.join(root, 'content'), out: path.join(root, 'dist'), templates: path.join(root, 'templates'), cache: path.join(root, 'cache'), 'base-url': 'https://user.github.io/talks', 'search-shard': '25000' };
    await cp(DEMO_CONTENT, values.content, { recursive: true });
    await cp(TEMPLATES, values.templates, { recursive: true });
    await writeFile(path.join(values.content, '_pages', 'about.md'), '---\ntitle:\n---\nAbout.\n');
    const home = path.join(values.templates, 'home.eta');
    await writeFile(home, `${await readFile(home, 'utf8')}<a href="/events/">Events</a>\n`);
    const { result, written } = await withStderr(() => runBuild(values));
    expect(result).toBe(1);
    expect(written).toContainEqual(expect.stringContaining(`${home}:${(await readFile(home, 'utf8')).split('\n').length - 1}:10: /events/ is from the host's root, outside the folder /talks`));
    expect(written.at(-1)).toMatch(/^build failed: 2 errors in .* and the templates; nothing written\n$/);
  });
});

describe('a build on a full disk', () => {
  it('says where it could not write and what to do, as the error of a write names no file', async () => {
    const root = await tempDir();
    const values = { content: DEMO_CONTENT, out: path.join(root, 'dist'), templates: TEMPLATES, cache: path.join(root, 'cache'), 'base-url': DEFAULT_BASE_URL, 'search-shard': '25000' };
    const probe = await open(path.join(root, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const full = vi.spyOn(handles, 'writeFile').mockRejectedValue(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    try {
      await expect(runBuild(values)).rejects.toThrow(`ENOSPC: no space left on device, write (writing ${values.out} or the cache ${values.cache}): free some space there and build again`);
    } finally {
      full.mockRestore();
    }
  });
});

describe('a build on a read-only or unwritable disk', () => {
  // Tests run as root here, whom no chmod stops, and mount no read-only disk: the write is refused as the disk would refuse it.
  it.each([
    ['EROFS', 'read-only file system', 'that file system is mounted read-only: build to a folder on one the build may write (--out, --cache), or mount it read-write'],
    ['EACCES', 'permission denied', "the build's user may not write there: let it (chown the folder to it, or chmod u+w), or build to a folder of its own (--out, --cache)"],
    ['EPERM', 'operation not permitted', "the build's user may not write there: let it (chown the folder to it, or chmod u+w), or build to a folder of its own (--out, --cache)"],
  ])('%s: says where it could not write and what to do', async (code, words, fix) => {
    const root = await tempDir();
    const values = { content: DEMO_CONTENT, out: path.join(root, 'dist'), templates: TEMPLATES, cache: path.join(root, 'cache'), 'base-url': DEFAULT_BASE_URL, 'search-shard': '25000' };
    const probe = await open(path.join(root, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const refused = vi.spyOn(handles, 'writeFile').mockRejectedValue(Object.assign(new Error(`${code}: ${words}, write`), { code }));
    try {
      await expect(runBuild(values)).rejects.toThrow(`${code}: ${words}, write (writing ${values.out} or the cache ${values.cache}): ${fix}`);
    } finally {
      refused.mockRestore();
    }
  });
});

describe('start', () => {
  it('does not serve when a signal came as its build put the output in place: the build finishes, then start stops with 130', async () => {
    const root = await tempDir();
    const values = { content: DEMO_CONTENT, out: path.join(root, 'dist'), templates: TEMPLATES, cache: path.join(root, 'cache'), 'base-url': DEFAULT_BASE_URL, 'search-shard': '25000' };
    const listening = { host: '127.0.0.1', port: '0', 'max-connections': '1024', quiet: true };
    const probe = await open(path.join(root, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    // A build syncs no file before its commit, whose first step writes the state beside the output it puts in place.
    const sync = handles.sync;
    const committing = vi.spyOn(handles, 'sync').mockImplementationOnce(function (this: FileHandle) {
      process.emit('SIGINT', 'SIGINT');
      return sync.call(this);
    });
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const { result, written } = await withStderr(() => runStart({ ...values, ...listening }));
      expect(committing).toHaveBeenCalled();
      expect({ result, written }).toEqual({ result: 130, written: [`start: stopped by SIGINT as the build put ${values.out} in place, which it finished; not serving\n`] });
      expect(stdout.mock.calls.map(([text]) => String(text))).toEqual([expect.stringMatching(/^built \d+ talks /)]);
      expect(process.listenerCount('SIGINT')).toBe(0);
      expect(existsSync(path.join(values.out, 'api', 'v2', 'video'))).toBe(true);
    } finally {
      committing.mockRestore();
      stdout.mockRestore();
    }
  });
});

describe('check', () => {
  it('names an asset a template addresses relative to the page at its line and column, with the address to write, as the templates\' other problems', async () => {
    const templates = path.join(await tempDir(), 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const home = path.join(templates, 'home.eta');
    await writeFile(home, `${await readFile(home, 'utf8')}<img src="assets/favicon.svg" alt="">\n`);
    const line = (await readFile(home, 'utf8')).split('\n').length - 1;
    expect(await withStderr(() => runCheck({ content: DEMO_CONTENT, out: 'dist', templates }))).toEqual({
      result: 1,
      written: [
        `${home}:${line}:11: assets/favicon.svg is relative to the page it is on, and every page below the root (a talk's, /video/12/a-talk/) asks for it in its own folder; write <%= it.site.basePath %>/assets/favicon.svg, from the site's root (it.site.basePath is '' at a host's root, /talks for --base-url https://user.github.io/talks)\n`,
        'check failed: 1 error in the templates\n',
      ],
    });
  });

  it('takes the build\'s --base-url, and names an address a template writes from the host\'s root when it is a folder of its host, as that build would', async () => {
    const templates = path.join(await tempDir(), 'templates');
    await cp(TEMPLATES, templates, { recursive: true });
    const home = path.join(templates, 'home.eta');
    await writeFile(home, `${await readFile(home, 'utf8')}<a href="/events/">Events</a>\n`);
    const line = (await readFile(home, 'utf8')).split('\n').length - 1;
    const values = { content: DEMO_CONTENT, out: 'dist', templates };
    expect((await withStderr(() => runCheck({ ...values, 'base-url': 'https://example.org' }))).result).toBe(0);
    expect(await withStderr(() => runCheck({ ...values, 'base-url': 'https://user.github.io/talks/' }))).toEqual({
      result: 1,
      written: [
        `${home}:${line}:10: /events/ is from the host's root, outside the folder /talks the site is built for (--base-url); write <%= it.site.basePath %>/events/\n`,
        'check failed: 1 error in the templates\n',
      ],
    });
    await expect(runCheck({ ...values, 'base-url': 'user.github.io/talks' })).rejects.toThrow(OptionError);
  });
});
