// The server: the output folder over HTTP with the headers of the manifest
// (headers.ts). Files up to 1 MiB are answered from memory, checked against
// the disk on every request; bigger ones are streamed, and their byte ranges
// sent by sirv. This module decides what may be sent and with which headers,
// because sirv alone answers every method, sends extensionless files without a
// Content-Type and 304s without headers, throws on bad ranges, and reads a file
// by name after it has announced the length of whatever had that name before.
import { open, readFile, realpath, type FileHandle } from 'node:fs/promises';
import { existsSync, statSync, type Stats } from 'node:fs';
import { createServer, ServerResponse, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { lookup as mimeLookup } from 'mrmime';
import sirv from 'sirv';
import {
  API_JSON_HEADERS,
  categoryFile,
  COMPRESSED_KINDS,
  BYTES,
  describeResource,
  detailJson,
  ENCODINGS,
  notModified,
  etagHasher,
  etagOf,
  HEADERS,
  HOST_FILES,
  ID_PATTERN,
  INVALID_PAGE,
  isCopyName,
  kindOf,
  LIST_TITLES,
  listFile,
  MIN_COMPRESS_BYTES,
  NOT_FOUND,
  READ_ALLOW,
  RECORD_ALLOW,
  recordFile,
  SLUG_PATTERN,
  type FileKind,
  type ListName,
  type PageName,
} from './headers.ts';
import { sitePathOf } from './base-path.ts';
import { authority } from './cli.ts';
import { contains } from './paths.ts';
import { inertJson } from './record.ts';

const RECORD_PATH = /^\/api\/v2\/video\/([^/]+)\/?$/;
const LIST_PATH = /^\/api\/v2\/(video|category|speaker)\/?$/;
const CATEGORY_PATH = /^\/api\/v2\/category\/([^/]+)\/?$/;
const CANONICAL_ID = new RegExp(`^${ID_PATTERN}$`);
const SLUG = new RegExp(`^${SLUG_PATTERN}$`);

/** Whether a path names a hidden file or folder, or goes through one: any of its segments starts with a dot (`..` too). */
const isHidden = (p: string) => p.split(/[/\\]/).some((seg) => seg.startsWith('.'));

/**
 * The request path, percent-decoded, or null when it could reach outside the
 * served folder or name a hidden file: `..`, dot segments, encoded slashes or
 * backslashes, NUL and other control characters.
 */
export function safePath(rawUrl: string | undefined): string | null {
  if (!rawUrl) return null;
  let raw = rawUrl;
  if (!raw.startsWith('/')) {
    if (!/^https?:\/\//i.test(raw)) return null;
    try {
      raw = new URL(raw).pathname;
    } catch {
      return null;
    }
  }
  const end = raw.search(/[?#]/);
  const encoded = end === -1 ? raw : raw.slice(0, end);
  if (/%(2f|5c|00)/i.test(encoded) || encoded.includes('\\')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (/[\u0000-\u001f\u007f\\%]/.test(decoded)) return null;
  const collapsed = decoded.replace(/\/{2,}/g, '/');
  return isHidden(collapsed) ? null : collapsed;
}

function encodePath(decoded: string): string {
  return decoded.split('/').map(encodeURIComponent).join('/');
}

function queryOf(rawUrl: string): string {
  // Browsers never send a fragment; one sent anyway ends the query, as it ends the path (safePath).
  const end = rawUrl.indexOf('#');
  const target = end === -1 ? rawUrl : rawUrl.slice(0, end);
  const q = target.indexOf('?');
  return q === -1 ? '' : target.slice(q);
}

/** A Host value as RFC 3986 writes a host and port: an IP literal in brackets, or a name of its characters (empty where the target has no host). */
const HOST = /^(?:\[[\w.:%!$&'()*+,;=~-]+\]|[\w.%!$&'()*+,;=~-]*)(?::\d*)?$/;

/**
 * Whether the request names at most one host, and one that is a host, as RFC 9112 (3.2) requires, or it is 400.
 * A proxy in front that read the other of two Host lines sent us a request for another site than it thinks;
 * nginx and Caddy refuse both, and Node only a request with none.
 */
export function validHost(hosts: readonly string[] | undefined): boolean {
  return hosts === undefined || (hosts.length === 1 && HOST.test(hosts[0]!));
}

/** A request's Host lines as written, undefined for none: read off its raw headers, where Node's headersDistinct copies every header on each request. */
function hostLines(raw: readonly string[]): string[] | undefined {
  let hosts: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') (hosts ??= []).push(raw[i + 1]!);
  return hosts;
}

/** The bytes from `start` to `end`, both included. */
type ByteRange = { start: number; end: number };

/**
 * The byte range a Range header asks of a file of `size` bytes, with its end
 * within the file; 'unsatisfiable' when it starts past the end. Undefined for
 * anything but one `bytes=first-[last]` or `bytes=-count` range: that is ignored, as RFC 9110 allows.
 */
export function byteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  // The last N bytes (a log's tail, a media file's index at its end): none of a file that has none.
  const suffix = /^bytes=-(\d{1,15})$/.exec(header.trim());
  if (suffix) return Number(suffix[1]) === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - Number(suffix[1])), end: size - 1 };
  const m = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim());
  if (!m) return undefined;
  const start = Number(m[1]);
  const last = m[2] === '' ? Infinity : Number(m[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/**
 * The precompressed encodings an Accept-Encoding header allows, best first:
 * by q-value, then br before gzip. `q=0` refuses; a malformed q-value counts as a refusal.
 */
export function acceptedEncodings(header: string | undefined): (typeof ENCODINGS)[number][] {
  if (!header) return [];
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.split(';');
    const name = token.trim().toLowerCase();
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*(.*?)\s*$/i.exec(param);
      if (m) q = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(m[1]!) ? Number(m[1]) : 0;
    }
    weights.set(name, q);
  }
  const star = weights.get('*') ?? 0;
  return ENCODINGS.map((encoding) => ({ encoding, q: weights.get(encoding.name) ?? star }))
    .filter((e) => e.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((e) => e.encoding);
}

/** The Content-Type of a file the manifest does not type itself; text gets its charset, unknown names are bytes. */
export function contentTypeOf(rel: string): string {
  const type = mimeLookup(rel);
  if (!type) return BYTES;
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

/** Precompressed copies and host configuration are in the folder but are not the site's own files. */
function isServedName(rel: string): boolean {
  return !isCopyName(rel) && !(HOST_FILES as readonly string[]).includes(rel);
}

/** What an API path addresses. */
interface ApiTarget {
  /** The resource's name in OPTIONS' description. */
  name: string;
  allow: string;
  /**
   * The file that answers GET, or null when the path or its query can name none: 404 to every method,
   * but for a list's page (`paged`), which only GET and HEAD read.
   */
  file: string | null;
  /** A list: Django REST framework reads `?page=` in list() alone, so OPTIONS and writes answer whatever it says. */
  paged?: boolean;
  /** The 404 body when there is no such file. */
  missing: string;
  /** On a record's path: the record's id, which writes go to. */
  id?: string;
}

/** White space as Python's int() strips it around a number (str.isspace). */
const PYTHON_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*';
/** A page number as Python's int() reads one (white space around it, a plus sign), of at most 15 digits, leading zeros counted. */
const PAGE_NUMBER = new RegExp(`^${PYTHON_SPACE}\\+?(?=[0-9]{1,15}${PYTHON_SPACE}$)0*([1-9][0-9]*)${PYTHON_SPACE}$`);

/**
 * The page a list's query asks for: Django's `page` (its last value wins), 1 when absent,
 * `last` as Django REST framework reads it, a number as Django's paginator reads it (Python's
 * int(): `?page=+2`, whose `+` is a space, is page 2; digits of other scripts and underscores
 * between digits, which int() also takes, are not read), and null for anything else, an empty
 * `?page=` too (Django keeps a blank value, which int() refuses: "Invalid page."). `format`
 * and any other parameter are ignored.
 */
export function pageParam(query: string): PageName | null {
  const text = new URLSearchParams(query).getAll('page').at(-1);
  if (text === undefined) return 1;
  if (text === 'last') return 'last';
  const number = PAGE_NUMBER.exec(text);
  return number ? Number(number[1]) : null;
}

/** Resolves a path under /api/v2/ (and its query) to what it addresses; undefined for anything else there. */
export function apiTarget(pathname: string, query: string): ApiTarget | undefined {
  const record = RECORD_PATH.exec(pathname);
  if (record) {
    const id = record[1]!;
    const canonical = CANONICAL_ID.test(id);
    return { name: 'Video Instance', allow: RECORD_ALLOW, file: canonical ? recordFile(id) : null, missing: NOT_FOUND, ...(canonical ? { id } : {}) };
  }
  const list = LIST_PATH.exec(pathname);
  if (list) {
    const name = list[1] as ListName;
    const page = pageParam(query);
    return { name: LIST_TITLES[name], allow: READ_ALLOW, file: page === null ? null : listFile(name, page), missing: INVALID_PAGE, paged: true };
  }
  const category = CATEGORY_PATH.exec(pathname);
  if (category) {
    const slug = category[1]!;
    return { name: 'Category Instance', allow: READ_ALLOW, file: SLUG.test(slug) ? categoryFile(slug) : null, missing: NOT_FOUND };
  }
  return undefined;
}

/**
 * One common-log-like line: client, time, request (`-` for one Node's parser refused), status, body bytes,
 * milliseconds. Quotes and control bytes are escaped so a request cannot forge lines.
 */
export function accessLine(entry: {
  remote: string;
  time: Date;
  request?: { method: string; url: string; httpVersion: string };
  status: number;
  bytes: number;
  ms: number;
  aborted: boolean;
}): string {
  const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\uffff"\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const { request } = entry;
  const line = request ? `${clean(request.method)} ${clean(request.url)} HTTP/${clean(request.httpVersion)}` : '-';
  return `${entry.remote} - - [${entry.time.toISOString()}] "${line}" ${entry.status} ${entry.bytes} ${entry.ms.toFixed(1)}ms${entry.aborted ? ' aborted' : ''}`;
}

/** The access log's line for a response that has closed, finished or cut off. */
function responseLine(req: IncomingMessage, res: ServerResponse, remote: string, started: number): string {
  const status = res.statusCode;
  const bodyless = req.method === 'HEAD' || status === 204 || status === 304;
  return accessLine({
    remote,
    time: new Date(),
    request: { method: req.method ?? '-', url: req.url ?? '-', httpVersion: req.httpVersion },
    status,
    bytes: bodyless ? 0 : (bodyBytes.get(res) ?? Number(res.getHeader('content-length') ?? 0)),
    ms: performance.now() - started,
    aborted: !res.writableFinished,
  });
}

/** What Node answers a request its parser refuses or one too late (its socketOnError), by the error's code; anything else it refuses is 400. */
const REFUSED_STATUS: Readonly<Record<string, number>> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/** A file as the cache knows it: the stat that identifies its bytes, their ETag, and the bytes when they are small enough to keep. */
interface CachedFile {
  size: number;
  mtimeMs: number;
  ino: number;
  etag: string;
  lastModified: string;
  /**
   * Another version of the file that this cache saw had its Last-Modified too (two written in one second, a write
   * through the API and the next): the date names neither, as a client that holds it may hold either.
   */
  sharedDate?: boolean;
  body?: Buffer;
  /** The headers of its 200, made on first use (a path always has the same kind and encoding). */
  headers?: string[];
  /**
   * Its body compressed as it was first asked for in each encoding, when no copy was beside it: kept with it, and gone
   * with it; null where that came out no smaller (an image, a font: compressed already), so that it is sent as it is.
   */
  encoded?: Partial<Record<Encoding['name'], CachedFile | null>>;
}

type Encoding = (typeof ENCODINGS)[number];

export interface CacheLimits {
  /** Files up to this size are kept in memory (default 1 MiB). */
  maxFileBytes?: number;
  /** All kept bodies together (default 128 MiB); the least recently used go first. */
  maxTotalBytes?: number;
}

const sameFile = (file: CachedFile, stats: Stats) => file.size === stats.size && file.mtimeMs === stats.mtimeMs && file.ino === stats.ino;
/**
 * Whether If-Range's validator still names the file, so that the range asked for is of these bytes: its
 * ETag, or its Last-Modified date once that is a strong validator, a second or more past (RFC 9110 §8.8.2.2).
 */
const stillSame = (validator: string | string[], file: CachedFile) => validator === file.etag || (validator === dateOf(file) && Date.now() - file.mtimeMs >= 1000);
/** The date that names `file`'s bytes, for If-Modified-Since and If-Range: none where it named another version too (see sharedDate). */
const dateOf = (file: CachedFile) => (file.sharedDate ? undefined : file.lastModified);
/** What an entry costs besides its body, so that entries without one are bounded too. */
const ENTRY_COST = 256;
/** How long a lookup waits for the output to be back while a build swaps it (see lookup): the swap is two renames. */
const SWAP_WAIT_MS = 1000;
/** Looks for a file a swap may have hidden: builds come seconds apart, so a look that two swaps both fall in is rare enough. */
const SWAP_TRIES = 3;

function statNow(abs: string): Stats | undefined {
  try {
    return statSync(abs, { throwIfNoEntry: false });
  } catch {
    // ENOTDIR and the like: a path through a file is a missing file.
    return undefined;
  }
}

/**
 * What `read` makes of the regular file at `abs` and its stat, through one descriptor, so that both are of the
 * same file even if a rename replaces it meanwhile; undefined when there is none.
 */
async function readRegular<T>(abs: string, read: (handle: FileHandle, stats: Stats) => Promise<T>): Promise<T | undefined> {
  let handle;
  try {
    handle = await open(abs, 'r');
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat();
    return stats.isFile() ? await read(handle, stats) : undefined;
  } finally {
    await handle.close();
  }
}

/** A regular file's bytes and stat (see readRegular); undefined when there is none. */
export const readWithStats = (abs: string): Promise<{ bytes: Buffer; stats: Stats } | undefined> =>
  readRegular(abs, async (handle, stats) => ({ bytes: await handle.readFile(), stats }));

/** How much of a file too big to keep is read at a time, to hash it. */
const READ_PART_BYTES = 1024 * 1024;

/**
 * A file's ETag and length as read, with its bytes when its stat says they are `maxBody` or fewer. A bigger one
 * is hashed as it is read, never held whole: it is streamed when sent, and Node reads no file of 2 GiB or more whole.
 */
async function readVersion(handle: FileHandle, stats: Stats, maxBody: number): Promise<{ stats: Stats; etag: string; size: number; bytes?: Buffer }> {
  if (stats.size <= maxBody) {
    const bytes = await handle.readFile();
    return { stats, etag: etagOf(bytes), size: bytes.byteLength, bytes };
  }
  const hasher = etagHasher();
  const part = Buffer.allocUnsafe(READ_PART_BYTES);
  let size = 0;
  for (let read; (read = (await handle.read(part, 0, part.byteLength, null)).bytesRead) > 0; size += read) hasher.update(part.subarray(0, read));
  return { stats, etag: hasher.etag(), size };
}

/**
 * Whether the file at `abs` is inside `root` once symbolic links are followed, and no hidden file there. The build
 * writes no link, and one put into the output by hand may lead anywhere (`dist/passwd -> /etc/passwd`, `dist/env ->
 * .env`): the server sends nothing from outside its folder, nor what safePath keeps from being asked for by name.
 * Checked whenever a file is read into the cache, which a link put in a file's place is (another file), and again
 * for a file replaced between its lookup and its sending.
 */
async function inside(abs: string, root: string): Promise<boolean> {
  try {
    const [real, realRoot] = await Promise.all([realpath(abs), realpath(root)]);
    return real !== realRoot && contains(realRoot, real) && !isHidden(path.relative(realRoot, real));
  } catch {
    return false;
  }
}

/**
 * Files by absolute path, each checked on every use with a synchronous stat:
 * builds replace files by renaming new ones in (or swap the whole folder), so
 * size, mtime and inode change with every rewrite and a stale entry is never sent.
 */
export class FileCache {
  private readonly maxFile: number;
  private readonly maxTotal: number;
  /** The files kept, the least recently used first. */
  private readonly entries = new Map<string, CachedFile>();
  /** The reads under way, by the version of the file they read (see get). */
  private readonly loading = new Map<string, Promise<CachedFile | undefined>>();
  /** What the files kept cost together (see costOf). */
  private total = 0;

  constructor(limits: CacheLimits = {}, private readonly root?: string) {
    this.maxFile = limits.maxFileBytes ?? 1024 * 1024;
    this.maxTotal = limits.maxTotalBytes ?? 128 * 1024 * 1024;
  }

  /** The file as it is now, or undefined when there is no regular file at `abs`. */
  async get(abs: string): Promise<CachedFile | undefined> {
    const stats = statNow(abs);
    if (!stats?.isFile()) {
      this.drop(abs);
      return undefined;
    }
    const hit = this.entries.get(abs);
    if (hit && sameFile(hit, stats)) {
      // Last in the order again: the least recently used go first (see trim).
      this.entries.delete(abs);
      this.entries.set(abs, hit);
      return hit;
    }
    // Requests for the same version of a file share one read; a newer version gets a read of its own.
    const key = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${abs}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(abs).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /**
   * `file` (as `get` gave it for `abs`) in `encoding`, compressed on first use and kept with it; undefined when it
   * is too small to gain, too big to be held in memory, or came out no smaller (remembered: it is not compressed again).
   */
  encoded(abs: string, file: CachedFile, encoding: Encoding): CachedFile | undefined {
    if (!file.body || file.size < MIN_COMPRESS_BYTES) return undefined;
    const done = file.encoded?.[encoding.name];
    if (done !== undefined) return done ?? undefined;
    const body = ownMemory(encoding.encode(file.body));
    const variant: CachedFile | null = body.byteLength < file.size ? { size: body.byteLength, mtimeMs: file.mtimeMs, ino: file.ino, etag: etagOf(body), lastModified: file.lastModified, sharedDate: file.sharedDate, body } : null;
    (file.encoded ??= {})[encoding.name] = variant;
    // Counted only while the file is kept: one read for a single response is not.
    if (variant && this.entries.get(abs) === file) {
      this.total += variant.size;
      this.trim();
    }
    return variant ?? undefined;
  }

  /** Bytes held in memory, entries' overhead included. */
  size(): number {
    return this.total;
  }

  /** Reads the file at `abs`, and keeps it unless it changed while it was read. */
  private async load(abs: string): Promise<CachedFile | undefined> {
    // Beside the read, not before it: a build's swap that comes in the middle of a lookup has less time to fall in it.
    const [read, allowed] = await Promise.all([readRegular(abs, (handle, stats) => readVersion(handle, stats, this.maxFile)), this.root === undefined || inside(abs, this.root)]);
    if (!read || !allowed) return undefined;
    const { stats, etag, size, bytes } = read;
    const file: CachedFile = { size, mtimeMs: stats.mtimeMs, ino: stats.ino, etag, lastModified: stats.mtime.toUTCString() };
    if (bytes && bytes.byteLength <= this.maxFile) file.body = bytes;
    // A file written in place while we read it: serve what we read, remember nothing.
    if (size === stats.size) this.keep(abs, file);
    return file;
  }

  /** Keeps `file` as the most recently used, in place of what was kept for `abs`. */
  private keep(abs: string, file: CachedFile): void {
    const old = this.entries.get(abs);
    if (old?.lastModified === file.lastModified && (old.etag !== file.etag || old.sharedDate)) file.sharedDate = true;
    this.drop(abs);
    this.entries.set(abs, file);
    this.total += costOf(file);
    this.trim();
  }

  private drop(abs: string): void {
    const old = this.entries.get(abs);
    if (!old) return;
    this.entries.delete(abs);
    this.total -= costOf(old);
  }

  /** Lets the least recently used files go until the rest are within the limit. */
  private trim(): void {
    for (const [oldest] of this.entries) {
      if (this.total <= this.maxTotal) break;
      this.drop(oldest);
    }
  }
}

/**
 * `bytes` in memory of their own. zlib's synchronous calls answer with a view of their 16 KiB output chunk (or of
 * Node's shared pool), so a page compressed to 2 KB, kept as it came, would hold eight times what the cache counts.
 */
function ownMemory(bytes: Buffer): Buffer {
  return bytes.buffer.byteLength === bytes.byteLength ? bytes : Buffer.from(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** What keeping `file` costs: its body, the compressed ones kept with it, and the entry itself. */
function costOf(file: CachedFile): number {
  let bytes = (file.body?.byteLength ?? 0) + ENTRY_COST;
  for (const variant of Object.values(file.encoded ?? {})) bytes += variant?.size ?? 0;
  return bytes;
}

/**
 * Ends the response with its source: a file deleted between lookup and open ends
 * this response, not the process; a client gone does not leave the file open; and
 * a file cut short while it is read (written in place) closes the connection, or
 * the client would read the next response as the rest of this one.
 */
function guardStream(res: ServerResponse, source: Readable, announced: () => number): void {
  let sent = 0;
  source.on('data', (chunk: Buffer) => (sent += chunk.length));
  source.once('end', () => {
    if (sent !== announced()) res.destroy();
  });
  source.once('error', () => res.destroy());
  res.once('close', () => source.destroy());
}

/** A body no answer reads that Node may read to its end, to keep the connection for the requests pipelined after it. */
const BODY_READ_TO_KEEP = 64 * 1024;

/**
 * Closes the connection after the answer to a request whose body is still coming, unless it is small. No answer
 * reads a body but a write's (writes.ts), and Node would read the rest to its end to keep the connection: a
 * gigabyte PUT refused with 401, whole.
 */
function closeIfBodyComing(res: ServerResponse): void {
  const { req } = res;
  const length = req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length'] ?? 0) : Infinity;
  if (!req.complete && length > BODY_READ_TO_KEEP) res.shouldKeepAlive = false;
}

/** Body bytes of each response, for the access log: headers given to writeHead as a list cannot be read back. */
const bodyBytes = new WeakMap<ServerResponse, number>();

/**
 * Sends a whole response. Headers go as a flat list of names and values, never
 * through setHeader: Node writes a list in a fraction of the time an object takes
 * (a record answered from memory costs about a third less CPU).
 */
function send(res: ServerResponse, status: number, headers: string[], body?: Buffer | string): void {
  closeIfBodyComing(res);
  res.writeHead(status, headers);
  bodyBytes.set(res, body === undefined ? 0 : Buffer.byteLength(body));
  res.end(body);
}

const flat = (headers: Record<string, string>) => Object.entries(headers).flat();
const NOSNIFF = ['X-Content-Type-Options', 'nosniff'];
/** A 400 without a body, its connection closed after it, as nginx and Caddy close theirs. */
const BAD_REQUEST = ['Connection', 'close', 'Content-Length', '0', ...NOSNIFF];
/** The answer to OPTIONS where there is nothing to describe: the methods taken. */
const allowed = (res: ServerResponse, allow: string) => send(res, 204, ['Allow', allow, ...NOSNIFF]);

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : inertJson(body);
  send(res, status, [...flat(headers), ...flat(API_JSON_HEADERS), 'Content-Length', String(Buffer.byteLength(text))], text);
}

/** A header list less the named headers. */
function without(headers: readonly string[], names: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (!names.has(headers[i]!)) kept.push(headers[i]!, headers[i + 1]!);
  return kept;
}
/** The headers of a 206 of `range` of a file of `size` bytes, whose 200 has `headers`. */
function rangeHeaders(headers: readonly string[], range: ByteRange, size: number): string[] {
  return [...without(headers, LENGTH_AND_RANGES), 'Content-Range', `bytes ${range.start}-${range.end}/${size}`, ...ACCEPT_RANGES, 'Content-Length', String(range.end - range.start + 1)];
}
/** What a 304 leaves out (RFC 9110 15.4.5): the description of the body it does not send. */
const BODY_METADATA: ReadonlySet<string> = new Set(['Content-Type', 'Content-Encoding', 'Content-Length', 'Last-Modified']);
const LENGTH: ReadonlySet<string> = new Set(['Content-Length']);
/** A 206 says it once, whether its 200 does (a page's) or not (the API's, as sirv's 206s do too). */
const LENGTH_AND_RANGES: ReadonlySet<string> = new Set(['Content-Length', 'Accept-Ranges']);
const ACCEPT_RANGES = ['Accept-Ranges', 'bytes'];
/** The API's answers: Django REST framework's, which it sends whole whatever the Range, and revalidates anyway. */
const isApi = (kind: FileKind) => kind === 'record' || kind === 'list';
/** What a file renamed in between lookup and open no longer has in common with the looked-up one. */
const REPLACED: ReadonlySet<string> = new Set(['ETag', 'Last-Modified', 'Content-Length']);

/** Sent when the folder has no 404.html (nothing built yet): a page with a body, which the `html` option can add to. */
/** The headers of a page the `html` option rewrites: it differs from the file, so it carries no validator and is not stored. */
const UNSTORED_PAGE = flat({ ...HEADERS.page, 'Cache-Control': 'no-store' });
const FALLBACK_404 = Buffer.from('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1></body></html>');

/** The API's write side (src/writes.ts), as the server hands requests to it. */
export interface WriteHandler {
  /** Answers a PUT, PATCH or OPTIONS on a record's path, its credentials' refusal (see refusal) too. */
  handle(req: IncomingMessage, res: ServerResponse, id: string): Promise<void>;
  /** The answer to a request whose credentials are given but wrong; undefined for one without any, or with good ones. */
  refusal(req: IncomingMessage): { status: number; body: string; headers?: Record<string, string> } | undefined;
}

interface ServerOptions {
  /** The folder to serve: a build's output. */
  dir: string;
  /**
   * The folder of the host the site was built for (base-path.ts): its files are served under it, as the host
   * serves them, and `/` is sent on to it. '' or absent at the root.
   */
  basePath?: string;
  /** Rewrites every HTML page before it is sent (the dev server adds its live-reload script). */
  html?: (page: string) => string;
  /**
   * Files are sent with `Cache-Control: no-cache`, so that a browser asks again (with its ETag, for a
   * 304) before it uses what it has: the dev server's files change under the open page. Pagefind's
   * chunks, named by their content, stay immutable.
   */
  revalidate?: boolean;
  /** Answers requests of its own before the files are looked at; returns false to pass. */
  routes?: (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;
  /**
   * Takes PUT, PATCH and OPTIONS on a record's path (canonical ids only) and answers them, and refuses
   * any request to the API whose credentials are wrong. Without it, OPTIONS describes the record and PUT
   * and PATCH are 401.
   */
  writes?: WriteHandler;
  /** Limits of the in-memory body cache. */
  cache?: CacheLimits;
  /** No access log. */
  quiet?: boolean;
  /** Where access log lines go, one call per request (default: a line each on stdout). */
  log?: (line: string) => void;
  /** Connections beyond this many are closed as soon as they open (default 1024). */
  maxConnections?: number;
  /** How long close() lets requests in flight run before it closes their connections (default 10 s). A write whose body has come always finishes. */
  drainMs?: number;
}

/** The output folder as requests look into it: through the cache, and across a build's swap of the whole folder (see lookup). */
class OutputFolder {
  /**
   * The folder is gone rather than being swapped: it was not there when the server started (the dev server's, before its
   * first build), or still not after a whole wait. Lookups then miss at once, until something is found in it again: a
   * wait each would hold a page's every request a second or more (the dev server's error page, when nothing is built).
   */
  private gone: boolean;

  constructor(readonly root: string, readonly cache: FileCache) {
    this.gone = !existsSync(root);
  }

  /**
   * The file at `abs`, as the cache has it. A build that replaces the whole output renames the old
   * one aside and then the new one in: a lookup that falls between the two waits for the new one,
   * rather than answering 404 for a file that is there before and after. So does one whose look
   * (a stat, then an open) the swap came in the middle of, which finds the new folder in place.
   */
  lookup(abs: string): Promise<CachedFile | undefined> {
    return this.acrossSwaps(() => this.cache.get(abs));
  }

  /** The regular file at `abs`, opened, with its stat; looked for across a swap, as lookup does. */
  openFile(abs: string): Promise<{ handle: FileHandle; stats: Stats } | undefined> {
    return this.acrossSwaps(async () => {
      const handle = await open(abs, 'r').catch(() => undefined);
      const stats = await handle?.stat().catch(() => undefined);
      if (handle && stats?.isFile()) return { handle, stats };
      await handle?.close();
      return undefined;
    });
  }

  /** True when the file at `abs` is inside the folder (see inside); looked at across a swap. */
  holds(abs: string): Promise<true | undefined> {
    return this.acrossSwaps(async () => (await inside(abs, this.root)) || undefined);
  }

  /**
   * What `attempt` finds in the output folder. A miss is tried again once the folder is there (a swap
   * may have taken it away in the middle), until an attempt misses in a folder that stayed the same:
   * a hit costs nothing more, a file that is not there one more look, a folder gone for good one wait (see gone).
   */
  private async acrossSwaps<T>(attempt: () => Promise<T | undefined>): Promise<T | undefined> {
    let found = await attempt();
    if (found !== undefined) this.gone = false;
    for (let tries = 1; found === undefined && tries < SWAP_TRIES; tries++) {
      for (let waited = 0; waited < SWAP_WAIT_MS && !this.gone && !existsSync(this.root); waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      const folder = this.folderNow();
      this.gone = folder === undefined;
      if (folder === undefined) return undefined;
      found = await attempt();
      if (found === undefined && this.folderNow() === folder) return undefined;
    }
    return found;
  }

  /** The output folder as it is now: a rename changes its ctime, so one swapped away and back is another. */
  private folderNow(): string | undefined {
    const stats = statNow(this.root);
    return stats && `${stats.ino}:${stats.ctimeMs}`;
  }
}

/**
 * Sends the output folder's files with the headers of the manifest: from memory when they are small,
 * compressed when the client takes it, a range when it asks for one; and the 404 page.
 */
class FileSender {
  private readonly sirvSend: ReturnType<typeof sirv>;

  constructor(private readonly folder: OutputFolder, private readonly options: Pick<ServerOptions, 'html' | 'revalidate'>) {
    // dev mode: sirv looks each file up per request, so it follows rebuilds too.
    this.sirvSend = sirv(folder.root, { dev: true, etag: true, dotfiles: false, extensions: [] });
  }

  /** Sends `rel` if it is there (false if not): from memory when it is small, compressed when the client takes it (from the build's copy, if there is one). */
  async serve(req: IncomingMessage, res: ServerResponse, rel: string, onGone: () => void): Promise<boolean> {
    const { root, cache } = this.folder;
    const abs = path.join(root, rel);
    const identity = await this.folder.lookup(abs);
    if (!identity) return false;
    const kind = kindOf(rel);
    if (kind === 'page' && this.options.html) {
      this.sendPage(req, res, 200, UNSTORED_PAGE, identity.body ?? (await readFile(abs)));
      return true;
    }
    const range = rangeAsked(req, kind, identity);
    let file = identity;
    let fileRel = rel;
    let encoding: string | undefined;
    if (range === undefined && COMPRESSED_KINDS.has(kind)) {
      for (const accepted of acceptedEncodings(req.headers['accept-encoding'])) {
        const copy = (await this.copyOf(abs, identity, accepted)) ?? cache.encoded(abs, identity, accepted);
        if (!copy) continue;
        file = copy;
        fileRel = rel + accepted.suffix;
        encoding = accepted.name;
        break;
      }
    }
    const headers = (file.headers ??= this.okHeaders(file, kind, rel, encoding));
    const streaming = this.answer(req, res, file, fileRel, headers, range, onGone);
    // Awaited only when there is something to wait for: an answer from memory takes no turn more.
    if (streaming) await streaming;
    return true;
  }

  /**
   * The build's copy of `file` in `encoding`, unless it is older than the file: a build writes a copy after its file,
   * so an older one was made of other bytes (a page edited by hand, or a patch caught between its file's rename and its copies').
   */
  private async copyOf(abs: string, file: CachedFile, encoding: Encoding): Promise<CachedFile | undefined> {
    const copy = await this.folder.cache.get(abs + encoding.suffix);
    return copy && copy.mtimeMs >= file.mtimeMs ? copy : undefined;
  }

  /** Sends the folder's 404.html, or a page of our own when there is none. */
  async notFound(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abs = path.join(this.folder.root, '404.html');
    const page = await this.folder.lookup(abs);
    const body = page ? (page.body ?? (await readFile(abs).catch(() => FALLBACK_404))) : FALLBACK_404;
    this.sendPage(req, res, 404, flat(HEADERS.page), body);
  }

  /** Sends a page, as the `html` option rewrites it. */
  private sendPage(req: IncomingMessage, res: ServerResponse, status: number, headers: string[], page: Buffer): void {
    const body = this.options.html ? Buffer.from(this.options.html(page.toString('utf8'))) : page;
    send(res, status, [...headers, 'Content-Length', String(body.byteLength)], req.method === 'HEAD' ? undefined : body);
  }

  /** The headers of a 200 for `file`, found at `rel` (and sent with `encoding`). */
  private okHeaders(file: CachedFile, kind: FileKind, rel: string, encoding: string | undefined): string[] {
    // The dev server has the browser ask again for what it would keep a while (not Pagefind's chunks, named by their content); the API's answers are asked for again anyway, and keep their no-transform.
    const revalidated = this.options.revalidate && kind !== 'immutable' && !isApi(kind);
    const headers = flat(revalidated ? { ...HEADERS[kind], 'Cache-Control': 'no-cache' } : HEADERS[kind]);
    if (!HEADERS[kind]['Content-Type']) headers.push('Content-Type', contentTypeOf(rel));
    if (encoding) headers.push('Content-Encoding', encoding);
    // Ranges are of the file as it is (a compressed body is sent whole), and the API's answers are always whole.
    else if (!isApi(kind)) headers.push(...ACCEPT_RANGES);
    headers.push('ETag', file.etag, 'Last-Modified', file.lastModified, 'Content-Length', String(file.size));
    return headers;
  }

  /**
   * Answers with `file`, found at `fileRel`, whose 200 has `headers`: 304 when the client has it, 416 or 206
   * for a range, else the whole of it. Returns a promise only while it streams the file.
   */
  private answer(req: IncomingMessage, res: ServerResponse, file: CachedFile, fileRel: string, headers: string[], range: ByteRange | 'unsatisfiable' | undefined, onGone: () => void): Promise<void> | undefined {
    const head = req.method === 'HEAD';
    if (notModified(req.headers['if-none-match'], req.headers['if-modified-since'], file.etag, dateOf(file))) {
      send(res, 304, without(headers, BODY_METADATA));
    } else if (range === 'unsatisfiable') {
      send(res, 416, [...without(headers, LENGTH), 'Content-Range', `bytes */${file.size}`, 'Content-Length', '0']);
    } else if (range && file.body) {
      send(res, 206, rangeHeaders(headers, range, file.size), file.body.subarray(range.start, range.end + 1));
    } else if (range && range.end > 0) {
      this.rangeWithSirv(req, res, fileRel, headers, range, onGone);
    } else if (range) {
      // sirv reads a last byte of 0 as "to the end", so the first byte alone (a client's probe for ranges) is sent here.
      return this.streamFile(res, path.join(this.folder.root, fileRel), file, headers, onGone, range);
    } else if (head || file.body) {
      send(res, 200, headers, head ? undefined : file.body);
    } else {
      return this.streamFile(res, path.join(this.folder.root, fileRel), file, headers, onGone);
    }
    return undefined;
  }

  /**
   * Hands a range of a file too big to keep to sirv, with our headers already set.
   * The range is given closed (`first-last`), so sirv never reads past what it announces.
   */
  private rangeWithSirv(req: IncomingMessage, res: ServerResponse, rel: string, headers: string[], range: ByteRange, onGone: () => void): void {
    closeIfBodyComing(res);
    const ours = without(headers, LENGTH);
    for (let i = 0; i < ours.length; i += 2) res.setHeader(ours[i]!, ours[i + 1]!);
    req.headers.range = `bytes=${range.start}-${range.end}`;
    delete req.headers['if-none-match'];
    req.url = encodePath(`/${rel}`);
    res.once('pipe', (source: Readable) => guardStream(res, source, () => Number(res.getHeader('content-length'))));
    this.sirvSend(req, res, onGone);
  }

  /**
   * Streams a file too big to keep, or `range` of it, through one descriptor: the length sent is
   * that of the file opened, whatever is renamed over its name meanwhile.
   * (sirv stats the name and opens it later, and would send a bigger file's bytes after a smaller one's length.)
   */
  private async streamFile(res: ServerResponse, abs: string, expected: CachedFile, headers: string[], onGone: () => void, range?: ByteRange): Promise<void> {
    const opened = await this.folder.openFile(abs);
    if (!opened) return onGone();
    const { handle, stats } = opened;
    const same = sameFile(expected, stats);
    // Looked at across a swap, as the file was: one that comes in the middle takes the folder away for a moment.
    if (!same && !(await this.folder.holds(abs))) {
      await handle.close();
      return onGone();
    }
    // Replaced since it was looked up: the ETag names other bytes, the length is this file's, and a range of the old one is no range of it.
    const sent = same ? headers : [...without(headers, REPLACED), 'Last-Modified', stats.mtime.toUTCString(), 'Content-Length', String(stats.size)];
    if (stats.size === 0) {
      await handle.close();
      return send(res, 200, sent);
    }
    const { start, end } = same && range ? range : { start: 0, end: stats.size - 1 };
    closeIfBodyComing(res);
    if (same && range) res.writeHead(206, rangeHeaders(headers, range, stats.size));
    else res.writeHead(200, sent);
    bodyBytes.set(res, end - start + 1);
    const source = handle.createReadStream({ start, end });
    guardStream(res, source, () => end - start + 1);
    source.pipe(res);
  }
}

/** The range the request asks of `file`, if it is to have one: a HEAD, the API's answers, and a stale If-Range have none. */
function rangeAsked(req: IncomingMessage, kind: FileKind, file: CachedFile): ByteRange | 'unsatisfiable' | undefined {
  const ifRange = req.headers['if-range'];
  // A 206's Content-Range is no header of the contract.
  const ranged = req.method !== 'HEAD' && !isApi(kind) && (ifRange === undefined || stillSame(ifRange, file));
  return ranged ? byteRange(req.headers.range, file.size) : undefined;
}

/**
 * What the server answers each request with: a page or file of the output folder, the API's answers from
 * its files, or what the `routes` and `writes` options make of it.
 */
class Handler {
  private readonly folder: OutputFolder;
  private readonly files: FileSender;
  /** The writes handed to `options.writes` that have not finished yet. */
  private readonly writes = new Set<Promise<void>>();
  /**
   * The PUT or PATCH each connection is running. Only safe requests may be answered side by side (RFC 9112 9.3.2):
   * one pipelined after a write on its connection waits for it, so that a GET sees what the write made.
   */
  private readonly writing = new WeakMap<Socket, Promise<void>>();

  constructor(private readonly options: ServerOptions) {
    const root = path.resolve(options.dir);
    this.folder = new OutputFolder(root, new FileCache(options.cache, root));
    this.files = new FileSender(this.folder, options);
  }

  private get base(): string {
    return this.options.basePath ?? '';
  }

  /**
   * Sends a request for the base path without its slash to the site's home page, as GitHub Pages does (301), and one
   * for the host's root there too, as a preview of a site built for a folder does (Vite's, which Astro's is: 302, as
   * at the host itself `/` is another site's).
   */
  private toSite(req: IncomingMessage, res: ServerResponse, requested: string): void {
    const status = requested === '/' ? 302 : 301;
    send(res, status, ['Location', `${this.base}/${queryOf(req.url ?? '')}`, 'Content-Length', '0', ...NOSNIFF]);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      // Node's parser stops reading a connection after a request that asks to upgrade it; we never upgrade, so end it instead of leaving it stuck.
      if (req.headers.upgrade !== undefined) res.setHeader('Connection', 'close');
      const before = this.writing.get(req.socket);
      if (before) await before.catch(() => undefined);
      if (!validHost(hostLines(req.rawHeaders))) return send(res, 400, BAD_REQUEST);
      // The asterisk-form asks about the server as a whole (RFC 9110 9.3.7): it takes a record's methods, the most any
      // path takes. No other method may ask it (RFC 9112 3.2.4), which nginx answers 400 too.
      if (req.url === '*') return req.method === 'OPTIONS' ? allowed(res, RECORD_ALLOW) : send(res, 400, BAD_REQUEST);
      const requested = safePath(req.url);
      if (requested === null) return await this.files.notFound(req, res);
      const pathname = sitePathOf(this.base, requested);
      if (pathname === null) return requested === '/' || requested === this.base ? this.toSite(req, res, requested) : await this.files.notFound(req, res);
      if (this.options.routes?.(req, res, pathname)) return;
      // Below /api/v2 everything is the API's and answers as it does; /api/ itself is the page explaining it.
      if (pathname === '/api/v2' || pathname.startsWith('/api/v2/')) {
        const target = apiTarget(pathname, queryOf(req.url ?? ''));
        return target ? await this.serveApi(req, res, target) : sendJson(res, 404, NOT_FOUND);
      }
      return await this.servePage(req, res, pathname);
    } catch {
      if (!res.headersSent) sendJson(res, 500, detailJson('Internal server error.'));
      else res.destroy();
    }
  }

  /**
   * The ETag a GET of this file would carry now, e.g. `currentEtag('api/v2/video/12')`;
   * undefined when there is no such file. It is `etagOf` of the file's bytes.
   */
  async currentEtag(rel: string): Promise<string | undefined> {
    return isServedName(rel) && safePath(`/${rel}`) === `/${rel}` ? (await this.folder.lookup(path.join(this.folder.root, rel)))?.etag : undefined;
  }

  /** Resolves when every write handed to `writes` so far has finished. */
  async writesSettled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  private async serveApi(req: IncomingMessage, res: ServerResponse, target: ApiTarget): Promise<void> {
    const headers = { Vary: 'Accept', Allow: target.allow };
    const { file, id } = target;
    const method = req.method;
    // The writes' handler refuses wrong credentials itself, as it refuses a body: the rest of a write's is read before
    // the connection is closed, or a client that sends all of it before it reads (Python's) lost its 401 to the reset.
    if (id !== undefined && this.options.writes && (method === 'PUT' || method === 'PATCH' || method === 'OPTIONS')) {
      const answered = this.options.writes.handle(req, res, id);
      const write = method === 'OPTIONS' ? answered : answered.then(() => this.readWritten(id));
      const { socket } = req;
      this.writes.add(write);
      if (method !== 'OPTIONS') this.writing.set(socket, write);
      return write.finally(() => {
        this.writes.delete(write);
        if (this.writing.get(socket) === write) this.writing.delete(socket);
      });
    }
    // Django REST framework authenticates every request: credentials given but wrong are 401 whatever is asked for.
    const refused = this.options.writes?.refusal(req);
    if (refused) return sendJson(res, refused.status, refused.body, { ...headers, ...refused.headers });
    // A path that names no resource is 404 to every method; a list's unreadable page only to GET and HEAD, which read it.
    if (file === null && !target.paged) return sendJson(res, 404, target.missing, headers);
    switch (method) {
      case 'GET':
      case 'HEAD': {
        const gone = () => sendJson(res, 404, target.missing, headers);
        if (file === null || !(await this.files.serve(req, res, file, gone))) gone();
        return;
      }
      case 'OPTIONS':
        return sendJson(res, 200, describeResource(target.name), headers);
      case 'PUT':
      case 'PATCH':
        if (id !== undefined) return sendJson(res, 401, detailJson('Authentication credentials were not provided.'), { ...headers, 'WWW-Authenticate': 'Token' });
      // falls through: lists accept no writes
      default:
        return sendJson(res, 405, detailJson(`Method "${method}" not allowed.`), headers);
    }
  }

  /**
   * Reads the record a write answered with into the cache, as a GET that sent it would: its client holds its date,
   * which a version written after it within the same second shares (see sharedDate).
   */
  private async readWritten(id: string): Promise<void> {
    await this.folder.cache.get(path.join(this.folder.root, recordFile(id)));
  }

  private async servePage(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method === 'OPTIONS') return allowed(res, READ_ALLOW);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, detailJson(`Method "${req.method}" not allowed.`), { Allow: READ_ALLOW });
    }
    const rel = (pathname.endsWith('/') ? `${pathname}index.html` : pathname).slice(1);
    if (!isServedName(rel)) return this.files.notFound(req, res);
    if (await this.files.serve(req, res, rel, () => void this.files.notFound(req, res))) return;
    if (!pathname.endsWith('/') && (await this.folder.lookup(path.join(this.folder.root, pathname, 'index.html')))) {
      // A folder asked for without its slash: send the client to the canonical URL so relative links work.
      return send(res, 301, ['Location', `${this.base}${encodePath(pathname)}/${queryOf(req.url ?? '')}`, 'Content-Length', '0', ...NOSNIFF]);
    }
    return this.files.notFound(req, res);
  }
}

/** Why the server cannot listen, with what to do about it: Node's own message names neither. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = authority(host, port);
  switch (err.code) {
    case 'EADDRINUSE':
      return new Error(`${where} is already in use (by another server, or one of ours still running); stop it, or pick another port with --port N (--port 0 picks a free one)`);
    case 'EACCES':
      return new Error(`not allowed to listen on ${where} (ports below 1024 need privileges); pick another port with --port N`);
    case 'EADDRNOTAVAIL':
      return new Error(`${host} is not an address of this machine; pick one with --host H (127.0.0.1, or 0.0.0.0 for every address)`);
    case 'ENOTFOUND':
      return new Error(`${host} is a name that resolves to no address; pick one with --host H (127.0.0.1, or 0.0.0.0 for every address)`);
    default:
      return err;
  }
}

/**
 * How much of the access log may wait for a reader of stdout that stopped reading (a log collector that hangs):
 * Node keeps what a pipe has not taken in memory, so without a bound the server's heap grew a line a request.
 */
const LOG_BACKLOG = 4 * 1024 * 1024;

/**
 * Lines for `out`, written once per turn of the event loop: under load one write carries many requests' lines.
 * Past `backlog` bytes not yet taken, lines are counted and dropped; the count is told on stderr when dropping
 * starts, and in the log ahead of the first lines written once it is read again.
 */
export function logLines(out: Writable = process.stdout, backlog = LOG_BACKLOG, warn = (m: string): unknown => process.stderr.write(m)) {
  let pending: string[] = [];
  let dropped = 0;
  const flush = () => {
    if (pending.length === 0) return;
    if (out.writableLength > backlog) {
      if (dropped === 0) warn('stdout is not being read: dropping access log lines until it is\n');
      dropped += pending.length;
    } else {
      if (dropped > 0) pending.unshift(`${dropped} access log lines dropped: stdout was not being read\n`);
      dropped = 0;
      out.write(pending.join(''));
    }
    pending = [];
  };
  return {
    write(line: string) {
      if (pending.length === 0) setImmediate(flush);
      pending.push(`${line}\n`);
    },
    flush,
  };
}

export interface RunningServer {
  server: Server;
  url: string;
  /** The ETag a GET of `rel` (relative to the served folder) would carry now. */
  currentEtag(rel: string): Promise<string | undefined>;
  /**
   * Stops accepting connections, lets requests in flight finish (closing each
   * connection after its response), closes idle keep-alive connections, and
   * resolves once all are done and every write has finished; connections still
   * open after `drainMs` are closed once no write is running.
   */
  close(): Promise<void>;
}

/**
 * The requests a connection may have waiting for their answers. Node hands on every request of a pipeline as it
 * parses it, and stops reading the connection only once answers wait to be sent: a client that sent 200,000
 * requests behind a file being read, and read no answer, held 725 MB of the server's memory, and it is closed.
 */
const MAX_WAITING = 64;

/**
 * One server, from its start to its close: the responses in flight, which its access log and close() follow, and
 * the requests Node's parser hands it apart (refused, CONNECT). startServer listens with it and hands out its close.
 */
class ServerRun {
  readonly handler: Handler;
  readonly server: Server;
  private readonly stdout = logLines();
  private readonly log: ((line: string) => void) | undefined;
  private readonly inFlight = new Set<ServerResponse>();
  /**
   * The responses of each connection not closed yet (see MAX_WAITING), each with what closes it: Node emits no
   * `close` for one of a pipeline still waiting its turn when the connection goes, which close() would wait for.
   */
  private readonly waiting = new WeakMap<Socket, Map<ServerResponse, () => void>>();
  private draining = false;
  /** Set by close(): called once no response is open, each logged. */
  private allClosed: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ServerOptions) {
    this.handler = new Handler(options);
    this.log = options.quiet ? undefined : (options.log ?? this.stdout.write);
    // Node looks for requests past their deadlines (see setLimits) every connectionsCheckingInterval, 30 s by default,
    // which made the limits 10–40 s and 30–60 s: once a second keeps them within a second of what they say.
    const server = createServer({ connectionsCheckingInterval: 1000 }, this.onRequest);
    // Node would answer `Expect: 100-continue` with 100 at once, so a write refused (401, 413, 415) had its
    // body sent for nothing: the handler sends the 100 where it starts reading a body (writes.ts).
    server.on('checkContinue', this.onRequest);
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.refuse(err, socket));
    server.on('connect', (req: IncomingMessage, socket: Duplex) => this.connect(req, socket));
    setLimits(server, options.maxConnections ?? 1024);
    this.server = server;
  }

  /**
   * Hands a request to the handler, and follows its response until it closes: in flight until then, and logged.
   * An arrow, bound once: it is the server's listener, and a method passed on would lose its `this`.
   */
  private readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const waiting = this.waitingOn(req.socket);
    if (waiting.size >= MAX_WAITING) return void req.socket.destroy();
    const started = performance.now();
    // Read now: a request whose body is refused midway loses its socket before the response closes.
    const remote = req.socket.remoteAddress ?? '-';
    this.inFlight.add(res);
    if (this.draining) res.setHeader('Connection', 'close');
    const closed = () => {
      if (!waiting.delete(res)) return;
      this.inFlight.delete(res);
      if (this.draining) this.server.closeIdleConnections();
      this.log?.(responseLine(req, res, remote, started));
      if (this.inFlight.size === 0) this.allClosed?.();
    };
    waiting.set(res, closed);
    res.once('close', closed);
    void this.handler.handle(req, res);
  };

  /** The responses of `socket` not closed yet, which close with it. */
  private waitingOn(socket: Socket): Map<ServerResponse, () => void> {
    let waiting = this.waiting.get(socket);
    if (!waiting) {
      const responses = new Map<ServerResponse, () => void>();
      socket.once('close', () => {
        for (const closed of [...responses.values()]) closed();
      });
      this.waiting.set(socket, (waiting = responses));
    }
    return waiting;
  }

  /**
   * A request Node's parser refuses (a method HTTP does not name, a malformed line, headers over 16 KiB) or that
   * comes too late never reaches the handler: it gets Node's own answer, and a line in the log.
   * A connection that failed otherwise (reset by the client) had no request to answer.
   */
  private refuse(err: NodeJS.ErrnoException, socket: Socket): void {
    const status = err.code?.startsWith('HPE_') || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? (REFUSED_STATUS[err.code] ?? 400) : undefined;
    // As Node: not in the middle of a response already being sent on the connection.
    const answering = status !== undefined && socket.writable && ![...this.inFlight].some((res) => res.socket === socket && res.headersSent);
    if (answering) {
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
      this.log?.(accessLine({ remote: socket.remoteAddress ?? '-', time: new Date(), status, bytes: 0, ms: 0, aborted: false }));
    }
    socket.destroy(err);
  }

  /**
   * Node hands CONNECT to the server's event, with the bare socket, and drops the connection when nobody listens:
   * a response on that socket lets the handler answer it as any method a path refuses (a record's Allow, its JSON).
   * Pipelined after a request still being answered, it is answered after it.
   */
  private connect(req: IncomingMessage, socket: Duplex): void {
    socket.on('error', () => socket.destroy());
    const answer = () => {
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as Socket);
      res.on('finish', () => socket.end());
      this.onRequest(req, res);
    };
    const before = [...this.inFlight].find((res) => res.socket === socket);
    if (before) before.once('finish', answer);
    else answer();
  }

  /** See RunningServer.close: the same promise, however often it is called. */
  close(): Promise<void> {
    return (this.closing ??= this.drain());
  }

  private async drain(): Promise<void> {
    const { server, inFlight } = this;
    this.draining = true;
    const answered = inFlight.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.allClosed = resolve));
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const hardStop = setTimeout(() => this.cutOff(), this.options.drainMs ?? 10_000);
    await closed;
    clearTimeout(hardStop);
    await this.handler.writesSettled();
    // The server closes with its last connection, and those cut off close their responses after it: their lines come then.
    await answered;
    this.stdout.flush();
  }

  /** Past the deadline, reads are cut off, but a write is never cut short: it may be half-way through the content files. */
  private cutOff(): void {
    // A request whose body is still coming has touched nothing (a write reads its body whole first), and nothing
    // else would end it: Node stops enforcing requestTimeout once the server closes.
    for (const res of this.inFlight) if (!res.req.complete) res.socket?.destroy();
    void this.handler.writesSettled().then(() => this.server.closeAllConnections());
  }
}

/**
 * Deliberate limits: a client gets 10 s to send its headers and 30 s for the whole request
 * (bodies are small JSON); idle keep-alive connections close after 5 s. There is no
 * idle timeout on responses: the dev server's event streams stay quiet for minutes.
 */
function setLimits(server: Server, maxConnections: number): void {
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = maxConnections;
  // A client that half-closes after its request (HTTP/1.0 tools, `nc -N`) still gets its answer:
  // by default Node ends such a connection at once, dropping a response still being looked up.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** Starts listening; an address it cannot listen on fails with listenError's reason. */
function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(listenError(err, host, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

export async function startServer(options: ServerOptions & { host: string; port: number }): Promise<RunningServer> {
  const run = new ServerRun(options);
  await listen(run.server, options.host, options.port);
  const { port } = run.server.address() as AddressInfo;
  return {
    server: run.server,
    url: `http://${authority(options.host, port)}${options.basePath ?? ''}/`,
    currentEtag: (rel) => run.handler.currentEtag(rel),
    close: () => run.close(),
  };
}
