// Writes through the API on a real server: PUT and PATCH change the content
// files and the output before they answer; bad requests change nothing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { build } from '../src/build.ts';
import { RECORD_ALLOW } from '../src/headers.ts';
import { ownTag } from '../src/processes.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { hasState, readState, stateDirFor } from '../src/state.ts';
import { addToken, readTokens } from '../src/tokens.ts';
import { RecordWriter } from '../src/writes.ts';
import { DEMO_CONTENT, fingerprint, startCommand, TEMPLATES, tempDir } from './helpers.ts';
import { raw } from './http.ts';

const TALK = 'tidewater-python-2024/videos/asyncio-in-production-lessons.yaml';

/** Told of every file the writer writes (output.ts's writeFileAtomic, which it goes on to run). */
const written = vi.hoisted(() => ({ seen: (_file: string): void => undefined }));
vi.mock('../src/output.ts', async (importOriginal) => {
  const output = await importOriginal<typeof import('../src/output.ts')>();
  const writeFileAtomic: typeof output.writeFileAtomic = (file, ...rest) => (written.seen(file), output.writeFileAtomic(file, ...rest));
  return { ...output, writeFileAtomic };
});

let root: string;
let content: string;
let out: string;
let token: string;
let server: RunningServer;
let writer: RecordWriter;
/** A clock one millisecond further on each time it is read: every write gets its own `updated`. */
let clock = Date.parse('2026-11-22T10:00:00.000Z');

async function setUp() {
  // Not tempDir(): that one is removed after each test, and these tests share one catalogue.
  root = await mkdtemp(path.join(tmpdir(), 'vc-writes-'));
  content = path.join(root, 'content');
  out = path.join(root, 'dist');
  await cp(DEMO_CONTENT, content, { recursive: true });
  const tokens = path.join(root, 'tokens.txt');
  token = await addToken(tokens, 'editor');
  writer = await RecordWriter.open({ content, out, templates: TEMPLATES, cache: path.join(root, 'cache'), tokens: await readTokens(tokens), now: () => new Date(clock++) });
  server = await startServer({ dir: out, host: '127.0.0.1', port: 0, quiet: true, writes: writer });
}

/** A request to a record's path, answered, and the state it left saved (the writer saves it after the answer). */
async function send(method: string, id: number | string, body?: unknown, headers: Record<string, string> = {}) {
  const answer = await raw(server.url, method, `/api/v2/video/${id}`, { 'Content-Type': 'application/json', Authorization: `Token ${token}`, ...headers }, body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  await writer.settled();
  return answer;
}
const get = (rel: string) => raw(server.url, 'GET', rel);
const json = (r: { text: string }) => JSON.parse(r.text);

/**
 * The answer to a PATCH of a 32 MiB body with `Authorization: Token <token>`, from a client in a process of its own,
 * which reads only once its whole request is sent, as Python's http.client does (fetch too, which at least sees an
 * answer that came before its sending failed): a close with megabytes of the body unread was a reset that took the
 * answer with it, and Python's client, whose sending fails, never reads it (`error EPIPE` here).
 */
async function answerAfterSending(token: string, framing: 'length' | 'chunked'): Promise<string> {
  const client = `
    const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
    const body = JSON.stringify({ description: 'x'.repeat(32 * 1024 * 1024) });
    const head = 'PATCH /api/v2/video/12 HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Token ' + process.argv[2] + '\\r\\nContent-Type: application/json\\r\\nConnection: close\\r\\n';
    const request = process.argv[3] === 'chunked'
      ? head + 'Transfer-Encoding: chunked\\r\\n\\r\\n' + body.length.toString(16) + '\\r\\n' + body + '\\r\\n0\\r\\n\\r\\n'
      : head + 'Content-Length: ' + body.length + '\\r\\n\\r\\n' + body;
    let data = '';
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', (err) => process.stdout.write('error ' + err.code, () => process.exit()));
    socket.on('close', () => process.stdout.write(data));
    socket.pause();
    socket.end(request, () => socket.resume());
  `;
  const child = spawn(process.execPath, ['-e', client, new URL(server.url).port, token, framing]);
  let answer = '';
  child.stdout.on('data', (chunk: Buffer) => (answer += chunk));
  await new Promise((resolve) => child.on('close', resolve));
  return answer;
}

describe('writes through the API', () => {
  // One server for the file: the tests run in order and each starts from what the previous left.
  beforeAll(setUp, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers writes without a valid token with 401, as Django REST framework does', async () => {
    const missing = await send('PATCH', 12, { title: 'x' }, { Authorization: '' });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Token');
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect(json(missing)).toEqual({ detail: 'Authentication credentials were not provided.' });
    // Django REST framework's words for each: an unknown key, no key, a key with spaces.
    const details = { 'Token nope': 'Invalid token.', Token: 'Invalid token header. No credentials provided.', 'token a b': 'Invalid token header. Token string should not contain spaces.' };
    for (const [auth, detail] of Object.entries(details)) {
      const bad = await send('PUT', 12, { title: 'x' }, { Authorization: auth });
      expect(bad.status).toBe(401);
      expect(bad.headers['www-authenticate']).toBe('Token');
      expect(json(bad)).toEqual({ detail });
    }
  });

  it('PATCH changes the YAML file in place, and the next GET, list and page show it', async () => {
    const before = await readFile(path.join(content, TALK), 'utf8');
    const r = await send('PATCH', 12, { title: 'Five Outages <and> What They Taught Us', tags: ['asyncio', ' python'] });
    expect(r.status).toBe(200);
    expect(r.headers.allow).toBe(RECORD_ALLOW);
    const record = json(r);
    expect(record).toMatchObject({ id: 12, title: 'Five Outages <and> What They Taught Us', tags: ['asyncio', ' python'], updated: '2026-11-22T10:00:00.000' });
    const after = await readFile(path.join(content, TALK), 'utf8');
    expect(after.split('\n')[0]).toBe(before.split('\n')[0]);
    expect(after).toContain('summary: |\n');
    expect(Object.keys(parse(after))).toEqual(Object.keys(parse(before)));
    const read = await get('/api/v2/video/12');
    expect(read.text).toBe(r.text);
    // The answer is the GET that follows: the same validators, so a client may revalidate with either.
    expect([read.headers.etag, read.headers['last-modified']]).toEqual([r.headers.etag, r.headers['last-modified']]);
    expect(r.headers['last-modified']).toMatch(/ GMT$/);
    const page = await get('/video/12/asyncio-in-production-lessons/');
    expect(page.text).toContain('Five Outages &lt;and&gt; What They Taught Us');
    const list = await get('/api/v2/category/tidewater-python-2024');
    expect(list.status).toBe(200);
    let found = false;
    for (let n = 1; !found; n++) {
      const listPage = await get(`/api/v2/video?page=${n}`);
      expect(listPage.status).toBe(200);
      found = listPage.text.includes(r.text);
    }
  });

  it("removes the temporary files a writer killed as it wrote left beside the talk's file, and keeps a live writer's", async () => {
    const videos = path.dirname(path.join(content, TALK));
    const killed = path.join(videos, `.asyncio-in-production-lessons.yaml.tmp-${2 ** 22 + 17}_5-k9x`);
    const live = path.join(videos, `.asyncio-in-production-lessons.yaml.tmp-${ownTag()}-live`);
    for (const file of [killed, live]) await writeFile(file, 'title: half');
    expect((await send('PATCH', 12, { quality_notes: 'Checked.' })).status).toBe(200);
    expect([existsSync(killed), existsSync(live)]).toEqual([false, true]);
    await rm(live);
  });

  it('PUT replaces the record: fields left out take their defaults', async () => {
    const current = json(await get('/api/v2/video/12'));
    const { tags: _, summary: __, ...rest } = current;
    const r = await send('PUT', 12, { ...rest, title: 'Replaced' });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({ title: 'Replaced', tags: [], summary: '', speakers: current.speakers, added: current.added });
    const stored = parse(await readFile(path.join(content, TALK), 'utf8'));
    expect(stored).not.toHaveProperty('tags');
    expect(stored).not.toHaveProperty('summary');
  });

  it('ignores read-only fields in bodies', async () => {
    const r = await send('PATCH', 12, { id: 99, slug: 'other', added: '2000-01-01T00:00:00', updated: '2000-01-01T00:00:00.000', duration: 100 });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({ id: 12, slug: 'asyncio-in-production-lessons', duration: 100 });
    expect(json(r).added).not.toBe('2000-01-01T00:00:00');
  });

  it('PUT to a new id creates the talk in the event its category names; PATCH to one is 404', async () => {
    const unknown = await send('PATCH', 4242, { title: 'x' });
    expect(unknown.status).toBe(404);
    // The same body as a GET of an unknown id.
    expect(unknown.text).toBe((await get('/api/v2/video/4242')).text);
    // An id past 2^53 cannot be held exactly, nor given to a talk.
    expect((await send('PUT', '9007199254740993', { title: 'Too Far', category: 'Tidewater Python 2024' })).status).toBe(404);
    const bad = await send('PUT', 4242, { title: 'Nowhere', category: 'No Such Event' });
    expect(bad.status).toBe(400);
    expect(json(bad)).toHaveProperty('category');
    const r = await send('PUT', 4242, { title: 'A Talk Sent Over the API', category: 'Tidewater Python 2024', speakers: ['Ada'] });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe('/api/v2/video/4242');
    expect(json(r)).toMatchObject({ id: 4242, slug: 'a-talk-sent-over-the-api', category: 'Tidewater Python 2024', state: 1 });
    expect(parse(await readFile(path.join(content, 'tidewater-python-2024/videos/a-talk-sent-over-the-api.yaml'), 'utf8')).id).toBe(4242);
    expect((await get('/api/v2/video/4242')).text).toBe(r.text);
    expect((await get('/video/4242/a-talk-sent-over-the-api/')).status).toBe(200);
  });

  it('refuses what fails validation, bad bodies and stale tags, and changes nothing on disk', async () => {
    const before = { content: await fingerprint(content), out: await fingerprint(out) };
    const invalid = await send('PATCH', 12, { duration: 'long', recorded: '2024-02-30', titel: 'x' });
    expect(invalid.status).toBe(400);
    expect(Object.keys(json(invalid)).sort()).toEqual(['duration', 'recorded', 'titel']);
    expect(json(invalid).titel[0]).toContain('did you mean `title`');
    expect(json(await send('PATCH', 12, { video_mp4_url: '', video_mp4_length: 5 }))).toHaveProperty('video_mp4_length');
    expect(json(await send('PATCH', 12, { related_urls: [] }))).toHaveProperty('related_urls');

    const plain = await send('PATCH', 12, 'title=x', { 'Content-Type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(json(plain)).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
    const malformed = await send('PATCH', 12, '{"title": ');
    expect(malformed.status).toBe(400);
    expect(json(malformed).detail).toMatch(/^JSON parse error - /);
    // Bytes that are not UTF-8 are refused, not written to the file as U+FFFD.
    const latin1 = await send('PATCH', 12, Buffer.from('{"title": "Caf\xe9"}', 'latin1'));
    expect(latin1.status).toBe(400);
    expect(json(latin1).detail).toMatch(/^JSON parse error - /);
    // No body is no data, as in Django REST framework: nothing to change, or a PUT without its required title.
    expect((await send('PATCH', 12, '', { 'Content-Type': '' })).status).toBe(200);
    // Chunked, a body may turn out to be none; one that is some is of the wrong type.
    expect((await send('PATCH', 12, '', { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' })).status).toBe(200);
    expect((await send('PATCH', 12, 'title=x', { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' })).status).toBe(415);
    expect(json(await send('PUT', 12, ''))).toEqual({ title: [expect.any(String)] });
    // What is not text (half a surrogate pair, a control character) is refused in any field, as in a content file.
    const notText = await send('PATCH', 12, '{"title": "a\\ud800b", "tags": ["ok", "\\u0000"]}');
    expect([notText.status, Object.keys(json(notText)).sort()]).toEqual([400, ['tags', 'title']]);
    // A number past what a double holds is no Infinity (nor null, as JSON.stringify would write it).
    const huge = await send('PATCH', 12, '{"duration": 1e400}');
    expect([huge.status, json(huge).detail]).toEqual([400, 'JSON parse error - Out of range float values are not JSON compliant (the value of "duration")']);
    // A value nested deep is refused before it reaches the file's editor, which failed on it (a 500): jsonc-parser
    // from about 100 levels (talk 3 is a JSON file), yaml from about 500.
    for (const [id, depth] of [[3, 120], [12, 1000]] as const) {
      const deep = await send('PATCH', id, `{"tags": ${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect([deep.status, json(deep).detail]).toEqual([400, 'JSON parse error - nested more than 32 levels deep']);
    }
    const list = await send('PATCH', 12, '[1, 2]');
    expect(list.status).toBe(400);
    expect(json(list)).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    const big = await send('PATCH', 12, JSON.stringify({ description: 'x'.repeat(1024 * 1024) }));
    expect(big.status).toBe(413);
    const stale = await send('PATCH', 12, { title: 'Stale' }, { 'If-Match': '"not-the-current-tag"' });
    expect(stale.status).toBe(412);
    // Names an object has from its prototype are unknown fields like any other.
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      for (const method of ['PATCH', 'PUT']) {
        const odd = await send(method, 12, `{"${name}": {"x": 1}}`);
        expect(odd.status).toBe(400);
        // A PUT also misses the title.
        expect(Object.keys(json(odd))).toEqual(method === 'PUT' ? ['title', name] : [name]);
      }
    }
    expect(await fingerprint(content)).toEqual(before.content);
    expect(await fingerprint(out)).toEqual(before.out);
  });

  it('asks for a body with 100 Continue only once the write is wanted: a refused one never sends it', async () => {
    /** A PATCH that waits for 100 Continue before its body, as curl's do over 1 KiB. */
    const expecting = (headers: Record<string, string>, body: string, length = Buffer.byteLength(body)) =>
      new Promise<{ continued: boolean; status: number; text: string }>((resolve, reject) => {
        const url = new URL(server.url);
        let continued = false;
        const req = request(
          { host: url.hostname, port: url.port, method: 'PATCH', path: '/api/v2/video/12', headers: { 'Content-Type': 'application/json', Authorization: `Token ${token}`, Expect: '100-continue', 'Content-Length': String(length), ...headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              req.destroy();
              resolve({ continued, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
            });
          },
        );
        req.on('continue', () => {
          continued = true;
          req.end(body);
        });
        req.on('error', reject);
        req.flushHeaders();
      });
    const before = await fingerprint(content);
    const refused = [await expecting({ Authorization: '' }, '{}'), await expecting({}, '{}', 2 * 1024 * 1024), await expecting({ 'Content-Type': 'text/plain' }, '{}')];
    expect(refused.map(({ continued, status }) => [continued, status])).toEqual([[false, 401], [false, 413], [false, 415]]);
    expect(await fingerprint(content)).toEqual(before);
    const wanted = await expecting({}, JSON.stringify({ title: 'Sent after 100 Continue' }));
    await writer.settled();
    expect([wanted.continued, wanted.status, JSON.parse(wanted.text).title]).toEqual([true, 200, 'Sent after 100 Continue']);
  });

  it('answers 503 while a build in another process holds the output, and changes nothing', async () => {
    const other = spawn('sleep', ['30']);
    const lock = path.join(stateDirFor(path.join(root, 'cache'), out), 'lock');
    try {
      await writeFile(lock, String(other.pid));
      const before = await fingerprint(content);
      const refused = await send('PATCH', 12, { title: 'While another builds' });
      expect([refused.status, refused.headers['retry-after'], refused.headers.vary, refused.headers.allow]).toEqual([503, '10', 'Accept', RECORD_ALLOW]);
      expect(json(refused).detail).toContain(`process ${other.pid}`);
      expect(await fingerprint(content)).toEqual(before);
    } finally {
      other.kill();
      await rm(lock, { force: true });
    }
  });

  it('holds the output from before it writes a talk file until it has put back one the build refuses: no other build sees it', async () => {
    const file = path.join(content, TALK);
    const before = await readFile(file);
    const lock = path.join(stateDirFor(path.join(root, 'cache'), out), 'lock');
    const locked: boolean[] = [];
    written.seen = (name) => void (name === file && locked.push(existsSync(lock)));
    try {
      // Valid in the file alone; the build refuses it, as the talk's category must be its event's title.
      const refused = await send('PATCH', 12, { category: 'Another Event' });
      expect(refused.status).toBe(400);
      expect(json(refused)).toHaveProperty('category');
    } finally {
      written.seen = () => undefined;
    }
    // The change, then the file as it was.
    expect(locked).toEqual([true, true]);
    expect(await readFile(file)).toEqual(before);
    expect(existsSync(lock)).toBe(false);
  });

  it('says in the terminal why a write failed, where the client is answered 500 and no more (a full disk)', async () => {
    const file = path.join(content, TALK);
    const before = await readFile(file);
    written.seen = (name) => {
      if (name === file) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const r = await send('PATCH', 12, { title: 'Not Written' });
      expect([r.status, r.text]).toEqual([500, '{"detail": "Internal server error."}']);
      expect(said.mock.calls.map(([text]) => String(text))).toEqual(['serve: PATCH /api/v2/video/12 failed (answered 500): ENOSPC: no space left on device, write\n']);
    } finally {
      said.mockRestore();
      written.seen = () => undefined;
    }
    expect(await readFile(file)).toEqual(before);
  });

  it('lets go of the output when putting back a refused change fails: no lock is left for other processes to wait on', async () => {
    const file = path.join(content, TALK);
    const before = await readFile(file);
    const lock = path.join(stateDirFor(path.join(root, 'cache'), out), 'lock');
    let writes = 0;
    written.seen = (name) => {
      if (name === file && ++writes === 2) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    try {
      expect((await send('PATCH', 12, { category: 'Another Event' })).status).toBe(500);
    } finally {
      written.seen = () => undefined;
      await writeFile(file, before);
    }
    expect(writes).toBe(2);
    expect(existsSync(lock)).toBe(false);
  });

  it('survives a chunked body over the limit with the access log on, and logs who sent it', async () => {
    const lines: string[] = [];
    const logged = await startServer({ dir: out, host: '127.0.0.1', port: 0, log: (line) => lines.push(line), writes: writer });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(new URL('/api/v2/video/12', logged.url), { method: 'PATCH', headers: { 'Content-Type': 'application/json', Authorization: `Token ${token}` } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        // No Content-Length: the body is sent chunked, and refused once it passes the limit.
        req.end(JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 10) }));
      });
      expect(status).toBe(413);
      expect((await raw(logged.url, 'GET', '/api/v2/video/12')).status).toBe(200);
      // The line is written when the response closes, which may come after the client has its status.
      await expect.poll(() => lines.find((line) => line.includes('"PATCH /api/v2/video/12 HTTP/1.1" 413'))).toMatch(/^127\.0\.0\.1 /);
    } finally {
      await logged.close();
    }
  });

  it('answers a body far over the limit with 413 to a client that sends it all before it reads, not with a reset connection', async () => {
    const before = await fingerprint(content);
    for (const framing of ['length', 'chunked'] as const) {
      const answer = await answerAfterSending(token, framing);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.endsWith('\r\n\r\n{"detail": "Request body is larger than 1 MiB."}')).toBe(true);
    }
    expect(await fingerprint(content)).toEqual(before);
  });

  it('answers a write with a wrong token 401 to a client that sends its whole body before it reads, not with a reset connection', async () => {
    const before = await fingerprint(content);
    for (const [wrong, detail] of [['f'.repeat(40), 'Invalid token.'], [`${token} ${token}`, 'Invalid token header. Token string should not contain spaces.']] as const) {
      const answer = await answerAfterSending(wrong, 'length');
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer.endsWith(`\r\n\r\n{"detail": "${detail}"}`)).toBe(true);
    }
    expect(await fingerprint(content)).toEqual(before);
  });

  it('answers a body over the limit with 413 as soon as it is refused, to a client still sending it', async () => {
    const before = await fingerprint(content);
    // The client sends the rest of its body only once it has its answer: an answer that waited for the whole body
    // came after the server's time limit on a request, as its 408, to a client sending slowly.
    const answerWhileSending = (framing: string, part: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString('latin1');
          if (answer.includes('\r\n\r\n')) socket.destroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
        socket.write(`PATCH /api/v2/video/12 HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${token}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${part}`);
      });
    const part = JSON.stringify({ description: 'x'.repeat(1024 * 1024 + 10) });
    const answers = await Promise.all([
      answerWhileSending(`Content-Length: ${64 * 1024 * 1024}`, part.slice(0, 65_536)),
      answerWhileSending('Transfer-Encoding: chunked', `${part.length.toString(16)}\r\n${part}\r\n`),
    ]);
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(await fingerprint(content)).toEqual(before);
  }, 45_000);

  it('If-Match with the current tag lets the write through', async () => {
    const { headers } = await get('/api/v2/video/12');
    const r = await send('PATCH', 12, { whiteboard: 'checked' }, { 'If-Match': headers.etag as string });
    expect(r.status).toBe(200);
    expect((await send('PATCH', 12, { whiteboard: 'again' }, { 'If-Match': headers.etag as string })).status).toBe(412);
    // If-None-Match: * creates only: it replaces no record.
    const before = await fingerprint(content);
    expect((await send('PUT', 12, { title: 'Not replaced', category: 'Tidewater Python 2024' }, { 'If-None-Match': '*' })).status).toBe(412);
    expect((await send('PATCH', 12, { title: 'Not replaced' }, { 'If-None-Match': `W/${(await get('/api/v2/video/12')).headers.etag}` })).status).toBe(412);
    expect(await fingerprint(content)).toEqual(before);
  });

  it('If-Unmodified-Since makes a write conditional, and never lets one through over a version written in the same second', async () => {
    const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1010 - (Date.now() % 1000)));
    const first = await send('PATCH', 12, { whiteboard: 'first' });
    const firstDate = first.headers['last-modified'] as string;
    await nextSecond();
    const second = await send('PATCH', 12, { whiteboard: 'second' });
    const before = await fingerprint(content);
    // Ignored, it let a client that read the first version write over the second.
    for (const date of [firstDate, new Date(Date.parse(firstDate) - 3600_000).toUTCString()]) {
      const stale = await send('PATCH', 12, { whiteboard: 'stale' }, { 'If-Unmodified-Since': date });
      expect([stale.status, json(stale).detail]).toEqual([412, 'The record has changed since you read it: GET it again and reapply your change.']);
    }
    expect(await fingerprint(content)).toEqual(before);
    // If-Match decides when both are sent (RFC 9110 13.2.2).
    expect((await send('PATCH', 12, { whiteboard: 'matched' }, { 'If-Match': second.headers.etag as string, 'If-Unmodified-Since': firstDate })).status).toBe(200);
    await nextSecond();
    const current = await send('PATCH', 12, { whiteboard: 'current' });
    const held = await send('PATCH', 12, { whiteboard: 'held' }, { 'If-Unmodified-Since': current.headers['last-modified'] as string });
    expect(held.status).toBe(200);
    // Two versions in one second share their Last-Modified: a client may hold either, so that date lets no write through.
    const late = await send('PATCH', 12, { whiteboard: 'late' }, { 'If-Unmodified-Since': held.headers['last-modified'] as string });
    if (held.headers['last-modified'] !== current.headers['last-modified']) expect(late.status).toBe(200);
    else expect([late.status, json(late).detail]).toEqual([412, 'The record was written twice in the second If-Unmodified-Since names: send If-Match with its ETag instead.']);
  });

  it('OPTIONS describes the record, and with a token the fields a PUT takes', async () => {
    const anonymous = await raw(server.url, 'OPTIONS', '/api/v2/video/12');
    expect(anonymous.status).toBe(200);
    expect(json(anonymous)).not.toHaveProperty('actions');
    // A token that is given but wrong is refused, as Django REST framework authenticates OPTIONS like any request.
    for (const [auth, detail] of [['Token nope', 'Invalid token.'], ['Token', 'Invalid token header. No credentials provided.']]) {
      const wrong = await raw(server.url, 'OPTIONS', '/api/v2/video/12', { Authorization: auth! });
      expect([wrong.status, wrong.headers['www-authenticate'], json(wrong)]).toEqual([401, 'Token', { detail }]);
    }
    expect((await raw(server.url, 'OPTIONS', '/api/v2/video/12', { Authorization: 'Basic eDp5' })).status).toBe(200);
    // So is every other request to the API: a list's OPTIONS, a record's GET, a list's HEAD.
    for (const [method, url] of [['OPTIONS', '/api/v2/video/'], ['GET', '/api/v2/video/12'], ['HEAD', '/api/v2/category/'], ['GET', '/api/v2/video/99999']]) {
      const wrong = await raw(server.url, method!, url!, { Authorization: 'Token nope' });
      expect([wrong.status, wrong.headers['www-authenticate'], wrong.headers.vary], `${method} ${url}`).toEqual([401, 'Token', 'Accept']);
      expect((await raw(server.url, method!, url!, { Authorization: `Token ${token}` })).status, `${method} ${url}`).toBe(url === '/api/v2/video/99999' ? 404 : 200);
    }
    const r = await send('OPTIONS', 12);
    const put = json(r).actions.PUT;
    expect(put.state).toEqual({ type: 'choice', choices: [{ value: 1, display_name: 'Live' }, { value: 2, display_name: 'Draft' }], required: false, read_only: false, label: 'State' });
    expect(put.title).toMatchObject({ type: 'string', required: true, read_only: false });
    expect(put.id).toMatchObject({ type: 'integer', read_only: true, required: false });
    expect(put.recorded.type).toBe('date');
    expect(put.updated.type).toBe('datetime');
    expect(put.source_url.type).toBe('url');
    expect(put.tags).toMatchObject({ type: 'list', child: { type: 'string' } });
    expect(Object.keys(put)).toHaveLength(32);
  });

  it('loses none of 50 concurrent PATCHes of one talk', async () => {
    const initial = json(await get('/api/v2/video/12'));
    const patches = Array.from({ length: 50 }, (_, i) => {
      const fields = ['summary', 'description', 'quality_notes', 'copyright_text', 'whiteboard', 'title', 'duration', 'tags', 'speakers', 'thumbnail_url'] as const;
      const field = fields[i % fields.length]!;
      const value = field === 'duration' ? 1000 + i : field === 'tags' || field === 'speakers' ? [`v${i}`] : field === 'thumbnail_url' ? `https://img.example.org/${i}.jpg` : `value ${i}`;
      return { [field]: value };
    });
    const answers = await Promise.all(patches.map((p) => send('PATCH', 12, p)));
    expect(answers.map((a) => a.status)).toEqual(patches.map(() => 200));
    // Writes run one at a time, so their `updated` orders them; replaying them in that order gives the final record.
    const applied = answers.map((a, i) => ({ updated: json(a).updated as string, patch: patches[i]! })).sort((a, b) => (a.updated < b.updated ? -1 : 1));
    expect(new Set(applied.map((a) => a.updated)).size).toBe(50);
    const expected = applied.reduce((record, a) => ({ ...record, ...a.patch, updated: a.updated }), initial);
    expect(json(await get('/api/v2/video/12'))).toEqual(expected);
  }, 120_000);

  it('writes over changes made to the content files by hand since its last build', async () => {
    const file = path.join(content, TALK);
    await writeFile(file, `${(await readFile(file, 'utf8')).replace(/^title: .*$/m, 'title: Edited by hand')}# a note\n`);
    const r = await send('PATCH', 12, { whiteboard: 'after a hand edit' });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({ title: 'Edited by hand', whiteboard: 'after a hand edit' });
    expect(await readFile(file, 'utf8')).toContain('# a note');
    // A talk added by hand is there to change, and a PUT to its id does not make it a second time.
    await writeFile(path.join(content, 'tidewater-python-2024/videos/added-by-hand.yaml'), 'id: 4343\ntitle: Added by Hand\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n');
    expect(json(await send('PATCH', 4343, { duration: 60 }))).toMatchObject({ id: 4343, title: 'Added by Hand', duration: 60 });
    const put = await send('PUT', 4343, { title: 'Put by Hand', category: 'Tidewater Python 2024' });
    expect(put.status).toBe(200);
    expect(parse(await readFile(path.join(content, 'tidewater-python-2024/videos/added-by-hand.yaml'), 'utf8')).title).toBe('Put by Hand');
    expect(existsSync(path.join(content, 'tidewater-python-2024/videos/put-by-hand.yaml'))).toBe(false);
    // A talk whose file says it was added later than now cannot be stamped `updated` now: the file is to correct, not the request.
    await writeFile(path.join(content, 'tidewater-python-2024/videos/added-by-hand.yaml'), 'id: 4343\ntitle: Ahead\nadded: "2099-06-01T00:00:00"\nupdated: "2099-06-01T00:00:00"\n');
    const ahead = await send('PATCH', 4343, { duration: 61 });
    expect([ahead.status, json(ahead).detail]).toEqual([409, expect.stringMatching(/^The talk was added at 2099-06-01T00:00:00, later than this change \(.*\): correct "added" in .*added-by-hand\.yaml, then write again\.$/)]);
    expect(parse(await readFile(path.join(content, 'tidewater-python-2024/videos/added-by-hand.yaml'), 'utf8')).duration).toBeUndefined();
  });

  it('saves the build state after the answer, once writes stop coming', async () => {
    const stateDir = stateDirFor(path.join(root, 'cache'), out);
    const patch = (whiteboard: string) => raw(server.url, 'PATCH', '/api/v2/video/12', { 'Content-Type': 'application/json', Authorization: `Token ${token}` }, JSON.stringify({ whiteboard }));
    expect(hasState(stateDir)).toBe(true);
    expect((await patch('first of two')).status).toBe(200);
    expect(hasState(stateDir)).toBe(false);
    expect((await patch('second of two')).status).toBe(200);
    expect(hasState(stateDir)).toBe(false);
    await writer.settled();
    expect(hasState(stateDir)).toBe(true);
    // Saved with the site's parts, signed, as the dev server saves it: a build in a process of its own keeps them.
    const [file] = await fg('state-*.v8', { cwd: stateDir });
    const saved = readState(stateDir, /^state-(.*)\.v8$/.exec(file!)![1]!, out);
    expect([...saved!.parts!].filter(([name, part]) => name.startsWith('event\0') && part.signature).length).toBeGreaterThan(0);
    expect((await build({ content, out, templates: TEMPLATES, cache: path.join(root, 'cache') })).ok && json(await get('/api/v2/video/12')).whiteboard).toBe('second of two');
  });

  it('follows a build of the same output in another process: the next write leaves no file of it behind', async () => {
    const file = path.join(content, 'tidewater-python-2024/videos/escaping-is-not-enough-xss-in-templates.yaml');
    const original = await readFile(file);
    const title = json(await get('/api/v2/video/5')).title;
    // `npm run build` of an edit that is then taken back, with the server running.
    await writeFile(file, original.toString('utf8').replace(/^title: .*$/m, 'title: Built elsewhere'));
    expect((await build({ content, out, templates: TEMPLATES, cache: path.join(root, 'cache') })).ok).toBe(true);
    expect(json(await get('/api/v2/video/5')).title).toBe('Built elsewhere');
    await writeFile(file, original);
    expect((await send('PATCH', 12, { whiteboard: 'after another build' })).status).toBe(200);
    expect(json(await get('/api/v2/video/5')).title).toBe(title);
  });

  it("PUT to a new id names the talk's file after a slug no talk of the event has, whatever their files are called", async () => {
    await writeFile(path.join(content, 'tidewater-python-2024/videos/named-otherwise.yaml'), 'id: 4444\nslug: chosen-by-hand\ntitle: Chosen by Hand\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n');
    const r = await send('PUT', 4445, { title: 'Chosen by Hand', category: 'Tidewater Python 2024' });
    expect(r.status).toBe(201);
    expect(json(r).slug).toBe('chosen-by-hand-2');
    expect(existsSync(path.join(content, 'tidewater-python-2024/videos/chosen-by-hand-2.yaml'))).toBe(true);
  });

  it('PUT creates the first talk of an event that has no videos folder yet, and leaves no folder behind when it cannot', async () => {
    const event = path.join(content, 'first-of-its-kind');
    await mkdir(event);
    await writeFile(path.join(event, 'category.yaml'), 'title: First of Its Kind\n');
    const videos = path.join(event, 'videos');
    written.seen = (name) => {
      if (path.dirname(name) === videos) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    try {
      expect((await send('PUT', 4600, { title: 'Not Written', category: 'First of Its Kind' })).status).toBe(500);
    } finally {
      written.seen = () => undefined;
    }
    expect(existsSync(videos)).toBe(false);
    const r = await send('PUT', 4600, { title: 'The First Talk', category: 'First of Its Kind' });
    expect([r.status, r.headers.location]).toEqual([201, '/api/v2/video/4600']);
    expect(parse(await readFile(path.join(videos, 'the-first-talk.yaml'), 'utf8')).id).toBe(4600);
    expect((await get('/api/v2/video/4600')).text).toBe(r.text);
  });

  it("keeps a talk file's permissions: one only its owner may read stays so, written or put back", async () => {
    const file = path.join(content, TALK);
    await chmod(file, 0o600);
    try {
      expect((await send('PATCH', 12, { whiteboard: 'not for everyone' })).status).toBe(200);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // Valid in the file alone; the build refuses it, and the file is put back.
      expect((await send('PATCH', 12, { category: 'Another Event' })).status).toBe(400);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await chmod(file, 0o644);
    }
  });

  it('answers a body of thousands of unknown fields at once: it edits no file for them', async () => {
    const before = await fingerprint(content);
    const fields = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`x${i}`, 0]));
    const started = performance.now();
    const r = await send('PATCH', 12, { duration: 'long', ...fields });
    const ms = performance.now() - started;
    expect(r.status).toBe(400);
    const errors = json(r);
    expect(Object.keys(errors)).toEqual(['duration', ...Object.keys(fields)]);
    expect(errors.x0).toEqual(['unknown field; remove it (see "Content format" in the README for the known fields)']);
    const created = await send('PUT', 4701, { title: 'Many Fields', category: 'Tidewater Python 2024', ...fields });
    expect([created.status, Object.keys(json(created))]).toEqual([400, Object.keys(fields)]);
    expect(await fingerprint(content)).toEqual(before);
    // Editing the file field by field took time by the square of their number, on the server's one thread: these took
    // 10–20 s, 12,000 took 100 s, and a 1 MiB body of short names would take hours.
    expect(ms).toBeLessThan(5_000);
  }, 180_000);

  it('PUT to a new id names an unknown field, as it does to a talk that is there, rather than leave it out', async () => {
    const before = await fingerprint(content);
    const r = await send('PUT', 4700, { title: 'Typo Talk', category: 'Tidewater Python 2024', durration: 60 });
    expect([r.status, json(r)]).toEqual([400, { durration: ['unknown field; did you mean `duration`?'] }]);
    expect(await fingerprint(content)).toEqual(before);
  });

  it('answers a body of null as Django REST framework does: no data provided, not a dictionary it did not get', async () => {
    const before = await fingerprint(content);
    for (const method of ['PATCH', 'PUT']) {
      const r = await send(method, 12, 'null');
      expect([r.status, json(r)]).toEqual([400, { non_field_errors: ['No data provided'] }]);
    }
    expect(json(await send('PATCH', 12, 'true'))).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got bool.'] });
    expect(await fingerprint(content)).toEqual(before);
  });

  it('reads a body in the charset its type names, as Django REST framework does, and refuses one it does not know', async () => {
    const body = '{"title": "Café für Anfänger"}';
    const utf16be = Buffer.from(body, 'utf16le').swap16();
    const bodies: [string, Buffer][] = [
      ['application/json; charset=latin-1', Buffer.from(body, 'latin1')],
      ['application/json;charset="ISO-8859-1"', Buffer.from(body, 'latin1')],
      // Python writes UTF-16 little-endian after its mark, Java big-endian after its own.
      ['application/json; charset=utf-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')])],
      ['application/json; charset=UTF-16', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be])],
      ['application/json; charset=utf-16be', utf16be],
    ];
    for (const [type, bytes] of bodies) {
      await send('PATCH', 12, { title: 'Before' });
      // Read as UTF-8, the Latin-1 é was not UTF-8 (a 400) and UTF-16 no JSON.
      const r = await send('PATCH', 12, bytes, { 'Content-Type': type });
      expect([type, r.status, json(r).title]).toEqual([type, 200, 'Café für Anfänger']);
    }
    const before = await fingerprint(content);
    const unknown = await send('PATCH', 12, body, { 'Content-Type': 'application/json; charset=klingon' });
    expect([unknown.status, json(unknown)]).toEqual([415, { detail: 'Unsupported media type "application/json; charset=klingon" in request. Unknown charset.' }]);
    // Bytes that are not of the charset named are refused, not written as U+FFFD.
    expect((await send('PATCH', 12, Buffer.from([0x7b, 0xff]), { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(400);
    expect(await fingerprint(content)).toEqual(before);
  });

  it('names an unknown field whose name holds "." or "[" by its whole name, not as a part of the field it starts with', async () => {
    const before = await fingerprint(content);
    for (const [method, id] of [['PATCH', 12], ['PUT', 4702]] as const) {
      const r = await send(method, id, { title: 'Odd Names', category: 'Tidewater Python 2024', 'tags[]': ['a'], 'speakers.0': 'x', '': 1 });
      expect(r.status).toBe(400);
      expect(Object.keys(json(r)).sort()).toEqual(['', 'speakers.0', 'tags[]']);
      expect(json(r)['tags[]']).toEqual(['unknown field; did you mean `tags`?']);
    }
    expect(await fingerprint(content)).toEqual(before);
  });
});

/** A folder of the test's own (`prefix`) holding a copy of the demo content and a tokens file with one token, `key`. */
async function demoWithToken(prefix: string) {
  const dir = await tempDir(prefix);
  const contentDir = path.join(dir, 'content');
  await cp(DEMO_CONTENT, contentDir, { recursive: true });
  const tokens = path.join(dir, 'tokens.txt');
  return { dir, contentDir, tokens, key: await addToken(tokens, 'editor') };
}

describe('serve --tokens', () => {
  it('takes writes through the real command, and refuses a tokens file inside the served folder', async () => {
    const { dir, contentDir, tokens, key } = await demoWithToken('vc-serve-writes-');
    const args = ['--dir', path.join(dir, 'dist'), '--content', contentDir, '--cache', path.join(dir, 'cache'), '--tokens', tokens, '--port', '0', '--quiet'];
    const child = startCommand('serve', args);
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          output += c;
          const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
          if (m) resolve(m[1]!);
        });
        child.stderr.on('data', (c: Buffer) => (output += c));
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      const r = await raw(url, 'PATCH', '/api/v2/video/12/', { 'Content-Type': 'application/json', Authorization: `token ${key}` }, '{"title": "Over the CLI"}');
      expect(r.status).toBe(200);
      expect(json(await raw(url, 'GET', '/api/v2/video/12')).title).toBe('Over the CLI');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    // The state the write left was saved before the server stopped: the next build finds nothing to do, without loading anything.
    const next = await build({ content: contentDir, out: path.join(dir, 'dist'), templates: TEMPLATES, cache: path.join(dir, 'cache') });
    expect(next).toMatchObject({ ok: true, summary: { written: 0, removed: 0 } });
    expect(next.ok && next.catalogue).toBeUndefined();
    /** What serve says of `tokensFile` when it serves `dir`, and its exit code. */
    const refusal = async (tokensFile: string) => {
      const inside = startCommand('serve', ['--dir', dir, '--content', contentDir, '--tokens', tokensFile, '--port', '0']);
      let err = '';
      inside.stderr.on('data', (c: Buffer) => (err += c));
      return { code: await new Promise<number | null>((resolve) => inside.on('exit', resolve)), err };
    };
    expect(await refusal(tokens)).toEqual({ code: 2, err: expect.stringContaining(`--tokens ${tokens} is inside the served folder (--dir ${dir}); keep it outside`) });
    // Named through a symbolic link to the served folder, it is the same file.
    const linked = path.join(await tempDir('vc-serve-link-'), 'site');
    await symlink(dir, linked);
    const throughLink = path.join(linked, 'tokens.txt');
    expect(await refusal(throughLink)).toEqual({ code: 2, err: expect.stringContaining(`--tokens ${throughLink} is inside the served folder`) });
  }, 60_000);
});

describe('writes to a site served from a folder of its host', () => {
  it("answers a PUT that creates a talk with the record's address under the folder", async () => {
    const { dir, contentDir, tokens, key } = await demoWithToken('vc-writes-folder-');
    const folderWriter = await RecordWriter.open({ content: contentDir, out: path.join(dir, 'dist'), templates: TEMPLATES, baseUrl: 'https://user.github.io/talks/', tokens: await readTokens(tokens) });
    const folder = await startServer({ dir: path.join(dir, 'dist'), basePath: '/talks', host: '127.0.0.1', port: 0, quiet: true, writes: folderWriter });
    try {
      const r = await raw(folder.url, 'PUT', '/talks/api/v2/video/4700', { 'Content-Type': 'application/json', Authorization: `Token ${key}` }, JSON.stringify({ title: 'Under a Folder', category: 'Tidewater Python 2024' }));
      expect([r.status, r.headers.location]).toEqual([201, '/talks/api/v2/video/4700']);
      expect((await raw(folder.url, 'GET', r.headers.location as string)).text).toBe(r.text);
      await folderWriter.settled();
    } finally {
      await folder.close();
    }
  }, 60_000);
});
