// The server: the output folder over HTTP with the contract's headers.
// sirv sends the files; this module decides what may be sent and with which
// headers, because sirv alone answers every method, sends extensionless files
// without a Content-Type and 304s without headers, and throws on bad ranges.
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import sirv from 'sirv';
import { inertJson } from './record.ts';

export const RECORD_ALLOW = 'GET, PUT, PATCH, HEAD, OPTIONS';
export const PAGE_ALLOW = 'GET, HEAD, OPTIONS';
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json';

// Only the site's own scripts run (search needs WebAssembly); the policy makes sure nobody else's does.
const PAGE_CSP =
  "default-src 'self'; img-src 'self' https:; media-src 'self' https:; frame-src https:; style-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'; form-action 'self'";

const RECORD_PATH = /^\/api\/v2\/video\/([^/]+)\/?$/;
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** The description OPTIONS answers with, in the shape Django REST framework gives it. */
export const RECORD_OPTIONS = {
  name: 'Video Instance',
  description: '',
  renders: ['application/json', 'text/html'],
  parses: ['application/json'],
};

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
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\%]/.test(decoded)) return null;
  const collapsed = decoded.replace(/\/{2,}/g, '/');
  if (collapsed.split('/').some((seg) => seg.startsWith('.'))) return null;
  return collapsed;
}

function encodePath(decoded: string): string {
  return decoded.split('/').map(encodeURIComponent).join('/');
}

function queryOf(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  return q === -1 ? '' : rawUrl.slice(q);
}

export function etagFor(stats: { size: number; mtimeMs: number }): string {
  return `W/"${stats.size}-${Math.floor(stats.mtimeMs)}"`;
}

/** Weak comparison (RFC 9110 13.1.2) against an If-None-Match list. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === opaque;
  });
}

/** A single satisfiable-looking byte range, or undefined: anything else is ignored, as RFC 9110 allows. */
export function usableRange(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim());
  if (!m) return undefined;
  if (m[2] !== '' && Number(m[2]) < Number(m[1])) return undefined;
  return header.trim();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : inertJson(body);
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache' });
  res.end(text);
}

const detail = (message: string) => `{"detail": ${inertJson(message)}}`;
const NOT_FOUND = detail('Not found');

async function statFile(file: string) {
  try {
    const stats = await stat(file);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

export interface ServerOptions {
  /** The folder to serve: a build's output. */
  dir: string;
  /** Rewrites every HTML page before it is sent (the dev server adds its live-reload script). */
  html?: (page: string) => string;
  /** Answers requests of its own before the files are looked at; returns false to pass. */
  routes?: (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;
}

export function createHandler(options: ServerOptions) {
  const root = path.resolve(options.dir);
  // dev mode: sirv looks each file up per request, so the server follows rebuilds that swap the folder.
  const send = sirv(root, { dev: true, etag: true, dotfiles: false, extensions: [] });

  /** Hands a file we resolved and checked to sirv, with our headers already set. */
  function sendFile(req: IncomingMessage, res: ServerResponse, relFile: string, headers: Record<string, string>, onMissing: () => void): void {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const range = usableRange(req.headers.range);
    if (range) req.headers.range = range;
    else delete req.headers.range;
    delete req.headers['if-none-match'];
    req.url = encodePath(relFile);
    // A file deleted between lookup and open must end this response, not the process.
    res.once('pipe', (source: Readable) => source.once('error', () => res.destroy()));
    send(req, res, onMissing);
  }

  async function serveRecord(req: IncomingMessage, res: ServerResponse, idText: string): Promise<void> {
    const headers = { Vary: 'Accept', Allow: RECORD_ALLOW };
    if (!CANONICAL_ID.test(idText)) return sendJson(res, 404, NOT_FOUND, headers);
    switch (req.method) {
      case 'GET':
      case 'HEAD': {
        const relFile = `/api/v2/video/${idText}`;
        const stats = await statFile(path.join(root, relFile));
        if (!stats) return sendJson(res, 404, NOT_FOUND, headers);
        const etag = etagFor(stats);
        const cache = { 'Cache-Control': 'no-cache', ETag: etag };
        if (etagMatches(req.headers['if-none-match'], etag)) {
          res.writeHead(304, { ...headers, ...cache });
          return void res.end();
        }
        return sendFile(
          req,
          res,
          relFile,
          { ...headers, ...cache, 'Content-Type': HTML, 'Content-Security-Policy': 'sandbox', 'X-Content-Type-Options': 'nosniff' },
          () => sendJson(res, 404, NOT_FOUND, headers),
        );
      }
      case 'OPTIONS':
        return sendJson(res, 200, RECORD_OPTIONS, headers);
      case 'PUT':
      case 'PATCH':
        return sendJson(res, 401, detail('Authentication credentials were not provided.'), { ...headers, 'WWW-Authenticate': 'Token' });
      default:
        return sendJson(res, 405, detail(`Method "${req.method}" not allowed.`), headers);
    }
  }

  async function notFoundPage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Buffer;
    try {
      body = await readFile(path.join(root, '404.html'));
    } catch {
      body = Buffer.from('<!doctype html><html lang="en"><title>Not found</title><h1>Not found</h1></html>');
    }
    if (options.html) body = Buffer.from(options.html(body.toString('utf8')));
    res.writeHead(404, { 'Content-Type': HTML, 'Content-Length': body.byteLength, 'Cache-Control': 'no-cache', 'Content-Security-Policy': PAGE_CSP });
    res.end(body);
  }

  async function servePage(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { Allow: PAGE_ALLOW });
      return void res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, detail(`Method "${req.method}" not allowed.`), { Allow: PAGE_ALLOW });
    }
    const relFile = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
    const stats = await statFile(path.join(root, relFile));
    if (!stats && !pathname.endsWith('/') && (await statFile(path.join(root, pathname, 'index.html')))) {
      // A folder asked for without its slash: send the client to the canonical URL so relative links work.
      res.writeHead(301, { Location: `${encodePath(pathname)}/${queryOf(req.url ?? '')}`, 'Content-Length': 0 });
      return void res.end();
    }
    if (!stats) return notFoundPage(req, res);
    const etag = etagFor(stats);
    const isHtml = relFile.endsWith('.html');
    const headers: Record<string, string> = { ETag: etag, 'Cache-Control': 'no-cache' };
    if (isHtml) Object.assign(headers, { 'Content-Type': HTML, 'Content-Security-Policy': PAGE_CSP });
    if (isHtml && options.html) {
      const body = Buffer.from(options.html(await readFile(path.join(root, relFile), 'utf8')));
      const { ETag: _, ...rest } = headers;
      res.writeHead(200, { ...rest, 'Cache-Control': 'no-store', 'Content-Length': body.byteLength });
      return void res.end(body);
    }
    if (etagMatches(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers);
      return void res.end();
    }
    sendFile(req, res, relFile, headers, () => void notFoundPage(req, res));
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      const pathname = safePath(req.url);
      if (pathname === null) return await notFoundPage(req, res);
      if (options.routes?.(req, res, pathname)) return;
      const record = RECORD_PATH.exec(pathname);
      if (record) return await serveRecord(req, res, record[1]!);
      // Below /api/v2 everything is the API's and answers as it does; /api/ itself is the page explaining it.
      if (pathname === '/api/v2' || pathname.startsWith('/api/v2/')) return sendJson(res, 404, NOT_FOUND);
      return await servePage(req, res, pathname);
    } catch {
      if (!res.headersSent) sendJson(res, 500, detail('Internal server error.'));
      else res.destroy();
    }
  };
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions & { host: string; port: number }): Promise<RunningServer> {
  const handle = createHandler(options);
  const server = createServer((req, res) => void handle(req, res));
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    server,
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      }),
  };
}
