import { randomBytes } from 'node:crypto';
import { on } from 'node:events';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdir, mkdtemp, open, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { build } from '../src/build.ts';
import { ENCODINGS, etagMatches, etagOf, HEADERS, kindOf, MIN_COMPRESS_BYTES, READ_ALLOW } from '../src/headers.ts';
import {
  acceptedEncodings,
  accessLine,
  byteRange,
  apiTarget,
  contentTypeOf,
  FileCache,
  logLines,
  pageParam,
  safePath,
  startServer,
  validHost,
  type CacheLimits,
  type RunningServer,
  type WriteHandler,
} from '../src/server.ts';
import { DEMO_CONTENT, startCommand, tempDir, TEMPLATES } from './helpers.ts';
import { raw, STANDARD_HEADERS, type RawResponse } from './http.ts';
import { HIDDEN, HOST_CONFIG, OUTPUT, SECRET, writeOutput } from './output-fixture.ts';

const expectOnly = (headers: Record<string, unknown>, expected: Record<string, string>) => {
  for (const [k, v] of Object.entries(expected)) expect(headers[k], k).toBe(v);
  const extra = Object.keys(headers).filter((k) => !(k in expected) && !STANDARD_HEADERS.includes(k));
  expect(extra).toEqual([]);
};

const RECORD_HEADERS = { vary: 'Accept', 'content-type': 'text/html; charset=utf-8', allow: 'GET, PUT, PATCH, HEAD, OPTIONS' };

describe('safePath', () => {
  it('decodes ordinary paths', () => {
    expect(safePath('/video/1/a-talk/?x=1')).toBe('/video/1/a-talk/');
    expect(safePath('/tag/%E6%97%A5%E6%9C%AC/')).toBe('/tag/日本/');
    expect(safePath('//video//1/')).toBe('/video/1/');
    expect(safePath('http://example.org/video/1/')).toBe('/video/1/');
  });

  it('refuses anything that could leave the folder or show a hidden file', () => {
    for (const bad of ['/../x', '/%2e%2e/x', '/a/%2E%2E/b', '/a%2fb', '/a%5cb', '/a\\b', '/%00', '/a%0a', '/.env', '/a/.git/config', '/%', '/%E0%A4%A', '*', '', '/a%25b']) {
      expect(safePath(bad), bad).toBeNull();
    }
  });
});

describe('helpers', () => {
  it('compares ETags weakly and understands lists and *', () => {
    expect(etagMatches('W/"1-2"', 'W/"1-2"')).toBe(true);
    expect(etagMatches('"x", "1-2"', 'W/"1-2"')).toBe(true);
    expect(etagMatches('*', 'W/"1-2"')).toBe(true);
    expect(etagMatches('W/"1-3"', 'W/"1-2"')).toBe(false);
    expect(etagMatches(undefined, 'W/"1-2"')).toBe(false);
  });

  it('keeps only single byte ranges that make sense, with their end within the file', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=0-0', 1000)).toEqual({ start: 0, end: 0 });
    expect(byteRange('bytes=100-', 1000)).toEqual({ start: 100, end: 999 });
    expect(byteRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 });
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    // The last bytes: all of a shorter file, none of an empty one.
    expect(byteRange('bytes=-5', 1000)).toEqual({ start: 995, end: 999 });
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect([byteRange('bytes=-0', 1000), byteRange('bytes=-5', 0)]).toEqual(['unsatisfiable', 'unsatisfiable']);
    for (const bad of [undefined, 'bytes=100-50', 'bytes=-', 'bytes=0-1,3-4', 'items=0-1', 'bytes=a-b', `bytes=${'9'.repeat(16)}-`]) expect(byteRange(bad, 1000)).toBeUndefined();
  });

  it('takes one Host that names a host and port, or none', () => {
    for (const good of [undefined, ['example.org'], ['127.0.0.1:8080'], ['[::1]:8080'], ['my_host.local:'], ['']]) expect(validHost(good), String(good)).toBe(true);
    for (const bad of [['a', 'b'], ['a', 'a'], ['a b'], ['evil.example/x'], ['a\\b'], ['user@host'], ['h\u00e9te'], ['[::1'], ['host:80x']]) expect(validHost(bad), String(bad)).toBe(false);
  });
});

describe('server', () => {
  let root: string;
  let dist: string;
  let server: RunningServer;
  let base: string;
  let draftId: number;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-server-'));
    dist = path.join(root, 'dist');
    const result = await build({ content: DEMO_CONTENT, out: dist, templates: TEMPLATES });
    if (!result.ok) throw new Error(result.errors.join('\n'));
    await writeFile(path.join(root, 'secret.txt'), 'TOP-SECRET');
    await writeFile(path.join(dist, '.env'), 'HIDDEN=1');
    server = await startServer({ dir: dist, host: '127.0.0.1', port: 0, quiet: true });
    base = server.url;
    const { loadContent } = await import('../src/load.ts');
    draftId = (await loadContent(DEMO_CONTENT)).catalogue.talks.find((t) => t.state === 2)!.id;
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 with an ephemeral port', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(base).not.toContain(':0/');
  });

  it('GET /api/v2/video/<id>: the file with exactly the contract headers', async () => {
    const res = await raw(base, 'GET', '/api/v2/video/1');
    expect(res.status).toBe(200);
    expectOnly(res.headers, RECORD_HEADERS);
    expect(res.body.equals(await readFile(path.join(dist, 'api/v2/video/1')))).toBe(true);
    expect(JSON.parse(res.text).id).toBe(1);
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['content-length']).toBe(String(res.body.length));
  });

  it('answers the trailing-slash form the same way', async () => {
    const a = await raw(base, 'GET', '/api/v2/video/1');
    const b = await raw(base, 'GET', '/api/v2/video/1/');
    expect(b.status).toBe(200);
    expectOnly(b.headers, RECORD_HEADERS);
    expect(b.text).toBe(a.text);
  });

  it('HEAD sends the same headers and no body', async () => {
    const get = await raw(base, 'GET', '/api/v2/video/1/');
    const head = await raw(base, 'HEAD', '/api/v2/video/1/');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const { date: _a, ...getHeaders } = get.headers;
    const { date: _b, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it('If-None-Match with the current ETag gives 304 with Vary, Allow and ETag', async () => {
    const first = await raw(base, 'GET', '/api/v2/video/1');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const res = await raw(base, 'GET', '/api/v2/video/1', { 'If-None-Match': etag });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers).toMatchObject({ vary: 'Accept', allow: RECORD_HEADERS.allow, etag });
    const stale = await raw(base, 'GET', '/api/v2/video/1', { 'If-None-Match': 'W/"0-0"' });
    expect(stale.status).toBe(200);
  });

  it.each([
    ['an unknown id', '/api/v2/video/999999'],
    ['a draft', () => `/api/v2/video/${draftId}`],
    ['a path that is not a decimal id', '/api/v2/video/abc'],
    ['a negative id', '/api/v2/video/-1'],
    ['a leading zero', '/api/v2/video/01'],
    ['a huge id', `/api/v2/video/${'9'.repeat(40)}`],
  ])('404 JSON for %s, with Vary and Allow', async (_name, target) => {
    const res = await raw(base, 'GET', typeof target === 'function' ? target() : target);
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"detail": "Not found."}');
    expectOnly(res.headers, { 'content-type': 'application/json', vary: 'Accept', allow: RECORD_HEADERS.allow });
  });

  it('OPTIONS describes the resource', async () => {
    const res = await raw(base, 'OPTIONS', '/api/v2/video/1/');
    expect(res.status).toBe(200);
    expectOnly(res.headers, { 'content-type': 'application/json', vary: 'Accept', allow: RECORD_HEADERS.allow });
    expect(JSON.parse(res.text)).toMatchObject({ name: 'Video Instance', renders: ['application/json', 'text/html'], parses: ['application/json'] });
  });

  it.each(['PUT', 'PATCH'])('%s without credentials is 401 with WWW-Authenticate: Token', async (method) => {
    const res = await raw(base, method, '/api/v2/video/1', { 'Content-Type': 'application/json' }, '{"title": "x"}');
    expect(res.status).toBe(401);
    expect(res.text).toBe('{"detail": "Authentication credentials were not provided."}');
    expectOnly(res.headers, { 'content-type': 'application/json', vary: 'Accept', allow: RECORD_HEADERS.allow, 'www-authenticate': 'Token' });
    expect(JSON.parse((await raw(base, 'GET', '/api/v2/video/1')).text).title).not.toBe('x');
  });

  it.each(['POST', 'DELETE', 'TRACE'])('%s is 405 with Allow', async (method) => {
    const res = await raw(base, method, '/api/v2/video/1');
    expect(res.status).toBe(405);
    expect(res.text).toBe(`{"detail": "Method \\"${method}\\" not allowed."}`);
    expectOnly(res.headers, { 'content-type': 'application/json', vary: 'Accept', allow: RECORD_HEADERS.allow });
  });

  it("CONNECT, which Node hands over with the bare socket, is answered as any method the path refuses", async () => {
    const exchange = (target: string, before = '') =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(base);
        const socket = connect(Number(url.port), url.hostname, () => socket.write(`${before}CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const record = await exchange('/api/v2/video/1');
    expect(record.split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(record).toContain(`\r\nAllow: ${RECORD_HEADERS.allow}\r\n`);
    expect(record).toContain('\r\nVary: Accept\r\n');
    expect(record.endsWith('{"detail": "Method \\"CONNECT\\" not allowed."}')).toBe(true);
    expect((await exchange('/talks/')).split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed');
    expect((await exchange('example.org:443')).split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
    // After a request on the same connection, once that one is answered.
    const pipelined = await exchange('/api/v2/video/1', 'GET /api/v2/video/1 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect([...pipelined.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['200', '405']);
    expect((await raw(base, 'GET', '/api/v2/video/1')).status).toBe(200);
  });

  // RFC 9110 9.3.7: OPTIONS * asks about the server in general, whose methods are a record's (the contract's Allow); RFC 9112 3.2.4: no other method takes `*`, which nginx answers 400.
  it('answers OPTIONS * with the methods the server takes anywhere, and any other method with * 400', async () => {
    const port = Number(new URL(base).port);
    const asked = (method: string) => exchange(port, `${method} * HTTP/1.1\r\nHost: x\r\n\r\n`);
    const options = await asked('OPTIONS');
    expect(options.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(options).toContain(`\r\nAllow: ${RECORD_HEADERS.allow}\r\n`);
    expect(options.endsWith('\r\n\r\n')).toBe(true);
    for (const method of ['GET', 'HEAD', 'PUT']) expect((await asked(method)).split('\r\n')[0], method).toBe('HTTP/1.1 400 Bad Request');
  });

  it('serves pages as text/html; charset=utf-8 and follows folders to their slash', async () => {
    const home = await raw(base, 'GET', '/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.text).toContain('<h1>Recorded talks</h1>');
    const short = await raw(base, 'GET', '/video/1');
    expect(short.status).toBe(301);
    expect(short.headers.location).toBe('/video/1/');
    const page = await raw(base, 'GET', '/video/1/');
    expect(page.text).toContain('http-equiv="refresh"');
    const css = await raw(base, 'GET', '/assets/style.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('answers a missing page with 404.html and status 404', async () => {
    const res = await raw(base, 'GET', '/no/such/page/');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toBe(await readFile(path.join(dist, '404.html'), 'utf8'));
  });

  it('refuses writes to pages with 405', async () => {
    const res = await raw(base, 'POST', '/index.html');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it.each([
    '/../secret.txt',
    '/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/video/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/..\\secret.txt',
    '/api/v2/video/..%2F..%2F..%2F..%2Fsecret.txt',
    '/index.html%00.txt',
    '/.env',
    '/%2eenv',
    '/assets/',
    '/api/v2/',
    '/%',
    '/video/%c0%ae%c0%ae/secret.txt',
  ])('never serves outside the folder, hidden files or listings: %s', async (target) => {
    const res = await raw(base, 'GET', target);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.text).not.toContain('TOP-SECRET');
    expect(res.text).not.toContain('HIDDEN=1');
    expect(res.text).not.toMatch(/Index of/);
  });

  it('never follows a symbolic link out of the folder, to a file or through a folder', async () => {
    await mkdir(path.join(root, 'outside'));
    await writeFile(path.join(root, 'outside', 'page.html'), 'TOP-SECRET');
    const links = [path.join(dist, 'secret.txt'), path.join(dist, 'outside')];
    await symlink(path.join(root, 'secret.txt'), links[0]!);
    await symlink(path.join(root, 'outside'), links[1]!);
    try {
      for (const target of ['/secret.txt', '/outside/page.html']) {
        const res = await raw(base, 'GET', target);
        expect(res.status, target).toBe(404);
        expect(res.text).not.toContain('TOP-SECRET');
      }
    } finally {
      await Promise.all(links.map((link) => rm(link)));
    }
  });

  it('never follows a symbolic link to a hidden file or folder in the folder, which the hidden ones themselves are not sent as', async () => {
    await mkdir(path.join(dist, '.git'));
    await writeFile(path.join(dist, '.git', 'config'), 'HIDDEN=1');
    const links = [path.join(dist, 'env.txt'), path.join(dist, 'repo')];
    await symlink('.env', links[0]!);
    await symlink('.git', links[1]!);
    try {
      for (const target of ['/env.txt', '/repo/config', '/.git/config']) {
        const res = await raw(base, 'GET', target);
        expect([target, res.status, res.text.includes('HIDDEN=1')]).toEqual([target, 404, false]);
      }
    } finally {
      await Promise.all([...links, path.join(dist, '.git')].map((link) => rm(link, { recursive: true })));
    }
  });

  it('survives a backwards Range and still serves valid ranges', async () => {
    const bad = await raw(base, 'GET', '/about/', { Range: 'bytes=100-50' });
    expect(bad.status).toBe(200);
    const good = await raw(base, 'GET', '/about/', { Range: 'bytes=0-9' });
    expect([good.status, good.text]).toEqual([206, '<!doctype ']);
    expect((await raw(base, 'GET', '/about/')).status).toBe(200);
  });

  it.each(['/api/v2/video/1', '/api/v2/video/?page=1', '/api/v2/category/'])("sends the API's %s whole whatever the Range, as Django REST framework does", async (pathname) => {
    const whole = await raw(base, 'GET', pathname);
    for (const range of ['bytes=0-9', 'bytes=5000000-', 'bytes=-0', 'bytes=100-50']) {
      const res = await raw(base, 'GET', pathname, { Range: range });
      expect([res.status, res.text, res.headers['content-range'], res.headers['accept-ranges']], range).toEqual([200, whole.text, undefined, undefined]);
    }
  });

  it('follows a rebuild that swaps the folder: changed, new and removed files', async () => {
    const before = await raw(base, 'GET', '/api/v2/video/1');
    const content = path.join(root, 'content');
    const { cp } = await import('node:fs/promises');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const fg = (await import('fast-glob')).default;
    const [talkOne] = await fg('*/videos/*', { cwd: content, absolute: true }).then(async (files) => {
      const out: string[] = [];
      for (const f of files) if (/^\s*"?id"?\s*:\s*1\s*,?\s*$/m.test(await readFile(f, 'utf8'))) out.push(f);
      return out;
    });
    const text = await readFile(talkOne!, 'utf8');
    await writeFile(talkOne!, text.replace(/^(\s*"?title"?\s*:\s*)(.*)$/m, '$1"A much longer title written after the first build"'));
    const removed = (await fg('*/videos/*', { cwd: content, absolute: true })).find((f) => f !== talkOne)!;
    const removedId = Number(/^\s*"?id"?\s*:\s*(\d+)/m.exec(await readFile(removed, 'utf8'))![1]);
    await rm(removed);
    const result = await build({ content, out: dist, templates: TEMPLATES });
    expect(result.ok).toBe(true);
    const after = await raw(base, 'GET', '/api/v2/video/1');
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).title).toBe('A much longer title written after the first build');
    expect(after.text.length).toBeGreaterThan(before.text.length - 100);
    expect(Number(after.headers['content-length'])).toBe(after.body.length);
    expect((await raw(base, 'GET', `/api/v2/video/${removedId}`)).status).toBe(404);
  });

  it('keeps answering after all of the above', async () => {
    expect((await raw(base, 'GET', '/api/v2/video/1')).status).toBe(200);
  });
});

describe('negotiation and routing helpers', () => {
  it('reads Accept-Encoding with q-values: best first, br before gzip, q=0 and bad q refuse', () => {
    const names = (header: string | undefined) => acceptedEncodings(header).map((e) => e.name);
    expect(names(undefined)).toEqual([]);
    expect(names('gzip, deflate, br')).toEqual(['br', 'gzip']);
    expect(names('br;q=0, gzip')).toEqual(['gzip']);
    expect(names('gzip;q=1.0, br;q=0.5')).toEqual(['gzip', 'br']);
    expect(names('*')).toEqual(['br', 'gzip']);
    expect(names('*;q=0.2, br;q=0')).toEqual(['gzip']);
    expect(names('BR ; Q=0.9')).toEqual(['br']);
    for (const none of ['identity', 'gzip;q=abc, br;q=2', ',,, ;;', 'deflate', '*;q=0']) expect(names(none), none).toEqual([]);
  });

  it('reads the page parameter as Django does: the last one, 1 when absent, no page when empty', () => {
    expect(pageParam('')).toBe(1);
    expect(pageParam('?format=json')).toBe(1);
    // Django keeps a blank value, which its paginator's int() refuses: Django REST framework's "Invalid page.".
    for (const blank of ['?page=', '?page', '?page=2&page=', '?page=2&page']) expect(pageParam(blank), blank).toBeNull();
    expect(pageParam('?page=&page=2')).toBe(2);
    expect(pageParam('?page=2&format=json')).toBe(2);
    expect(pageParam('?page=1&page=3')).toBe(3);
    expect(pageParam('?page=%32')).toBe(2);
    // As Python's int() reads it: white space around it (a `+` in a query), a plus sign.
    for (const query of ['?page=+2', '?page=%2B2', '?page=+%2B2+', '?page=%092%0A', '?page=%E3%80%802', '?page=%1C2']) expect(pageParam(query), query).toBe(2);
    // Django REST framework's last_page_strings.
    expect(pageParam('?page=2&page=last')).toBe('last');
    expect(pageParam('?page=l%61st')).toBe('last');
    expect(apiTarget('/api/v2/speaker/', '?page=last')).toMatchObject({ file: 'api/v2/speaker/page.last' });
    for (const bad of ['?page=0', '?page=-1', '?page=abc', '?page=1.0', '?page=1e3', `?page=${'9'.repeat(20)}`, '?page=Last', '?page=last%20', '?page=+', '?page=+0', '?page=-2', '?page=%2B%2B2', '?page=%2B+2', '?page=1_0', '?page=%EF%BB%BF2', `?page=0${'1'.repeat(15)}`]) expect(pageParam(bad), bad).toBeNull();
  });

  it('maps API paths to their files, and internal file names to nothing', () => {
    expect(apiTarget('/api/v2/video/12/', '')).toMatchObject({ file: 'api/v2/video/12', id: '12', name: 'Video Instance' });
    expect(apiTarget('/api/v2/video/012', '')).toMatchObject({ file: null });
    expect(apiTarget('/api/v2/video/page.1', '')).toMatchObject({ file: null });
    expect(apiTarget('/api/v2/video', '?page=3')).toMatchObject({ file: 'api/v2/video/page.3', name: 'Video List', allow: READ_ALLOW });
    expect(apiTarget('/api/v2/speaker/', '')).toMatchObject({ file: 'api/v2/speaker/page.1', name: 'Speaker List' });
    expect(apiTarget('/api/v2/category/pycon-2024/', '?page=9')).toMatchObject({ file: 'api/v2/category/pycon-2024', name: 'Category Instance' });
    expect(apiTarget('/api/v2/category/page.1', '')).toMatchObject({ file: null });
    // Every folder name the schema takes for an event has its address: real ones have `--` and a trailing hyphen.
    for (const slug of ['conf--2020', '-lead', 'sprint-']) expect(apiTarget(`/api/v2/category/${slug}`, ''), slug).toMatchObject({ file: `api/v2/category/${slug}` });
    expect(apiTarget('/api/v2/speaker/ada', '')).toBeUndefined();
    expect(apiTarget('/api/v2/video/1/extra', '')).toBeUndefined();
  });

  it('types what the manifest leaves untyped by its name', () => {
    expect(contentTypeOf('assets/style.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('pagefind/wasm.en.pagefind')).toBe('application/octet-stream');
    expect(contentTypeOf('pagefind/pagefind.wasm')).toBe('application/wasm');
    expect(contentTypeOf('feed.json')).toBe('application/json');
  });

  it('writes access log lines that a request cannot break or forge', () => {
    const request = { method: 'GET', url: '/a"b\n127.0.0.1 - - fake', httpVersion: '1.1' };
    const line = accessLine({ remote: '127.0.0.1', time: new Date(0), request, status: 404, bytes: 12, ms: 0.42, aborted: false });
    expect(line).toBe('127.0.0.1 - - [1970-01-01T00:00:00.000Z] "GET /a\\x22b\\x0a127.0.0.1 - - fake HTTP/1.1" 404 12 0.4ms');
    // A request Node's parser refused has no request line to show.
    expect(accessLine({ remote: '::1', time: new Date(0), status: 400, bytes: 0, ms: 0, aborted: false })).toBe('::1 - - [1970-01-01T00:00:00.000Z] "-" 400 0 0.0ms');
  });

  it('counts compressed bodies in the cache, and lets them go with their file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vc-cache-'));
    try {
      const cache = new FileCache({ maxTotalBytes: 6000 });
      const bytes = Buffer.from('<p>compress me</p>'.repeat(200));
      await writeFile(path.join(dir, 'page.html'), bytes);
      const file = (await cache.get(path.join(dir, 'page.html')))!;
      const before = cache.size();
      const br = cache.encoded(path.join(dir, 'page.html'), file, ENCODINGS[0])!;
      expect(brotliDecompressSync(br.body!).equals(bytes)).toBe(true);
      expect(cache.size()).toBe(before + br.size);
      expect(cache.encoded(path.join(dir, 'page.html'), file, ENCODINGS[0])).toBe(br);
      await writeFile(path.join(dir, 'other.html'), Buffer.alloc(5000, 'x'));
      await cache.get(path.join(dir, 'other.html'));
      // The page went first, its compressed body with it.
      expect(cache.size()).toBeLessThanOrEqual(6000);
      expect(cache.size()).toBeLessThan(5000 + before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('holds no more memory for a compressed body than it counts: zlib gives a view of a 16 KiB chunk, which a small body would keep whole', async () => {
    const dir = await tempDir('vc-cache-');
    const cache = new FileCache();
    const abs = path.join(dir, 'page.html');
    await writeFile(abs, Buffer.from('<p>compress me</p>'.repeat(200)));
    const file = (await cache.get(abs))!;
    for (const encoding of ENCODINGS) {
      const variant = cache.encoded(abs, file, encoding)!;
      expect(variant.body!.buffer.byteLength, encoding.name).toBe(variant.size);
    }
  });

  it('lets the least recently used file go first, a hit counting as a use, and a file gone go at once', async () => {
    const dir = await tempDir('vc-cache-');
    // Room for three of these files (200 bytes and an entry's cost each), not four.
    const cache = new FileCache({ maxTotalBytes: 1400 });
    const at = (name: string) => path.join(dir, name);
    for (const name of ['a', 'b', 'c', 'd']) await writeFile(at(name), Buffer.alloc(200, name));
    const a = await cache.get(at('a'));
    const b = await cache.get(at('b'));
    const c = await cache.get(at('c'));
    const three = cache.size();
    expect(await cache.get(at('a'))).toBe(a);
    await cache.get(at('d'));
    expect(cache.size()).toBe(three);
    // b, the least recently used, went; a hit is the same entry, a miss a new read.
    expect(await cache.get(at('a'))).toBe(a);
    expect(await cache.get(at('c'))).toBe(c);
    const bAgain = await cache.get(at('b'));
    expect(bAgain).not.toBe(b);
    expect(bAgain?.etag).toBe(b?.etag);
    await rm(at('c'));
    expect(await cache.get(at('c'))).toBeUndefined();
    expect(cache.size()).toBe((three / 3) * 2);
  });

  it('reads a file once for the requests that ask at once, and counts a compressed body only while its file is kept', async () => {
    const dir = await tempDir('vc-cache-');
    const cache = new FileCache({ maxTotalBytes: 1000 });
    const abs = path.join(dir, 'page.html');
    await writeFile(abs, Buffer.from('<p>compress me</p>'.repeat(200)));
    const [first, second] = await Promise.all([cache.get(abs), cache.get(abs)]);
    expect(second).toBe(first);
    // Bigger than the whole cache: sent from memory, but not kept, nor its compressed body.
    expect(first?.body).toBeDefined();
    expect(cache.size()).toBe(0);
    expect(cache.encoded(abs, first!, ENCODINGS[0])).toBeDefined();
    expect(cache.size()).toBe(0);
  });

  it('hashes a file too big to keep as it reads it, never holding it whole: Node reads no file of 2 GiB or more whole, and one was answered 500', async () => {
    const dir = await tempDir('vc-cache-');
    const abs = path.join(dir, 'big.bin');
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(abs, bytes);
    const handle = await open(abs);
    const readWhole = vi.spyOn(Object.getPrototypeOf(handle) as { readFile(): Promise<Buffer> }, 'readFile');
    await handle.close();
    try {
      const file = await new FileCache().get(abs);
      expect(file).toMatchObject({ etag: etagOf(bytes), size: bytes.byteLength });
      expect(file?.body).toBeUndefined();
      expect(readWhole).not.toHaveBeenCalled();
    } finally {
      readWhole.mockRestore();
    }
  });

  it('keeps the cache within its bound and every entry true to its file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vc-cache-'));
    try {
      const cache = new FileCache({ maxTotalBytes: 2000 });
      for (let i = 0; i < 20; i++) {
        const bytes = Buffer.from(String(i).repeat(200));
        await writeFile(path.join(dir, `f${i}`), bytes);
        const file = await cache.get(path.join(dir, `f${i}`));
        expect(file?.etag).toBe(etagOf(bytes));
        expect(cache.size()).toBeLessThanOrEqual(2000);
      }
      expect((await cache.get(path.join(dir, 'f0')))?.body?.toString()).toBe('0'.repeat(200));
      expect(await cache.get(path.join(dir, 'missing'))).toBeUndefined();
      expect(await cache.get(path.join(dir, 'f1', 'below-a-file'))).toBeUndefined();
      expect(await cache.get(dir)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A folder with one hand-made file of every kind, and a server on it. */
function handMade(options: Partial<Parameters<typeof startServer>[0]> = {}, copies = true) {
  const state = { root: '', out: '', base: '', server: undefined as RunningServer | undefined };
  beforeAll(async () => {
    state.root = await mkdtemp(path.join(tmpdir(), 'vc-served-'));
    state.out = path.join(state.root, 'out');
    await writeOutput(state.out, copies);
    state.server = await startServer({ dir: state.out, host: '127.0.0.1', port: 0, quiet: true, ...options });
    state.base = state.server.url;
  });
  afterAll(async () => {
    await state.server?.close();
    await rm(state.root, { recursive: true, force: true });
  });
  return state;
}

const LIST_HEADERS = { 'content-type': 'text/html; charset=utf-8', vary: 'Accept', allow: READ_ALLOW };

describe('list endpoints', () => {
  const s = handMade();

  it.each([
    ['/api/v2/video/', 'api/v2/video/page.1'],
    ['/api/v2/video', 'api/v2/video/page.1'],
    ['/api/v2/video/?page=1', 'api/v2/video/page.1'],
    ['/api/v2/video/?page=2', 'api/v2/video/page.2'],
    ['/api/v2/video?format=json&page=2', 'api/v2/video/page.2'],
    // A fragment, which browsers never send, is not part of the query.
    ['/api/v2/video/?page=2#x', 'api/v2/video/page.2'],
    ['/api/v2/video/#?page=2', 'api/v2/video/page.1'],
    ['/api/v2/category/', 'api/v2/category/page.1'],
    ['/api/v2/speaker/?format=json', 'api/v2/speaker/page.1'],
    ['/api/v2/category/pycon-2024', 'api/v2/category/pycon-2024'],
    ['/api/v2/category/pycon-2024/?format=json', 'api/v2/category/pycon-2024'],
  ])('GET %s sends %s with the list headers', async (url, rel) => {
    const res = await raw(s.base, 'GET', url);
    expect(res.status).toBe(200);
    expect(res.text).toBe(OUTPUT[rel]);
    expectOnly(res.headers, LIST_HEADERS);
    const head = await raw(s.base, 'HEAD', url);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(res.body.length));
  });

  it.each([
    ['/api/v2/video/?page=3', 'Invalid page.'],
    ['/api/v2/video/?page=0', 'Invalid page.'],
    ['/api/v2/video/?page=-1', 'Invalid page.'],
    ['/api/v2/video/?page=abc', 'Invalid page.'],
    ['/api/v2/video/?page=', 'Invalid page.'],
    ['/api/v2/speaker/?page=2', 'Invalid page.'],
    ['/api/v2/category/?page=2&format=json', 'Invalid page.'],
    ['/api/v2/category/no-such-event', 'Not found.'],
    ['/api/v2/category/Not_A_Slug/', 'Not found.'],
    ['/api/v2/category/page.1', 'Not found.'],
  ])('GET %s is 404 "%s" with the list headers', async (url, message) => {
    const res = await raw(s.base, 'GET', url);
    expect(res.status).toBe(404);
    expect(res.text).toBe(`{"detail": "${message}"}`);
    expectOnly(res.headers, { ...LIST_HEADERS, 'content-type': 'application/json' });
  });

  it.each(['/api/v2/video/page.1', '/api/v2/video/page.2/', '/api/v2/speaker/page.1', '/api/v2/video/page.1?format=json'])('the internal file name %s is not an address', async (url) => {
    const res = await raw(s.base, 'GET', url);
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"detail": "Not found."}');
  });

  it.each([
    ['/api/v2/video/', 'Video List'],
    ['/api/v2/category', 'Category List'],
    ['/api/v2/speaker/?page=1', 'Speaker List'],
    ['/api/v2/category/pycon-2024/', 'Category Instance'],
  ])('OPTIONS %s describes the %s', async (url, name) => {
    const res = await raw(s.base, 'OPTIONS', url);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ name, description: '', renders: ['application/json', 'text/html'], parses: ['application/json'] });
    expectOnly(res.headers, { ...LIST_HEADERS, 'content-type': 'application/json' });
  });

  it.each(['PUT', 'PATCH', 'POST', 'DELETE'])('%s on a list is 405 with Allow', async (method) => {
    for (const url of ['/api/v2/video/', '/api/v2/category/pycon-2024']) {
      // Node's client sends a DELETE body without Content-Length unless told.
      const res = await raw(s.base, method, url, { 'Content-Type': 'application/json', 'Content-Length': '2' }, '{}');
      expect(res.status).toBe(405);
      expect(res.text).toBe(`{"detail": "Method \\"${method}\\" not allowed."}`);
      expectOnly(res.headers, { ...LIST_HEADERS, 'content-type': 'application/json' });
    }
  });

  it('reads ?page= for GET and HEAD alone: OPTIONS and writes answer as on the list, as Django REST framework paginates in list()', async () => {
    for (const url of ['/api/v2/video/?page=abc', '/api/v2/speaker?page=0', '/api/v2/category/?page=-1']) {
      const options = await raw(s.base, 'OPTIONS', url);
      expect(options.status, url).toBe(200);
      expect(JSON.parse(options.text).name, url).toMatch(/ List$/);
      const post = await raw(s.base, 'POST', url, { 'Content-Type': 'application/json', 'Content-Length': '2' }, '{}');
      expect([post.status, post.text], url).toEqual([405, '{"detail": "Method \\"POST\\" not allowed."}']);
      expectOnly(post.headers, { ...LIST_HEADERS, 'content-type': 'application/json' });
      expect((await raw(s.base, 'HEAD', url)).status, url).toBe(404);
    }
  });

  it.each(['/api/v2/video/1?format=json', '/api/v2/video/1/?format=json&x=1'])('a record ignores ?format=json: %s', async (url) => {
    const res = await raw(s.base, 'GET', url);
    expect(res.status).toBe(200);
    expect(res.text).toBe(OUTPUT['api/v2/video/1']);
    expectOnly(res.headers, RECORD_HEADERS);
  });
});

describe('ETags and 304s', () => {
  const s = handMade();
  /** Headers a 304 leaves out: those of the body it does not send. */
  const bodyless = (headers: RawResponse['headers']) => {
    const { date: _d, 'content-type': _t, 'content-length': _l, 'last-modified': _m, 'content-encoding': _e, ...rest } = headers;
    return rest;
  };

  it.each([
    ['/api/v2/video/1', 'api/v2/video/1'],
    ['/api/v2/video/?page=2', 'api/v2/video/page.2'],
    ['/api/v2/category/pycon-2024', 'api/v2/category/pycon-2024'],
    ['/', 'index.html'],
    ['/video/1/talk-1/', 'video/1/talk-1/index.html'],
    ['/assets/style.css', 'assets/style.css'],
    ['/sitemap.xml', 'sitemap.xml'],
    ['/pagefind/pagefind.js', 'pagefind/pagefind.js'],
    ['/pagefind/fragment/en_abc.pf_fragment', 'pagefind/fragment/en_abc.pf_fragment'],
  ])('%s: the manifest headers and a strong ETag of the bytes; a 304 with the same headers', async (url, rel) => {
    const ok = await raw(s.base, 'GET', url);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe(OUTPUT[rel]);
    const etag = etagOf(Buffer.from(OUTPUT[rel]!));
    expect(ok.headers.etag).toBe(etag);
    for (const [name, value] of Object.entries(HEADERS[kindOf(rel)])) expect(ok.headers[name.toLowerCase()], name).toBe(value);
    expect(ok.headers['content-type']).toBe(HEADERS[kindOf(rel)]['Content-Type'] ?? contentTypeOf(rel));
    for (const method of ['GET', 'HEAD']) {
      const notModified = await raw(s.base, method, url, { 'If-None-Match': `"something-else", ${etag}` });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(bodyless(notModified.headers)).toEqual(bodyless(ok.headers));
    }
    expect((await raw(s.base, 'GET', url, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    expect(await s.server!.currentEtag(rel)).toBe(etag);
    // Without an ETag to compare, the date: since the Last-Modified sent or later is a 304, as nginx and Caddy answer it.
    const since = ok.headers['last-modified'] as string;
    const earlier = new Date(Date.parse(since) - 1000).toUTCString();
    expect((await raw(s.base, 'GET', url, { 'If-Modified-Since': since })).status).toBe(304);
    expect(bodyless((await raw(s.base, 'HEAD', url, { 'If-Modified-Since': since })).headers)).toEqual(bodyless(ok.headers));
    // An earlier date, no date, one in the future (which says nothing of the file), or an ETag that does not match: the file.
    const future = new Date(Date.now() + 86_400_000).toUTCString();
    for (const headers of [{ 'If-Modified-Since': earlier }, { 'If-Modified-Since': 'yesterday' }, { 'If-Modified-Since': future }, { 'If-Modified-Since': since, 'If-None-Match': '"something-else"' }] as Record<string, string>[]) {
      expect((await raw(s.base, 'GET', url, headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  // Last-Modified has whole seconds: two versions written in one (two writes through the API) share it, and a client that asks
  // with it alone (RFC 9110 13.1.3) may hold either: a 304 would have it keep the first as the second.
  it('answers a date that two versions of a file had, the one the client holds and the one there now, with the file, not a 304', async () => {
    const second = Date.parse('2026-03-01T10:00:00Z') / 1000;
    const version = async (rel: string, body: string, at: number) => {
      const temp = path.join(s.out, `.${path.basename(rel)}.tmp`);
      await writeFile(temp, body);
      await utimes(temp, at, at);
      await rename(temp, path.join(s.out, rel));
    };
    for (const [url, rel] of [
      ['/api/v2/video/77', 'api/v2/video/77'],
      ['/notes.txt', 'notes.txt'],
    ] as const) {
      await version(rel, '{"id": 77, "title": "first"}', second + 0.1);
      const first = await raw(s.base, 'GET', url);
      const since = first.headers['last-modified'] as string;
      await version(rel, '{"id": 77, "title": "second"}', second + 0.6);
      for (const headers of [{ 'If-Modified-Since': since }, { 'If-Range': since, Range: 'bytes=0-4' }, { 'If-None-Match': first.headers.etag as string }] as Record<string, string>[]) {
        const res = await raw(s.base, 'GET', url, headers);
        expect([url, headers, res.status, res.text]).toEqual([url, headers, 200, '{"id": 77, "title": "second"}']);
      }
      // A version of a second of its own is named by its date again.
      await version(rel, '{"id": 77, "title": "third"}', second + 2.3);
      const third = await raw(s.base, 'GET', url);
      expect((await raw(s.base, 'GET', url, { 'If-Modified-Since': third.headers['last-modified'] as string })).status).toBe(304);
    }
  });

  it('currentEtag knows nothing outside the served files', async () => {
    for (const rel of ['api/v2/video/99', '../secret.txt', '.env', 'assets/style.css.br', 'nginx.conf', 'assets']) expect(await s.server!.currentEtag(rel), rel).toBeUndefined();
  });
});

const decode = (res: RawResponse) =>
  res.headers['content-encoding'] === 'br' ? brotliDecompressSync(res.body) : res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body) : res.body;

/**
 * GET and HEAD of a file of each compressed kind with `accept`: sent in `encoding` as `expected` gives
 * its bytes (by the copy's suffix), with its own ETag that a 304 honours, the same bytes every time.
 */
async function expectSentAs(s: { base: string }, accept: string, encoding: string | undefined, expected: (rel: string, suffix: string) => Promise<Buffer>) {
  for (const [url, rel] of [
    ['/assets/style.css', 'assets/style.css'],
    ['/', 'index.html'],
    ['/sitemap.xml', 'sitemap.xml'],
    ['/video/1/talk-1/', 'video/1/talk-1/index.html'],
  ] as const) {
    const res = await raw(s.base, 'GET', url, { 'Accept-Encoding': accept });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers['content-type']).toBe(HEADERS[kindOf(rel)]['Content-Type'] ?? contentTypeOf(rel));
    expect(decode(res).toString()).toBe(OUTPUT[rel]);
    const suffix = ENCODINGS.find((e) => e.name === encoding)?.suffix ?? '';
    expect(res.body.equals(await expected(rel, suffix))).toBe(true);
    expect(res.headers.etag).toBe(etagOf(res.body));
    expect((await raw(s.base, 'GET', url, { 'Accept-Encoding': accept })).body.equals(res.body)).toBe(true);
    const head = await raw(s.base, 'HEAD', url, { 'Accept-Encoding': accept });
    expect(head.headers['content-length']).toBe(String(res.body.length));
    expect(head.headers.etag).toBe(res.headers.etag);
    expect((await raw(s.base, 'GET', url, { 'Accept-Encoding': accept, 'If-None-Match': res.headers.etag as string })).status).toBe(304);
  }
}

describe('precompressed copies', () => {
  const s = handMade();

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['*', 'br'],
    ['identity', undefined],
    ['br;q=0, gzip;q=0', undefined],
    ['gzip;q=banana', undefined],
  ])('Accept-Encoding "%s" gets %s', async (accept, encoding) => {
    await expectSentAs(s, accept, encoding, (rel, suffix) => readFile(path.join(s.out, rel + suffix)));
  });

  it('each encoding has its own ETag and its own 304', async () => {
    const br = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br' });
    const gzip = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'gzip' });
    const identity = await raw(s.base, 'GET', '/assets/style.css');
    expect(new Set([br.headers.etag, gzip.headers.etag, identity.headers.etag]).size).toBe(3);
    expect((await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag as string })).status).toBe(304);
    const switched = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br', 'If-None-Match': identity.headers.etag as string });
    expect(switched.status).toBe(200);
    expect(switched.headers['content-encoding']).toBe('br');
  });

  it('never compresses API files, even with copies beside them', async () => {
    const res = await raw(s.base, 'GET', '/api/v2/video/1', { 'Accept-Encoding': 'br, gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toBe(OUTPUT['api/v2/video/1']);
    expectOnly(res.headers, RECORD_HEADERS);
  });

  it('sends byte ranges of the file itself', async () => {
    const res = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br', Range: 'bytes=0-3' });
    expect(res.status).toBe(206);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toBe(OUTPUT['assets/style.css']!.slice(0, 4));
    const stale = await raw(s.base, 'GET', '/assets/style.css', { Range: 'bytes=0-3', 'If-Range': '"not-the-etag"' });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(OUTPUT['assets/style.css']);
    // A date names the file as its Last-Modified does, to the second: any other is a whole file.
    await utimes(path.join(s.out, 'assets/style.css'), new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'));
    const dated = await raw(s.base, 'GET', '/assets/style.css', { Range: 'bytes=0-3', 'If-Range': 'Fri, 02 Jan 2026 03:04:05 GMT' });
    expect([dated.status, dated.text]).toEqual([206, OUTPUT['assets/style.css']!.slice(0, 4)]);
    const older = await raw(s.base, 'GET', '/assets/style.css', { Range: 'bytes=0-3', 'If-Range': 'Fri, 02 Jan 2026 03:04:04 GMT' });
    expect([older.status, older.text]).toEqual([200, OUTPUT['assets/style.css']]);
  });

  it.each(['/assets/style.css.br', '/assets/style.css.gz', '/index.html.gz', '/video/1/talk-1/index.html.br', '/api/v2/video/1.br', '/nginx.conf', '/_headers', '/.env', '/../secret.txt'])(
    '%s is not served under its own name',
    async (url) => {
      const res = await raw(s.base, 'GET', url, { 'Accept-Encoding': 'br, gzip' });
      expect(res.status).toBe(404);
      for (const text of [HOST_CONFIG, HIDDEN, SECRET]) expect(res.body.includes(text)).toBe(false);
    },
  );
});

describe.each([
  ['from memory', {}],
  ['through sirv', { maxFileBytes: 8 }],
])('byte ranges, %s', (_name, cache) => {
  const s = handMade({ cache });
  const text = OUTPUT['assets/style.css']!;

  it.each([
    ['bytes=0-1', 0, 1],
    ['bytes=2-5', 2, 5],
    ['bytes=10-', 10, text.length - 1],
    ['bytes=5-99999', 5, text.length - 1],
  ])('%s is a 206 of those bytes', async (range, start, end) => {
    const res = await raw(s.base, 'GET', '/assets/style.css', { Range: range });
    expect(res.status).toBe(206);
    expect(res.text).toBe(text.slice(start, end + 1));
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${text.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.headers.etag).toBe(etagOf(Buffer.from(text)));
  });

  // RFC 9110 14.3: a client learns that it may ask for a range (to resume a download) from the whole file's answer.
  it('says Accept-Ranges once, on the whole file as on its ranges and HEAD, not on a compressed body nor on the API', async () => {
    const rangesSaid = (res: RawResponse) => res.rawHeaders.filter((name) => name.toLowerCase() === 'accept-ranges').length;
    for (const [method, headers] of [['GET', {}], ['HEAD', {}], ['GET', { Range: 'bytes=2-5' }], ['GET', { Range: 'bytes=0-0' }], ['GET', { Range: 'bytes=-4' }]] as const) {
      const res = await raw(s.base, method, '/assets/style.css', headers);
      expect([res.headers['accept-ranges'], rangesSaid(res)], `${method} ${JSON.stringify(headers)}`).toEqual(['bytes', 1]);
    }
    const page = await raw(s.base, 'GET', '/index.html');
    expect([page.status, page.headers['accept-ranges']]).toEqual([200, 'bytes']);
    const compressed = await raw(s.base, 'GET', '/index.html', { 'Accept-Encoding': 'br' });
    expect([compressed.headers['content-encoding'], compressed.headers['accept-ranges']]).toEqual(['br', undefined]);
    for (const api of ['/api/v2/video/1', '/api/v2/video?page=1']) expect((await raw(s.base, 'GET', api)).headers['accept-ranges'], api).toBeUndefined();
  });

  it('bytes=0-0 is the first byte (sirv reads a last byte of 0 as "to the end")', async () => {
    const res = await raw(s.base, 'GET', '/assets/style.css', { Range: 'bytes=0-0' });
    expect([res.status, res.text, res.headers['content-range'], res.headers['content-length']]).toEqual([206, text[0], `bytes 0-0/${text.length}`, '1']);
  });

  it('a range past the end is 416; the last bytes are a range; a range it cannot use is ignored', async () => {
    const past = await raw(s.base, 'GET', '/assets/style.css', { Range: `bytes=${text.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${text.length}`);
    for (const ignored of ['bytes=9-3', 'bytes=100-50', 'bytes=0-1,4-5', 'bytes=-', 'lines=1-2']) {
      const res = await raw(s.base, 'GET', '/assets/style.css', { Range: ignored });
      expect(res.status, ignored).toBe(200);
      expect(res.text).toBe(text);
    }
    const tail = await raw(s.base, 'GET', '/assets/style.css', { Range: 'bytes=-4' });
    expect([tail.status, tail.text, tail.headers['content-range']]).toEqual([206, text.slice(-4), `bytes ${text.length - 4}-${text.length - 1}/${text.length}`]);
    const head = await raw(s.base, 'HEAD', '/assets/style.css', { Range: 'bytes=0-3' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(text.length));
  });
});

describe.each([
  ['bodies in memory', {} as CacheLimits],
  ['every body through sirv', { maxFileBytes: 8 }],
  ['a cache smaller than the files', { maxTotalBytes: 300 }],
])('following rebuilds, %s', (_name, cache) => {
  const s = handMade({ cache });
  const file = (rel: string) => path.join(s.out, rel);
  // Builds write a temporary file and rename it over the old one.
  const replace = async (rel: string, text: string, mtime?: Date) => {
    await writeFile(`${file(rel)}.tmp`, text);
    if (mtime) await utimes(`${file(rel)}.tmp`, mtime, mtime);
    await rename(`${file(rel)}.tmp`, file(rel));
  };

  it('a file replaced by rename, even with the same size and mtime', async () => {
    const mtime = new Date('2024-05-01T00:00:00Z');
    await replace('api/v2/video/2', OUTPUT['api/v2/video/2']!, mtime);
    const first = await raw(s.base, 'GET', '/api/v2/video/2');
    expect(first.text).toBe(OUTPUT['api/v2/video/2']);
    const changed = OUTPUT['api/v2/video/2']!.replace('Talk 2', 'Tkla 2');
    await replace('api/v2/video/2', changed, mtime);
    const second = await raw(s.base, 'GET', '/api/v2/video/2');
    expect(second.text).toBe(changed);
    expect(second.headers.etag).toBe(etagOf(Buffer.from(changed)));
    expect((await raw(s.base, 'GET', '/api/v2/video/2', { 'If-None-Match': first.headers.etag as string })).status).toBe(200);
  });

  it('a file rewritten in place with another length', async () => {
    await raw(s.base, 'GET', '/sitemap.xml');
    await writeFile(file('sitemap.xml'), '<urlset/>');
    const res = await raw(s.base, 'GET', '/sitemap.xml');
    expect(res.text).toBe('<urlset/>');
    expect(res.headers['content-length']).toBe('9');
  });

  it('a removed file, a new file and a new precompressed copy', async () => {
    expect((await raw(s.base, 'GET', '/api/v2/video/3')).status).toBe(200);
    await rm(file('api/v2/video/3'));
    expect((await raw(s.base, 'GET', '/api/v2/video/3')).status).toBe(404);
    await replace('api/v2/video/4', '{"id": 4}');
    expect((await raw(s.base, 'GET', '/api/v2/video/4')).text).toBe('{"id": 4}');
    const copy = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br, gzip' });
    await rm(file('assets/style.css.br'));
    // Without its copy, a file held in memory is compressed as it is sent (other bytes, so another ETag); a bigger one is sent from the copy left.
    const sent = await raw(s.base, 'GET', '/assets/style.css', { 'Accept-Encoding': 'br, gzip' });
    expect(sent.headers['content-encoding']).toBe(cache.maxFileBytes ? 'gzip' : 'br');
    expect(decode(sent).toString()).toBe(OUTPUT['assets/style.css']);
    expect(sent.headers.etag).not.toBe(copy.headers.etag);
  });

  it('a page rewritten after its copies (by hand, or by a patch between its renames) is not sent as they are, and is once they are written again', async () => {
    const rel = 'video/1/talk-1/index.html';
    const copiesWritten = (await stat(file(`${rel}.br`))).mtime;
    const edited = OUTPUT[rel]!.replace('Talk 1', 'Talk one');
    const rewritten = new Date(copiesWritten.getTime() + 10_000);
    await replace(rel, edited, rewritten);
    for (const accept of ['br', 'gzip', 'gzip, br']) expect(decode(await raw(s.base, 'GET', '/video/1/talk-1/', { 'Accept-Encoding': accept })).toString(), accept).toBe(edited);
    // A build writes a copy after its file, in the same tick of a coarse clock at times.
    const copy = ENCODINGS[0].encode(Buffer.from(edited));
    await writeFile(file(`${rel}.br`), copy);
    await utimes(file(`${rel}.br`), rewritten, rewritten);
    const sent = await raw(s.base, 'GET', '/video/1/talk-1/', { 'Accept-Encoding': 'br' });
    expect([sent.headers['content-encoding'], sent.body.equals(copy)]).toEqual(['br', true]);
  });

  it('a whole folder swapped for another', async () => {
    const next = path.join(s.root, 'next');
    await writeOutput(next);
    await writeFile(path.join(next, 'api/v2/video/1'), '{"id": 1, "swapped": true}');
    await rename(s.out, path.join(s.root, 'old'));
    await rename(next, s.out);
    expect((await raw(s.base, 'GET', '/api/v2/video/1')).text).toBe('{"id": 1, "swapped": true}');
    expect((await raw(s.base, 'GET', '/api/v2/video/4')).status).toBe(404);
    expect((await raw(s.base, 'GET', '/api/v2/video/3')).text).toBe(OUTPUT['api/v2/video/3']);
  });

  it('a request between the two renames of a swap waits for the new folder', async () => {
    const next = path.join(s.root, 'next-2');
    await writeOutput(next);
    await rename(s.out, path.join(s.root, 'old-2'));
    // Renamed in once the server has both requests, not after a pause: on a busy machine they could come after it.
    const requests = on(s.server!.server, 'request');
    const asked = raw(s.base, 'GET', '/api/v2/video/2');
    const page = raw(s.base, 'GET', '/no-such-page/');
    let arrived = 0;
    for await (const _ of requests) if (++arrived === 2) break;
    await rename(next, s.out);
    expect((await asked).text).toBe(OUTPUT['api/v2/video/2']);
    expect((await page).status).toBe(404);
  });

  it('requests that come in the middle of swaps, one after another, never answer 404', async () => {
    const spare = path.join(s.root, 'spare');
    const aside = path.join(s.root, 'aside');
    await writeOutput(spare);
    const paths = ['/api/v2/video/2', '/assets/style.css', '/sitemap.xml'];
    let swapping = true;
    const statuses: number[] = [];
    const asking = Array.from({ length: 4 }, async (_, i) => {
      for (let n = i; swapping; n++) statuses.push((await raw(s.base, 'GET', paths[n % paths.length]!)).status);
    });
    // As Staging.commit swaps them: the output aside, the new one in; the old one is the next swap's new one.
    // Far closer together than builds come (seconds apart), so that requests fall in the middle of them; but a few
    // milliseconds apart, as a rename stamps a folder's ctime with the kernel's coarse clock, which the server tells them by.
    for (let swap = 0; swap < 150; swap++) {
      await rename(s.out, aside);
      await rename(spare, s.out);
      await rename(aside, spare);
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    swapping = false;
    await Promise.all(asking);
    expect(statuses.length).toBeGreaterThan(150);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });
});


describe('compressed as sent, without copies', () => {
  const s = handMade({}, false);

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', undefined],
  ])('Accept-Encoding "%s" gets %s, the same bytes on every request', async (accept, encoding) => {
    await expectSentAs(s, accept, encoding, async (rel, suffix) => {
      const made = ENCODINGS.find((e) => e.suffix === suffix);
      return made ? made.encode(Buffer.from(OUTPUT[rel]!)) : Buffer.from(OUTPUT[rel]!);
    });
  });

  it('never compresses API files, nor bodies too small to gain', async () => {
    const big = `{"id": 5, "description": "${'y'.repeat(4 * MIN_COMPRESS_BYTES)}"}`;
    await writeFile(path.join(s.out, 'api/v2/video/5'), big);
    const record = await raw(s.base, 'GET', '/api/v2/video/5', { 'Accept-Encoding': 'br, gzip' });
    expect(record.text).toBe(big);
    expectOnly(record.headers, RECORD_HEADERS);
    await writeFile(path.join(s.out, 'robots.txt'), 'User-agent: *\nAllow: /\n');
    const small = await raw(s.base, 'GET', '/robots.txt', { 'Accept-Encoding': 'br, gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.text).toBe('User-agent: *\nAllow: /\n');
  });

  it('sends a body that compression does not shrink as it is, and compresses it only once to learn that', async () => {
    const noise = randomBytes(4 * MIN_COMPRESS_BYTES);
    await writeFile(path.join(s.out, 'assets/noise.png'), noise);
    const encodes = ENCODINGS.map((encoding) => vi.spyOn(encoding, 'encode'));
    try {
      for (let i = 0; i < 3; i++) {
        const res = await raw(s.base, 'GET', '/assets/noise.png', { 'Accept-Encoding': 'br, gzip' });
        expect([res.status, res.headers['content-encoding'], res.headers.vary, res.headers.etag, res.body.equals(noise)]).toEqual([200, undefined, 'Accept-Encoding', etagOf(noise), true]);
      }
      expect(encodes.map((encode) => encode.mock.calls.length)).toEqual([1, 1]);
    } finally {
      for (const encode of encodes) encode.mockRestore();
    }
  });

  it('follows a rebuild: a replaced page is compressed again', async () => {
    await raw(s.base, 'GET', '/sitemap.xml', { 'Accept-Encoding': 'gzip' });
    const changed = OUTPUT['sitemap.xml']!.replaceAll('127.0.0.1:8080', 'talks.example.org');
    const temp = path.join(s.out, '.sitemap.xml.tmp');
    await writeFile(temp, changed);
    await rename(temp, path.join(s.out, 'sitemap.xml'));
    const res = await raw(s.base, 'GET', '/sitemap.xml', { 'Accept-Encoding': 'gzip' });
    expect(decode(res).toString()).toBe(changed);
  });
});
describe('server options', () => {
  let root: string;
  let out: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-options-'));
    out = path.join(root, 'out');
    await writeOutput(out);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('logs one line per request, with the status and the bytes of the body', async () => {
    let logged!: (line: string) => void;
    const line = new Promise<string>((resolve) => (logged = resolve));
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, log: (l) => logged(l) });
    try {
      await raw(server.url, 'GET', '/api/v2/video/1?format=json');
      const bytes = Buffer.byteLength(OUTPUT['api/v2/video/1']!);
      expect(await line).toMatch(new RegExp(`^127\\.0\\.0\\.1 - - \\[\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\] "GET /api/v2/video/1\\?format=json HTTP/1\\.1" 200 ${bytes} \\d+\\.\\dms$`));
    } finally {
      await server.close();
    }
  });

  it('answers a request with two Host lines, or a Host that names no host, 400 and closes, as nginx and Caddy do', async () => {
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true });
    const port = Number(new URL(server.url).port);
    try {
      for (const hosts of ['Host: a\r\nHost: b', 'Host: x\r\nHost: x', 'Host: evil.example/x']) {
        expect(await exchange(port, `GET /api/v2/video/1 HTTP/1.1\r\n${hosts}\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n`), hosts).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n(?:(?!HTTP\/1\.1)[^])*$/);
      }
      expect(await exchange(port, 'GET /api/v2/video/1 HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await server.close();
    }
  });

  it("answers what Node's parser refuses as Node does, and logs it", async () => {
    const lines: string[] = [];
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, log: (l) => lines.push(l) });
    const port = Number(new URL(server.url).port);
    const exchange = (request: string) =>
      new Promise<string>((resolve) => {
        let answer = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
      });
    try {
      expect(await exchange('FOO / HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      expect(await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
      await vi.waitFor(() => expect(lines).toHaveLength(2));
      expect(lines.map((l) => l.replace(/^127\.0\.0\.1 - - \[[^\]]+\] /, ''))).toEqual(['"-" 400 0 0.0ms', '"-" 431 0 0.0ms']);
    } finally {
      await server.close();
    }
  });

  it('answers 408 to a client whose headers do not come within 10 s, within a second or so of that, and logs it', async () => {
    const lines: string[] = [];
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, log: (l) => lines.push(l) });
    try {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      const started = performance.now();
      const waited = await new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - started)));
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // Node looks for late requests every connectionsCheckingInterval: by default 30 s, which let this one wait 39 s.
      expect(waited).toBeGreaterThan(9_000);
      expect(waited).toBeLessThan(15_000);
      expect(lines).toEqual([expect.stringMatching(/ "-" 408 0 0\.0ms$/)]);
    } finally {
      await server.close();
    }
  }, 20_000);

  it('says what to do when its port is taken or its address is not this machine\'s, rather than only Node\'s code', async () => {
    const first = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true });
    const port = Number(new URL(first.url).port);
    try {
      await expect(startServer({ dir: out, host: '127.0.0.1', port, quiet: true })).rejects.toThrow(
        `127.0.0.1:${port} is already in use (by another server, or one of ours still running); stop it, or pick another port with --port N (--port 0 picks a free one)`,
      );
      await expect(startServer({ dir: out, host: '192.0.2.1', port: 0, quiet: true })).rejects.toThrow('192.0.2.1 is not an address of this machine; pick one with --host H');
      // A name no resolver knows (.invalid never resolves), rather than Node's "getaddrinfo ENOTFOUND".
      await expect(startServer({ dir: out, host: 'no-such-host.invalid', port: 0, quiet: true })).rejects.toThrow('no-such-host.invalid is a name that resolves to no address; pick one with --host H');
    } finally {
      await first.close();
    }
  });

  it('closes connections past maxConnections, and takes new ones when one closes', async () => {
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true, maxConnections: 2 });
    const port = Number(new URL(server.url).port);
    try {
      const [a, b] = [await keptOpen(port), await keptOpen(port)];
      const dropped = new Promise<void>((resolve) => server.server.once('drop', () => resolve()));
      const refused = await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await dropped;
      expect(refused).toBe('');
      a.destroy();
      while ((await connections(server)) >= 2) await new Promise((resolve) => setImmediate(resolve));
      expect(await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
      b.destroy();
    } finally {
      await server.close();
    }
  });

  it('closes the connection after refusing a body still coming, rather than reading a gigabyte PUT to its end to keep it', async () => {
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true });
    const port = Number(new URL(server.url).port);
    /** The head of the answer to `head` and a first part of a body that never comes whole, and whether the server then closed. */
    const refused = (head: string) =>
      new Promise<{ answer: string; closed: Promise<void> }>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(`${head}Content-Length: 1000000000\r\n\r\n${'x'.repeat(65_536)}`));
        const closed = new Promise<void>((done) => socket.on('close', () => done()));
        let answer = '';
        socket.on('error', () => undefined);
        socket.on('data', (chunk) => {
          answer += chunk.toString('latin1');
          if (answer.includes('\r\n\r\n')) resolve({ answer: answer.slice(0, answer.indexOf('\r\n\r\n') + 2), closed });
        });
        void closed.then(() => resolve({ answer, closed }));
      });
    try {
      for (const [head, status] of [
        ['PUT /api/v2/video/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n', 401],
        ['POST /video/ HTTP/1.1\r\nHost: x\r\n', 405],
        ['GET /api/v2/video/1 HTTP/1.1\r\nHost: x\r\n', 200],
      ] as const) {
        const { answer, closed } = await refused(head);
        expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(answer).toContain('\r\nConnection: close\r\n');
        await closed;
      }
      // A small body is read as Node reads it, and the connection kept, even when the answer comes from memory before it.
      await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 [^]*\r\nConnection: keep-alive\r\n[^]*HTTP\/1\.1 200 /);
    } finally {
      await server.close();
    }
  });

  it('hands PUT, PATCH and OPTIONS on records to writes, and close() waits for a write in flight', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inWrite = new Promise<void>((resolve) => (entered = resolve));
    const server = await startServer({
      dir: out,
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      writes: {
        refusal: () => undefined,
        handle: async (req, res, id) => {
          calls.push(`${req.method} ${id}`);
          if (req.method === 'PATCH') {
            entered();
            await gate;
          }
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(`{"written": ${id}}`);
        },
      },
    });
    expect((await raw(server.url, 'PUT', '/api/v2/video/2', { 'Content-Type': 'application/json' }, '{}')).text).toBe('{"written": 2}');
    expect((await raw(server.url, 'OPTIONS', '/api/v2/video/7/')).text).toBe('{"written": 7}');
    expect((await raw(server.url, 'GET', '/api/v2/video/2')).text).toBe(OUTPUT['api/v2/video/2']);
    expect((await raw(server.url, 'PUT', '/api/v2/video/02')).status).toBe(404);
    expect((await raw(server.url, 'PUT', '/api/v2/video/')).status).toBe(405);
    expect((await raw(server.url, 'POST', '/api/v2/video/2')).status).toBe(405);
    expect(calls).toEqual(['PUT 2', 'OPTIONS 7']);

    const patched = raw(server.url, 'PATCH', '/api/v2/video/3', { 'Content-Type': 'application/json' }, '{}');
    await inWrite;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    expect((await patched).text).toBe('{"written": 3}');
    await closing;
    expect(calls).toEqual(['PUT 2', 'OPTIONS 7', 'PATCH 3']);
  });

  it('answers a request pipelined after a write on its connection once the write is done: a GET sees what the write made', async () => {
    const dir = path.join(root, 'pipelined');
    await writeOutput(dir);
    const written = '{"id": 3, "title": "Written"}';
    const server = await withWrites(dir, async (req, res) => {
      for await (const chunk of req) void chunk;
      // As writes.ts: the build it runs takes a while, and the answer goes out once the output is written.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await writeFile(path.join(dir, 'api', 'v2', 'video', '3'), written);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(written.length) });
      res.end(written);
    });
    try {
      const patch = 'PATCH /api/v2/video/3 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
      const answers = await exchange(Number(new URL(server.url).port), `${patch}GET /api/v2/video/3 HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect([...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['200', '200']);
      expect(answers.endsWith(`\r\n\r\n${written}`)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("knows the version each write answered with: after a second write in the same second, the first's Last-Modified is no 304", async () => {
    const dir = path.join(root, 'twice');
    await writeOutput(dir);
    const second = Date.parse('2026-03-01T10:00:00Z') / 1000;
    const record = path.join(dir, 'api', 'v2', 'video', '3');
    // As writes.ts: the record written by rename, and answered with its bytes and its Last-Modified.
    const server = await withWrites(dir, async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const { title, at } = JSON.parse(body) as { title: string; at: number };
      const written = `{"id": 3, "title": ${JSON.stringify(title)}}`;
      await writeFile(`${record}.tmp`, written);
      await utimes(`${record}.tmp`, second + at, second + at);
      await rename(`${record}.tmp`, record);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Last-Modified': (await stat(record)).mtime.toUTCString() });
      res.end(written);
    });
    try {
      const write = (title: string, at: number) => raw(server.url, 'PATCH', '/api/v2/video/3', { 'Content-Type': 'application/json' }, JSON.stringify({ title, at }));
      const first = await write('first', 0.1);
      await write('second', 0.6);
      const res = await raw(server.url, 'GET', '/api/v2/video/3', { 'If-Modified-Since': first.headers['last-modified'] as string });
      expect([res.status, res.text]).toEqual([200, '{"id": 3, "title": "second"}']);
    } finally {
      await server.close();
    }
  });

  it('closes a connection that pipelines more requests than it reads answers to, answers the others, and closes with answers of a pipeline left waiting', async () => {
    const dir = path.join(root, 'flooded');
    await writeOutput(dir);
    await writeFile(path.join(dir, 'assets', 'big.bin'), Buffer.alloc(1024 * 1024, 1));
    const server = await startServer({ dir, host: '127.0.0.1', port: 0, quiet: true });
    const port = Number(new URL(server.url).port);
    try {
      const closed = await new Promise<boolean>((resolve) => {
        // Never read: every request waits for its answer, each holding the server's memory.
        const socket = connect(port, '127.0.0.1', () => socket.write('GET /assets/big.bin HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(200_000)));
        socket.pause();
        socket.on('close', () => resolve(true));
        socket.on('error', () => undefined);
        setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, 5000);
      });
      expect(closed).toBe(true);
      // A pipeline of a sensible length is answered whole.
      const answers = await exchange(port, 'GET /api/v2/video/3 HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(50));
      expect([...answers.matchAll(/HTTP\/1\.1 200 /g)]).toHaveLength(50);
    } finally {
      // Not kept waiting by the answers of the pipeline that never got their turn: Node closes none of them.
      await server.close();
    }
  });

  it('close() resolves after the log lines of the responses it cut off: the process may end right after it', async () => {
    const lines: string[] = [];
    // A response that never ends, as a dev server's event stream.
    const routes = (_req: IncomingMessage, res: ServerResponse) => (res.writeHead(200, { 'Content-Type': 'text/event-stream' }), res.write('\n'), true);
    const server = await startServer({ dir: out, host: '127.0.0.1', port: 0, log: (l) => lines.push(l), drainMs: 200, routes });
    const response = await new Promise<IncomingMessage>((resolve, reject) => get(`${server.url}events`, resolve).on('error', reject));
    response.on('error', () => undefined);
    await server.close();
    expect(lines).toEqual([expect.stringMatching(/"GET \/events HTTP\/1\.1" 200 \d+ [\d.]+ms aborted$/)]);
  });

  it('close() cuts off, past drainMs, a write whose body is still coming: it has written nothing, and its body may never end', async () => {
    let entered!: () => void;
    const reading = new Promise<void>((resolve) => (entered = resolve));
    const server = await startServer({
      dir: out,
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      drainMs: 200,
      writes: {
        refusal: () => undefined,
        handle: async (req, res) => {
          entered();
          // As writes.ts reads a body: to its end, or until the connection goes.
          try {
            for await (const chunk of req) void chunk;
          } catch {
            return;
          }
          res.end('{}');
        },
      },
    });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
      socket.write('PUT /api/v2/video/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title": '),
    );
    socket.on('error', () => undefined);
    const gone = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await reading;
    // Node stops looking for late requests once the server closes: nothing else ends this one.
    const outcome = await Promise.race([server.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 3_000))]);
    socket.destroy();
    await gone;
    expect(outcome).toBe('closed');
  });
});

describe('the serve command', () => {
  let root: string;
  let out: string;
  const BIG = 32 * 1024 * 1024;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-serve-cli-'));
    out = path.join(root, 'out');
    await writeOutput(out);
    await mkdir(path.join(out, 'downloads'));
    await writeFile(path.join(out, 'downloads', 'big.bin'), Buffer.alloc(BIG, 'a'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('on SIGTERM refuses new connections, finishes the response in flight and exits 0', async () => {
    const cli = serveCli(['--dir', out, '--port', '0', '--quiet']);
    const url = await cli.url;
    const response = await new Promise<IncomingMessage>((resolve, reject) => get(`${url}downloads/big.bin`, resolve).on('error', reject));
    let received = await new Promise<number>((resolve) =>
      response.once('data', (chunk: Buffer) => {
        response.pause();
        resolve(chunk.length);
      }),
    );
    cli.child.kill('SIGTERM');
    await cli.waitFor(/stopping/);
    await expect(raw(url, 'GET', '/')).rejects.toThrow(/ECONNREFUSED/);
    await new Promise<void>((resolve, reject) => {
      response.on('data', (chunk: Buffer) => (received += chunk.length));
      response.on('close', resolve);
      response.on('error', reject);
      response.resume();
    });
    expect(received).toBe(BIG);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).not.toContain('"GET ');
  });

  it('logs each request on stdout without --quiet', async () => {
    const cli = serveCli(['--dir', out, '--port', '0']);
    const url = await cli.url;
    expect((await raw(url, 'GET', '/api/v2/video/1')).status).toBe(200);
    await cli.waitFor(/"GET \/api\/v2\/video\/1 HTTP\/1\.1" 200 \d+ /);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  });

  it('says on stderr that it refuses connections at --max-connections, once a minute while it goes on', async () => {
    const cli = serveCli(['--dir', out, '--port', '0', '--quiet', '--max-connections', '1']);
    const port = Number(new URL(await cli.url).port);
    const held = await keptOpen(port);
    for (let i = 0; i < 3; i++) expect(await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toBe('');
    await cli.waitFor(/refusing connections: 1 open already \(--max-connections 1\)\n/);
    held.destroy();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    // The two after the first are told of a minute later, not a line each: a flood must not flood the log.
    expect(cli.output().match(/refusing connections/g)).toHaveLength(1);
  });

  it('serves on, without its access log, once the reader of its stdout has gone (serve | head -1)', async () => {
    const cli = serveCli(['--dir', out, '--port', '0']);
    const url = await cli.url;
    cli.child.stdout.destroy();
    // The first line written after the reader went fails (EPIPE); the server must answer the ones after it.
    for (let i = 0; i < 3; i++) expect((await raw(url, 'GET', '/api/v2/video/1')).status).toBe(200);
    await cli.waitFor(/stdout failed \(EPIPE\); serving on without the access log/);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).not.toMatch(/Error|    at /);
  });
});

describe('the access log', () => {
  /** A reader that takes nothing until released, as a log collector that hangs: its stream holds what is written. */
  function stalledReader() {
    const taken: string[] = [];
    const held: (() => void)[] = [];
    let stalled = true;
    const out = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, done) {
        taken.push(chunk.toString());
        if (stalled) held.push(done);
        else done();
      },
    });
    const release = () => {
      stalled = false;
      for (const done of held.splice(0)) done();
    };
    return { out, taken, release };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('drops lines, and says how many, rather than hold them for a reader of stdout that stopped reading', async () => {
    const { out, taken, release } = stalledReader();
    const warnings: string[] = [];
    const log = logLines(out, 100, (m) => warnings.push(m));
    log.write('a'.repeat(150));
    await turn();
    // The first write waits in the stream: it is over the backlog, so what comes next is dropped, not held.
    for (let i = 0; i < 1000; i++) {
      log.write(`line ${i}`);
      if (i % 100 === 99) await turn();
    }
    expect(out.writableLength).toBeLessThanOrEqual(151);
    expect(warnings).toEqual(['stdout is not being read: dropping access log lines until it is\n']);
    release();
    await turn();
    log.write('after');
    await turn();
    expect(taken.join('')).toBe(`${'a'.repeat(150)}\n1000 access log lines dropped: stdout was not being read\nafter\n`);
  });
});

/** The real command, `npm run serve`, with its output collected. */
function serveCli(args: string[]) {
  const child = startCommand('serve', args);
  let output = '';
  const waiting: { pattern: RegExp; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const collect = (chunk: Buffer) => {
    output += chunk;
    for (const w of [...waiting]) if (w.pattern.test(output)) w.resolve();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const waitFor = (pattern: RegExp) =>
    pattern.test(output)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiting.push({ pattern, resolve });
          void exited.then(() => reject(new Error(`serve exited before printing ${pattern}: ${output}`)));
        });
  const url = waitFor(/http:\/\/127\.0\.0\.1:\d+\//).then(() => /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output)![1]!);
  return { child, url, exited, waitFor, output: () => output };
}

/** A server of `dir` (under the folder `basePath`, if given) whose writes `handle` answers, taking any credentials. */
const withWrites = (dir: string, handle: WriteHandler['handle'], basePath?: string) => startServer({ dir, basePath, host: '127.0.0.1', port: 0, quiet: true, writes: { refusal: () => undefined, handle } });

/** Sends raw bytes and collects everything until the server closes the connection. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(data));
    socket.end(request);
  });
}

/** A keep-alive connection that has had one answer, so the server counts it. */
function keptOpen(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('HEAD / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', () => resolve(socket));
    socket.once('error', reject);
  });
}

const connections = (server: RunningServer) => new Promise<number>((resolve, reject) => server.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

describe('a site served under the folder it was built for (basePath)', () => {
  let dir: string;
  let served: RunningServer;
  let base: string;
  const written: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'vc-base-'));
    await writeOutput(path.join(dir, 'out'));
    served = await withWrites(
      path.join(dir, 'out'),
      async (req, res, id) => {
        written.push(`${req.method} ${id}`);
        res.writeHead(204).end();
      },
      '/talks',
    );
    base = new URL(served.url).origin;
  });

  afterAll(async () => {
    await served?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the folder in its URL, and serves the files under it as the host maps them', async () => {
    expect(served.url).toBe(`${base}/talks/`);
    expect((await raw(base, 'GET', '/talks/')).text).toBe(OUTPUT['index.html']);
    expect((await raw(base, 'GET', '/talks/assets/style.css')).text).toBe(OUTPUT['assets/style.css']);
    const record = await raw(base, 'GET', '/talks/api/v2/video/1', { accept: 'application/json' });
    expect([record.status, record.headers.vary, record.headers.allow, record.text]).toEqual([200, 'Accept', 'GET, PUT, PATCH, HEAD, OPTIONS', OUTPUT['api/v2/video/1']]);
    expect(record.headers.etag).toBe(await served.currentEtag('api/v2/video/1'));
    const missing = await raw(base, 'GET', '/talks/api/v2/video/99');
    expect([missing.status, missing.text]).toEqual([404, '{"detail": "Not found."}']);
  });

  it('sends the folder without its slash, and the host root, to the home page; a folder of the site keeps the folder in its redirect', async () => {
    const folder = await raw(base, 'GET', '/talks?x=1');
    expect([folder.status, folder.headers.location]).toEqual([301, '/talks/?x=1']);
    const root = await raw(base, 'GET', '/');
    expect([root.status, root.headers.location]).toEqual([302, '/talks/']);
    const inner = await raw(base, 'GET', '/talks/video/1/talk-1');
    expect([inner.status, inner.headers.location]).toEqual([301, '/talks/video/1/talk-1/']);
  });

  it('answers a path outside the folder with the site\'s 404, as the host would: the site has no file there', async () => {
    for (const outside of ['/index.html', '/api/v2/video/1', '/assets/style.css', '/talksx/', '/video/1/talk-1/']) {
      const res = await raw(base, 'GET', outside);
      expect([res.status, res.text], outside).toEqual([404, OUTPUT['404.html']]);
    }
  });

  it('takes writes to a record under the folder', async () => {
    const put = await raw(base, 'PUT', '/talks/api/v2/video/2', { 'content-type': 'application/json', authorization: 'Token x' }, '{}');
    const patch = await raw(base, 'PATCH', '/talks/api/v2/video/3', { 'content-type': 'application/json', authorization: 'Token x' }, '{}');
    expect([put.status, patch.status]).toEqual([204, 204]);
    expect(written).toEqual(['PUT 2', 'PATCH 3']);
  });
});
