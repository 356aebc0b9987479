// The header manifest: which kinds of file the output holds and the response
// headers each kind is sent with. Our server and every host configuration the
// build writes (src/hosting.ts) read this one description, so they cannot drift apart.
import { createHash, hash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { cached } from './memo.ts';
import type { OutputSpec } from './plan.ts';
import { inertJson } from './record.ts';

export const RECORD_ALLOW = 'GET, PUT, PATCH, HEAD, OPTIONS';
/** Lists, pages and files accept no writes: their Allow says so (the contract: "Allow lists the methods the path accepts"). */
export const READ_ALLOW = 'GET, HEAD, OPTIONS';
export const HTML = 'text/html; charset=utf-8';
/** The type of a file whose name says nothing of what it holds (Pagefind's index chunks). */
export const BYTES = 'application/octet-stream';

/** Only the site's own scripts run (search needs WebAssembly); the policy makes sure nobody else's does. */
const PAGE_CSP =
  "default-src 'self'; img-src 'self' https:; media-src 'self' https:; frame-src https:; style-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'; form-action 'self'";

export type FileKind = 'record' | 'list' | 'page' | 'text' | 'asset' | 'immutable' | 'file';

/**
 * The API's answers change with writes: revalidated each time, which costs a 304. Their Vary is exactly Accept, so
 * they are never content-encoded, and no-transform asks the caches and CDNs on the way not to either (Cloudflare,
 * which compresses text/html on its own, documents that it leaves such a response as it is).
 */
const API_CACHE = 'no-cache, no-transform';
/** Files under /api/v2/ are JSON sent as text/html, as the contract says: the sandbox policy keeps them inert in a browser. */
const API = { 'Content-Type': HTML, Vary: 'Accept', 'Cache-Control': API_CACHE, 'Content-Security-Policy': 'sandbox', 'X-Content-Type-Options': 'nosniff' };
/** Pages change with every build that touches them: always revalidate (cheap with ETags and 304s). */
const REVALIDATE = 'public, max-age=0, must-revalidate';

/** The headers each kind of file is sent with; Content-Type is given where a host's guess from the name would be wrong. */
export const HEADERS: Record<FileKind, Record<string, string>> = {
  record: { ...API, Allow: RECORD_ALLOW },
  list: { ...API, Allow: READ_ALLOW },
  page: { 'Content-Type': HTML, Vary: 'Accept-Encoding', 'Cache-Control': REVALIDATE, 'Content-Security-Policy': PAGE_CSP, 'X-Content-Type-Options': 'nosniff' },
  text: { Vary: 'Accept-Encoding', 'Cache-Control': REVALIDATE, 'X-Content-Type-Options': 'nosniff' },
  // Asset names carry no hash: an hour keeps repeat visits fast and a new stylesheet arrives the same day.
  asset: { Vary: 'Accept-Encoding', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
  // Pagefind names its index chunks by their content: a name never gets other bytes.
  immutable: { 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
  file: { 'Cache-Control': REVALIDATE, 'X-Content-Type-Options': 'nosniff' },
};

/**
 * Pages, feeds, sitemaps and assets are sent compressed to clients that take it: from .br and .gz copies beside
 * them when the build wrote them (--compress), else compressed as they are sent. API files never are (their Vary is exactly Accept).
 */
export const COMPRESSED_KINDS: ReadonlySet<FileKind> = new Set(['page', 'text', 'asset']);
/**
 * The encodings, best first, with the one compressor the build's copies and the server's on-the-fly bodies share.
 * Brotli at quality 5 comes out about a sixth bigger than at 11 on our pages, at forty times the speed;
 * gzip at 6 as small as at 9 on them (2,202 bytes against 2,201 for a 6 KB talk page) in four fifths of the time.
 */
export const ENCODINGS = [
  { name: 'br', suffix: '.br', encode: (data: Uint8Array) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.byteLength } }) },
  { name: 'gzip', suffix: '.gz', encode: (data: Uint8Array) => gzipSync(data, { level: 6 }) },
] as const;
/** Whether `name` is a compressed copy's, in any case of its letters (where case is ignored, one file with the copy): no server sends such a file as one. */
export const isCopyName = (name: string): boolean => ENCODINGS.some((e) => name.toLowerCase().endsWith(e.suffix));
/** Bodies smaller than this are sent as they are when compressed as they are sent: the encoding's own bytes would eat the gain (Caddy's default too). */
export const MIN_COMPRESS_BYTES = 512;

/** The files an output is written as: itself, and its compressed copies. */
export const filesOf = (o: OutputSpec): readonly string[] =>
  cached(outputFiles, o, () => (o.compress ? [o.path, ...ENCODINGS.map((e) => `${o.path}${e.suffix}`)] : [o.path]));

/** Kept with the output, which a memo of the plan (PlanMemo) gives again to the next build. */
const outputFiles = new WeakMap<OutputSpec, readonly string[]>();

/**
 * What a slug may be (an event's folder, a talk's slug): the schema checks content by it, and the
 * server and the hosts' rules match category URLs by it, so that every event the build accepts has
 * its API address. Looser than the usual `a-b-c`: real file names have `--` and a trailing hyphen.
 */
export const SLUG_PATTERN = '[a-z0-9-]+';

/** A record's id in its file's name: a talk's id is a whole number of 16 digits at most (schema.ts keeps it under 2^53). */
export const ID_PATTERN = '[1-9][0-9]{0,15}';
/** Record files: `api/v2/video/<id>`. */
export const RECORD_FILE = new RegExp(`^api/v2/video/${ID_PATTERN}$`);
/** List files: `api/v2/{video,category,speaker}/page.<n>` and `api/v2/category/<slug>`. */
const LIST_FILE = new RegExp(`^api/v2/(?:(?:video|category|speaker)/page\\.(?:[1-9][0-9]*|last)|category/${SLUG_PATTERN})$`);
/** Pagefind's index chunks, named by their content: by extension, in whichever shard's folder they are. */
export const IMMUTABLE_EXTENSIONS = ['pf_fragment', 'pf_index', 'pf_filter'] as const;
/** Feeds, sitemaps and robots.txt, by extension. */
export const TEXT_EXTENSIONS = ['xml', 'atom', 'rss', 'json', 'txt'] as const;

/** The kind of a file of the output, by its path relative to the output folder. */
export function kindOf(rel: string): FileKind {
  if (RECORD_FILE.test(rel)) return 'record';
  if (LIST_FILE.test(rel)) return 'list';
  if (rel.endsWith('.html')) return 'page';
  if (IMMUTABLE_EXTENSIONS.some((ext) => rel.endsWith(`.${ext}`))) return 'immutable';
  if (rel.startsWith('assets/')) return 'asset';
  if (TEXT_EXTENSIONS.some((ext) => rel.endsWith(`.${ext}`))) return 'text';
  return 'file';
}

const ETAG_HASH = 'sha1';
const etagFrom = (digest: string) => `"${digest}"`;

/** A strong ETag from a file's bytes: the same bytes give the same tag on every server and after every rebuild. */
export const etagOf = (body: Uint8Array) => etagFrom(hash(ETAG_HASH, body, 'base64url'));

/** etagOf of bytes that come in parts (a file too big to hold whole): `update` with each in turn, then `etag`. */
export function etagHasher(): { update(part: Uint8Array): void; etag(): string } {
  const hasher = createHash(ETAG_HASH);
  return { update: (part) => void hasher.update(part), etag: () => etagFrom(hasher.digest('base64url')) };
}

/**
 * Whether a list of tags (If-None-Match, If-Match) names `etag`; `*` names any. If-None-Match compares
 * weakly (RFC 9110 13.1.2: `W/` aside); If-Match strongly (13.1.1: a weak tag matches nothing).
 */
export function etagMatches(header: string | undefined, etag: string, strong = false): boolean {
  if (!header) return false;
  const opaque = (tag: string) => (strong ? tag : tag.replace(/^W\//, ''));
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || opaque(t) === opaque(etag);
  });
}

/**
 * Whether a GET or HEAD with these validators may be answered 304 (RFC 9110, 13.1.2–13.1.3): by the ETag
 * when the request names any, else by `If-Modified-Since` against the `Last-Modified` sent (whole
 * seconds), as Caddy and our nginx configuration answer it; a date that is no HTTP-date, or in the future, is ignored.
 */
export function notModified(ifNoneMatch: string | undefined, ifModifiedSince: string | undefined, etag: string, lastModified: string | undefined, now = Date.now()): boolean {
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, etag);
  if (ifModifiedSince === undefined || lastModified === undefined) return false;
  const since = httpDate(ifModifiedSince);
  return since !== undefined && since <= now && Date.parse(lastModified) <= since;
}

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** The three forms of an HTTP-date (RFC 9110, 5.6.7): IMF-fixdate, which clients send, and the obsolete RFC 850 and asctime forms. */
const HTTP_DATES = [
  new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d ${MONTH} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT$`),
  new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d\\d-${MONTH}-\\d\\d \\d\\d:\\d\\d:\\d\\d GMT$`),
  new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}$`),
];

/** An HTTP-date's time, or undefined for anything else: Date.parse alone would read "2021" or "tomorrow", in the local zone. */
export function httpDate(text: string): number | undefined {
  const form = HTTP_DATES.findIndex((re) => re.test(text));
  if (form === -1) return undefined;
  const time = Date.parse(form === 2 ? `${text} GMT` : text);
  return Number.isNaN(time) ? undefined : time;
}

/** Where the list endpoints' static files are: page `n` of a list at /api/v2/<name>/. */
export type ListName = 'video' | 'category' | 'speaker';
/** A list page's name: its number, or `last` for the last page again (see pageNames). */
export type PageName = number | 'last';
export const listFile = (name: ListName, page: PageName) => `api/v2/${name}/page.${page}`;
export const categoryFile = (slug: string) => `api/v2/category/${slug}`;
export const recordFile = (id: number | string) => `api/v2/video/${id}`;

/** Items per page of each list endpoint (as richard, the Django app the interface comes from, had them). */
export const LIST_PAGE_SIZE = { video: 20, category: 50, speaker: 50 } as const;

/** Files the build writes for static hosts; they configure the host and are not part of the site. */
export const HOST_FILES = ['_headers', '_redirects', 'nginx.conf', 'Caddyfile', 'vercel.json', 'firebase.json'] as const;
export type HostFile = (typeof HOST_FILES)[number];

/** The description OPTIONS answers with, in the shape Django REST framework gives it. */
export const describeResource = (name: string) => ({ name, description: '', renders: ['application/json', 'text/html'], parses: ['application/json'] });
export const RECORD_OPTIONS = describeResource('Video Instance');
/** The names Django REST framework gives the list views. */
export const LIST_TITLES: Record<ListName, string> = { video: 'Video List', category: 'Category List', speaker: 'Speaker List' };

/** An error body as Django REST framework writes it: `{"detail": "..."}`. */
export const detailJson = (message: string) => `{"detail": ${inertJson(message)}}`;
/** Django REST framework's NotFound, with its full stop: the default detail its exception handler gives Django's Http404. */
export const NOT_FOUND = detailJson('Not found.');
export const INVALID_PAGE = detailJson('Invalid page.');
/** Headers of the API's JSON answers that are not a record (errors, OPTIONS). */
export const API_JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': API_CACHE, 'X-Content-Type-Options': 'nosniff' };
