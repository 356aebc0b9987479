// Importing a pyvideo/data checkout into a content folder. Everything is read,
// converted and validated first; only then are files written, each atomically,
// and only those whose bytes change. Ids, slugs and dates of talks already
// imported are kept in a state file beside the content, so ids are forever.
import { hash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { listContent, REDIRECTS_DIR } from './listing.ts';
import { checkContent, lockContent } from './locks.ts';
import { aliasFile, pageFile, readTalks, shortLinkFile } from './load.ts';
import { removeKilledTemps, writeFileAtomic } from './output.ts';
import type { Progress } from './progress.ts';
import { eventPath, slugFromTitle, talkPath } from './collections.ts';
import { chooseSlug, convertEvent, convertTalk, evidenceOf, isObject, legacyRedirects, recordEvidence, siteRedirects, type EventFile, type ImportNote, type TalkEvidence, type TalkFile } from './pyvideo.ts';
import type * as z from 'zod';
import { fileKey, FolderSpellings } from './file-keys.ts';
import { aliasProblem, eventSchema, isSlug, STATE_DRAFT, STATE_LIVE, talkSchema, textProblems, timestamps } from './schema.ts';

export const STATE_FILE = '.pyvideo-import.json';
/** The site's redirects from pyvideo.org's other pages (its speakers' and indexes'), which the import owns; others may be written beside it. */
const REDIRECTS_FILE = `${REDIRECTS_DIR}/pyvideo.json`;

interface TalkState {
  id: number;
  slug: string;
  event: string;
  hash: string;
  /** Listed in NO_PUBLISH.json: a talk taken on or off the list has changed. */
  draft: boolean;
  /** The id is the one the record names (pyvideo's own), not one this import gave. */
  named?: true;
  added: string;
  updated: string;
  /** The old addresses of a talk whose source moved (another event folder or file name): redirects its record no longer gives. */
  formerly?: string[];
}

export interface ImportState {
  /** The highest id ever given; new talks get ids above it, so an id is never reused. */
  highestId: number;
  /** The ids of talks that left a snapshot: never given again, not even to a record that names one as its own. */
  retired: number[];
  /** By source path, `<event>/videos/<file>.json`. */
  talks: Record<string, TalkState>;
  /** The talks that left the snapshots, by source path: one that comes back has its id, slug and dates back. */
  left?: Record<string, TalkState>;
  /**
   * The event folders this import created, by pyvideo's folder: a folder keeps the one it was
   * given, so that a folder new in a later snapshot cannot take it (`python-porto` beside `python_porto`).
   */
  folders: Record<string, string>;
  /** The hash of each event's category.json as the import wrote it, by its folder here: one that differs next time was edited since. */
  categories?: Record<string, string>;
  /** The events that left whose talks all moved to one other event, by their old folders here (see eventMoves). */
  movedEvents?: Record<string, EventMove>;
}

/** An event that left the snapshot with its talks gone to one other event: that event's folder here, and the old event's addresses its file gave. */
interface EventMove {
  to: string;
  aliases: string[];
}

/** A record the import could not convert: its path inside the source (a file of the content folder's, absolute), and why. */
interface ImportError {
  file: string;
  reason: string;
}

interface ImportReport {
  ok: boolean;
  /** Why the source folder as a whole is not one to import (nothing else is looked at then). */
  unusable?: string;
  /** Stopped by the signal before any file was written (nothing was). */
  stopped?: true;
  errors: ImportError[];
  events: number;
  talks: number;
  drafts: number;
  keptIds: number;
  newIds: number;
  changed: number;
  removed: number;
  written: number;
  unchanged: number;
  notes: Map<string, { count: number; example: string }>;
}

type Dates = ReturnType<typeof timestamps>;

/**
 * Imports `source` (a pyvideo/data checkout) into `content`. Writes nothing when any record cannot be converted.
 * `signal` stops it until it writes; once it has begun writing, it finishes: a folder left half written is a half
 * catalogue to every build until the next import finishes it.
 */
export async function importPyvideo(options: { source: string; content: string; now?: Date; progress?: Progress; signal?: AbortSignal }): Promise<ImportReport> {
  const { source, content, progress, signal } = options;
  const now = timestamps(options.now ?? new Date());
  const report = emptyReport();
  if (!statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
    report.unusable = existsSync(source) ? 'is a file, not a folder' : 'no such folder';
    return report;
  }
  // Throws while another import writes the folder. One that stopped part way left files this one finishes: they are not edits by hand.
  const unfinished = checkContent(content) !== undefined;
  const noPublish = await readNoPublish(source, report.errors);
  const state = await readState(content, report.errors);
  if (!state) return report;
  // Not only files: a link to nothing, or a folder so named, is a record that cannot be read, not one that left the snapshot.
  const categoryFiles = (await fg('*/category.json', { cwd: source, onlyFiles: false })).sort();
  // An import is the whole catalogue: from a folder with no events it would remove every talk imported before.
  if (categoryFiles.length === 0) {
    report.unusable = 'no <event>/category.json in it: not a checkout of pyvideo/data';
    return report;
  }
  const talkFiles = (await fg('*/videos/*.json', { cwd: source, onlyFiles: false })).sort();

  const folders = eventFolders(categoryFiles.map((f) => f.split('/')[0]!), state.folders);
  noteAll(report, folders.notes);
  const events = await readEvents(source, categoryFiles, folders.slugs, report);
  const claimOrder = pageClaimOrder(events.files);
  noteAll(report, addLegacyAliases(events, claimOrder, await readRedirectsTxt(source, report.errors)));

  const records = await readTalkRecords(source, talkFiles, events.slugs, report, progress, signal);
  const byHand = await handWritten(content, state);
  report.errors.push(...handTalksLeftAlone(state, events, byHand.slugs, content));
  const moves = await talkMoves(state, records, events, content);
  noteAll(report, moves.notes);
  const eventsMoved = await eventMoves(state, events, byHand.events, moves.found, content);
  noteAll(report, eventsMoved.notes);
  const ids = idBook(state, records, byHand.ids, moves.found);
  const slugs = slugBook(state, [...records.keys()], byHand.slugs, events.slugs, ids.earlier);
  const run: TalkImport = { events, noPublish, ids, slugs, content, now };
  const talks = [...records].flatMap(([file, record]) => importTalk(file, record, run, report) ?? []);
  noteAll(report, claimAliases(claimOrder, events.sources, talks, eventsMoved.moved));

  const { outputs, nextState, asLeft } = importedFiles(talks, events, ids, eventsMoved.moved, state.categories ?? {}, now, report);
  report.events = events.files.size;
  // Checked last before writing: a record read or not read once the signal came is no error of the snapshot.
  if (signal?.aborted) {
    report.stopped = true;
    return report;
  }
  if (report.errors.length > 0) return report;
  const removals = leftFiles(state, nextState, outputs, events);
  await writeFiles(content, outputs, unfinished ? new Map() : asLeft, removals, nextState, report, progress);
  report.ok = true;
  return report;
}

function emptyReport(): ImportReport {
  return { ok: false, errors: [], events: 0, talks: 0, drafts: 0, keptIds: 0, newIds: 0, changed: 0, removed: 0, written: 0, unchanged: 0, notes: new Map() };
}

/** Counts notes by kind, each kind with its first example. */
function noteAll(report: ImportReport, notes: ImportNote[]): void {
  for (const n of notes) {
    const entry = report.notes.get(n.kind);
    if (entry) entry.count++;
    else report.notes.set(n.kind, { count: 1, example: n.source });
  }
}

/** The set of `key` in `map`, made empty where it has none yet. */
const setIn = <T>(map: Map<string, Set<T>>, key: string): Set<T> => map.get(key) ?? map.set(key, new Set()).get(key)!;

/** A talk record's path in the snapshot (`<event>/videos/<file>.json`): its event's folder and its file's name without `.json`. */
function recordName(file: string): { folder: string; stem: string } {
  const [folder, , fileName] = file.split('/') as [string, string, string];
  return { folder, stem: fileName.replace(/\.json$/, '') };
}

/** A talk's file in the content folder. */
const talkFile = (event: string, slug: string) => path.join(event, 'videos', `${slug}.json`);

/** The id a record names as its own (pyvideo's), if it names one. */
function ownId(value: unknown): number | undefined {
  const id = (value as { id?: unknown } | null)?.id;
  return Number.isInteger(id) && (id as number) > 0 ? (id as number) : undefined;
}

const sha256 = (bytes: Uint8Array) => hash('sha256', bytes, 'hex');
const toJson = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The ids NO_PUBLISH.json lists: pyvideo's own, which records name. */
async function readNoPublish(source: string, errors: ImportError[]): Promise<Set<number>> {
  const noPublish = new Set<number>();
  try {
    const listed: unknown = JSON.parse(await readFile(path.join(source, 'NO_PUBLISH.json'), 'utf8'));
    if (!Array.isArray(listed)) throw new Error('expected a list of ids');
    // A speaker's wish not to be published is not skipped over: an entry that is not an id stops the import.
    for (const id of listed) {
      const n = typeof id === 'string' && /^[1-9]\d*$/.test(id) ? Number(id) : id;
      if (Number.isSafeInteger(n) && (n as number) > 0) noPublish.add(n as number);
      else errors.push({ file: 'NO_PUBLISH.json', reason: `${JSON.stringify(id)} is not an id; list ids as numbers` });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push({ file: 'NO_PUBLISH.json', reason: (err as Error).message });
  }
  return noPublish;
}

/** What earlier imports gave; undefined, its error reported, when their state cannot be read: taken for none, every talk would get a new id beside its file. */
async function readState(content: string, errors: ImportError[]): Promise<ImportState | undefined> {
  const none: ImportState = { highestId: 0, retired: [], talks: {}, folders: {} };
  const file = path.join(content, STATE_FILE);
  if (!existsSync(file)) return none;
  const read = await readRecord(content, STATE_FILE);
  if (!('error' in read) && isObject(read.value)) return { ...none, ...(read.value as Partial<ImportState>) };
  const problem = 'error' in read ? read.error : 'not a JSON object';
  errors.push({ file: path.resolve(file), reason: `${problem}: it holds the ids earlier imports gave; restore it (from git, a backup) and import again` });
  return undefined;
}

/** A JSON file of the snapshot, its bytes and its value, or why it cannot be read. */
async function readRecord(source: string, file: string): Promise<{ bytes: Buffer; value: unknown } | { error: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(source, file));
  } catch (err) {
    return { error: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  try {
    return { bytes, value: JSON.parse(bytes.toString('utf8')) };
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message})` };
  }
}

/**
 * The folder here of each pyvideo event folder, in the order of their names. Our event folders are slugs; pyvideo's
 * mostly are (a few use underscores). A folder keeps the one an earlier import gave it; then a new folder whose name
 * is a slug takes it; then the others pick.
 */
function eventFolders(names: string[], earlier: Record<string, string>): { slugs: Map<string, string>; notes: ImportNote[] } {
  const folders = [...new Set(names)].sort();
  const slugs = new Map<string, string>();
  const given = new Set<string>();
  const notes: ImportNote[] = [];
  const give = (folder: string, slug: string) => {
    slugs.set(folder, slug);
    given.add(slug);
  };
  // Its own entries: a folder named "constructor" or "__proto__" is no earlier event of the object's prototype.
  for (const folder of folders) if (Object.hasOwn(earlier, folder)) give(folder, earlier[folder]!);
  for (const folder of folders) if (!slugs.has(folder) && isSlug(folder) && !given.has(folder)) give(folder, folder);
  for (const folder of folders) {
    if (slugs.has(folder)) continue;
    let slug = slugFromTitle(folder) || 'event';
    while (given.has(slug)) slug = `${slug}-2`;
    notes.push({ kind: isSlug(folder) ? 'event folder already given to another event: renamed' : 'event folder is not a slug: renamed', source: folder });
    give(folder, slug);
  }
  return { slugs: new Map(folders.map((folder) => [folder, slugs.get(folder)!])), notes };
}

/** The snapshot's events, by the slugs of their folders here. */
interface Events {
  /** The folder here of each pyvideo event folder, in the order of their names. */
  slugs: Map<string, string>;
  /** The events converted, in the order of their category.json files. */
  files: Map<string, EventFile>;
  /** Each event's category.json. */
  sources: Map<string, string>;
}

/** The snapshot's events, converted and validated, by the slugs of their folders here. */
async function readEvents(source: string, categoryFiles: string[], slugs: Map<string, string>, report: ImportReport): Promise<Events> {
  const events: Events = { slugs, files: new Map(), sources: new Map() };
  for (const file of categoryFiles) {
    const read = await readRecord(source, file);
    const converted = 'error' in read ? read : convertEvent(read.value, file);
    if ('error' in converted) {
      report.errors.push({ file, reason: `${converted.error}` });
      continue;
    }
    noteAll(report, converted.notes);
    const problems = schemaProblems(eventSchema, converted.value);
    if (problems) report.errors.push({ file, reason: problems });
    const slug = slugs.get(file.split('/')[0]!)!;
    events.files.set(slug, converted.value);
    events.sources.set(slug, file);
  }
  return events;
}

/** Events of one title had one page on pyvideo.org: the event in the folder named as the page keeps it, else the first. */
function pageClaimOrder(events: Map<string, EventFile>): [string, EventFile][] {
  return [...events].sort(([a, ea], [b, eb]) => Number(ea.aliases?.[0] !== `/events/${a}.html`) - Number(eb.aliases?.[0] !== `/events/${b}.html`));
}

async function readRedirectsTxt(source: string, errors: ImportError[]): Promise<string> {
  return readFile(path.join(source, 'redirects.txt'), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') errors.push({ file: 'redirects.txt', reason: `cannot be read (${err.code ?? err.message})` });
    return '';
  });
}

/** Adds to the events the old addresses redirects.txt sends to their pages (see legacyRedirects); returns its notes. */
function addLegacyAliases(events: Events, claimOrder: [string, EventFile][], text: string): ImportNote[] {
  const eventsByPage = new Map<string, { slug: string; page?: string }>();
  for (const [slug, event] of claimOrder) for (const page of event.aliases ?? []) if (!eventsByPage.has(page)) eventsByPage.set(page, { slug, page });
  const byFolder = (page: string) => {
    const folder = /^\/events\/([^/]+)\.html$/.exec(page)?.[1];
    const slug = folder === undefined ? undefined : events.slugs.get(folder);
    return slug !== undefined && events.files.has(slug) ? { slug, page: events.files.get(slug)!.aliases?.[0] } : undefined;
  };
  const legacy = legacyRedirects(text, (page) => eventsByPage.get(page) ?? byFolder(page));
  for (const [slug, aliases] of legacy.aliases) {
    const event = events.files.get(slug)!;
    event.aliases = [...(event.aliases ?? []), ...aliases];
  }
  return legacy.notes;
}

/** A talk record of the snapshot as read: its bytes, its value, and the id it names as its own (pyvideo's), if any. */
interface TalkRecord {
  bytes: Buffer;
  value: unknown;
  own: number | undefined;
}

/** Every talk record read once, in the order of their files: all their ids are known before any is given, so that new ids follow the highest of all. */
async function readTalkRecords(source: string, talkFiles: string[], folderSlugs: Map<string, string>, report: ImportReport, progress?: Progress, signal?: AbortSignal): Promise<Map<string, TalkRecord>> {
  const records = new Map<string, TalkRecord>();
  const named = new Map<number, string>();
  progress?.start('talks read:');
  for (const file of talkFiles) {
    if (signal?.aborted) break;
    progress?.tick();
    const { folder } = recordName(file);
    const read = folderSlugs.has(folder) ? await readRecord(source, file) : { error: `the event folder "${folder}" has no category.json` };
    if ('error' in read) {
      report.errors.push({ file, reason: read.error });
      continue;
    }
    const own = ownId(read.value);
    records.set(file, { ...read, own });
    const other = own === undefined ? undefined : named.get(own);
    if (other) report.errors.push({ file, reason: `id ${own} is also the id of ${other}` });
    else if (own !== undefined) named.set(own, file);
  }
  progress?.done();
  return records;
}

/**
 * The talks in `content` that no import wrote (written by hand): their ids, by their files, which new ids pass and
 * no record may take (not even its own: an imported talk's file moved or rewritten as YAML by hand is
 * one talk twice once the import writes it again), and their slugs by event, which no imported talk may take (its file would
 * replace theirs). Only those files are read: the state knows the others. And the folders of the events no import wrote, whose pages are theirs.
 */
async function handWritten(content: string, state: ImportState): Promise<{ ids: Map<number, string>; slugs: Map<string, Set<string>>; events: Set<string> }> {
  const found = { ids: new Map<number, string>(), slugs: new Map<string, Set<string>>(), events: new Set<string>() };
  if (!existsSync(content)) return found;
  const imported = new Set(Object.values(state.talks).map((t) => `${t.event}/videos/${t.slug}.json`));
  const listed = (await listContent(content)).map((e) => e.path);
  const importedEvents = new Set(Object.values(state.folders));
  for (const name of listed) {
    const event = /^([^/]+)\/category\.[^/]+$/.exec(name)?.[1];
    if (event !== undefined && !importedEvents.has(event)) found.events.add(event);
  }
  const names = listed.filter((name) => /^[^/]+\/videos\/[^/]+$/.test(name) && !imported.has(name));
  for (const read of readTalks({ dir: content, display: content, names })) {
    const [event, , fileName] = read.name.split('/') as [string, string, string];
    const slug = (read.ok && read.digest.slug) || fileName.replace(/\.[^.]+$/, '');
    setIn(found.slugs, event).add(slug);
    if (read.ok) found.ids.set(read.digest.id, read.name);
  }
  return found;
}

/** The talks that left the snapshots, as this import leaves them (by source path): those of earlier imports, and those that leave now. */
const leftTalks = (state: ImportState, records: Map<string, TalkRecord>): Record<string, TalkState> =>
  Object.fromEntries(Object.entries({ ...state.left, ...state.talks }).filter(([file]) => !records.has(file)));

/** A talk that left and is back under another source: its old source, its old slug and addresses, and what says it is the same talk. */
interface Move {
  from: string;
  slug: string;
  addresses: string[];
  note: string;
}

/** What each kind of evidence says of a talk whose source moved, in the order they are tried. */
const EVIDENCE = ['the same video', 'the same title and recording date in its event'] as const;

/** A talk that left or a record new to the imports, and its keys for each kind of evidence (EVIDENCE). */
interface Candidate {
  file: string;
  keys: [string[], string[]];
}

/** The keys of a talk's evidence: its video's address; its title and date, with each name of its event (`eventKeys`), where it has a date. */
function evidenceKeys(evidence: TalkEvidence | undefined, eventKeys: string[]): Candidate['keys'] {
  if (!evidence) return [[], []];
  const { title, recorded, video } = evidence;
  return [video ? [video] : [], recorded && title ? eventKeys.map((event) => JSON.stringify([event, title, recorded])) : []];
}

/**
 * Pairs new records with talks that left by each kind of evidence in turn: a key that one talk that left and one new record share,
 * neither paired yet, pairs them. A key shared by more is no evidence (two talks one id, or one talk two ids); the new records
 * that only such keys name are returned as doubtful.
 */
function pairMoves(leavers: Candidate[], comers: Candidate[]): { pairs: Map<string, { from: string; evidence: number }>; doubtful: string[] } {
  const pairs = new Map<string, { from: string; evidence: number }>();
  const paired = new Set<string>();
  const shared = new Set<string>();
  EVIDENCE.forEach((_, evidence) => {
    const byKey = new Map<string, { leavers: string[]; comers: string[] }>();
    const add = (side: 'leavers' | 'comers', { file, keys }: Candidate) => {
      for (const key of keys[evidence as 0 | 1]) (byKey.get(key) ?? byKey.set(key, { leavers: [], comers: [] }).get(key)!)[side].push(file);
    };
    for (const leaver of leavers) add('leavers', leaver);
    for (const comer of comers) add('comers', comer);
    for (const { leavers: [from, ...more], comers: [to, ...others] } of byKey.values()) {
      if (from === undefined || to === undefined) continue;
      if (more.length > 0 || others.length > 0) [to, ...others].forEach((file) => shared.add(file));
      else if (!paired.has(from) && !paired.has(to)) {
        pairs.set(to, { from, evidence });
        paired.add(from).add(to);
      }
    }
  });
  return { pairs, doubtful: [...shared].filter((file) => !pairs.has(file)) };
}

/**
 * The talks that left and are back under another source: a new record that names the id of one that left (and named it), or whose
 * evidence one talk that leaves now alone shares (its video; its title and date in the same event: its folder here, or, where its event left,
 * an event of that event's title), as when pyvideo/data renames an event's folder or a file, or moves a talk to another event. Ids are
 * forever: the talk keeps its id, and its old addresses redirect. A talk that left an earlier snapshot (its id retired, its pages gone) is
 * not matched by evidence: its file, which holds its evidence, is gone.
 */
async function talkMoves(state: ImportState, records: Map<string, TalkRecord>, events: Events, content: string): Promise<{ found: Map<string, Move>; notes: ImportNote[] }> {
  const left = leftTalks(state, records);
  const named = new Map(Object.entries(left).flatMap(([file, talk]) => (talk.named ? [[talk.id, file] as const] : [])));
  const comers = [...records].filter(([file]) => !state.talks[file] && !state.left?.[file]);
  const byName = new Map(comers.flatMap(([file, { own }]) => (own !== undefined && named.has(own) ? [[file, named.get(own)!] as const] : [])));
  // A talk whose id a record names is that record's to claim, or none's.
  const namedIds = new Set([...records.values()].map((record) => record.own));
  const leaving = Object.entries(state.talks).filter(([file, talk]) => !records.has(file) && !namedIds.has(talk.id));
  const unnamed = comers.filter(([file]) => !byName.has(file));
  const files = new Map<string, Record<string, unknown>>();
  const titles = new Map<string, string | undefined>();
  const eventTitle = async (event: string) => {
    if (!titles.has(event)) {
      const read = await readRecord(content, path.join(event, 'category.json'));
      titles.set(event, 'error' in read || !isObject(read.value) || typeof read.value.title !== 'string' ? undefined : read.value.title);
    }
    return titles.get(event);
  };
  // A talk that leaves is read only when records new to the imports may be it.
  for (const [file, talk] of new Map([...(unnamed.length > 0 ? leaving : []), ...[...byName.values()].map((from) => [from, left[from]!] as const)])) {
    const read = await readRecord(content, talkFile(talk.event, talk.slug));
    if (!('error' in read) && isObject(read.value)) files.set(file, read.value);
  }
  const leavers: Candidate[] = [];
  for (const [file, talk] of leaving) {
    const value = files.get(file);
    const title = events.files.has(talk.event) ? undefined : await eventTitle(talk.event);
    const event = title === undefined ? `folder:${talk.event}` : `title:${title}`;
    const evidence = value && typeof value.title === 'string' ? evidenceOf(value as unknown as TalkFile) : undefined;
    leavers.push({ file, keys: evidenceKeys(evidence, [event]) });
  }
  // A first import has no talk that leaves, and no record of its thousands is looked at again.
  const newcomers = (leaving.length === 0 ? [] : unnamed).map(([file, { value }]): Candidate => {
    const event = events.slugs.get(recordName(file).folder)!;
    return { file, keys: evidenceKeys(recordEvidence(value), [`folder:${event}`, `title:${events.files.get(event)?.title}`]) };
  });
  const { pairs, doubtful } = pairMoves(leavers, newcomers);
  const move = (from: string, note: string): Move => {
    const aliases = files.get(from)?.aliases;
    return { from, slug: left[from]!.slug, addresses: Array.isArray(aliases) ? aliases.filter((a): a is string => typeof a === 'string') : [], note };
  };
  const found = new Map([
    ...[...byName].map(([file, from]) => [file, move(from, 'record that left under another file name is back: its id kept')] as const),
    ...[...pairs].map(([file, { from, evidence }]) => [file, move(from, `record of a talk that left, under another event folder or file name (${EVIDENCE[evidence]}): its id kept`)] as const),
  ]);
  const notes = doubtful.map((source) => ({ kind: 'record that may be of a talk that left (its video, or its title and date, shared with others): given a new id', source }));
  return { found, notes };
}

/**
 * The events that left the snapshot whose talks all went to one other event (their folder renamed in pyvideo/data, or merged into
 * another's), by their old folders here, with those of earlier imports: their old addresses redirect to that event. The talks that
 * left without a record taking their ids are none of this. An event whose talks went to several (a split) has none: no one of them is
 * the event that was, and sending its page to one would say the others' talks are gone, where each talk's own old addresses lead to it.
 * One of an earlier import follows its event where that moved too, and is dropped where its event left otherwise, or where an event
 * of the snapshot, or one written by hand, has its name again: a real event's own address wins.
 */
async function eventMoves(state: ImportState, events: Events, handEvents: Set<string>, moves: Map<string, Move>, content: string): Promise<{ moved: Record<string, EventMove>; notes: ImportNote[] }> {
  const goneTo = new Map<string, Set<string>>();
  for (const [file, { from }] of moves) {
    const [event, to] = [state.talks[from]?.event, events.slugs.get(recordName(file).folder)!];
    // An event whose category.json cannot be read is an error of the import, which writes nothing.
    if (event !== undefined && !events.files.has(event) && events.files.has(to)) setIn(goneTo, event).add(to);
  }
  const moved: Record<string, EventMove> = {};
  const notes: ImportNote[] = [];
  for (const [from, [to, ...others]] of [...goneTo].map(([from, to]) => [from, [...to]] as const)) {
    if (others.length > 0) {
      notes.push({ kind: 'event whose talks moved to several events (split): no redirect', source: from });
      continue;
    }
    const read = await readRecord(content, path.join(from, 'category.json'));
    const aliases = 'error' in read || !isObject(read.value) || !Array.isArray(read.value.aliases) ? [] : read.value.aliases;
    moved[from] = { to: to!, aliases: aliases.filter((alias): alias is string => typeof alias === 'string' && !aliasProblem(alias)) };
    notes.push({ kind: 'event whose talks all moved to one other event (its folder renamed, or merged): its old addresses → redirects', source: from });
  }
  for (const [from, { to, aliases }] of Object.entries(state.movedEvents ?? {})) {
    const now = events.files.has(to) ? to : moved[to]?.to;
    if (now !== undefined && !events.files.has(from) && !handEvents.has(from) && !Object.hasOwn(moved, from)) moved[from] = { to: now, aliases };
  }
  return { moved, notes };
}

/** The ids of one import as it gives them, in the order of the snapshot's files. */
interface IdBook {
  /** What a source file was given by an earlier import: while it was in the snapshots, or before it left them. */
  earlier: (file: string) => TalkState | undefined;
  /** The talks that left the snapshots, as this import leaves them. */
  left: Record<string, TalkState>;
  retired: Set<number>;
  /** The talks that left and are back under another source, by their new source files (see talkMoves). */
  moves: Map<string, Move>;
  /** The file of each id given to a talk of the last import. */
  givenTo: Map<number, string>;
  /** The ids of talks written by hand, and their files. */
  byHand: Map<number, string>;
  /** The ids given so far, to their files. */
  used: Map<number, string>;
  /** The highest id ever given. */
  highest: number;
}

/** What earlier imports gave the talks of this snapshot and kept for those that left it, and the ids this import gives. */
function idBook(state: ImportState, records: Map<string, TalkRecord>, byHand: Map<number, string>, moves: Map<string, Move>): IdBook {
  const left = state.left ?? {};
  const nextLeft = leftTalks(state, records);
  const retired = new Set([...state.retired, ...Object.values(nextLeft).map((talk) => talk.id)]);
  // A talk back in the snapshot has its id back: it was retired only so that no other talk would take it.
  for (const [file, talk] of Object.entries(left)) if (records.has(file)) retired.delete(talk.id);
  return {
    earlier: (file) => state.talks[file] ?? left[file],
    left: nextLeft,
    retired,
    moves,
    givenTo: new Map(Object.entries(state.talks).map(([file, talk]) => [talk.id, file])),
    byHand,
    used: new Map(),
    highest: [...records.values()].reduce((highest, { own }) => Math.max(highest, own ?? 0), Math.max(state.highestId, ...byHand.keys(), 0)),
  };
}

/** The id a talk gets, what an earlier import gave it, whether the id is one it had, and what the giving is counted as. */
function giveId(ids: IdBook, file: string, own: number | undefined): { id: number; previous?: TalkState; kept: boolean; note?: string } {
  const previous = ids.earlier(file);
  if (previous) {
    // Ids are forever: the one given stays, even if the record names another since.
    return { id: previous.id, previous, kept: true, note: own !== undefined && own !== previous.id ? 'record names an id other than the one it was given: that one kept' : undefined };
  }
  const move = ids.moves.get(file);
  if (move) {
    // Moved: the talk keeps its `added` and its old addresses, not its file name.
    const moved = { ...ids.left[move.from]!, slug: '', hash: '' };
    delete ids.left[move.from];
    ids.retired.delete(moved.id);
    return { id: moved.id, previous: moved, kept: true, note: move.note };
  }
  if (own !== undefined && !ids.retired.has(own) && (ids.givenTo.get(own) ?? file) === file) return { id: own, kept: true };
  const note = own === undefined ? undefined : ids.retired.has(own) ? 'record names the id of a talk that was removed: given a new one' : 'record names the id given to another talk: given a new one';
  return { id: ++ids.highest, kept: false, note };
}

/** The slugs of the events' talks as this import gives them. */
interface SlugBook {
  /** By event. */
  taken: Map<string, Set<string>>;
  /** Talks back in the snapshot whose slug another talk took while they were away. */
  lost: Set<string>;
  /** New talks whose file names are slugs: the slugs are theirs. */
  own: Map<string, string>;
}

/** Slugs already given keep their talks, and talks written by hand theirs; then new talks' file names that are slugs are theirs; then the others pick. */
function slugBook(state: ImportState, files: string[], byHand: Map<string, Set<string>>, eventSlugs: Map<string, string>, earlier: IdBook['earlier']): SlugBook {
  const book: SlugBook = { taken: new Map(), lost: new Set(), own: new Map() };
  for (const [event, slugs] of byHand) for (const slug of slugs) setIn(book.taken, event).add(slug);
  for (const file of files) {
    const previous = state.talks[file];
    if (previous) setIn(book.taken, previous.event).add(previous.slug);
  }
  for (const file of files) {
    const previous = state.left?.[file];
    if (!previous) continue;
    if (setIn(book.taken, previous.event).has(previous.slug)) book.lost.add(file);
    else setIn(book.taken, previous.event).add(previous.slug);
  }
  for (const file of files) {
    const { folder, stem } = recordName(file);
    const taken = setIn(book.taken, eventSlugs.get(folder)!);
    if (!earlier(file) && isSlug(stem) && !taken.has(stem)) {
      taken.add(stem);
      book.own.set(file, stem);
    }
  }
  return book;
}

/** What converting a talk needs besides its record. */
interface TalkImport {
  events: Events;
  noPublish: Set<number>;
  ids: IdBook;
  slugs: SlugBook;
  content: string;
  now: Dates;
}

/** A talk converted, with what it was given; its dates are this import's until it is known whether it changed. */
interface ConvertedTalk {
  file: string;
  bytes: Buffer;
  event: string;
  slug: string;
  named: boolean;
  previous?: TalkState;
  /** Its old addresses its record does not give, kept from earlier sources (see TalkState.formerly). */
  formerly: string[];
  value: TalkFile;
}

/** One talk converted and validated, with the id and slug it is given; undefined, its error reported, when it cannot be. */
function importTalk(file: string, { bytes, value, own }: TalkRecord, run: TalkImport, report: ImportReport): ConvertedTalk | undefined {
  const { folder, stem } = recordName(file);
  const event = run.events.slugs.get(folder)!;
  const { id, previous, kept, note } = giveId(run.ids, file, own);
  report[kept ? 'keptIds' : 'newIds']++;
  if (note) noteAll(report, [{ kind: note, source: file }]);
  const refuse = (reason: string) => {
    report.errors.push({ file, reason });
    return undefined;
  };
  const clash = run.ids.used.get(id);
  const byHand = run.ids.byHand.get(id);
  if (byHand) return refuse(`id ${id} is already used by a talk in ${run.content} that this import did not write: ${byHand}`);
  if (clash) return refuse(`id ${id} was given to ${clash} by an earlier import; give one of them another id`);
  run.ids.used.set(id, file);
  const taken = setIn(run.slugs.taken, event);
  const slug = (!run.slugs.lost.has(file) && previous?.slug) || run.slugs.own.get(file) || chooseSlug(stem, String((value as { title?: unknown } | null)?.title ?? ''), id, taken);
  taken.add(slug);
  if (slug !== previous?.slug && slug !== stem) noteAll(report, [{ kind: 'file name is not a slug: slug made from the title', source: file }]);

  // NO_PUBLISH.json lists pyvideo's ids, which records name as their own, not ids given here. A talk keeps pyvideo's id it
  // had (named) when its record no longer names it, at its file or moved: the list still means it.
  const pyvideoId = own ?? (previous?.named ? previous.id : undefined);
  const draft = pyvideoId !== undefined && run.noPublish.has(pyvideoId);
  const talk = convertTalk(value, { source: file, folder, eventTitle: run.events.files.get(event)?.title ?? '', stem, id, draft, slug, ...run.now });
  if (!talk.ok) return refuse(talk.error);
  noteAll(report, talk.notes);
  const move = run.ids.moves.get(file);
  const formerly = formerAddresses(previous, move, [talkPath({ id, slug }), ...talk.value.aliases]);
  if (move && formerly.length > 0) noteAll(report, [{ kind: 'talk whose source moved: its old addresses → redirects', source: file }]);
  // With its old addresses, which claimAliases adds after every talk's own.
  const problems = schemaProblems(talkSchema, { ...talk.value, aliases: [...talk.value.aliases, ...formerly] });
  if (problems) return refuse(problems);
  return { file, bytes, event, slug, named: id === pyvideoId, previous, formerly, value: talk.value };
}

/** The old addresses a talk keeps: those it kept before, and, where its source moved, those its file had and its old page; not those it has (`own`: its page, its record's). */
function formerAddresses(previous: TalkState | undefined, move: Move | undefined, own: string[]): string[] {
  const moved = move ? [...move.addresses, talkPath({ id: previous!.id, slug: move.slug })] : [];
  return [...new Set([...(previous?.formerly ?? []), ...moved])].filter((address) => !own.includes(address));
}

/** Why a converted record is not one the build takes, as the build would say it; undefined when it is. */
function schemaProblems(schema: z.ZodType, value: unknown): string | undefined {
  const check = schema.safeParse(value);
  const problems = [...textProblems(value), ...(check.success ? [] : check.error.issues)].map((i) => `${i.path.join('.')}: ${i.message}`);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/**
 * An address redirects to one event or talk: the first that claims it keeps it (pyvideo has records that share an old address).
 * By its file's key, as the build takes it (see fileKey): another spelling is the same file where case is ignored (or, on macOS, a letter's encoding),
 * which only its holder's own redirect may share (richard's redirects.txt spells some addresses two ways). Nor may it be in a folder another
 * address spells otherwise, or a talk's page (see FolderSpellings). A talk's former addresses (where its source moved) come last, and after
 * them an event's (where its talks moved, see eventMoves).
 * Returns the notes of the addresses refused.
 */
function claimAliases(claimOrder: [string, EventFile][], eventSources: Map<string, string>, talks: ConvertedTalk[], movedEvents: Record<string, EventMove>): ImportNote[] {
  const holders = new Map<string, string>();
  const spelled = new Set<string>();
  const addressFolders = new FolderSpellings<string>();
  const notes: ImportNote[] = [];
  for (const { slug, value } of talks) for (const file of [pageFile({ id: value.id, slug }), shortLinkFile(value.id)]) holders.set(file, '');
  /** A talk's page's or short link's folder, spelled as its key: it holds that page as index.html. */
  const pageFolder = (folder: string) => (holders.get(`${folder}index.html`) === '' ? '' : undefined);
  /** Notes an address refused, for the filter below: false. */
  const dropped = (kind: string, source: string) => {
    notes.push({ kind: `${kind}: no redirect made`, source });
    return false;
  };
  const claim = (aliases: string[], source: string) =>
    aliases.filter((alias) => {
      const file = aliasFile(alias);
      const key = fileKey(file);
      const holder = holders.get(key);
      if ((holder ?? source) !== source || spelled.has(file)) return dropped('old address already the address of another event or talk', source);
      // Its holder's own address in another spelling is that file, in its folders.
      if (holder === undefined) {
        if (addressFolders.claim(file, key, source, pageFolder)) return dropped("old address in a folder that another event's or talk's address, or a talk's page, spells otherwise", source);
        holders.set(key, source);
      }
      spelled.add(file);
      return true;
    });
  for (const [slug, event] of claimOrder) if (event.aliases) event.aliases = claim(event.aliases, eventSources.get(slug)!);
  for (const { file, value } of talks) value.aliases = claim(value.aliases, file);
  // After every talk's own: an old address that a record gives now is its talk's page on pyvideo.org, whichever file sorts first.
  for (const { file, value, formerly } of talks) value.aliases.push(...claim(formerly, file));
  for (const [to, formerly] of formerAliases(movedEvents)) {
    const event = claimOrder.find(([slug]) => slug === to)![1];
    const own = event.aliases ?? [];
    event.aliases = [...own, ...claim(formerly.filter((alias) => !own.includes(alias)), eventSources.get(to)!)];
  }
  return notes;
}

/** The old addresses of the events that moved, by the events they moved to, each once (an event that moved twice gave those of the first move again). */
function formerAliases(movedEvents: Record<string, EventMove>): Map<string, string[]> {
  const byEvent = new Map<string, Set<string>>();
  for (const { to, aliases } of Object.values(movedEvents)) for (const alias of aliases) setIn(byEvent, to).add(alias);
  return new Map([...byEvent].map(([to, aliases]) => [to, [...aliases]]));
}

/**
 * The files the import writes, by their paths in the content folder, and the state it leaves; counts the talks, drafts and talks changed.
 * `asLeft`: the talk and event files the last import wrote (`categories`, the hashes of the events' as it wrote them) as they are now
 * written again, their records unchanged; each with its text as one edited since, a talk's `updated` moved (see writeFiles).
 */
function importedFiles(
  talks: ConvertedTalk[],
  events: Events,
  ids: IdBook,
  movedEvents: Record<string, EventMove>,
  categories: Record<string, string>,
  now: Dates,
  report: ImportReport,
): { outputs: Map<string, string>; nextState: ImportState; asLeft: AsLeft } {
  const outputs = new Map<string, string>();
  const asLeft: AsLeft = new Map();
  const hashes: Record<string, string> = {};
  const nextState: ImportState = {
    highestId: ids.highest,
    retired: [...ids.retired].sort((a, b) => a - b),
    left: ids.left,
    talks: {},
    folders: Object.fromEntries([...events.slugs].filter(([, slug]) => events.files.has(slug))),
    categories: hashes,
    ...(Object.keys(movedEvents).length > 0 ? { movedEvents } : {}),
  };
  for (const talk of talks) {
    const { file, event, slug, named, formerly, value } = talk;
    const { hash, dates, changed } = talkDates(talk, events.files.get(event)?.title ?? '', now);
    if (changed) report.changed++;
    Object.assign(value, dates);
    const draft = value.state === STATE_DRAFT;
    if (draft) report.drafts++;
    report.talks++;
    const rel = talkFile(event, slug);
    if (outputs.has(rel)) report.errors.push({ file, reason: `its talk file ${rel} was given to another talk as well` });
    outputs.set(rel, toJson(value satisfies TalkFile));
    const written = (nextState.talks[file] = { id: value.id, slug, event, hash, draft, ...dates, ...(named ? { named: true } : {}), ...(formerly.length > 0 ? { formerly } : {}) });
    // Not a talk back in the snapshot: the last import removed its file.
    if (!changed && ids.givenTo.get(value.id) === file && talkFile(talk.previous!.event, talk.previous!.slug) === rel) {
      asLeft.set(rel, {
        kind: 'talk file',
        text: () => {
          value.updated = written.updated = now.updated;
          return toJson(value);
        },
      });
    }
  }
  for (const [event, value] of events.files) {
    const rel = path.join(event, 'category.json');
    const text = toJson(value);
    outputs.set(rel, text);
    hashes[event] = sha256(Buffer.from(text));
    if (categories[event] === hashes[event]) asLeft.set(rel, { kind: 'event file', text: () => text });
  }
  const pyvideoPages = Object.entries(siteRedirects(talks.map((talk) => talk.value)));
  const sitePages = [...pyvideoPages, ...movedEventPages(movedEvents, talks)].sort(([a], [b]) => (a < b ? -1 : 1));
  outputs.set(REDIRECTS_FILE, toJson(Object.fromEntries(sitePages)));
  report.notes.set("pyvideo.org speaker's, tag's or index page → redirect", { count: pyvideoPages.length, example: REDIRECTS_FILE });
  return { outputs, nextState, asLeft };
}

/**
 * The site's pages of the events that moved (`/events/<old>/`) to those of the events they moved to: a site's redirect, as an alias
 * may not take an address of the site's lists. Not to an event with no live talk, which has no page.
 */
function movedEventPages(movedEvents: Record<string, EventMove>, talks: ConvertedTalk[]): [string, string][] {
  const live = new Set(talks.filter((talk) => talk.value.state === STATE_LIVE).map((talk) => talk.event));
  return Object.entries(movedEvents).flatMap(([from, { to }]) => (live.has(to) ? [[eventPath(from), eventPath(to)] as [string, string]] : []));
}

/** Talk and event files the last import wrote, written again as they were: by path, what they are and the text of one that was edited since. */
type AsLeft = Map<string, { kind: 'talk file' | 'event file'; text: () => string }>;

/** A talk's dates: an earlier import's while what its record says is unchanged; and the hash that tells it next time. */
function talkDates({ bytes, previous, value }: ConvertedTalk, eventTitle: string, now: Dates): { hash: string; dates: Dates; changed: boolean } {
  // What the talk's record is made of but its dates: the file without them, and the title of its event (its category).
  const hash = sha256(Buffer.from(`${JSON.stringify({ ...value, added: '', updated: '' })}\n${eventTitle}`));
  // A state written before this hash names the source's bytes.
  const unchanged = previous && (previous.hash === hash || (previous.hash === sha256(bytes) && previous.id === value.id && previous.draft === (value.state === STATE_DRAFT)));
  const dates = unchanged ? { added: previous.added, updated: previous.updated } : { added: previous?.added ?? now.added, updated: now.updated };
  return { hash, dates, changed: previous !== undefined && !unchanged };
}

/** Talks and events that left the snapshot lose their files; their ids stay retired. */
function leftFiles(state: ImportState, nextState: ImportState, outputs: Map<string, string>, events: Events): string[] {
  const removals: string[] = [];
  for (const [file, old] of Object.entries(state.talks)) {
    if (nextState.talks[file]) continue;
    const rel = talkFile(old.event, old.slug);
    if (!outputs.has(rel)) removals.push(rel);
  }
  for (const [, event] of leftEvents(state, events)) removals.push(path.join(event, 'category.json'));
  return removals;
}

/** The events that left the snapshot, which lose their category files: pyvideo's folder of each, and its folder here. */
const leftEvents = (state: ImportState, events: Events) => Object.entries(state.folders).filter(([, event]) => !events.files.has(event));

/** Talks written by hand into the folder of an event that left the snapshot would be left without their event (the build refuses them). */
function handTalksLeftAlone(state: ImportState, events: Events, byHand: Map<string, Set<string>>, content: string): ImportError[] {
  return leftEvents(state, events).flatMap(([folder, event]) => {
    const slugs = byHand.get(event);
    if (!slugs) return [];
    const reason = `the event left the snapshot, but its folder ${path.join(content, event)} holds talks this import did not write (${[...slugs].sort().join(', ')}): move them to another event's folder`;
    return [{ file: `${folder}/category.json`, reason }];
  });
}

/**
 * Writes each file whose bytes change, atomically, removes those of talks and events that left, and counts them.
 * One of `asLeft` that changes was edited (by hand, or through the API) or removed since: the snapshot is what the import writes, which is said.
 * An edited talk's record as the site served it changes back, so its `updated` moves (feeds and clients follow it; a PATCH moved it), where
 * one removed comes back as it was.
 */
async function writeFiles(content: string, outputs: Map<string, string>, asLeft: AsLeft, removals: string[], nextState: ImportState, report: ImportReport, progress?: Progress): Promise<void> {
  const changed: [string, string][] = [];
  progress?.start('files compared:');
  await forEachLimit([...outputs], 32, async ([rel, text]) => {
    progress?.tick();
    const current = await readFile(path.join(content, rel), 'utf8').catch(() => undefined);
    if (current === text) return void report.unchanged++;
    const again = asLeft.get(rel);
    if (again) noteAll(report, [{ kind: `${again.kind} ${current === undefined ? 'removed since the last import: written again' : 'edited since the last import: replaced by its record'}`, source: rel }]);
    changed.push([rel, again && current !== undefined ? again.text() : text]);
  });
  progress?.done();
  await mkdir(content, { recursive: true });
  const stateText = toJson(nextState);
  const stateKept = (await readFile(path.join(content, STATE_FILE), 'utf8').catch(() => undefined)) === stateText;
  // Not taken back when a write fails (a folder it may not write, a full disk), nor when the process is killed: the
  // lock left tells builds that the folder holds half a catalogue, and the next import that it has this one to finish.
  const unlock = changed.length > 0 || removals.length > 0 ? await lockContent(content) : undefined;
  // The state goes first: talk files written before it were taken for talks written by hand, and every import after refused.
  if (stateKept) report.unchanged++;
  else await writeOne(content, STATE_FILE, stateText, report);
  if (unlock) {
    await removeFiles(content, removals, report);
    progress?.start('files written:');
    await forEachLimit(changed, 32, async ([rel, text]) => {
      progress?.tick();
      await writeOne(content, rel, text, report);
    });
    progress?.done();
    await unlock();
  }
  // An import killed as it wrote (SIGKILL) left the temporary file of each write it was in, where nothing else removes it.
  for (const dir of new Set([content, ...[...outputs.keys()].map((rel) => path.dirname(path.join(content, rel)))])) await removeKilledTemps(dir);
}

async function writeOne(content: string, rel: string, text: string, report: ImportReport): Promise<void> {
  const file = path.join(content, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, text);
  report.written++;
}

/** Runs `fn` over `items`, at most `limit` at a time; the first to fail stops the others taking more, and is thrown once those running are done. */
async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      await fn(items[next++]!).catch((err: unknown) => {
        failed = true;
        throw err;
      });
    }
  };
  const workers = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = workers.find((w) => w.status === 'rejected');
  if (failure) throw failure.reason;
}

async function removeFiles(content: string, removals: string[], report: ImportReport): Promise<void> {
  for (const rel of removals) {
    // One already gone (removed by hand) is not counted.
    await rm(path.join(content, rel)).then(
      () => report.removed++,
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      },
    );
    await rmdir(path.dirname(path.join(content, rel))).catch(() => undefined);
  }
}
