// The generated nginx configuration on a real nginx (Debian's package) serving
// a demo build: the contract's headers, the list endpoints, trailing slashes,
// OPTIONS, refused writes and the precompressed copies, and the same answers
// as our own server for the API.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { ENCODINGS, HEADERS, HOST_FILES, kindOf, RECORD_ALLOW, type FileKind } from '../src/headers.ts';
import { NGINX, startNginx, type RunningNginx } from '../src/nginx.ts';
import { RECORD_OPTIONS } from '../src/headers.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';
import { raw, type RawResponse } from './http.ts';

const installed = existsSync(NGINX);
// CI installs nginx (.ci/run): there a missing one is a failure, not a skip.
const run = installed || Boolean(process.env.CI);
if (!run) console.warn(`test/nginx.test.ts skipped: no ${NGINX} (apt-get install -y nginx)`);

const CONTRACT = { 'content-type': 'text/html; charset=utf-8', vary: 'Accept', allow: RECORD_ALLOW };
/** Lower-cased, as node:http reports response headers. */
const expected = (kind: FileKind) => Object.fromEntries(Object.entries(HEADERS[kind]).map(([k, v]) => [k.toLowerCase(), v]));
const pick = (res: RawResponse, names: string[]) => Object.fromEntries(names.map((n) => [n, res.headers[n]]));

describe.runIf(run)('the generated nginx configuration on nginx', () => {
  let work: string;
  let dist: string;
  let nginx: RunningNginx | undefined;
  let ours: RunningServer | undefined;
  const get = (pathname: string, headers: Record<string, string> = {}, method = 'GET') => raw(nginx!.url, method, pathname, headers);
  const file = (rel: string) => readFile(path.join(dist, rel));

  beforeAll(async () => {
    if (!installed) throw new Error(`nginx is missing at ${NGINX}: apt-get install -y nginx (.ci/run does)`);
    work = await mkdtemp(path.join(tmpdir(), 'vc-nginx-test-'));
    dist = path.join(work, 'dist');
    const result = await build({ content: DEMO_CONTENT, out: dist, templates: TEMPLATES, compress: true });
    expect(result.ok).toBe(true);
    nginx = await startNginx({ root: dist });
    ours = await startServer({ dir: dist, host: '127.0.0.1', port: 0, quiet: true });
  });

  afterAll(async () => {
    await nginx?.stop();
    await ours?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('GET and HEAD of a record: the contract headers exactly, the file as it is', async () => {
    const body = await file('api/v2/video/12');
    const getRes = await get('/api/v2/video/12');
    expect(getRes.status).toBe(200);
    expect(pick(getRes, Object.keys(CONTRACT))).toEqual(CONTRACT);
    expect(pick(getRes, Object.keys(expected('record')))).toEqual(expected('record'));
    expect(getRes.body.equals(body)).toBe(true);
    const head = await get('/api/v2/video/12', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(pick(head, Object.keys(expected('record')))).toEqual(expected('record'));
    expect(head.headers['content-length']).toBe(String(body.length));
    expect(head.body.length).toBe(0);
  });

  it('a trailing slash and ?format=json answer the same record', async () => {
    const body = await file('api/v2/video/12');
    for (const pathname of ['/api/v2/video/12/', '/api/v2/video/12?format=json', '/api/v2/video/12/?format=json']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(pick(res, Object.keys(CONTRACT))).toEqual(CONTRACT);
      expect(res.body.equals(body), pathname).toBe(true);
    }
  });

  it('lists: ?page=N is page.N, no page (or only format=json) is page 1, past the end is a 404', async () => {
    const pages = await fg('page.*', { cwd: path.join(dist, 'api/v2/video') });
    expect(pages.length).toBeGreaterThan(1);
    const page1 = await file('api/v2/video/page.1');
    for (const pathname of ['/api/v2/video', '/api/v2/video/', '/api/v2/video?page=1', '/api/v2/video?format=json', '/api/v2/video/?page=1&format=json']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(res.body.equals(page1), pathname).toBe(true);
      expect(pick(res, Object.keys(expected('list')))).toEqual(expected('list'));
    }
    expect((await get('/api/v2/video?page=2')).body.equals(await file('api/v2/video/page.2'))).toBe(true);
    // nginx cannot percent-decode a value: %32 names no page there, where our server reads 2 (README, Hosting).
    for (const page of [String(pages.length + 1), '0', 'abc', '-1', '%32']) {
      const res = await get(`/api/v2/video?page=${page}`);
      expect(res.status, page).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ detail: 'Invalid page.' });
    }
  });

  it('an unknown id is a JSON 404 with Vary and Allow', async () => {
    for (const pathname of ['/api/v2/video/999999', '/api/v2/video/abc', '/api/v2/video/012']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ detail: 'Not found' });
    }
    expect(pick(await get('/api/v2/video/999999'), ['vary', 'allow'])).toEqual({ vary: 'Accept', allow: RECORD_ALLOW });
  });

  it('OPTIONS on a record: 200, the description, the three headers', async () => {
    const res = await get('/api/v2/video/12', {}, 'OPTIONS');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual(RECORD_OPTIONS);
    expect(pick(res, Object.keys(CONTRACT))).toEqual(CONTRACT);
  });

  it('PUT, PATCH and DELETE on a record: 405 with Allow', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      // On a connection of its own: after refusing a request with a body, nginx at times answered the next request on the same kept-alive connection with a 400.
      const res = await raw(nginx!.url, method, '/api/v2/video/12', { 'content-type': 'application/json', connection: 'close' }, '{"title": "x"}');
      expect(res.status, method).toBe(405);
      expect(pick(res, ['allow', 'vary'])).toEqual({ allow: RECORD_ALLOW, vary: 'Accept' });
      expect(JSON.parse(res.text)).toEqual({ detail: `Method "${method}" not allowed.` });
    }
  });

  it('a page asked for with gzip is its .gz copy; a record never is encoded', async () => {
    const page = await get('/talks/', { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(pick(page, ['content-encoding', 'vary', 'content-type'])).toEqual({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-type': 'text/html; charset=utf-8' });
    expect(page.body.equals(await file('talks/index.html.gz'))).toBe(true);
    const plain = await get('/talks/');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(await file('talks/index.html'))).toBe(true);
    const record = await get('/api/v2/video/12', { 'accept-encoding': 'gzip, deflate, br' });
    expect(record.headers['content-encoding']).toBeUndefined();
    expect(record.headers.vary).toBe('Accept');
    expect(record.body.equals(await file('api/v2/video/12'))).toBe(true);
  });

  it('a page without its .gz copy (a build without --compress) is gzipped as it is sent', async () => {
    await rm(path.join(dist, 'speakers/index.html.gz'));
    const page = await get('/speakers/', { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(pick(page, ['content-encoding', 'vary', 'content-type'])).toEqual({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-type': 'text/html; charset=utf-8' });
    expect(gunzipSync(page.body).equals(await file('speakers/index.html'))).toBe(true);
  });

  it('a folder without its slash is redirected to it; a missing page is the 404 page', async () => {
    const folder = await get('/talks?x=1');
    expect(folder.status).toBe(301);
    expect(folder.headers.location).toBe('/talks/?x=1');
    const missing = await get('/no/such/page/');
    expect(missing.status).toBe(404);
    expect(missing.body.equals(await file('404.html'))).toBe(true);
    expect(pick(missing, Object.keys(expected('page')))).toEqual(expected('page'));
  });

  it('does not send the host configuration or the compressed copies as files', async () => {
    for (const rel of [...HOST_FILES, 'index.html.gz', `talks/index.html${ENCODINGS[0].suffix}`]) {
      expect(existsSync(path.join(dist, rel)), rel).toBe(true);
      expect((await get(`/${rel}`)).status, rel).toBe(404);
    }
  });

  it('sends one file of every kind with exactly the headers of its kind', async () => {
    const rels = await fg('**/*', { cwd: dist, onlyFiles: true });
    const byKind = new Map<FileKind, string>();
    for (const rel of rels.sort()) if (!/\.(br|gz)$/.test(rel) && !(HOST_FILES as readonly string[]).includes(rel) && !byKind.has(kindOf(rel))) byKind.set(kindOf(rel), rel);
    expect([...byKind.keys()].sort()).toEqual(Object.keys(HEADERS).sort());
    for (const [kind, rel] of byKind) {
      const pathname = rel.replace(/^api\/v2\/(video|category|speaker)\/page\.(\d+)$/, 'api/v2/$1?page=$2');
      const res = await get(`/${pathname}`);
      expect(res.status, rel).toBe(200);
      expect({ rel, headers: pick(res, Object.keys(expected(kind))) }).toEqual({ rel, headers: expected(kind) });
    }
  });

  it('answers the API as our own server does', async () => {
    const cases: [string, string, Record<string, string>?][] = [
      ['GET', '/api/v2/video/12'],
      ['GET', '/api/v2/video/12/'],
      ['GET', '/api/v2/video/999999'],
      ['OPTIONS', '/api/v2/video/12'],
      ['DELETE', '/api/v2/video/12'],
      ['GET', '/api/v2/video?page=2'],
      ['GET', '/api/v2/speaker/'],
      ['GET', '/api/v2/video?page=99'],
      // ?page= as Django's QueryDict reads it: the last one, case-sensitive.
      ['GET', '/api/v2/speaker/?page=1&page=2'],
      ['GET', '/api/v2/video/?page=&page=2'],
      ['GET', '/api/v2/video/?page=2&page='],
      ['GET', '/api/v2/video/?page=2&page'],
      ['GET', '/api/v2/video/?Page=2'],
      ['GET', '/api/v2/video/?pag%65=2'],
      ['GET', '/api/v2/video/?page=2&page=x'],
      ['GET', '/api/v2/video/?page=0000000000000002'],
      ['OPTIONS', '/api/v2/category'],
      ['POST', '/api/v2/category'],
      ['GET', '/api/v2/category/tidewater-python-2024/'],
      ['GET', '/api/v2/category/no-such-event'],
      ['GET', '/api/v2/nothing-here'],
      // An extension or a copy's suffix under /api/v2 is still the API's JSON 404, not a page's.
      ['GET', '/api/v2/video/12.html'],
      ['GET', '/api/v2/video/12/index.html'],
      ['GET', '/api/v2/video/12.gz'],
      ['GET', '/api/v2/x.br'],
      ['GET', '/api/v2/_headers'],
      // Where a record or an event would be, any other name is its 404, with its Vary and Allow.
      ['GET', '/api/v2/video/abc'],
      ['GET', '/api/v2/video/012'],
      ['GET', '/api/v2/video/0'],
      ['GET', '/api/v2/video/page.2'],
      ['GET', '/api/v2/video/12.'],
      ['OPTIONS', '/api/v2/video/abc'],
      // Our server reads ids of at most 16 digits.
      ['OPTIONS', '/api/v2/video/12345678901234567'],
      ['DELETE', '/api/v2/video/12345678901234567'],
      ['OPTIONS', '/api/v2/video/1234567890123456'],
      ['DELETE', '/api/v2/video/abc/'],
      ['GET', '/api/v2/category/page.1'],
      ['GET', '/api/v2/category/No-Such/'],
      // A range past the end: 416 with the file's headers once each and no body (nginx's own 416 sent them twice, and its HTML page).
      ['GET', '/api/v2/video/12', { range: 'bytes=5000-' }],
      ['GET', '/api/v2/video?page=2', { range: 'bytes=500000-' }],
      ['GET', '/api/v2/video/12', { range: 'bytes=0-9' }],
    ];
    for (const [method, pathname, headers] of cases) {
      const [theirs, mine] = await Promise.all([raw(nginx!.url, method, pathname, headers), raw(ours!.url, method, pathname, headers)]);
      // nginx sends OPTIONS' description with the record's type and policy (README, Hosting).
      const typed = method === 'OPTIONS' && theirs.status === 200 ? [] : ['content-type', 'content-security-policy'];
      const seen = (res: RawResponse) => ({ status: res.status, body: res.text, ...pick(res, ['vary', 'allow', 'cache-control', 'content-range', ...typed]) });
      expect({ request: `${method} ${pathname}`, ...seen(theirs) }).toEqual({ request: `${method} ${pathname}`, ...seen(mine) });
    }
  });
});
