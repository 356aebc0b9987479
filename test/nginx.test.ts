// The generated nginx configuration on a real nginx (Debian's package) serving
// a demo build: the contract's headers, the list endpoints, trailing slashes,
// OPTIONS, refused writes and the precompressed copies, and the same answers
// as our own server for the API; and the same answers for a build for a folder
// of its host (--base-url https://example.org/talks), served under it.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { ENCODINGS, HOST_FILES, RECORD_ALLOW, RECORD_OPTIONS } from '../src/headers.ts';
import { hostFile } from '../src/hosting.ts';
import { NGINX, startNginx } from '../src/web-servers.ts';
import { answersAsOurs, CONTRACT, expected, expectOutsideFolderAsOurs, expectRecordAsContract, hostTestsRun, pick, servedBoth } from './host-cases.ts';
import { raw } from './http.ts';

/** The API's answers compared without their Content-Type and policy where nginx answers OPTIONS with its description. */
const OPTIONS_UNTYPED = (method: string, status: number) => !(method === 'OPTIONS' && status === 200);

describe.runIf(hostTestsRun('nginx', NGINX, 'test/nginx.test.ts'))('the generated nginx configuration on nginx', () => {
  const served = servedBoth('nginx', NGINX, startNginx);
  const { get, file } = served;

  it('GET and HEAD of a record: the contract headers exactly, the file as it is', () => expectRecordAsContract(served));

  it('a trailing slash and ?format=json answer the same record', async () => {
    const body = await file('api/v2/video/12');
    for (const pathname of ['/api/v2/video/12/', '/api/v2/video/12?format=json', '/api/v2/video/12/?format=json']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(pick(res, Object.keys(CONTRACT))).toEqual(CONTRACT);
      expect(res.body.equals(body), pathname).toBe(true);
    }
  });

  it('lists: ?page=N is page.N, no page (or only format=json) is page 1, past the end or empty is a 404', async () => {
    const pages = await fg('page.*', { cwd: path.join(served.dist, 'api/v2/video') });
    expect(pages.length).toBeGreaterThan(1);
    const page1 = await file('api/v2/video/page.1');
    for (const pathname of ['/api/v2/video', '/api/v2/video/', '/api/v2/video?page=1', '/api/v2/video?format=json', '/api/v2/video/?page=1&format=json']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(res.body.equals(page1), pathname).toBe(true);
      expect(pick(res, Object.keys(expected('list')))).toEqual(expected('list'));
    }
    expect((await get('/api/v2/video?page=2')).body.equals(await file('api/v2/video/page.2'))).toBe(true);
    // nginx cannot percent-decode a value: %32 names no page there, where our server reads 2 (docs/hosting.md).
    for (const page of [String(pages.length + 1), '0', 'abc', '-1', '%32', '']) {
      const res = await get(`/api/v2/video?page=${page}`);
      expect(res.status, page).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ detail: 'Invalid page.' });
    }
  });

  it('an unknown id is a JSON 404 with Vary and Allow', async () => {
    for (const pathname of ['/api/v2/video/999999', '/api/v2/video/abc', '/api/v2/video/012']) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ detail: 'Not found.' });
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
      const res = await raw(served.host!.url, method, '/api/v2/video/12', { 'content-type': 'application/json' }, '{"title": "x"}');
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
    await rm(path.join(served.dist, 'speakers/index.html.gz'));
    const page = await get('/speakers/', { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(pick(page, ['content-encoding', 'vary', 'content-type'])).toEqual({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-type': 'text/html; charset=utf-8' });
    expect(gunzipSync(page.body).equals(await file('speakers/index.html'))).toBe(true);
  });

  // nginx's default (gzip_proxied off) sends nothing compressed to a request with a Via header: a site behind a CDN or a caching proxy got every page whole.
  it('a request through a proxy (Via) gets the .gz copy, and a feed gzipped, as any other; a record still never is encoded', async () => {
    const via = { 'accept-encoding': 'gzip', via: '1.1 cache.example' };
    const page = await get('/talks/', via);
    expect([page.headers['content-encoding'], page.body.equals(await file('talks/index.html.gz'))]).toEqual(['gzip', true]);
    const feed = await get('/feed.atom', via);
    expect([feed.headers['content-encoding'], gunzipSync(feed.body).equals(await file('feed.atom'))]).toEqual(['gzip', true]);
    const record = await get('/api/v2/video/12', via);
    expect([record.headers['content-encoding'], record.headers.vary]).toEqual([undefined, 'Accept']);
  });

  it('a folder without its slash is redirected to it; a missing page is the 404 page', async () => {
    const folder = await get('/talks?x=1');
    expect(folder.status).toBe(301);
    expect(folder.headers.location).toBe('/talks/?x=1');
    // A name too long for the file system is no page either.
    for (const missingPath of ['/no/such/page/', `/${'a'.repeat(256)}`, `/talks/${'é'.repeat(200)}/`, '/assets/']) {
      const missing = await get(missingPath);
      expect(missing.status, missingPath).toBe(404);
      expect(missing.body.equals(await file('404.html'))).toBe(true);
      expect(pick(missing, Object.keys(expected('page')))).toEqual(expected('page'));
    }
  });

  it('does not send the host configuration or the compressed copies as files', async () => {
    for (const rel of [...HOST_FILES, 'index.html.gz', `talks/index.html${ENCODINGS[0].suffix}`]) {
      expect(existsSync(path.join(served.dist, rel)), rel).toBe(true);
      expect((await get(`/${rel}`)).status, rel).toBe(404);
    }
  });

  // nginx sends OPTIONS' description with the record's type and policy (README, Hosting).
  answersAsOurs(served, OPTIONS_UNTYPED);
});

describe.runIf(hostTestsRun('nginx', NGINX, 'test/nginx.test.ts'))('the generated nginx configuration on nginx, for a site built for a folder of its host', () => {
  const served = servedBoth('nginx', NGINX, startNginx, '/talks');

  it('is the configuration the build writes for its folder, as are the other hosts\' files', async () => {
    for (const name of HOST_FILES) expect({ name, text: (await served.file(name)).toString() }).toEqual({ name, text: hostFile(name, '/talks') });
  });

  it('GET and HEAD of a record in the folder: the contract headers exactly, the file as it is', () => expectRecordAsContract(served));

  it('sends the folder and the host\'s root to the site, and answers any other path outside it with the 404 page, as our own server does', () => expectOutsideFolderAsOurs(served));

  answersAsOurs(served, OPTIONS_UNTYPED);
});
