import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { etagMatches, safePath, startServer, usableRange, type RunningServer } from '../src/server.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';
import { raw, STANDARD_HEADERS } from './http.ts';

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

  it('keeps only single byte ranges that make sense', () => {
    expect(usableRange('bytes=0-99')).toBe('bytes=0-99');
    expect(usableRange('bytes=100-')).toBe('bytes=100-');
    for (const bad of ['bytes=100-50', 'bytes=-5', 'bytes=0-1,3-4', 'items=0-1', 'bytes=a-b']) expect(usableRange(bad)).toBeUndefined();
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
    server = await startServer({ dir: dist, host: '127.0.0.1', port: 0 });
    base = server.url;
    const { loadContent } = await import('../src/load.ts');
    draftId = (await loadContent(DEMO_CONTENT)).catalogue.talks.find((t) => t.state === 2)!.id;
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  const expectOnly = (headers: Record<string, unknown>, expected: Record<string, string>) => {
    for (const [k, v] of Object.entries(expected)) expect(headers[k], k).toBe(v);
    const extra = Object.keys(headers).filter((k) => !(k in expected) && !STANDARD_HEADERS.includes(k));
    expect(extra).toEqual([]);
  };

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
    expect(res.text).toBe('{"detail": "Not found"}');
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

  it('survives a backwards Range and still serves valid ranges', async () => {
    const bad = await raw(base, 'GET', '/api/v2/video/1', { Range: 'bytes=100-50' });
    expect(bad.status).toBe(200);
    const good = await raw(base, 'GET', '/api/v2/video/1', { Range: 'bytes=0-9' });
    expect(good.status).toBe(206);
    expect(good.text).toBe('{"category'.slice(0, 10));
    expect((await raw(base, 'GET', '/api/v2/video/1')).status).toBe(200);
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
