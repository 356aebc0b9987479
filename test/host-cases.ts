// For the tests of the generated host configurations on real servers
// (test/nginx.test.ts, test/caddy.test.ts): the demo build served by the host
// and by ours, the API requests the host must answer as ours does, and what of
// each answer is compared.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { outputFile } from 'fs-extra';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { HEADERS, HOST_FILES, kindOf, RECORD_ALLOW, type FileKind } from '../src/headers.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import type { RunningHost } from '../src/web-servers.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';
import { raw, type RawResponse } from './http.ts';

type ApiCase = [method: string, pathname: string, headers?: Record<string, string>];

const API_CASES: ApiCase[] = [
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
  // A number as Python's int() reads it: the `+` of a query is a space.
  ['GET', '/api/v2/video/?page=+2'],
  ['GET', '/api/v2/video/?page=++000000000000002+'],
  ['GET', '/api/v2/video/?page=+0'],
  ['GET', '/api/v2/video/?page=last'],
  ['GET', '/api/v2/speaker?page=1&page=last'],
  ['GET', '/api/v2/category/?page=last&format=json'],
  ['GET', '/api/v2/video/?page=Last'],
  ['OPTIONS', '/api/v2/category'],
  // Only GET and HEAD read ?page=: OPTIONS and writes answer as on the list whatever it says.
  ['OPTIONS', '/api/v2/video/?page=abc'],
  ['POST', '/api/v2/speaker?page=0'],
  ['HEAD', '/api/v2/video/?page=abc'],
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
  // Paths are case-sensitive, as Django's URL patterns are: an endpoint's path in other letter case is no endpoint.
  ['GET', '/api/v2/VIDEO?page=2'],
  ['GET', '/api/v2/Category/'],
  ['HEAD', '/api/v2/Speaker'],
  // The API's answers are sent whole whatever the Range, as Django REST framework sends them, and say no Accept-Ranges.
  ['GET', '/api/v2/video/12', { range: 'bytes=0-1,5-6' }],
  ['GET', '/api/v2/video/12', { range: 'bytes=0-9' }],
  ['HEAD', '/api/v2/video/12', { range: 'bytes=0-9' }],
  ['GET', '/api/v2/video/12', { range: 'bytes=5000-' }],
  ['GET', '/api/v2/video/12/', { range: 'bytes=-0' }],
  ['GET', '/api/v2/video/12', { range: 'bytes=100-50' }],
  ['GET', '/api/v2/video?page=2', { range: 'bytes=500000-' }],
  ['GET', '/api/v2/category/tidewater-python-2024', { range: 'bytes=0-9', 'if-range': 'Fri, 02 Jan 2026 03:04:05 GMT' }],
];

export const pick = (res: RawResponse, names: string[]) => Object.fromEntries(names.map((n) => [n, res.headers[n]]));

/** Whether Content-Type and the policy of an answer are compared, given the method and the host's status. */
type Typed = (method: string, status: number) => boolean;

/** Each request's answer from the host and from ours, as the status, the body and the API's headers. */
async function bothAnswers({ get, getOurs }: Served, cases: ApiCase[], typed: Typed = () => true) {
  const answers = [];
  for (const [method, pathname, headers] of cases) {
    const [theirs, mine] = await Promise.all([get(pathname, headers, method), getOurs(pathname, headers, method)]);
    const names = ['vary', 'allow', 'cache-control', 'content-range', 'accept-ranges', 'location', 'x-content-type-options', ...(typed(method, theirs.status) ? ['content-type', 'content-security-policy'] : [])];
    const seen = (res: RawResponse) => ({ request: `${method} ${pathname}`, status: res.status, body: res.text, ...pick(res, names) });
    answers.push({ theirs: seen(theirs), mine: seen(mine) });
  }
  return answers;
}

/**
 * A demo build (with its compressed copies) served by a host under test and by our own server, for the
 * tests of one `describe`: started before them, stopped after. A host that is missing fails in CI. Built
 * for a folder of its host (`base`, `/talks`), both serve it there, and get and getOurs ask for a path of
 * the site's (`/api/v2/video/12`) in it.
 */
export function servedBoth(name: string, program: string, start: (options: { root: string; basePath: string }) => Promise<RunningHost>, base = '') {
  const both = {
    base,
    dist: '',
    host: undefined as RunningHost | undefined,
    ours: undefined as RunningServer | undefined,
    get: (pathname: string, headers: Record<string, string> = {}, method = 'GET') => raw(both.host!.url, method, `${base}${pathname}`, headers),
    getOurs: (pathname: string, headers: Record<string, string> = {}, method = 'GET') => raw(both.ours!.url, method, `${base}${pathname}`, headers),
    file: (rel: string) => readFile(path.join(both.dist, rel)),
  };
  let work: string | undefined;
  beforeAll(async () => {
    if (!existsSync(program)) throw new Error(`${name} is missing at ${program}: apt-get install -y ${name} (.ci/run does)`);
    work = await mkdtemp(path.join(tmpdir(), `vc-${name}-test-`));
    both.dist = path.join(work, 'dist');
    const result = await build({ content: DEMO_CONTENT, out: both.dist, templates: TEMPLATES, compress: true, ...(base && { baseUrl: `https://example.org${base}` }) });
    expect(result.ok).toBe(true);
    both.host = await start({ root: both.dist, basePath: base });
    both.ours = await startServer({ dir: both.dist, basePath: base, host: '127.0.0.1', port: 0, quiet: true });
  });
  afterAll(async () => {
    await both.host?.stop();
    await both.ours?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });
  return both;
}

/** Whether the tests of a host run: where it is installed, and always in CI (.ci/run installs it), where a missing one fails. */
export function hostTestsRun(name: string, program: string, file: string): boolean {
  const run = existsSync(program) || Boolean(process.env.CI);
  if (!run) console.warn(`${file} skipped: no ${program} (apt-get install -y ${name})`);
  return run;
}

type Served = ReturnType<typeof servedBoth>;

export const CONTRACT = { 'content-type': 'text/html; charset=utf-8', vary: 'Accept', allow: RECORD_ALLOW };
/** A kind's headers lower-cased, as node:http reports response headers. */
export const expected = (kind: FileKind) => Object.fromEntries(Object.entries(HEADERS[kind]).map(([k, v]) => [k.toLowerCase(), v]));

/** GET and HEAD of a record: the contract's headers exactly, the file as it is. */
export async function expectRecordAsContract({ get, file }: Served): Promise<void> {
  const body = await file('api/v2/video/12');
  const res = await get('/api/v2/video/12');
  expect(res.status).toBe(200);
  expect(pick(res, Object.keys(CONTRACT))).toEqual(CONTRACT);
  expect(pick(res, Object.keys(expected('record')))).toEqual(expected('record'));
  expect(res.body.equals(body)).toBe(true);
  const head = await get('/api/v2/video/12', {}, 'HEAD');
  expect(head.status).toBe(200);
  expect(pick(head, Object.keys(expected('record')))).toEqual(expected('record'));
  expect([head.headers['content-length'], head.body.length]).toEqual([String(body.length), 0]);
}

/** A record and a page asked for with If-Modified-Since (and If-None-Match) are answered as ours answers them. */
async function expectConditionalsAsOurs({ get, getOurs }: Served): Promise<void> {
  for (const url of ['/api/v2/video/12', '/video/12/', '/assets/style.css']) {
    const since = (await get(url)).headers['last-modified'] as string;
    const earlier = new Date(Date.parse(since) - 1000).toUTCString();
    // A later date that is not in the future (which RFC 9110 has ignored, and Caddy does not: README).
    while (Date.now() < Date.parse(since) + 2000) await new Promise((resolve) => setTimeout(resolve, 100));
    const later = new Date(Date.parse(since) + 1000).toUTCString();
    const dates = [since, later, earlier, 'yesterday', '2021'].map((date) => ({ 'If-Modified-Since': date }));
    for (const headers of [...dates, { 'If-Modified-Since': since, 'If-None-Match': '"other"' }] as Record<string, string>[]) {
      const [theirs, mine] = await Promise.all([get(url, headers), getOurs(url, headers)]);
      expect({ url, headers, status: theirs.status }).toEqual({ url, headers, status: mine.status });
    }
  }
}

/**
 * An encoded slash (`%2F`) is a slash to the host, as it decodes the path before it looks for a file; ours answers the 404
 * page, as a name with a slash in it is no file's (docs/hosting.md: the difference is said there).
 */
async function expectEncodedSlashAsSlash({ get, file, getOurs }: Served): Promise<void> {
  for (const [url, rel] of [
    ['/api/v2/video%2F12', 'api/v2/video/12'],
    ['/talks%2F', 'talks/index.html'],
  ]) {
    const [theirs, mine] = [await get(url!), await getOurs(url!)];
    expect([url, theirs.status, theirs.body.equals(await file(rel!))]).toEqual([url, 200, true]);
    expect([url, mine.status, mine.body.equals(await file('404.html'))]).toEqual([url, 404, true]);
  }
}

/**
 * A hidden file or folder copied into the output by hand (`.env`, `.git/`) is the 404 page, as on our server, which
 * refuses any path with a segment that starts with a dot; nginx and Caddy sent them.
 */
async function expectHiddenFilesRefused({ get, dist, file, getOurs }: Served): Promise<void> {
  const hidden = ['.env', '.git/config', 'assets/.DS_Store', 'api/v2/video/.x'];
  for (const rel of hidden) await outputFile(path.join(dist, rel), 'SECRET=1\n');
  try {
    // Whatever the method, and under /api/v2 too: ours refuses such a path before it looks at either.
    for (const rel of hidden) {
      for (const method of ['GET', 'PUT', 'OPTIONS']) {
        const [theirs, mine] = [await get(`/${rel}`, {}, method), await getOurs(`/${rel}`, {}, method)];
        expect([method, rel, theirs.status, mine.status]).toEqual([method, rel, 404, 404]);
        expect(theirs.body.equals(await file('404.html')), `${method} ${rel}`).toBe(true);
      }
    }
  } finally {
    await Promise.all(['.env', '.git', 'assets/.DS_Store', 'api/v2/video/.x'].map((rel) => rm(path.join(dist, rel), { recursive: true, force: true })));
  }
}

/** One file of every kind is sent with exactly the headers of its kind. */
async function expectEveryKindsHeaders({ get, dist }: Served): Promise<void> {
  const rels = await fg('**/*', { cwd: dist, onlyFiles: true });
  const byKind = new Map<FileKind, string>();
  for (const rel of rels.sort()) if (!/\.(br|gz)$/.test(rel) && !(HOST_FILES as readonly string[]).includes(rel) && !byKind.has(kindOf(rel))) byKind.set(kindOf(rel), rel);
  expect([...byKind.keys()].sort()).toEqual(Object.keys(HEADERS).sort());
  for (const [kind, rel] of byKind) {
    const res = await get(`/${rel.replace(/^api\/v2\/(video|category|speaker)\/page\.(\d+|last)$/, 'api/v2/$1?page=$2')}`);
    expect(res.status, rel).toBe(200);
    expect({ rel, headers: pick(res, Object.keys(expected(kind))) }).toEqual({ rel, headers: expected(kind) });
  }
}

/** A folder of the site whose name is not ASCII, as a redirect from `_redirects` makes one (`/über/uns/`). */
const UNICODE_FOLDER = 'über';

/**
 * A folder asked for without its slash is redirected to it as ours redirects it: 301, the path as
 * the client wrote it with its letters percent-encoded (a Location is ASCII), the query kept.
 */
async function expectFolderRedirectsAsOurs({ dist, get, getOurs }: Served): Promise<void> {
  await cp(path.join(dist, 'events/index.html'), path.join(dist, UNICODE_FOLDER, 'index.html'));
  const encoded = encodeURIComponent(UNICODE_FOLDER);
  const cases: ApiCase[] = [
    ['GET', '/talks'],
    ['HEAD', '/events/tidewater-python-2024?x=1&y=%C3%BC'],
    ['GET', `/${encoded}`],
    ['GET', `/${encoded.toLowerCase()}?page=2`],
  ];
  for (const [method, pathname] of cases) {
    const [theirs, mine] = await Promise.all([get(pathname, {}, method), getOurs(pathname, {}, method)]);
    // An escape's hex digits in either case are one URL.
    const location = (res: RawResponse) => (res.headers.location as string | undefined)?.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
    const seen = (res: RawResponse) => ({ request: `${method} ${pathname}`, status: res.status, location: location(res), nosniff: res.headers['x-content-type-options'] });
    expect(seen(theirs)).toEqual(seen(mine));
  }
}

/**
 * A path that names a folder only once its empty and dot segments are resolved (which browsers never
 * send, and ours answers 404) is not sent anywhere else: a Location of `//evil.example/../talks/` would
 * take a browser to evil.example.
 */
async function expectNoOpenRedirect({ get, host }: Served): Promise<void> {
  for (const pathname of ['//evil.example/../talks', '//evil.example/%2e%2e/talks', '/%2Fevil.example/../talks', '/\\evil.example/../talks', '//talks', '///events']) {
    const res = await get(pathname);
    const location = res.headers.location as string | undefined;
    if (location === undefined) continue;
    expect({ pathname, location, host: new URL(location, host!.url).host }).toEqual({ pathname, location, host: new URL(host!.url).host });
  }
}

/** Requests to the site's files and pages other than GET and HEAD, which a host must answer as ours does. */
const SITE_METHOD_CASES: ApiCase[] = [
  ['PUT', '/'],
  ['POST', '/events/'],
  ['DELETE', '/assets/style.css'],
  ['PATCH', '/robots.txt'],
  ['PUT', '/no-such-page/'],
  ['POST', '/no-such-page/'],
  ['POST', '/no-such-page.html'],
  ['POST', '/assets/no-such.css'],
  ['POST', '/events'],
  ['OPTIONS', '/'],
  ['OPTIONS', '/assets/style.css'],
  ['OPTIONS', '/no-such-page/'],
  // Methods are refused before the path is looked at: the host files and the compressed copies too.
  ['POST', '/nginx.conf'],
  ['OPTIONS', '/Caddyfile'],
  ['PUT', '/talks/index.html.br'],
  ['DELETE', '/index.html.gz'],
];

/**
 * One file of every kind and extension is sent with the Content-Type ours sends: text with its charset, a
 * name with no type of its own as bytes. nginx 1.22's mime.types still calls scripts application/javascript,
 * the name RFC 9239 made obsolete for text/javascript: the same type to a browser.
 */
async function expectTypesAsOurs({ get, dist, getOurs }: Served): Promise<void> {
  const rels = await fg('**/*', { cwd: dist, onlyFiles: true, ignore: ['**/*.br', '**/*.gz', ...HOST_FILES] });
  const samples = new Map<string, string>();
  for (const rel of rels.sort()) {
    const sample = `${kindOf(rel)} ${path.extname(rel)}`;
    if (!samples.has(sample)) samples.set(sample, rel);
  }
  expect(samples.size).toBeGreaterThan(10);
  const typeOf = (res: RawResponse) => String(res.headers['content-type']).replace(/^application\/javascript\b/, 'text/javascript');
  for (const rel of samples.values()) {
    const [theirs, mine] = await Promise.all([get(`/${rel}`), getOurs(`/${rel}`)]);
    expect({ rel, type: typeOf(theirs) }).toEqual({ rel, type: typeOf(mine) });
  }
}

/**
 * The tests every host runs against our own server, on the demo build `served` (at the host's root or in a folder of it):
 * `typed` as in bothAnswers, for the API's requests.
 */
export function answersAsOurs(served: Served, typed?: Typed): void {
  it('takes an encoded slash for a slash, where our own server answers the 404 page (docs/hosting.md)', () => expectEncodedSlashAsSlash(served));

  it('does not send a hidden file or folder copied into the output, as our own server does not', () => expectHiddenFilesRefused(served));

  it('redirects a folder asked for without its slash as our own server does, its Location percent-encoded', () => expectFolderRedirectsAsOurs(served));

  it('never redirects to another host, whatever empty or dot segments the path has', () => expectNoOpenRedirect(served));

  it('sends one file of every kind with exactly the headers of its kind', () => expectEveryKindsHeaders(served));

  it('answers If-Modified-Since as our own server does', () => expectConditionalsAsOurs(served));

  it('sends every kind of file with the Content-Type ours sends', () => expectTypesAsOurs(served));

  it("answers other methods on the site's files as our own server does: 405 with Allow, OPTIONS 204", async () => {
    for (const { theirs, mine } of await bothAnswers(served, SITE_METHOD_CASES)) expect(theirs).toEqual(mine);
  });

  it('answers the API as our own server does', async () => {
    for (const { theirs, mine } of await bothAnswers(served, API_CASES, typed)) expect(theirs).toEqual(mine);
  });
}

/**
 * Outside the folder a site was built for, as our own server answers: the folder without its slash is sent to it
 * (301) and the host's root too (302), both with the query; any other path, the site's own included, is the 404 page.
 */
export async function expectOutsideFolderAsOurs({ base, host, ours, file }: Served): Promise<void> {
  const notFound = await file('404.html');
  const cases: ApiCase[] = [
    ['GET', base],
    ['HEAD', `${base}?x=1&y=%C3%BC`],
    ['GET', '/'],
    ['GET', '/?page=2'],
    ['GET', '/video/12/'],
    ['GET', '/api/v2/video/12'],
    ['OPTIONS', '/api/v2/video/12'],
    ['POST', '/events/'],
    // Whatever the name: a copy's or a hidden file's, which the host refuses inside the folder, is no file outside it.
    ['PUT', '/index.html.gz'],
    ['PATCH', '/.git/config'],
    ['OPTIONS', `${base}x/feed.atom.br`],
    ['DELETE', '/nginx.conf'],
    ['GET', `${base.toUpperCase()}/`],
    ['GET', `${base}x/`],
  ];
  for (const [method, pathname] of cases) {
    const [theirs, mine] = await Promise.all([raw(host!.url, method, pathname), raw(ours!.url, method, pathname)]);
    const seen = (res: RawResponse) => ({ request: `${method} ${pathname}`, status: res.status, location: res.headers.location, nosniff: res.headers['x-content-type-options'], page: res.status === 404 && res.body.equals(notFound) });
    expect(seen(theirs)).toEqual(seen(mine));
  }
}
