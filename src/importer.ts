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
import { aliasFile, pageFile, readTalks, shortLinkFile } from './load.ts';
import { writeFileAtomic } from './output.ts';
import type { Progress } from './progress.ts';
import { slugFromTitle } from './collections.ts';
import { chooseSlug, convertEvent, convertTalk, legacyRedirects, siteRedirects, type EventFile, type ImportNote, type TalkFile } from './pyvideo.ts';
import type * as z from 'zod';
import { fileKey } from './file-keys.ts';
import { eventSchema, isSlug, STATE_DRAFT, talkSchema, textProblems, timestamps } from './schema.ts';

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
}

/** A record the import could not convert: its path inside the source, and why. */
interface ImportError {
  file: string;
  reason: string;
}

interface ImportReport {
  ok: boolean;
  /** Why the source folder as a whole is not one to import (nothing else is looked at then). */
  unusable?: string;
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

const sha256 = (bytes: Uint8Array) => hash('sha256', bytes, 'hex');
const toJson = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Why a converted record is not one the build takes, as the build would say it; undefined when it is. */
function schemaProblems(schema: z.ZodType, value: unknown): string | undefined {
  const check = schema.safeParse(value);
  const problems = [...textProblems(value), ...(check.success ? [] : check.error.issues)].map((i) => `${i.path.join('.')}: ${i.message}`);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

async function readState(content: string): Promise<ImportState> {
  const none: ImportState = { highestId: 0, retired: [], talks: {}, folders: {} };
  try {
    return { ...none, ...(JSON.parse(await readFile(path.join(content, STATE_FILE), 'utf8')) as Partial<ImportState>) };
  } catch {
    return none;
  }
}

/**
 * The talks in `content` that no import wrote (written by hand): their ids, which new ids pass and
 * no record may take, and their slugs by event, which no imported talk may take (its file would
 * replace theirs). Only those files are read: the state knows the others.
 */
async function handWritten(content: string, state: ImportState): Promise<{ ids: Set<number>; slugs: Map<string, Set<string>> }> {
  const found = { ids: new Set<number>(), slugs: new Map<string, Set<string>>() };
  if (!existsSync(content)) return found;
  const talks = Object.values(state.talks);
  const imported = new Set(talks.map((t) => `${t.event}/videos/${t.slug}.json`));
  const tracked = new Set(talks.map((t) => t.id));
  const names = (await listContent(content)).map((e) => e.path).filter((name) => /^[^/]+\/videos\/[^/]+$/.test(name) && !imported.has(name));
  for (const read of readTalks({ dir: content, display: content, names })) {
    const [event, , fileName] = read.name.split('/') as [string, string, string];
    const slug = (read.ok && read.digest.slug) || fileName.replace(/\.[^.]+$/, '');
    (found.slugs.get(event) ?? found.slugs.set(event, new Set()).get(event)!).add(slug);
    if (read.ok && !tracked.has(read.digest.id)) found.ids.add(read.digest.id);
  }
  return found;
}

/** Imports `source` (a pyvideo/data checkout) into `content`. Writes nothing when any record cannot be converted. */
export async function importPyvideo(options: { source: string; content: string; now?: Date; progress?: Progress }): Promise<ImportReport> {
  const { source, content, progress } = options;
  const now = timestamps(options.now ?? new Date());
  const report: ImportReport = {
    ok: false,
    errors: [],
    events: 0,
    talks: 0,
    drafts: 0,
    keptIds: 0,
    newIds: 0,
    changed: 0,
    removed: 0,
    written: 0,
    unchanged: 0,
    notes: new Map(),
  };
  const addNotes = (notes: ImportNote[]) => {
    for (const n of notes) {
      const entry = report.notes.get(n.kind);
      if (entry) entry.count++;
      else report.notes.set(n.kind, { count: 1, example: n.source });
    }
  };

  if (!statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
    report.unusable = 'no such folder';
    return report;
  }
  const noPublish = new Set<number>();
  try {
    const listed: unknown = JSON.parse(await readFile(path.join(source, 'NO_PUBLISH.json'), 'utf8'));
    if (!Array.isArray(listed)) throw new Error('expected a list of ids');
    // A speaker's wish not to be published is not skipped over: an entry that is not an id stops the import.
    for (const id of listed) {
      const n = typeof id === 'string' && /^[1-9]\d*$/.test(id) ? Number(id) : id;
      if (Number.isSafeInteger(n) && (n as number) > 0) noPublish.add(n as number);
      else report.errors.push({ file: 'NO_PUBLISH.json', reason: `${JSON.stringify(id)} is not an id; list ids as numbers` });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') report.errors.push({ file: 'NO_PUBLISH.json', reason: (err as Error).message });
  }

  const state = await readState(content);
  // Not only files: a link to nothing, or a folder so named, is a record that cannot be read, not one that left the snapshot.
  const categoryFiles = (await fg('*/category.json', { cwd: source, onlyFiles: false })).sort();
  // An import is the whole catalogue: from a folder with no events it would remove every talk imported before.
  if (categoryFiles.length === 0) {
    report.unusable = 'no <event>/category.json in it: not a checkout of pyvideo/data';
    return report;
  }
  const talkFiles = (await fg('*/videos/*.json', { cwd: source, onlyFiles: false })).sort();
  const eventNames = new Set(categoryFiles.map((f) => f.split('/')[0]!));
  // Our event folders are slugs; pyvideo's mostly are (a few use underscores). A folder keeps the
  // one an earlier import gave it; then a new folder whose name is a slug takes it; then the others pick.
  const eventSlugs = new Map<string, string>();
  const folders = [...eventNames].sort();
  const given = new Set<string>();
  const give = (folder: string, slug: string) => {
    eventSlugs.set(folder, slug);
    given.add(slug);
  };
  for (const folder of folders) if (state.folders[folder]) give(folder, state.folders[folder]);
  for (const folder of folders) if (!eventSlugs.has(folder) && isSlug(folder) && !given.has(folder)) give(folder, folder);
  for (const folder of folders) {
    if (eventSlugs.has(folder)) continue;
    let slug = slugFromTitle(folder) || 'event';
    while (given.has(slug)) slug = `${slug}-2`;
    addNotes([{ kind: isSlug(folder) ? 'event folder already given to another event: renamed' : 'event folder is not a slug: renamed', source: folder }]);
    give(folder, slug);
  }

  // Events.
  const events = new Map<string, EventFile>();
  const eventSources = new Map<string, string>();
  for (const file of categoryFiles) {
    const event = file.split('/')[0]!;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(path.join(source, file), 'utf8'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      report.errors.push({ file, reason: code ? `cannot be read (${code})` : `not valid JSON (${(err as Error).message})` });
      continue;
    }
    const converted = convertEvent(parsed, file);
    if (!converted.ok) {
      report.errors.push({ file, reason: `${converted.error}` });
      continue;
    }
    addNotes(converted.notes);
    const problems = schemaProblems(eventSchema, converted.value);
    if (problems) report.errors.push({ file, reason: problems });
    events.set(eventSlugs.get(event)!, converted.value);
    eventSources.set(eventSlugs.get(event)!, file);
  }
  // Events of one title had one page on pyvideo.org: the event in the folder named as the page keeps it, else the first.
  const byPageClaim = [...events].sort(([a, ea], [b, eb]) => Number(ea.aliases?.[0] !== `/events/${a}.html`) - Number(eb.aliases?.[0] !== `/events/${b}.html`));
  const eventsByPage = new Map<string, { slug: string; page?: string }>();
  for (const [slug, event] of byPageClaim) for (const page of event.aliases ?? []) if (!eventsByPage.has(page)) eventsByPage.set(page, { slug, page });
  const byFolder = (page: string) => {
    const folder = /^\/events\/([^/]+)\.html$/.exec(page)?.[1];
    const slug = folder === undefined ? undefined : eventSlugs.get(folder);
    return slug !== undefined && events.has(slug) ? { slug, page: events.get(slug)!.aliases?.[0] } : undefined;
  };
  const redirects = await readFile(path.join(source, 'redirects.txt'), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') report.errors.push({ file: 'redirects.txt', reason: `cannot be read (${err.code ?? err.message})` });
    return '';
  });
  const legacy = legacyRedirects(redirects, (page) => eventsByPage.get(page) ?? byFolder(page));
  addNotes(legacy.notes);
  for (const [slug, aliases] of legacy.aliases) {
    const event = events.get(slug)!;
    event.aliases = [...(event.aliases ?? []), ...aliases];
  }

  // Read every talk once; ids first, so that new ids follow the highest of all.
  const sources = new Map<string, { bytes: Buffer; value: unknown }>();
  const explicitIds = new Map<number, string>();
  progress?.start('talks read:');
  for (const file of talkFiles) {
    progress?.tick();
    const event = file.split('/')[0]!;
    if (!eventNames.has(event)) {
      report.errors.push({ file, reason: `the event folder "${event}" has no category.json` });
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(source, file));
    } catch (err) {
      report.errors.push({ file, reason: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      report.errors.push({ file, reason: `not valid JSON (${(err as Error).message})` });
      continue;
    }
    sources.set(file, { bytes, value });
    const id = (value as { id?: unknown } | null)?.id;
    if (Number.isInteger(id) && (id as number) > 0) {
      const other = explicitIds.get(id as number);
      if (other) report.errors.push({ file, reason: `id ${String(id)} is also the id of ${other}` });
      else explicitIds.set(id as number, file);
    }
  }

  progress?.done();
  const byHand = await handWritten(content, state);
  let highest = Math.max(state.highestId, ...explicitIds.keys(), ...byHand.ids, 0);

  const outputs = new Map<string, string>();
  const left = state.left ?? {};
  /** What a source file was given by an earlier import: while it was in the snapshots, or before it left them. */
  const earlier = (file: string): TalkState | undefined => state.talks[file] ?? left[file];
  const nextLeft: Record<string, TalkState> = Object.fromEntries(Object.entries({ ...left, ...state.talks }).filter(([file]) => !sources.has(file)));
  const retired = new Set([...state.retired, ...Object.values(nextLeft).map((talk) => talk.id)]);
  // A talk back in the snapshot has its id back: it was retired only so that no other talk would take it.
  for (const [file, talk] of Object.entries(left)) if (sources.has(file)) retired.delete(talk.id);
  // A talk that left, whose record named its id, may come back under another file name (moved, renamed) naming it again.
  const movable = new Map(Object.entries(nextLeft).flatMap(([file, talk]) => (talk.named ? [[talk.id, file] as const] : [])));
  const givenTo = new Map(Object.entries(state.talks).map(([file, talk]) => [talk.id, file]));
  const usedIds = new Map<number, string>();
  const slugsByEvent = new Map<string, Set<string>>();
  const takenIn = (event: string) => slugsByEvent.get(event) ?? slugsByEvent.set(event, new Set()).get(event)!;
  // Slugs already given keep their talks, and talks written by hand theirs; then new talks' file names that are slugs are theirs; then the others pick.
  for (const [event, slugs] of byHand.slugs) for (const slug of slugs) takenIn(event).add(slug);
  for (const file of sources.keys()) {
    const previous = state.talks[file];
    if (previous) takenIn(previous.event).add(previous.slug);
  }
  /** Talks back in the snapshot whose slug another talk took while they were away. */
  const slugLost = new Set<string>();
  for (const file of sources.keys()) {
    const previous = left[file];
    if (!previous) continue;
    if (takenIn(previous.event).has(previous.slug)) slugLost.add(file);
    else takenIn(previous.event).add(previous.slug);
  }
  const ownSlugs = new Map<string, string>();
  for (const file of sources.keys()) {
    const [folder, , fileName] = file.split('/') as [string, string, string];
    const stem = fileName.replace(/\.json$/, '');
    const taken = takenIn(eventSlugs.get(folder)!);
    if (!earlier(file) && isSlug(stem) && !taken.has(stem)) {
      taken.add(stem);
      ownSlugs.set(file, stem);
    }
  }

  /** The talks converted, with the dates of this import until it knows which of them changed. */
  const converted: { file: string; bytes: Buffer; event: string; slug: string; named: boolean; previous?: TalkState; value: TalkFile }[] = [];
  for (const [file, { bytes, value }] of sources) {
    const [folder, , fileName] = file.split('/') as [string, string, string];
    const event = eventSlugs.get(folder)!;
    const stem = fileName.replace(/\.json$/, '');
    const ownId = (value as { id?: unknown } | null)?.id;
    const own = Number.isInteger(ownId) && (ownId as number) > 0 ? (ownId as number) : undefined;
    let previous = earlier(file);
    let id: number;
    if (previous) {
      // Ids are forever: the one given stays, even if the record names another since.
      id = previous.id;
      report.keptIds++;
      if (own !== undefined && own !== id) addNotes([{ kind: 'record names an id other than the one it was given: that one kept', source: file }]);
    } else if (own !== undefined && movable.has(own)) {
      id = own;
      report.keptIds++;
      // Moved: the talk keeps its `added`, not its file name.
      previous = { ...nextLeft[movable.get(own)!]!, slug: '', hash: '' };
      delete nextLeft[movable.get(own)!];
      retired.delete(own);
      addNotes([{ kind: 'record that left under another file name is back: its id kept', source: file }]);
    } else if (own !== undefined && !retired.has(own) && (givenTo.get(own) ?? file) === file) {
      id = own;
      report.keptIds++;
    } else {
      if (own !== undefined) addNotes([{ kind: retired.has(own) ? 'record names the id of a talk that was removed: given a new one' : 'record names the id given to another talk: given a new one', source: file }]);
      id = ++highest;
      report.newIds++;
    }
    if (byHand.ids.has(id)) {
      report.errors.push({ file, reason: `id ${id} is already used by a talk in ${content} that this import did not write` });
      continue;
    }
    const clash = usedIds.get(id);
    if (clash) {
      report.errors.push({ file, reason: `id ${id} was given to ${clash} by an earlier import; give one of them another id` });
      continue;
    }
    usedIds.set(id, file);
    const taken = takenIn(event);
    const slug = (!slugLost.has(file) && previous?.slug) || ownSlugs.get(file) || chooseSlug(stem, String((value as { title?: unknown }).title ?? ''), id, taken);
    taken.add(slug);
    if (slug !== previous?.slug && slug !== stem) addNotes([{ kind: 'file name is not a slug: slug made from the title', source: file }]);

    // NO_PUBLISH.json lists pyvideo's ids, which records name as their own, not ids given here.
    const draft = own !== undefined && noPublish.has(own);
    const talk = convertTalk(value, { source: file, folder, eventTitle: events.get(event)?.title ?? '', stem, id, draft, slug, added: now.added, updated: now.updated });
    if (!talk.ok) {
      report.errors.push({ file, reason: `${talk.error}` });
      continue;
    }
    addNotes(talk.notes);
    const problems = schemaProblems(talkSchema, talk.value);
    if (problems) {
      report.errors.push({ file, reason: problems });
      continue;
    }
    converted.push({ file, bytes, event, slug, named: id === own, previous, value: talk.value });
  }

  // An address redirects to one event or talk: the first that claims it keeps it (pyvideo has records that share an old address).
  // By its file's key, as the build takes it (see fileKey): another spelling is the same file where case is ignored (or, on macOS, a letter's encoding),
  // which only its holder's own redirect may share (richard's redirects.txt spells some addresses two ways).
  const holders = new Map<string, string>();
  const spelled = new Set<string>();
  for (const { slug, value } of converted) for (const file of [pageFile({ id: value.id, slug }), shortLinkFile(value.id)]) holders.set(file, '');
  const claim = (aliases: string[], source: string) =>
    aliases.filter((alias) => {
      const file = aliasFile(alias);
      const holder = holders.get(fileKey(file)) ?? source;
      const free = holder === source && !spelled.has(file);
      if (free) {
        holders.set(fileKey(file), source);
        spelled.add(file);
      } else addNotes([{ kind: 'old address already the address of another event or talk: no redirect made', source }]);
      return free;
    });
  for (const [slug, event] of byPageClaim) if (event.aliases) event.aliases = claim(event.aliases, eventSources.get(slug)!);
  for (const { file, value } of converted) value.aliases = claim(value.aliases, file);

  const nextState: ImportState = {
    highestId: 0,
    retired: [...retired].sort((a, b) => a - b),
    left: nextLeft,
    talks: {},
    folders: Object.fromEntries(folders.filter((f) => events.has(eventSlugs.get(f)!)).map((f) => [f, eventSlugs.get(f)!])),
  };
  for (const { file, bytes, event, slug, named, previous, value } of converted) {
    // What the talk's record is made of but its dates: the file without them, and the title of its event (its category).
    const hash = sha256(Buffer.from(`${JSON.stringify({ ...value, added: '', updated: '' })}\n${events.get(event)?.title ?? ''}`));
    // A state written before this hash names the source's bytes.
    const unchanged = previous && (previous.hash === hash || (previous.hash === sha256(bytes) && previous.id === value.id && previous.draft === (value.state === STATE_DRAFT)));
    const dates = unchanged ? { added: previous.added, updated: previous.updated } : { added: previous?.added ?? now.added, updated: now.updated };
    if (previous && !unchanged) report.changed++;
    Object.assign(value, dates);
    const draft = value.state === STATE_DRAFT;
    if (draft) report.drafts++;
    report.talks++;
    const rel = path.join(event, 'videos', `${slug}.json`);
    if (outputs.has(rel)) report.errors.push({ file, reason: `its talk file ${rel} was given to another talk as well` });
    outputs.set(rel, toJson(value satisfies TalkFile));
    nextState.talks[file] = { id: value.id, slug, event, hash, draft, ...dates, ...(named ? { named: true } : {}) };
  }
  for (const [event, value] of events) outputs.set(path.join(event, 'category.json'), toJson(value));
  const sitePages = siteRedirects(converted.map((talk) => talk.value));
  outputs.set(REDIRECTS_FILE, toJson(sitePages));
  report.notes.set("pyvideo.org speaker's, tag's or index page → redirect", { count: Object.keys(sitePages).length, example: REDIRECTS_FILE });
  report.events = events.size;

  if (report.errors.length > 0) return report;

  // Talks and events that left the snapshot lose their files; their ids stay retired.
  const removals: string[] = [];
  for (const [file, old] of Object.entries(state.talks)) {
    if (nextState.talks[file]) continue;
    const rel = path.join(old.event, 'videos', `${old.slug}.json`);
    if (!outputs.has(rel)) removals.push(rel);
  }
  for (const event of Object.values(state.folders)) if (!events.has(event)) removals.push(path.join(event, 'category.json'));

  nextState.highestId = highest;
  outputs.set(STATE_FILE, toJson(nextState));

  await mkdir(content, { recursive: true });
  // The state file goes last: until it is written, a re-run sees the previous import.
  const { [STATE_FILE]: stateText, ...files } = Object.fromEntries(outputs);
  const write = async ([rel, text]: [string, string]) => {
    progress?.tick();
    const file = path.join(content, rel);
    const current = await readFile(file, 'utf8').catch(() => undefined);
    if (current === text) {
      report.unchanged++;
      return;
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
    report.written++;
  };
  progress?.start('files compared and written:');
  await forEachLimit(Object.entries(files), 32, write);
  await write([STATE_FILE, stateText!]);
  progress?.done();
  for (const rel of removals) {
    await rm(path.join(content, rel), { force: true });
    report.removed++;
    await rmdir(path.dirname(path.join(content, rel))).catch(() => undefined);
  }
  report.ok = true;
  return report;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
