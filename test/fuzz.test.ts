// Thousands of random and malformed requests against a real server, through
// Node's client and through raw sockets, while files are being replaced and
// removed under it: it must never crash, never answer 5xx, never send a file
// from outside its folder, and answer normally afterwards. Seeded: set
// FUZZ_SEED to replay a run.
import { request, Agent } from 'node:http';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/server.ts';
import { HIDDEN, HOST_CONFIG, OUTPUT, SECRET, writeOutput } from './output-fixture.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20240529);
const CLIENT_REQUESTS = 6000;
const RAW_REQUESTS = 3000;
const PARALLEL = 16;
const BIG = 1536 * 1024;

/** mulberry32: small, fast and good enough to pick cases. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}
type Random = ReturnType<typeof random>;

const SEGMENTS = [
  'api', 'v2', 'video', 'category', 'speaker', '1', '2', '3', '01', '-1', 'page.1', 'page.2', 'pycon-2024', 'assets', 'style.css', 'style.css.br',
  'style.css.gz', 'index.html', 'index.html.gz', '404.html', 'sitemap.xml', 'pagefind', 'fragment', 'en_abc.pf_fragment', 'big.bin', 'nginx.conf',
  '_headers', '.env', 'secret.txt', '..', '.', '...', '%2e%2e', '%2E%2e', '.%2e', '%2f', '%5c', '%00', '%', '%z', '%zz', '%c0%ae%c0%ae', '%e2%80%ae',
  '%F0%9F%98%80', '日本', 'é', '\u202e', '~', '*', '', 'a b', '%20', 'con', 'nul', 'video%2f1', '..%2f..%2fsecret.txt', '%252e%252e',
];

function garbage(r: Random, length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[r.int(alphabet.length)];
  return out;
}

const PRINTABLE = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join('');
const HEX = '0123456789abcdefABCDEFxyz%';

function randomPath(r: Random): string {
  // The one file too big to keep in memory, streamed while it is being replaced: often, so ranges of it come up.
  if (r.chance(0.05)) return r.pick(['/big.bin', '/big.bin?x=1']);
  const parts: string[] = [];
  const n = 1 + r.int(6);
  for (let i = 0; i < n; i++) {
    const kind = r.int(10);
    if (kind < 6) parts.push(r.pick(SEGMENTS));
    else if (kind < 8) parts.push(garbage(r, 1 + r.int(12), HEX));
    else parts.push(garbage(r, 1 + r.int(12), PRINTABLE));
  }
  let target = parts.join(r.pick(['/', '/', '/', '//', '\\', '/./']));
  if (r.chance(0.05)) target = 'x'.repeat(2000 + r.int(30_000)) + target;
  const prefix = r.pick(['/', '/', '/', '/', '//', '/api/v2/', '/api/v2/video/', 'http://127.0.0.1/', '', '*']);
  const query = r.chance(0.3) ? r.pick(['?page=', '?format=json', '?page=2', '?page=-1', '?%', '?page=%zz', '#x', '?page=1&page=x', `?${garbage(r, 10, PRINTABLE)}`]) : '';
  return prefix + target + query;
}

const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE', 'TRACE', 'PROPFIND', 'SEARCH', 'LOCK', 'PURGE'];
const RAW_METHODS = [...METHODS, 'get', 'G@T', 'FOO', '', 'GET GET', 'X'.repeat(300), '\u0000GET', 'CONNECT', 'PRI'];

function randomHeaders(r: Random): Record<string, string> {
  const headers: Record<string, string> = {};
  if (r.chance(0.3)) headers.Range = r.pick(['bytes=0-0', 'bytes=100-50', 'bytes=-5', 'bytes=0-', 'bytes=99999999-', 'bytes=0-1,2-3', 'bytes=a-b', `bytes=${'9'.repeat(30)}-`, 'items=0-1', 'bytes=', 'bytes=1-2-3']);
  if (r.chance(0.3)) headers['If-None-Match'] = r.pick(['*', '"x"', 'W/"x"', ',,,', 'W/', '"', Array.from({ length: 900 }, (_, i) => `"tag-${i}"`).join(', '), garbage(r, 100, PRINTABLE)]);
  if (r.chance(0.4)) headers['Accept-Encoding'] = r.pick(['br', 'gzip', 'br;q=0, gzip', '*;q=0', 'br;q=abc', ',,,', ';;;', 'identity;q=0', 'x'.repeat(5000), 'gzip;q=0.5, br;q=1.0', 'BR', '*']);
  if (r.chance(0.1)) headers['If-Range'] = r.pick(['"x"', 'Wed, 21 Oct 2015 07:28:00 GMT', '']);
  if (r.chance(0.1)) headers.Accept = r.pick(['application/json', 'text/html', '*/*', garbage(r, 50, PRINTABLE)]);
  if (r.chance(0.05)) headers['Content-Type'] = 'application/json';
  if (r.chance(0.03)) Object.assign(headers, { Connection: 'Upgrade', Upgrade: 'websocket' });
  return headers;
}

function randomRawRequest(r: Random): string {
  const lines = [`${r.pick(RAW_METHODS)} ${r.chance(0.8) ? randomPath(r) : garbage(r, r.int(40), PRINTABLE + ' \t')} ${r.pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', 'HTTP/1.1x', '', 'FTP/1.1'])}`];
  if (r.chance(0.9)) lines.push('Host: 127.0.0.1');
  for (const [name, value] of Object.entries(randomHeaders(r))) lines.push(`${name}: ${value}`);
  if (r.chance(0.1)) lines.push(r.pick(['Bad Header', ': empty name', 'X-Null: a\u0000b', ' folded: line', 'Content-Length: -1', 'Content-Length: abc', 'Transfer-Encoding: chunked', 'Content-Length: 5\r\nContent-Length: 6', `X-Long: ${'y'.repeat(20_000)}`]));
  lines.push('Connection: close');
  const one = `${lines.join('\r\n')}\r\n\r\n`;
  return r.chance(0.1) ? `GET /api/v2/video/1 HTTP/1.1\r\nHost: x\r\n\r\n${one}` : one;
}

/** Every status line in a raw exchange. */
const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));

function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.end(Buffer.from(bytes, 'utf8'));
  });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function clientRequest(agent: Agent, port: number, method: string, target: string, headers: Record<string, string>): Promise<Answer | Error> {
  return new Promise((resolve) => {
    let req;
    try {
      req = request({ host: '127.0.0.1', port, method, path: target, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => resolve(err));
      });
    } catch (err) {
      // Node's client refuses some targets itself (unescaped characters): nothing was sent.
      return resolve(err as Error);
    }
    req.on('error', (err) => resolve(err));
    req.end(method === 'PUT' || method === 'PATCH' || method === 'POST' ? '{"title": "x"}' : undefined);
  });
}

async function inParallel<T>(count: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const FORBIDDEN = [SECRET, HIDDEN, HOST_CONFIG];

describe(`fuzzing the server (FUZZ_SEED=${SEED})`, () => {
  let root: string;
  let out: string;
  let server: RunningServer;
  let port: number;
  let churning = true;
  let churn: Promise<void>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'vc-fuzz-'));
    out = path.join(root, 'out');
    await writeOutput(out);
    await writeFile(path.join(out, 'big.bin'), Buffer.alloc(BIG, 'b'));
    server = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true });
    port = Number(new URL(server.url).port);
    // A rebuild that never ends: files replaced by rename, removed and written again, under the requests.
    churn = (async () => {
      for (let i = 0; churning; i++) {
        const record = path.join(out, 'api/v2/video/2');
        await writeFile(`${record}.tmp`, `{"id": 2, "round": ${i}}`);
        await rename(`${record}.tmp`, record);
        if (i % 2 === 0) await rm(path.join(out, 'big.bin'));
        else await writeFile(path.join(out, 'big.bin'), Buffer.alloc(BIG, 'b'));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
  });

  afterAll(async () => {
    churning = false;
    await churn;
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("survives Node's client with random paths, methods and headers", async () => {
    const r = random(SEED);
    // Node's client refuses targets with spaces, controls or characters past U+00FF: those go percent-encoded (raw sockets send them as they are).
    const sendable = (target: string) => target.replace(/[^\u0021-\u00ff]/g, (c) => encodeURIComponent(c));
    const cases = Array.from({ length: CLIENT_REQUESTS }, () => ({ method: r.pick(METHODS), target: sendable(randomPath(r)), headers: randomHeaders(r) }));
    const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });
    const answers = await inParallel(cases.length, (i) => clientRequest(agent, port, cases[i]!.method, cases[i]!.target, cases[i]!.headers));
    agent.destroy();
    const problems: string[] = [];
    answers.forEach((answer, i) => {
      const c = cases[i]!;
      const label = `${c.method} ${c.target.slice(0, 200)} ${JSON.stringify(c.headers).slice(0, 200)}`;
      if (answer instanceof Error) {
        // Past Node's 16 KiB of headers the server answers 431 and closes at once, which the client may see as a reset while it still sends.
        const oversized = c.target.length + JSON.stringify(c.headers).length > 16 * 1024;
        if (!oversized) problems.push(`${label}: ${answer.message}`);
        return;
      }
      if (!(answer.status >= 200 && answer.status < 500)) problems.push(`${label}: status ${answer.status}`);
      for (const text of FORBIDDEN) if (answer.body.includes(text)) problems.push(`${label}: sent ${text}`);
      const length = answer.headers['content-length'];
      if (c.method !== 'HEAD' && answer.status !== 304 && length !== undefined && Number(length) !== answer.body.length) problems.push(`${label}: Content-Length ${length}, body ${answer.body.length}`);
    });
    expect(problems).toEqual([]);
  });

  it('survives raw sockets with malformed request lines, headers and pipelines', async () => {
    const r = random(SEED + 1);
    const requests = Array.from({ length: RAW_REQUESTS }, () => randomRawRequest(r));
    const replies = await inParallel(requests.length, (i) => rawExchange(port, requests[i]!));
    const problems: string[] = [];
    replies.forEach((reply, i) => {
      const label = JSON.stringify(requests[i]!.slice(0, 300));
      const codes = statuses(reply);
      if (codes.length === 0) problems.push(`${label}: no status line in ${JSON.stringify(reply.slice(0, 100))}`);
      for (const code of codes) if (code >= 500) problems.push(`${label}: status ${code}`);
      for (const text of FORBIDDEN) if (reply.includes(text)) problems.push(`${label}: sent ${text}`);
    });
    expect(problems).toEqual([]);
  });

  it('still answers normally afterwards', async () => {
    churning = false;
    await churn;
    const answer = await clientRequest(new Agent(), port, 'GET', '/api/v2/video/1', {});
    expect(answer).toMatchObject({ status: 200 });
    expect((answer as Answer).body.toString()).toBe(OUTPUT['api/v2/video/1']);
    expect(server.server.listening).toBe(true);
  });
});
