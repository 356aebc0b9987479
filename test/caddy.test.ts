// The generated Caddyfile on a real Caddy (Debian's package) serving a demo
// build: the contract's headers, the list endpoints, OPTIONS, refused writes,
// the precompressed copies, and the same answers as our own server for the API;
// and the same answers for a build for a folder of its host, served under it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_FILES, RECORD_ALLOW } from '../src/headers.ts';
import { CADDY, startCaddy } from '../src/web-servers.ts';
import { answersAsOurs, expectOutsideFolderAsOurs, expectRecordAsContract, hostTestsRun, pick, servedBoth } from './host-cases.ts';
import { raw } from './http.ts';

describe.runIf(hostTestsRun('caddy', CADDY, 'test/caddy.test.ts'))('the generated Caddyfile on Caddy', () => {
  const served = servedBoth('caddy', CADDY, startCaddy);
  const { get, file } = served;

  it('GET and HEAD of a record: the contract headers exactly, the file as it is', () => expectRecordAsContract(served));

  it('lists: the last ?page counts, no page is page 1, a page past the end, empty or not a number is a JSON 404', async () => {
    const page1 = await file('api/v2/video/page.1');
    const page2 = await file('api/v2/video/page.2');
    for (const query of ['', '?format=json', '?page=2&page=1', '?Page=2']) expect((await get(`/api/v2/video/${query}`)).body.equals(page1), query).toBe(true);
    for (const query of ['?page=2', '?page=1&page=2', '?pag%65=2', '?page=002', '?x=1&page=2&format=json', '?page=+2', '?page=2++']) expect((await get(`/api/v2/video${query}`)).body.equals(page2), query).toBe(true);
    // Caddy's matchers cannot percent-decode a value either: %32 names no page there, as on nginx (docs/hosting.md).
    for (const query of ['?page=99', '?page=0', '?page=abc', '?page=-1', '?page=%32', '?page=0000000000000002', '?page=+0000000000000002', '?page=2&page=x', '?page=+', '?page=2+x', '?page=', '?page', '?page=2&page=']) {
      const res = await get(`/api/v2/video${query}`);
      expect([query, res.status, res.text, res.headers['content-type'], res.headers.vary]).toEqual([query, 404, '{"detail": "Invalid page."}', 'application/json', 'Accept']);
    }
    // Outside /api/v2 (in its case) a list's path in other letter case is the site's 404 page, as on our server: Caddy's `path` matcher ignores case.
    for (const pathname of ['/API/v2/video/', '/Api/V2/speaker?page=2', '/API/v2/nothing']) {
      const res = await get(pathname);
      expect([pathname, res.status, res.body.equals(await file('404.html'))]).toEqual([pathname, 404, true]);
    }
  });

  it('OPTIONS answers the description; PUT, PATCH and DELETE are 405 with Allow', async () => {
    const options = await get('/api/v2/video/12', {}, 'OPTIONS');
    expect([options.status, options.headers['content-type'], options.headers.allow]).toEqual([200, 'application/json', RECORD_ALLOW]);
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await raw(served.host!.url, method, '/api/v2/video/12', { 'content-type': 'application/json' }, '{"title": "x"}');
      expect([method, res.status, res.headers.allow, res.headers.vary]).toEqual([method, 405, RECORD_ALLOW, 'Accept']);
      expect(JSON.parse(res.text)).toEqual({ detail: `Method "${method}" not allowed.` });
    }
  });

  it('a page asked for with brotli or gzip is its copy; a record never is encoded', async () => {
    for (const [encoding, suffix] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ]) {
      const page = await get('/talks/', { 'accept-encoding': encoding! });
      expect(pick(page, ['content-encoding', 'vary', 'content-type'])).toEqual({ 'content-encoding': encoding, vary: 'Accept-Encoding', 'content-type': 'text/html; charset=utf-8' });
      expect(page.body.equals(await file(`talks/index.html${suffix}`))).toBe(true);
    }
    const record = await get('/api/v2/video/12', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect([record.headers['content-encoding'], record.headers.vary]).toEqual([undefined, 'Accept']);
    expect(record.body.equals(await file('api/v2/video/12'))).toBe(true);
  });

  // RFC 9110 8.8.3: a strong ETag names these very bytes, so the gzip that encode makes of a file cannot carry the file's.
  it('gives no two encodings of a file one strong ETag, and still answers their own with a 304', async () => {
    for (const pathname of ['/feed.atom', '/talks/']) {
      const [plain, gzip, br] = [await get(pathname, { 'accept-encoding': 'identity' }), await get(pathname, { 'accept-encoding': 'gzip' }), await get(pathname, { 'accept-encoding': 'br' })];
      expect([gzip.headers['content-encoding'], br.headers['content-encoding']], pathname).toEqual(['gzip', pathname === '/talks/' ? 'br' : undefined]);
      const tags = [plain, gzip, br].map((res) => res.headers.etag as string);
      for (const [a, b] of [[0, 1], [0, 2], [1, 2]] as const) expect(tags[a] !== tags[b] || tags[a]!.startsWith('W/'), `${pathname}: ${tags}`).toBe(true);
      const again = await get(pathname, { 'accept-encoding': 'gzip', 'if-none-match': gzip.headers.etag as string });
      expect([again.status, again.headers.etag]).toEqual([304, gzip.headers.etag]);
    }
  });

  it('a folder without its slash is redirected to it; a missing page is the 404 page; host files and copies are not sent', async () => {
    for (const [asked, location] of [
      ['/talks', '/talks/'],
      ['/talks?x=1&y=%20', '/talks/?x=1&y=%20'],
    ]) {
      const folder = await get(asked!);
      expect([folder.status, folder.headers.location]).toEqual([301, location]);
    }
    // A name too long for the file system is no page either.
    // The 404 page's own name with a slash too: the status is the answer, not a redirect to the page (`/404.html`).
    for (const missingPath of ['/no/such/page/', `/${'a'.repeat(256)}`, `/talks/${'é'.repeat(200)}/`, '/assets/', '/404.html/', '/talks/404.html/']) {
      const missing = await get(missingPath);
      expect(missing.status, missingPath).toBe(404);
      expect(missing.body.equals(await file('404.html'))).toBe(true);
    }
    // A browser's reload of a 404 sends the page's validators back, and a client may ask for a range: still the whole 404 page.
    const page = await get('/no/such/page/');
    const validators: Record<string, string>[] = [{ 'If-None-Match': page.headers.etag as string }, { 'If-None-Match': '*' }, { 'If-Modified-Since': new Date(Date.now() + 60_000).toUTCString() }, { 'If-Match': '"other"' }, { Range: 'bytes=0-9' }];
    for (const headers of validators) {
      const missing = await get('/no/such/page/', headers);
      expect([headers, missing.status, missing.body.equals(await file('404.html'))]).toEqual([headers, 404, true]);
    }
    for (const rel of [...HOST_FILES, 'index.html.gz', 'talks/index.html.br']) {
      expect(existsSync(path.join(served.dist, rel)), rel).toBe(true);
      expect((await get(`/${rel}`)).status, rel).toBe(404);
    }
  });

  answersAsOurs(served);
});

describe.runIf(hostTestsRun('caddy', CADDY, 'test/caddy.test.ts'))('the generated Caddyfile on Caddy, for a site built for a folder of its host', () => {
  const served = servedBoth('caddy', CADDY, startCaddy, '/talks');

  it('GET and HEAD of a record in the folder: the contract headers exactly, the file as it is', () => expectRecordAsContract(served));

  it('sends the folder and the host\'s root to the site, and answers any other path outside it with the 404 page, as our own server does', () => expectOutsideFolderAsOurs(served));

  answersAsOurs(served);
});
