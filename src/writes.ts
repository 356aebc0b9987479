// Writing through the API, as the Django app the interface comes from let
// clients do: PUT and PATCH on /api/v2/video/<id> with `Authorization: Token
// <key>` change the talk's content file, and the incremental build brings the
// output in line before the answer goes out, so the next GET shows the change.
// Writes run one at a time; a write that fails validation or the build leaves
// every file as it was.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import * as z from 'zod';
import { basePathOf } from './base-path.ts';
import { build, DEFAULT_BASE_URL, SAVE_AFTER, saveState, type BuildOptions, type BuildResult } from './build.ts';
import { slugFromTitle } from './collections.ts';
import type { ContentError } from './errors.ts';
import { API_JSON_HEADERS, detailJson, etagMatches, etagOf, HEADERS, httpDate, NOT_FOUND, RECORD_ALLOW, RECORD_OPTIONS, recordFile } from './headers.ts';
import { DEFAULT_SITE, isLive, loadContent, loadFullTalk, revisionOf, type Catalogue, type CatalogueTalk } from './load.ts';
import { removeKilledTemps, writeFileAtomic } from './output.ts';
import { readWithStats, type WriteHandler } from './server.ts';
import { Locked } from './locks.ts';
import { lockState, stateDirFor } from './state.ts';
import { API_FIELDS, inertJson, serialiseRecord } from './record.ts';
import { talkSchema, TALK_FIELDS, TALK_INSTEAD, timestamps } from './schema.ts';
import { editSource, newSource, type FieldChanges } from './source-edit.ts';
import { parseSource } from './source.ts';
import { credentials, verifyToken, type TokenEntry } from './tokens.ts';
import { validate } from './validate.ts';

/** Bodies above this are refused: what is left of one is read only to be dropped (see refuseBody), never kept. */
const MAX_BODY = 1024 * 1024;
/** Fields a client cannot set: the path gives the id, the file name the slug, the server the times. */
const READ_ONLY = new Set(['id', 'slug', 'added', 'updated']);
const WRITABLE = API_FIELDS.filter((f) => !READ_ONLY.has(f));

type Status = { status: number; body: string; headers?: Record<string, string> };
/** A write's preconditions, as the request's headers give them. */
type Conditions = { ifMatch?: string; ifNoneMatch?: string; ifUnmodifiedSince?: string };

const JSON_HEADERS = { ...API_JSON_HEADERS, Vary: 'Accept', Allow: RECORD_ALLOW };
const fail = (status: number, message: string, headers?: Record<string, string>): Status => ({ status, body: detailJson(message), headers });
const CHALLENGE = { 'WWW-Authenticate': 'Token' };

/** Another process builds the output or imports into the content: a write waits for it, as it would for a write before it. */
const busy = ({ pid, by }: Locked) => fail(503, `Another ${by} of this site (process ${pid}) is running: try again when it is done.`, { 'Retry-After': '10' });

/** The catalogue cannot be built as the content files are, whatever the write: they must be fixed first. */
const conflict = (errors: readonly ContentError[]) => fail(409, `The catalogue has content errors; fix them first: ${errors.slice(0, 5).join('; ')}`);

/** Whether a talk's file still holds what the catalogue read: a person, git or another process may have changed it since. */
function isCurrent(content: string, talk: CatalogueTalk): boolean {
  try {
    return revisionOf(readFileSync(path.join(content, talk.name))) === talk.rev;
  } catch {
    return false;
  }
}

class HttpError extends Error {
  /** `bodyComing`: the request's body, refused, is still coming, to be read and dropped after the answer (see refuseBody). */
  constructor(
    readonly answer: Status,
    readonly bodyComing = false,
  ) {
    super(answer.body);
  }
}

/** Django REST framework's names for JSON types, as its "Expected a dictionary" message uses them. */
function pythonType(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** JSON.parse reads `1e400` as Infinity, which no field can hold and JSON.stringify writes as null. */
function finiteOnly(key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError(`Out of range float values are not JSON compliant (the value of "${key}")`);
  return value;
}

/**
 * How deep a body may nest its objects and lists: a record's fields are text, numbers and lists of text, two
 * levels with the body's own object. A deeper value would be refused by validation, but it is written into the
 * content file before validation reads it, and the editors fail on it (jsonc-parser from about 100 levels, yaml
 * from about 500), which answered 500.
 */
const MAX_DEPTH = 32;

/** Whether `value` nests objects and lists more than `max` levels deep; without recursion, as it may be deeper than the stack. */
function nestsDeeper(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

const waitsToContinue = (req: IncomingMessage) => /(?:^|\W)100-continue(?:$|\W)/i.test(req.headers.expect ?? '');

/**
 * `refusal` of a request's body, or of the request before its body is read (401), answered at once. What is still
 * coming of the body is read and dropped after the answer (for as long as the server gives a request), before the
 * connection ends (see handle): a client that sends the whole of its body before it reads an answer (fetch, Python's
 * http.client) lost the answer to the reset that a close with megabytes unread makes, and one sending it slowly,
 * had the answer waited for the whole body, got the server's time limit's 408 instead. A client that waits for
 * `100 Continue`, and has not been sent it, sends no body (`coming` false).
 */
function refuseBody(req: IncomingMessage, refusal: Status, coming = !waitsToContinue(req)): HttpError {
  return new HttpError(refusal, coming && !req.complete);
}

/**
 * How a body of this type is read as text: in the charset the type names, as Django REST framework reads it
 * (UTF-8 without one); undefined for a charset the WHATWG Encoding Standard does not know (Django would read
 * it as UTF-8, and so garble what it is not), which is refused. Names are read as browsers read them:
 * `latin-1` is windows-1252, and UTF-16 follows the body's byte order mark, as Python's `utf-16` does. Fatal:
 * bytes that are not of the charset would otherwise become U+FFFD in the content file, the client never told.
 */
function bodyDecoder(type: string): ((bytes: Uint8Array) => string) | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1] ?? 'utf-8';
  // Python's spellings too (`latin-1`, `utf_16`), which the Encoding Standard writes `latin1`, `utf-16`.
  const encoding = [charset, charset.replace(/_/g, '-'), charset.replace(/[-_]/g, '')].map(encodingOf).find(Boolean);
  if (!encoding) return undefined;
  const utf16 = encoding.startsWith('utf-16');
  return (bytes) => {
    const marked = utf16 && bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : utf16 && bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : encoding;
    // A UTF-8 byte order mark is kept, for JSON.parse to refuse, as Python's json does.
    return new TextDecoder(marked, { fatal: true, ignoreBOM: !utf16 }).decode(bytes);
  };
}

/** The Encoding Standard's name for a charset label, if it knows the label. */
function encodingOf(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The request body as a JSON object, or the error Django REST framework would answer with. A client
 * that waits for `100 Continue` (the server takes such requests itself, see server.ts) is told to go
 * on only once the request is known to be wanted: one refused gets its answer without sending the body.
 */
async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown>> {
  const length = Number(req.headers['content-length'] ?? 0);
  // No body is no data, whatever its type, as Django REST framework reads it: a PATCH of nothing, a PUT of nothing.
  if (length === 0 && req.headers['transfer-encoding'] === undefined) return {};
  const tooLarge = () => fail(413, 'Request body is larger than 1 MiB.', { Connection: 'close' });
  if (length > MAX_BODY) throw refuseBody(req, tooLarge());
  const type = req.headers['content-type'] ?? '';
  const decoder = bodyDecoder(type);
  const named = /^application\/json\s*(;|$)/i.test(type);
  const json = named && decoder !== undefined;
  const unsupported = () => fail(415, `Unsupported media type "${type}" in request.${named ? ' Unknown charset.' : ''}`);
  // A chunked body may turn out to be none, which is no data too: its type is known wrong once a byte comes.
  if (!json && length > 0) throw refuseBody(req, unsupported());
  if (waitsToContinue(req)) res.writeContinue();
  const chunks: Buffer[] = [];
  let size = 0;
  let refused: Status | undefined;
  // Not destroyed when left part way, as a refusal leaves it: the rest is for refuseBody.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    refused = size > MAX_BODY ? tooLarge() : !json && size > 0 ? unsupported() : undefined;
    if (refused) break;
    chunks.push(chunk);
  }
  if (refused) throw refuseBody(req, refused, true);
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(decoder!(Buffer.concat(chunks)), finiteOnly);
  } catch (err) {
    throw new HttpError(fail(400, `JSON parse error - ${(err as Error).message}`));
  }
  if (nestsDeeper(value, MAX_DEPTH)) throw new HttpError(fail(400, `JSON parse error - nested more than ${MAX_DEPTH} levels deep`));
  // Django REST framework's serializer takes null for no data at all, before it asks for a dictionary.
  if (value === null) throw new HttpError({ status: 400, body: inertJson({ non_field_errors: ['No data provided'] }) });
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError({ status: 400, body: inertJson({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonType(value)}.`] }) });
  }
  return value as Record<string, unknown>;
}

/**
 * Content errors as Django REST framework's validation body: messages by field. `given` are the names a body
 * gave, which may hold "." or "[" themselves (`tags[]`): an error about one is its own, not a part of another field's.
 */
function fieldErrors(errors: readonly ContentError[], given: ReadonlySet<string> = new Set()): Record<string, string[]> {
  // Without a prototype: a field may be named `toString` or `__proto__`.
  const out: Record<string, string[]> = Object.create(null);
  for (const error of errors) {
    const top = given.has(error.field) ? error.field : /^[^.[]*/.exec(error.field)?.[0] || 'non_field_errors';
    const message = error.field && error.field !== top ? `${error.field.slice(top.length).replace(/^\./, '')}: ${error.message}` : error.message;
    (out[top] ??= []).push(message);
  }
  return out;
}

type JsonSchema = { type?: string | string[]; format?: string; anyOf?: JsonSchema[]; items?: JsonSchema; choices?: unknown[] };

/** A field's type in Django REST framework's words, from the build's schema. */
function fieldType(schema: JsonSchema): Record<string, unknown> {
  if (schema.choices) return { type: 'choice', choices: schema.choices };
  const options = (schema.anyOf ?? [schema]).filter((s) => s.type !== 'null');
  const one = options[0] ?? schema;
  const type = [one.type ?? ''].flat().filter((t) => t !== 'null')[0];
  if (type === 'array') return { type: 'list', child: fieldType(one.items ?? {}) };
  if (type === 'string') return { type: ({ uri: 'url', date: 'date', 'date-time': 'datetime' } as Record<string, string>)[schema.format ?? one.format ?? ''] ?? 'string' };
  return { type: type === 'integer' || type === 'boolean' ? type : type === 'number' ? 'float' : 'field' };
}

/** What OPTIONS tells a client that may write: each field of the record, its type, whether it is required or read-only, and its choices. */
function putActions(): Record<string, Record<string, unknown>> {
  const schema = z.toJSONSchema(talkSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const fields: Record<string, Record<string, unknown>> = {};
  for (const name of API_FIELDS) {
    const label = name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
    const readOnly = READ_ONLY.has(name);
    fields[name] = { ...fieldType(schema.properties[name]!), required: !readOnly && required.has(name), read_only: readOnly, label };
  }
  return fields;
}

interface WriterOptions extends Pick<BuildOptions, 'content' | 'out' | 'templates' | 'cache' | 'baseUrl' | 'compress' | 'searchShardSize'> {
  tokens: readonly TokenEntry[];
  /** The clock, for `updated`; tests pass their own. */
  now?: () => Date;
}

/** What one write does to the content folder: the file, its bytes before (none for a new talk) and after. */
interface Change {
  file: string;
  before: Buffer | undefined;
  after: string;
}

/**
 * Serves PUT, PATCH and OPTIONS on record paths. `open` builds the output
 * once (incremental: nothing to do when it is current) and keeps the catalogue,
 * so that a write finds its talk's file without reading the content folder.
 */
export class RecordWriter implements WriteHandler {
  private queue: Promise<unknown> = Promise.resolve();
  /** Writes taken and not yet answered. */
  private waiting = 0;
  /** The save the last write's answer set off, waiting for writes to stop coming (see saveSoon). */
  private saving: NodeJS.Timeout | undefined;
  private readonly actions = { PUT: putActions() };
  /**
   * The build's state, kept between writes so that each build starts from memory (or from the state a build in
   * another process left). Written to the disk once a write is answered and no other waits (see saveState), as
   * the dev server does: writing it took a third of a write's time on the pyvideo import, and a run of writes
   * writes it once.
   */
  private readonly memory: NonNullable<BuildOptions['memory']> = { saveLater: true };
  /** Where builds of this output keep their state and lock, if they do. */
  private readonly stateDir: string | undefined;
  /**
   * Records this server wrote twice within one second, by that second (ms): their Last-Modified, to the second,
   * names either version, so an If-Unmodified-Since of it cannot tell a client's copy from the later one.
   */
  private readonly twiceIn = new Map<number, number>();

  private constructor(
    private readonly options: WriterOptions,
    private catalogue: Catalogue,
  ) {
    this.stateDir = options.cache ? stateDirFor(options.cache, path.resolve(options.out)) : undefined;
  }

  static async open(options: WriterOptions): Promise<RecordWriter> {
    const writer = new RecordWriter(options, { events: [], talks: [], pages: [], redirects: [], site: DEFAULT_SITE });
    const result = await writer.build();
    if (!result.ok) throw new Error(`the content has errors; fix them before serving writes:\n${result.errors.join('\n')}`);
    await writer.save(false);
    let catalogue = result.catalogue;
    if (!catalogue) {
      const loaded = await loadContent(options.content);
      if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
      catalogue = loaded.catalogue;
    }
    writer.catalogue = catalogue;
    return writer;
  }

  /** The handler the server hands PUT, PATCH and OPTIONS on `/api/v2/video/<id>` to. */
  readonly handle = async (req: IncomingMessage, res: ServerResponse, idText: string): Promise<void> => {
    let answer: Status;
    let bodyComing = false;
    try {
      answer = await this.answer(req, res, Number(idText));
    } catch (err) {
      if (!(err instanceof HttpError)) {
        // The client is told no more than that the server failed: the one who runs it is to learn why (a full disk).
        process.stderr.write(`serve: ${req.method} ${req.url} failed (answered 500): ${err instanceof Error ? err.message : String(err)}\n`);
        throw err;
      }
      ({ answer, bodyComing } = err);
    }
    const headers = { ...JSON_HEADERS, ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)) };
    // Set one by one, not given to writeHead: the access log reads the body's length back.
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.writeHead(answer.status);
    if (!bodyComing) return void res.end(req.method === 'HEAD' ? undefined : answer.body);
    // The whole answer now; its end, which may close the connection, once the rest of the refused body is in.
    res.write(answer.body);
    req.resume();
    await finished(req).catch(() => undefined);
    res.end();
  };

  /** Django REST framework authenticates every request, OPTIONS and GET too: credentials given but wrong are 401 whatever is asked for. */
  readonly refusal = (req: IncomingMessage): Status | undefined => {
    const auth = credentials(req.headers.authorization);
    if (!auth.ok && auth.reason === 'invalid') return fail(401, auth.detail, CHALLENGE);
    if (auth.ok && !verifyToken(this.options.tokens, auth.token)) return fail(401, 'Invalid token.', CHALLENGE);
    return undefined;
  };

  /** Answers a request: 401 when its credentials are wrong (see refusal) or absent, before its body is read (see refuseBody). */
  private async answer(req: IncomingMessage, res: ServerResponse, id: number): Promise<Status> {
    const refused = this.refusal(req);
    if (refused) throw refuseBody(req, refused);
    const auth = credentials(req.headers.authorization);
    const user = auth.ok ? verifyToken(this.options.tokens, auth.token) : undefined;
    if (req.method === 'OPTIONS') {
      const body = user ? { ...RECORD_OPTIONS, actions: this.actions } : RECORD_OPTIONS;
      return { status: 200, body: inertJson(body) };
    }
    if (!user) throw refuseBody(req, fail(401, 'Authentication credentials were not provided.', CHALLENGE));
    const body = await readJsonBody(req, res);
    const method = req.method as 'PUT' | 'PATCH';
    const conditions = { ifMatch: req.headers['if-match'], ifNoneMatch: req.headers['if-none-match'], ifUnmodifiedSince: req.headers['if-unmodified-since'] };
    // One write at a time: each reads the file the previous one left.
    clearTimeout(this.saving);
    this.waiting++;
    const run = this.queue.then(() => this.write(method, id, body, conditions)).finally(() => this.waiting--);
    this.queue = run.catch(() => undefined).then(() => this.waiting === 0 && this.saveSoon());
    return run;
  }

  /** Saves the state once no write has come for SAVE_AFTER. */
  private saveSoon(): void {
    clearTimeout(this.saving);
    this.saving = setTimeout(() => {
      // Fired: settled() need not set off another save.
      this.saving = undefined;
      this.queue = this.queue.then(() => this.save(true));
    }, SAVE_AFTER).unref();
  }

  /** Resolves once every write taken so far is answered and the state they left is saved (or its save refused). */
  async settled(): Promise<void> {
    for (let queue = this.queue; ; queue = this.queue) {
      await queue;
      if (this.saving) {
        clearTimeout(this.saving);
        this.saving = undefined;
        this.queue = this.queue.then(() => this.save(false));
      } else if (queue === this.queue) return;
    }
  }

  /** `retry`: when another process's build holds the output, tries again later rather than giving up. */
  private async save(retry: boolean): Promise<void> {
    try {
      await saveState(this.memory);
    } catch (err) {
      if (retry && err instanceof Locked) this.saveSoon();
      else process.stderr.write(`serve: could not save the build state: ${String(err)}\n`);
    }
  }

  private async write(method: 'PUT' | 'PATCH', id: number, body: Record<string, unknown>, conditions: Conditions): Promise<Status> {
    const { ifMatch, ifNoneMatch } = conditions;
    // The path takes 16 digits: past 2^53 the number is not the one sent (…993 reads as …992), and no talk can have it.
    if (!Number.isSafeInteger(id)) return { status: 404, body: NOT_FOUND };
    const { content } = this.options;
    let talk = this.catalogue.talks.find((t) => t.id === id);
    // The content may have changed outside this server since its last build (an editor, git, a file added by hand):
    // build it as it is first, so that the write starts from the file on disk, not from what that build saw.
    if (!talk || !isCurrent(content, talk)) {
      const refused = await this.refresh();
      if (refused) return refused;
      talk = this.catalogue.talks.find((t) => t.id === id);
    }
    if (!talk && method === 'PATCH') return { status: 404, body: NOT_FOUND };
    const stamp = timestamps(this.options.now?.() ?? new Date());
    const fields = Object.fromEntries(Object.entries(body).filter(([key]) => !READ_ONLY.has(key)));
    // Fields of the content file that the record does not show: a client cannot see them, so it may not change them.
    const hidden = Object.keys(fields).filter((key) => TALK_FIELDS.includes(key) && !(API_FIELDS as readonly string[]).includes(key));
    if (hidden.length > 0) return { status: 400, body: inertJson(Object.fromEntries(hidden.map((key) => [key, ['is not part of the API record; change it in the content file']]))) };
    // Unknown fields go on to validation, which names the closest known one.
    const unknown = Object.keys(fields).filter((key) => !TALK_FIELDS.includes(key));

    let change: Change;
    if (talk) {
      const current = loadFullTalk(content, talk);
      const etag = etagOf(Buffer.from(serialiseRecord(current)));
      // If-Unmodified-Since counts only without If-Match (RFC 9110 13.2.2).
      const unmodified = ifMatch === undefined ? await this.unmodifiedSince(id, conditions.ifUnmodifiedSince) : true;
      if ((ifMatch !== undefined && !etagMatches(ifMatch, etag, true)) || unmodified === false) {
        return fail(412, 'The record has changed since you read it: GET it again and reapply your change.');
      }
      if (unmodified === undefined) return fail(412, 'The record was written twice in the second If-Unmodified-Since names: send If-Match with its ETag instead.');
      // `If-None-Match: *` makes a PUT create only, as a client that must not replace a record sends it (RFC 9110 13.1.2).
      if (etagMatches(ifNoneMatch, etag)) return fail(412, 'There is a record with this id already.');
      // Without a prototype, and asked with hasOwn: a client may name a field `toString` or `__proto__`.
      const changes: FieldChanges = Object.create(null);
      const source = await readFile(path.join(content, talk.name));
      const stored = (parseSource(talk.file, source) as { ok: true; doc: { value: Record<string, unknown> } }).doc.value;
      for (const key of method === 'PUT' ? [...WRITABLE, ...unknown] : Object.keys(fields)) {
        if (Object.hasOwn(fields, key)) {
          if (!Object.hasOwn(current, key) || !sameValue(fields[key], current[key as keyof typeof current])) changes[key] = fields[key];
        } else if (Object.hasOwn(stored, key)) changes[key] = undefined;
      }
      if (Object.keys(changes).length === 0) return this.recordAnswer(talk, 200);
      // `updated` is the server's to set, and cannot go before `added`: a clock or a hand that set `added` ahead is the file's to correct.
      if (current.added > stamp.added) {
        return fail(409, `The talk was added at ${current.added}, later than this change (${stamp.added}): correct "added" in ${talk.file}, then write again.`);
      }
      changes.updated = stamp.updated;
      const refused = unknown.length > 0 ? this.invalid(talk.name, edited(stored, changes)) : undefined;
      if (refused) return refused;
      change = { file: talk.name, before: source, after: editSource(talk.name, source.toString('utf8'), changes) };
    } else {
      if (ifMatch !== undefined) return fail(412, 'There is no record with this id to match.');
      const created = this.newTalk(id, fields, unknown, stamp);
      if ('status' in created) return created;
      change = created;
    }
    return this.apply(change, id, talk ? 200 : 201);
  }

  /** When the server's copy of a talk's record was last written (ms), if it serves one. */
  private async servedAt(id: number): Promise<number | undefined> {
    return (await stat(path.join(this.options.out, recordFile(id))).catch(() => undefined))?.mtimeMs;
  }

  /**
   * Whether the record is unmodified since `date` (If-Unmodified-Since), by the whole second its Last-Modified
   * gives: true for no date or no record served (RFC 9110 13.1.4 ignores them), undefined when that second cannot
   * tell: two versions were written in it, and the client may hold either.
   */
  private async unmodifiedSince(id: number, date: string | undefined): Promise<boolean | undefined> {
    const since = date === undefined ? undefined : httpDate(date);
    const served = since === undefined ? undefined : await this.servedAt(id);
    if (since === undefined || served === undefined) return true;
    const second = wholeSecond(served);
    if (second !== since) return second < since;
    return this.twiceIn.get(id) === second ? undefined : true;
  }

  /** An incremental build; `locked` when this writer holds the output's lock already (see apply). */
  private build(locked = false): Promise<BuildResult> {
    return build({ ...this.options, memory: this.memory, locked });
  }

  /** What `work` gives, or the answer when another process holds the output. */
  private async orBusy<T>(work: Promise<T>): Promise<T | Status> {
    try {
      return await work;
    } catch (err) {
      if (err instanceof Locked) return busy(err);
      throw err;
    }
  }

  /** Builds the content as it is now and keeps its catalogue; the answer when that cannot be done. */
  private async refresh(): Promise<Status | undefined> {
    const result = await this.orBusy(this.build());
    if ('status' in result) return result;
    if (!result.ok) return conflict(result.errors);
    if (result.catalogue) this.catalogue = result.catalogue;
    return undefined;
  }

  /** The file a PUT to a new id creates: in the event its `category` names, named after its title. */
  private newTalk(id: number, fields: Record<string, unknown>, unknown: readonly string[], stamp: { added: string; updated: string }): Change | Status {
    const events = this.catalogue.events.filter((e) => e.title === fields.category);
    if (typeof fields.category !== 'string' || events.length === 0) {
      return { status: 400, body: inertJson({ category: [`name an existing event by its title to create a talk in it (one of: ${this.catalogue.events.map((e) => JSON.stringify(e.title)).join(', ')})`] }) };
    }
    if (events.length > 1) return { status: 400, body: inertJson({ category: [`several events are titled "${fields.category}"; rename one first`] }) };
    const event = events[0]!;
    const base = (typeof fields.title === 'string' && slugFromTitle(fields.title)) || `talk-${id}`;
    const dir = path.dirname(event.name);
    // Neither a file's name nor a slug of the event: a talk may give its own `slug`, whatever its file is called.
    const taken = (slug: string) =>
      existsSync(path.join(this.options.content, dir, 'videos', `${slug}.yaml`)) || this.catalogue.talks.some((t) => t.name === `${dir}/videos/${slug}.yaml` || (t.event === event.slug && t.slug === slug));
    let slug = base;
    for (let n = 2; taken(slug); n++) slug = `${base}-${n}`;
    const { category: _, ...rest } = fields;
    // Unknown fields last, for validation to name.
    const ordered = Object.fromEntries([...API_FIELDS.filter((f) => f in rest), ...unknown].map((f) => [f, rest[f]]));
    const file = `${dir}/videos/${slug}.yaml`;
    const talk = { id, ...ordered, added: stamp.added, updated: stamp.updated };
    return (unknown.length > 0 && this.invalid(file, talk)) || { file, before: undefined, after: newSource(file, talk) };
  }

  /**
   * Validation's answer to the fields a file would hold, found from their values alone, for a body with unknown
   * fields (which fail it): writing them into the file first took time by the square of their number, on the
   * server's one thread (5,000 short names 10–20 s, 12,000 100 s), and so did finding where each was written.
   */
  private invalid(file: string, fields: Record<string, unknown>): Status | undefined {
    const doc = { file: path.join(this.options.content, file), value: fields, locate: () => ({ line: 1, col: 1 }) };
    const checked = validate(talkSchema, doc, TALK_FIELDS, TALK_INSTEAD);
    return checked.ok ? undefined : { status: 400, body: inertJson(fieldErrors(checked.errors, new Set(Object.keys(fields)))) };
  }

  /** Validates the new file as the build will, writes it, builds; on any failure puts the old file back. */
  private async apply(change: Change, id: number, status: number): Promise<Status> {
    const { content } = this.options;
    const shown = path.join(content, change.file);
    const parsed = parseSource(shown, Buffer.from(change.after));
    const checked = parsed.ok ? validate(talkSchema, parsed.doc, TALK_FIELDS, TALK_INSTEAD) : parsed;
    if (!checked.ok) return { status: 400, body: inertJson(fieldErrors(checked.errors)) };

    // Held until a change the build refuses is taken back: a build of the same output in another
    // process (a dev server watching the content) would otherwise publish it meanwhile.
    const unlock = this.stateDir ? await this.orBusy(lockState(this.stateDir)) : undefined;
    if (unlock && 'status' in unlock) return unlock;
    const file = path.join(content, change.file);
    const before = await this.servedAt(id);
    let result: BuildResult | undefined;
    /** The folder a new talk's file made: an event without talks may have no videos/ yet. */
    let made: string | undefined;
    /** The talk file's permissions, which its new bytes keep: a file only its owner may read is not to become everyone's. */
    let mode: number | undefined;
    try {
      if (change.before) mode = (await stat(file)).mode & 0o777;
      else made = await mkdir(path.dirname(file), { recursive: true });
      // A write killed as it wrote (SIGKILL) left its temporary file beside the talk's, where nothing else removes it.
      await removeKilledTemps(path.dirname(file));
      await writeFileAtomic(file, change.after, mode);
      result = await this.build(true);
    } finally {
      try {
        if (!result?.ok) {
          if (change.before) await writeFileAtomic(file, change.before, mode);
          else await rm(file, { force: true });
          if (made) await rmdir(made);
        }
      } finally {
        // Also when the put-back fails (a full disk): a lock left behind would hold off every other build until this server stops.
        await unlock?.();
      }
    }
    if (!result.ok) {
      const own = result.errors.filter((e) => path.resolve(e.file) === path.resolve(shown));
      if (own.length > 0) return { status: 400, body: inertJson(fieldErrors(own)) };
      return conflict(result.errors);
    }
    if (result.catalogue) this.catalogue = result.catalogue;
    const after = await this.servedAt(id);
    if (before !== undefined && after !== undefined && after !== before && wholeSecond(after) === wholeSecond(before)) this.twiceIn.set(id, wholeSecond(after));
    const talk = this.catalogue.talks.find((t) => t.id === id)!;
    return this.recordAnswer(talk, status);
  }

  /** The record as its address now serves it (a draft's, which is not published, as it would be). */
  private async recordAnswer(talk: CatalogueTalk, status: number): Promise<Status> {
    // The bytes and the date of one file, as the server reads them: a build in another process may replace it meanwhile.
    const served = isLive(talk) ? await readWithStats(path.join(this.options.out, 'api', 'v2', 'video', String(talk.id))) : undefined;
    const body = served ? served.bytes.toString('utf8') : serialiseRecord(loadFullTalk(this.options.content, talk));
    const headers: Record<string, string> = { ...HEADERS.record, ETag: etagOf(served?.bytes ?? Buffer.from(body)), ...(served ? { 'Last-Modified': served.stats.mtime.toUTCString() } : {}) };
    // Under the folder of its host the site is served from, as the record's own path is.
    if (status === 201) headers.Location = `${basePathOf(this.options.baseUrl ?? DEFAULT_BASE_URL)}/${recordFile(talk.id)}`;
    return { status, body, headers };
  }
}

/** The fields `stored` holds once `changes` are made, in the order editSource writes them: a changed field in its place, a new one last. */
function edited(stored: Record<string, unknown>, changes: FieldChanges): Record<string, unknown> {
  // Without a prototype: a client may name a field `__proto__`.
  const fields: Record<string, unknown> = Object.assign(Object.create(null), stored);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete fields[key];
    else fields[key] = value;
  }
  return fields;
}

/** A time (ms) to the whole second, as an HTTP-date such as Last-Modified gives it. */
const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

