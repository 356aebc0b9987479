// Loading the content folder: files → validated records → the catalogue in
// memory. Every file is read and checked, and every problem is collected, so
// one run reports them all.
//
// The catalogue keeps a summary of each talk (what lists, links and checks
// need), not its long texts: a page is rendered from the full record, read
// again by whoever renders it. Memory grows with the number of talks, not
// with the size of their descriptions. Files unchanged since a previous load
// (same size, mtime, ctime and inode) are taken from that load's cache unread.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileOf, resorted, shortLinkPath, slugRename, talkPath } from './collections.ts';
import { ContentError, sortErrors } from './errors.ts';
import {
  acceptedTalk,
  EVENT_FIELDS,
  EVENT_INSTEAD,
  eventSchema,
  isSlug,
  SITE_FIELDS,
  SITE_INSTEAD,
  siteSchema,
  STATE_LIVE,
  TALK_FIELDS,
  TALK_INSTEAD,
  talkSchema,
  PLAYABLE_FIRST,
  VIDEO_MIME,
  type EventFields,
  type SiteFields,
  type Talk,
} from './schema.ts';
import { fileKey, FolderSpellings, whereOneFile } from './file-keys.ts';
import { blurb, excerpt } from './markdown.ts';
import { pageSlug, parsePage, sitePageFile, sitePagePath, type PageSource } from './pages.ts';
import { cached } from './memo.ts';
import { contains } from './paths.ts';
import { parseRedirects, redirectsFileProblem, type CatalogueRedirects, type RedirectsSource } from './redirects.ts';
import { fieldName, isJson, parseSource, TOO_DEEP, type FieldPath, type Position, type SourceDoc } from './source.ts';
import { checkParsed, validate, type Validated } from './validate.ts';
import { ANY_CASE_DATA_FILE, CATEGORY_FILE, DATA_FILE, listContent, PAGES_DIR, REDIRECTS_DIR, SITE_FILE, statKey, type ContentEntry } from './listing.ts';

export interface Origin {
  /** The file as shown in messages, relative to the working directory. */
  file: string;
  /** The file's path inside the content folder. */
  name: string;
  /** A hash of the file's bytes: equal revisions mean equal records. */
  rev: string;
}

export interface CatalogueEvent extends EventFields, Origin {
  /** The event folder's name. */
  slug: string;
}

/** One of the site's own pages (src/pages.ts). */
export interface CataloguePage extends PageSource, Origin {
  /** The file's name without `.md`. */
  slug: string;
}

const SUMMARY_FIELDS = ['id', 'title', 'language', 'speakers', 'tags', 'state', 'duration', 'recorded', 'aliases', 'added', 'updated'] as const;

/** A file a feed item can point podcatchers at. */
export interface Enclosure {
  url: string;
  type: string;
  length: number | null;
}

/** What the catalogue keeps of a talk file: the fields lists, links, feeds, search and checks use. */
type TalkDigest = Pick<Talk, (typeof SUMMARY_FIELDS)[number] | 'slug' | 'category'> & {
  /** A short plain-text excerpt of the summary, or else of the description. */
  blurb: string;
  enclosure: Enclosure | null;
};

/** Long enough for a feed item or a search result. */
const BLURB_LENGTH = 300;

/** A talk in the catalogue: its digest, with slug, category and event resolved. */
export interface CatalogueTalk extends Omit<TalkDigest, 'slug' | 'category'>, Origin {
  slug: string;
  category: string;
  /** The slug of the event folder the talk lives in. */
  event: string;
}

/** A talk with every field: what its page and API record are made from. */
export type FullTalk = Talk & CatalogueTalk;

export interface Catalogue {
  /** Sorted by slug. */
  events: CatalogueEvent[];
  /** Live and draft talks, sorted by id. */
  talks: CatalogueTalk[];
  /** Sorted by slug. */
  pages: CataloguePage[];
  /** The site's redirects files (src/redirects.ts), sorted by name. */
  redirects: CatalogueRedirects[];
  /** The site's settings, from `_site.yaml` (its defaults without one). */
  site: SiteFields;
}

/** The settings of a site whose content folder has no `_site.yaml`. */
export const DEFAULT_SITE: SiteFields = siteSchema.parse({});

/** What a load remembers of a valid file, for the next load to reuse while its stat is the same. */
export interface CachedFile {
  stat: string;
  rev: string;
  value: TalkDigest | EventFields | PageSource | RedirectsSource | SiteFields;
}

/** Each valid file's CachedFile, by its name. */
export type LoadCache = Map<string, CachedFile>;

interface LoadResult {
  catalogue: Catalogue;
  errors: ContentError[];
  files: number;
  cache: LoadCache;
  /** Files read this time (the others came from the cache). */
  read: number;
  /** Given when asked for (LoadOptions.remember) and there are no errors: what the next load may start from. */
  basis?: LoadBasis;
}

/**
 * What a load without errors leaves for the next one (the dev server's next
 * build): the listing it was made from, and who holds each id, slug and
 * output path, which the checks across files need. A load after an edit of a
 * few talk files then reads and checks those alone. The next load takes it
 * over: it is changed in place.
 */
export interface LoadBasis {
  dir: string;
  entries: ContentEntry[];
  catalogue: Catalogue;
  cache: LoadCache;
  /** By file name. */
  talks: Map<string, CatalogueTalk>;
  /** Id → file name. */
  ids: Map<number, string>;
  /** `<event>/<slug>` → file name. */
  slugs: Map<string, string>;
  /** Output path of a talk's page, short link or alias, an event's alias or a redirect → who it is for (see claims). */
  claims: Map<string, Owner>;
  /** The folders of the old addresses, by the file key of the first in each (see claims); a talk's left when it goes, which at worst sends a load to a full one. */
  folders: FolderSpellings<string>;
}

/** Reads many talk files, in whatever thread it runs; errors travel as plain objects. */
export type ReadTalks = (task: { dir: string; display: string; names: string[] }) => ReadTalkResult[];

type ReadTalkResult =
  | { name: string; ok: true; rev: string; digest: TalkDigest }
  | { name: string; ok: false; errors: Pick<ContentError, 'file' | 'pos' | 'field' | 'message'>[] };

/**
 * A link is not followed, as the theme's assets' are not: what it leads to is outside the folder that `dev` watches and
 * the API's writes change (a write would put a file in the link's place), and a folder's link could lead back into it.
 */
const LINK_PROBLEM = "is a symbolic link; the build reads only the content folder's own files and folders: move or copy what it leads to here";

/** Why a file or folder of the content cannot be read (`code`, EACCES), with the fix where it is its permissions. */
function cannotRead(what: 'file' | 'folder', code: string): string {
  const allowed = code === 'EACCES' || code === 'EPERM';
  return `cannot read the ${what} (${code})${allowed ? `; let the build's user read it (chmod a+r${what === 'folder' ? 'x' : ''}), or move it out of the content folder` : ''}`;
}

/** Why a data file at `parts` is neither an event's nor a talk's, and where it would be one; `isEvent` tells an event's folder. */
function misplaced(parts: string[], isEvent: (folder: string) => boolean): string {
  if (parts.length === 2) {
    return `an event folder holds its category file and a videos folder, nothing else; if this file describes the event, name it category${parts[1]!.match(DATA_FILE)![0]}, and if it is a talk, move it into ${parts[0]}/videos/`;
  }
  if (parts.length > 3 && parts[1] === 'videos') return `talks go directly in ${parts[0]}/videos/, not in a folder below it; move the file there`;
  // `conf/video/d.yaml`, `conf/talks/d.yaml`, `conf/Videos/d.yaml`: an event folder's talks folder under another name.
  if (parts.length === 3 && isEvent(parts[0]!)) return `an event's talks go in its folder "videos"; move the file to ${parts[0]}/videos/${parts[2]}`;
  if (parts.length === 1 && SITE_FILE.test(`_${parts[0]}`)) return `the site's settings file is named _${parts[0]}; rename it`;
  // At the root, it may be settings under another site generator's name (_config.yml, hugo.yaml).
  const settings = parts.length === 1 ? ", and the site's settings in _site.yaml" : '';
  return `file is outside an event folder: talks go in <event>/videos/<slug>.yaml and events in <event>/category.yaml${settings}`;
}

/** Whether a talk file that failed its checks writes a `slug` field (or cannot be read again), so that its name may be any. */
function writesSlug(file: string): boolean {
  try {
    return /^\s*"?slug"?\s*:/m.test(readFileSync(file, 'utf8'));
  } catch {
    return true;
  }
}

/** The id a talk holds, and when it was added (undefined when not a real date-time): what decides which of two talks with one id keeps it. */
type IdClaim = Pick<TalkDigest, 'id'> & { added?: string };

/** The slug a talk takes in its event, and whether its slug field writes it (else its file's name is it). */
type SlugClaim = { slug: string; written: boolean };

/** What a talk file that failed its checks claims all the same (see claimedBy): its id and slug, and the title of its event. */
type FailedClaims = { id?: IdClaim; slug?: SlugClaim; category?: string };

/**
 * The fields of a file that failed its checks, as the checks saw them (a file whose only mistake is a repeated key
 * has them too); undefined for a file that cannot be parsed, or holds no mapping of fields.
 */
function failedFields(file: string, shown: string): Record<string, unknown> | undefined {
  let fields: unknown;
  try {
    fields = parseSource(shown, readFileSync(file)).doc?.value;
  } catch {
    return undefined;
  }
  return fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? (fields as Record<string, unknown>) : undefined;
}

/**
 * What a talk file that failed its checks claims all the same, each where it is valid itself: its id (and its
 * added, if that is), its slug (its field's, or else its file's name) and its `category`: another talk with its id
 * or slug, or an event of another title, is said now, not once the file's other errors are fixed.
 */
function claimedBy(file: string, shown: string): FailedClaims {
  const fields = failedFields(file, shown);
  if (!fields) return {};
  const { id, added, slug, category } = fields;
  const validId = talkSchema.shape.id.safeParse(id);
  const stem = path.basename(file).replace(ANY_CASE_DATA_FILE, '');
  const validSlug = slug === undefined ? (isSlug(stem) ? stem : undefined) : talkSchema.shape.slug.safeParse(slug).data;
  return {
    id: validId.success ? { id: validId.data, added: talkSchema.shape.added.safeParse(added).data } : undefined,
    slug: validSlug === undefined ? undefined : { slug: validSlug, written: slug !== undefined },
    category: talkSchema.shape.category.safeParse(category).data,
  };
}

/** Whether two talk files are one talk in two formats (talk.yaml beside talk.json), as when it is moved to the other, its old file still there. */
const oneTalk = (a: string, b: string) => a.replace(ANY_CASE_DATA_FILE, '') === b.replace(ANY_CASE_DATA_FILE, '');

const fileNameError = (file: string, stem: string) =>
  new ContentError(file, { line: 1, col: 1 }, 'slug', `the file name "${stem}" is not a valid slug; rename the file to ${slugRename(stem, file.match(ANY_CASE_DATA_FILE)![0].toLowerCase())}, or add a slug field`);

export function isLive(talk: { state: number }): boolean {
  return talk.state === STATE_LIVE;
}

const shownIn = (display: string, name: string) => path.posix.join(display.split(path.sep).join('/'), name);

type Read<T> = { ok: true; value: T; rev: string } | { ok: false; errors: ContentError[] };

/** A settings file's fields; one of comments alone (its fields commented out, the demo's edit_url) holds the defaults, as no file does: every setting has one. */
const siteOf = (doc: SourceDoc): Validated<SiteFields> => (doc.value === null ? { ok: true, value: DEFAULT_SITE } : validate(siteSchema, doc, SITE_FIELDS, SITE_INSTEAD));

/** A data file's bytes → its validated value, or every problem of it. */
const checked =
  <T>(check: (doc: Parameters<typeof validate>[1]) => Validated<T>) =>
  (shown: string, bytes: Uint8Array): Validated<T> => {
    return checkParsed(parseSource(shown, bytes), check);
  };

function readValidated<T>(dir: string, display: string, name: string, parse: (shown: string, bytes: Uint8Array) => Validated<T>): Read<T> {
  const shown = shownIn(display, name);
  let bytes: Buffer;
  try {
    // Synchronous: content files are small and local, and the promise API costs several round trips per file.
    bytes = readFileSync(path.join(dir, name));
  } catch (err) {
    return { ok: false, errors: [new ContentError(shown, { line: 1, col: 1 }, '', cannotRead('file', (err as NodeJS.ErrnoException).code ?? String(err)))] };
  }
  let result: Validated<T>;
  try {
    result = parse(shown, bytes);
  } catch (err) {
    // A file nested thousands of levels deep can exhaust a parser's stack: it is the file's error, named, not the build's crash.
    const reason = err instanceof RangeError ? `it is ${TOO_DEEP}` : String(err);
    return { ok: false, errors: [new ContentError(shown, { line: 1, col: 1 }, '', `cannot check the file: ${reason}`)] };
  }
  if (!result.ok) return result;
  return { ok: true, value: result.value, rev: revisionOf(bytes) };
}

/** A content file's revision (Origin.rev): a hash of its bytes. */
export const revisionOf = (bytes: Buffer): string => hash('sha1', bytes, 'base64url');

/** Reads and validates one talk file, every field of it. */
function readTalk(dir: string, display: string, name: string): Read<Talk> {
  return readValidated(dir, display, name, checked((doc) => validate(talkSchema, doc, TALK_FIELDS, TALK_INSTEAD)));
}

/** What the catalogue keeps of a talk: the fields its lists, feeds and search show, its excerpt and its feeds' enclosure. */
export function digestOf(talk: Talk): TalkDigest {
  const digest: Record<string, unknown> = {};
  for (const field of SUMMARY_FIELDS) digest[field] = talk[field];
  if (talk.slug !== undefined) digest.slug = talk.slug;
  if (talk.category !== undefined) digest.category = talk.category;
  // The summary is plain text, kept as written (`__init__`, `C#`, `a < b`); the description is Markdown.
  const summary = talk.summary.trim();
  digest.blurb = summary ? excerpt(summary, BLURB_LENGTH) : blurb(talk.description, BLURB_LENGTH);
  digest.enclosure = enclosureOf(talk);
  return digest as TalkDigest;
}

/** A feed's one enclosure: the first playable format's file, one over https first, as the talk's page plays only those. */
function enclosureOf(talk: Talk): Enclosure | null {
  const files = PLAYABLE_FIRST.flatMap((format) => {
    const url = talk[`video_${format}_url`];
    return url ? [{ url, type: VIDEO_MIME[format], length: talk[`video_${format}_length`] }] : [];
  });
  return files.find((file) => /^https:/i.test(file.url)) ?? files[0] ?? null;
}

export const readTalks: ReadTalks = ({ dir, display, names }) =>
  names.map((name) => {
    const read = readTalk(dir, display, name);
    if (read.ok) return { name, ok: true, rev: read.rev, digest: digestOf(read.value) };
    return { name, ok: false, errors: read.errors.map((e) => ({ file: e.file, pos: e.pos, field: e.field, message: e.message })) };
  });

/**
 * The whole record of a catalogue talk, read again from its file. The file was
 * validated when the catalogue was loaded; if its bytes are still the same
 * (same revision), the schema only needs to fill in defaults, so the checks
 * that report positions are skipped.
 */
export function loadFullTalk(dir: string, talk: CatalogueTalk): FullTalk {
  const bytes = readFileSync(path.join(dir, talk.name));
  if (revisionOf(bytes) !== talk.rev) throw new Error(`${talk.file} changed during the build; build again`);
  let value: unknown;
  if (isJson(talk.name)) value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  else {
    const parsed = parseSource(talk.file, bytes);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    value = parsed.doc.value;
  }
  // Into the record acceptedTalk has just made, rather than spread with it into a new object: V8 took 25 µs a talk to
  // spread two objects of 40 and 19 fields (a cold build of the import spent half a second of its main thread so).
  return Object.assign(acceptedTalk(value as Record<string, unknown>), talk);
}

interface LoadOptions {
  /** The listing from `listContent`, when the caller already has it. */
  entries?: ContentEntry[];
  cache?: LoadCache;
  /** Runs `readTalks` on batches elsewhere (worker threads); used when there are many files to read. */
  parallel?: (task: Parameters<ReadTalks>[0]) => Promise<ReturnType<ReadTalks>>;
  /** Files to read before `parallel` is worth using: below that, handing them over costs more than it saves. */
  parallelFrom?: number;
  /** Keep what the next load may start from (LoadResult.basis): a caller that loads again, the dev server. */
  remember?: boolean;
  /** The last load's basis: a load that only edits, adds or removes a few talk files starts from it. */
  basis?: LoadBasis;
}

/** Beyond this many files changed, a load starts afresh. */
const CHANGED_AT_MOST = 200;

const BATCH = 500;

/**
 * The catalogue's objects made from cached files, by the cached value: a load
 * that reuses the cache (the dev server's next build) gives an unchanged file
 * the same object, so that what is worked out from it (its token, its part of
 * the plan) is looked up, not done again.
 */
const catalogueTalks = new WeakMap<TalkDigest, CatalogueTalk>();
const catalogueEvents = new WeakMap<EventFields, CatalogueEvent>();
const cataloguePages = new WeakMap<PageSource, CataloguePage>();
const catalogueRedirects = new WeakMap<RedirectsSource, CatalogueRedirects>();

function remembered<K extends object, V>(made: WeakMap<K, V>, from: K, fits: (known: V) => boolean, make: () => V): V {
  const known = made.get(from);
  if (known && fits(known)) return known;
  const value = make();
  made.set(from, value);
  return value;
}

/** How messages name a content folder: relative to the working directory when inside it, as compilers do, else whole (`../../tmp/x` says less than `/tmp/x`). */
export function shownFolder(dir: string): string {
  const absolute = path.resolve(dir);
  return contains(process.cwd(), absolute) ? path.relative(process.cwd(), absolute) || '.' : absolute;
}

/** Reads every content file under `dir`; errors name its files as shownFolder does. */
export async function loadContent(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const display = shownFolder(dir);
  const entries = options.entries ?? (await listContent(dir));
  if (options.basis?.dir === dir) {
    const loaded = loadChanged(dir, display, entries, options.basis);
    if (loaded) return loaded;
  }
  const load = new FullLoad(dir, display, options.cache ?? new Map());
  const files = load.sortFiles(entries);
  const events = load.events(files.events);
  const pages = load.pages(files.pages);
  const redirects = load.redirects(files.redirects);
  const site = load.site(files.site);
  // Talk files: from the cache when unchanged, the rest read here or in other threads.
  const toRead = load.unchangedTalks(files.talks);
  const task = { dir, display, names: toRead };
  const results = options.parallel && toRead.length >= (options.parallelFrom ?? 2000) ? await inBatches(options.parallel, task) : readTalks(task);
  load.talksRead(files.talks, results);
  const talks = load.talks(files.talks, files.events, events).sort(byId);
  const catalogue = { events: [...events.values()].sort(bySlug), talks, pages: pages.sort(bySlug), redirects, site };
  const claimed = claims(catalogue, load.locateIn);
  load.errors.push(...claimed.errors);
  const basis = options.remember && load.errors.length === 0 ? { dir, entries, catalogue, cache: load.cache, talks: new Map(talks.map((t) => [t.name, t])), ids: load.ids, slugs: load.slugs, claims: claimed.owners, folders: claimed.folders } : undefined;
  return { catalogue, errors: sortErrors(load.errors), files: entries.length, cache: load.cache, read: load.read, basis };
}

/** The content's files by what they are (FullLoad.sortFiles). */
interface ContentFiles {
  /** By event folder: a folder has one category file, or else an error. */
  events: Map<string, ContentEntry[]>;
  talks: ContentEntry[];
  pages: ContentEntry[];
  redirects: ContentEntry[];
  /** One, or else an error. */
  site: ContentEntry[];
}

type Digested = { rev: string; digest: TalkDigest };

const bySlug = (a: { slug: string }, b: { slug: string }) => (a.slug < b.slug ? -1 : 1);

/** Reads talk files in batches with `parallel` (other threads), in the order of their names. */
async function inBatches(parallel: NonNullable<LoadOptions['parallel']>, { dir, display, names }: Parameters<ReadTalks>[0]): Promise<ReadTalkResult[]> {
  const batches: string[][] = [];
  for (let i = 0; i < names.length; i += BATCH) batches.push(names.slice(i, i + BATCH));
  if (batches.length === 0) batches.push([]);
  return (await Promise.all(batches.map((batch) => parallel({ dir, display, names: batch })))).flat();
}

/**
 * A load that reads the whole content folder (but for the files the last load's cache still has): its steps,
 * in the order loadContent takes them, each adding the problems it finds to `errors`.
 */
class FullLoad {
  readonly errors: ContentError[] = [];
  /** This load's valid files, for the next load to reuse. */
  readonly cache: LoadCache = new Map();
  /** Files read this time (the others came from the cache). */
  read = 0;
  readonly locateIn: ReturnType<typeof locator>;
  /** The valid talk files' digests, by file name. */
  private readonly digests = new Map<string, Digested>();
  /** What the talk files that failed their checks claim all the same, by file name (see claimedBy). */
  private readonly failed = new Map<string, FailedClaims>();
  /** The titles of the events whose files failed their checks, where the title itself is valid, by folder: its talks' `category` is held to it. */
  private readonly failedTitles = new Map<string, string | undefined>();
  /** Id → the file of the talk that has it. */
  readonly ids = new Map<number, string>();
  /** `<event>/<slug>` → the file of the talk that has it. */
  readonly slugs = new Map<string, string>();
  /** The id last suggested for a talk whose id another has: past the highest, and past the one suggested before. */
  private unused: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly display: string,
    private readonly previous: LoadCache,
  ) {
    this.locateIn = locator(dir);
  }

  private shown(name: string): string {
    return shownIn(this.display, name);
  }

  private locate(name: string, field: FieldPath): Position {
    return this.locateIn({ name, file: this.shown(name) }, field);
  }

  /** A problem of a whole file, said at its start. */
  private fileProblem(name: string, message: string): void {
    this.errors.push(new ContentError(this.shown(name), { line: 1, col: 1 }, '', message));
  }

  /** The content's files by what they are; a file that is none of them is an error that says where it would be one. */
  sortFiles(entries: ContentEntry[]): ContentFiles {
    const files: ContentFiles = { events: new Map(), talks: [], pages: [], redirects: [], site: [] };
    for (const entry of entries) {
      if (entry.link) {
        this.fileProblem(entry.path, LINK_PROBLEM);
      } else if (entry.unreadable) {
        this.fileProblem(entry.path, cannotRead('folder', entry.unreadable));
      } else if (entry.path.startsWith(`${PAGES_DIR}/`)) {
        files.pages.push(entry);
      } else {
        // One of an upper-case extension (talk.YAML) is told so, and sorted and checked as the file it would be once renamed: one run tells all of its problems.
        const named = entry.path.replace(ANY_CASE_DATA_FILE, (ext) => ext.toLowerCase());
        if (named !== entry.path) this.fileProblem(entry.path, `a content file's extension is written in lower case; rename the file to ${path.basename(named)}`);
        this.sortDataFile(entry, named.split('/'), entries, files);
      }
    }
    return files;
  }

  /** Files a data file, named `parts` (its extension in lower case), with the others of its kind, or says where it would be one. */
  private sortDataFile(entry: ContentEntry, parts: string[], entries: ContentEntry[], files: ContentFiles): void {
    if (parts[0] === REDIRECTS_DIR) {
      const problem = redirectsFileProblem(parts.join('/'));
      if (problem) this.fileProblem(entry.path, problem);
      else files.redirects.push(entry);
    } else if (parts.length === 1 && SITE_FILE.test(parts[0]!)) {
      files.site.push(entry);
    } else if (parts.length === 2 && CATEGORY_FILE.test(parts[1]!)) {
      files.events.set(parts[0]!, [...(files.events.get(parts[0]!) ?? []), entry]);
    } else if (parts.length === 3 && parts[1] === 'videos') {
      files.talks.push(entry);
    } else {
      const isEvent = (folder: string) => entries.some((e) => e.path.startsWith(`${folder}/category.`) && CATEGORY_FILE.test(e.path.slice(folder.length + 1)));
      this.fileProblem(entry.path, misplaced(parts, isEvent));
    }
  }

  /** An event's, page's, redirects or settings file: the last load's value if its stat is the same, else read and checked now; undefined when it has errors. */
  private cachedOrRead<T extends EventFields | PageSource | RedirectsSource | SiteFields>(name: string, stats: NonNullable<ContentEntry['stats']>, parse: Parameters<typeof readValidated<T>>[3]) {
    // The cache holds every kind of file's value: the stat and the name say it is this one's.
    const hit: { stat: string; rev: string; value: unknown } | undefined = this.previous.get(name);
    let loaded: { value: T; rev: string } | undefined;
    if (hit && hit.stat === statKey(stats)) loaded = hit as { value: T; rev: string };
    else {
      this.read++;
      const result = readValidated(this.dir, this.display, name, parse);
      if (result.ok) loaded = result;
      else this.errors.push(...result.errors);
    }
    if (loaded) this.cache.set(name, { stat: statKey(stats), rev: loaded.rev, value: loaded.value });
    return loaded;
  }

  /** The catalogue's object for a valid file's value: the same as last time for an unchanged file (see catalogueTalks). */
  private catalogued<V extends object, C extends Origin>(made: WeakMap<V, C>, name: string, { value, rev }: { value: V; rev: string }, make: (origin: Origin) => C): C {
    const file = this.shown(name);
    return remembered(made, value, (known) => known.file === file && known.name === name, () => make({ file, name, rev }));
  }

  /** The events, by folder. */
  events(eventFiles: ContentFiles['events']): Map<string, CatalogueEvent> {
    const events = new Map<string, CatalogueEvent>();
    for (const [slug, files] of eventFiles) {
      if (files.length > 1) this.fileProblem(files[1]!.path, `event "${slug}" has two category files (${files.map((f) => f.path).join(', ')}); keep one`);
      if (!isSlug(slug)) this.fileProblem(files[0]!.path, `event folder "${slug}" is not a valid slug; rename it to ${slugRename(slug)}`);
      const { path: name, stats } = files[0]!;
      const loaded = this.cachedOrRead<EventFields>(name, stats!, checked((doc) => validate(eventSchema, doc, EVENT_FIELDS, EVENT_INSTEAD)));
      if (loaded) events.set(slug, this.catalogued(catalogueEvents, name, loaded, (origin) => ({ ...loaded.value, slug, ...origin })));
      else this.failedTitles.set(slug, eventSchema.shape.title.safeParse(failedFields(path.join(this.dir, name), this.shown(name))?.title).data);
    }
    return events;
  }

  /** The site's own pages, in the listing's order. */
  pages(pageFiles: ContentEntry[]): CataloguePage[] {
    const pages: CataloguePage[] = [];
    for (const { path: name, stats } of pageFiles) {
      const named = pageSlug(name);
      if (!named.ok) {
        this.fileProblem(name, named.problem);
        // A page but for its name: its fields' errors are said with it.
        if (named.named) this.cachedOrRead(name, stats!, parsePage);
        continue;
      }
      const loaded = this.cachedOrRead(name, stats!, parsePage);
      if (loaded) pages.push(this.catalogued(cataloguePages, name, loaded, (origin) => ({ ...loaded.value, slug: named.slug, ...origin })));
    }
    return pages;
  }

  /** The site's redirects files, in the listing's order. */
  redirects(redirectFiles: ContentEntry[]): CatalogueRedirects[] {
    const redirects: CatalogueRedirects[] = [];
    for (const { path: name, stats } of redirectFiles) {
      const loaded = this.cachedOrRead(name, stats!, parseRedirects);
      if (loaded) redirects.push(this.catalogued(catalogueRedirects, name, loaded, (origin) => ({ ...loaded.value, ...origin })));
    }
    return redirects;
  }

  /** The site's settings: the first settings file's, else the defaults. */
  site(siteFiles: ContentEntry[]): SiteFields {
    if (siteFiles.length > 1) this.fileProblem(siteFiles[1]!.path, `the site has two settings files (${siteFiles.map((f) => f.path).join(', ')}); keep one`);
    // Each is checked, so that one run tells every problem; the first one's settings are the site's.
    const settings = siteFiles.map(({ path: name, stats }) => this.cachedOrRead<SiteFields>(name, stats!, checked(siteOf)));
    return settings[0]?.value ?? DEFAULT_SITE;
  }

  /** Takes the talk files unchanged since the last load from its cache; the names of the others, to read. */
  unchangedTalks(talkFiles: ContentEntry[]): string[] {
    const toRead: string[] = [];
    for (const { path: name, stats } of talkFiles) {
      const hit = this.previous.get(name);
      if (hit && hit.stat === statKey(stats!)) {
        this.cache.set(name, hit);
        this.digests.set(name, { rev: hit.rev, digest: hit.value as TalkDigest });
      } else toRead.push(name);
    }
    return toRead;
  }

  /** Keeps the digest of each talk file read (one result each), or says its errors. */
  talksRead(talkFiles: ContentEntry[], results: ReadTalkResult[]): void {
    this.read += results.length;
    const stats = new Map(talkFiles.map((e) => [e.path, e.stats!]));
    for (const result of results) {
      if (!result.ok) {
        this.errors.push(...result.errors.map((e) => new ContentError(e.file, e.pos, e.field, e.message)));
        // The file's name is as wrong whatever its fields are: said now, not once they are fixed. A file that
        // writes a slug field may be named anything; one whose fields cannot be read is taken at its word.
        const stem = result.name.split('/').at(-1)!.replace(ANY_CASE_DATA_FILE, '');
        if (!isSlug(stem) && !writesSlug(path.join(this.dir, result.name))) this.errors.push(fileNameError(this.shown(result.name), stem));
        this.failed.set(result.name, claimedBy(path.join(this.dir, result.name), this.shown(result.name)));
        continue;
      }
      this.digests.set(result.name, { rev: result.rev, digest: result.digest });
      this.cache.set(result.name, { stat: statKey(stats.get(result.name)!), rev: result.rev, value: result.digest });
    }
  }

  /** The valid talk files' talks, checked across files in the listing's order; an event folder without a category file is said once, at its first talk. */
  talks(talkFiles: ContentEntry[], eventFiles: ContentFiles['events'], events: Map<string, CatalogueEvent>): CatalogueTalk[] {
    const talks: CatalogueTalk[] = [];
    const keepers = idKeepers(talkFiles, (name) => this.idClaim(name));
    const eventsWithoutCategory = new Set<string>();
    for (const { path: name } of talkFiles) {
      const [eventSlug, , fileName] = name.split('/') as [string, string, string];
      if (!eventFiles.has(eventSlug) && !eventsWithoutCategory.has(eventSlug)) {
        eventsWithoutCategory.add(eventSlug);
        this.fileProblem(name, `event folder "${eventSlug}" has no category file; create ${this.shown(`${eventSlug}/category.yaml`)} with at least a title`);
      }
      const loaded = this.digests.get(name);
      const title = events.get(eventSlug)?.title ?? this.failedTitles.get(eventSlug);
      if (!loaded) {
        const { id, slug, category } = this.failed.get(name)!;
        this.checkCategory(name, category, title);
        this.ownsClaims(name, eventSlug, id, slug, id && keepers.get(id.id));
        continue;
      }
      this.checkCategory(name, loaded.digest.category, title);
      const talk = this.talk(name, loaded, eventSlug, fileName.replace(ANY_CASE_DATA_FILE, ''), events.get(eventSlug), keepers.get(loaded.digest.id)!);
      if (talk) talks.push(talk);
    }
    return talks;
  }

  /**
   * The talk of a valid file, named `stem`, in the folder of event `eventSlug`, unless its name is no slug or
   * another talk has its id or (in its event) its slug; `owner` is the file whose talk keeps its id (see idKeepers).
   */
  private talk(name: string, { digest, rev }: Digested, eventSlug: string, stem: string, event: CatalogueEvent | undefined, owner: string): CatalogueTalk | undefined {
    const file = this.shown(name);
    const named = digest.slug !== undefined || isSlug(stem);
    if (!named) this.errors.push(fileNameError(file, stem));
    const slug = digest.slug ?? stem;
    if (!this.ownsClaims(name, eventSlug, digest, named ? { slug, written: digest.slug !== undefined } : undefined, owner) || !named) return undefined;
    this.ids.set(digest.id, name);
    return catalogueTalk(digest, { slug, category: event?.title ?? digest.category ?? '', event: eventSlug, file, name, rev });
  }

  /** The error of a talk file whose `category` is not the title of its event, when both are known. */
  private checkCategory(name: string, category: string | undefined, title: string | undefined): void {
    if (category === undefined || title === undefined || category === title) return;
    this.errors.push(new ContentError(this.shown(name), this.locate(name, ['category']), 'category', `"${category}" is not this event's title "${title}"; use the title or remove the field`));
  }

  /**
   * Holds the id and the slug the talk file `name` claims against the other talks': its id, which the talk of
   * `owner` keeps (see idKeepers), and its slug in its event, unless an earlier talk there has it. Whether both are its own.
   */
  private ownsClaims(name: string, eventSlug: string, id: IdClaim | undefined, slug: SlugClaim | undefined, owner: string | undefined): boolean {
    const idTaken = id !== undefined && owner !== name;
    if (idTaken) this.errors.push(this.idTaken(name, id, owner!));
    // One talk in two formats has one slug: its id's error says to keep one of the files.
    if (idTaken && oneTalk(name, owner!)) return false;
    return (slug === undefined || this.slugFree(name, eventSlug, slug)) && !idTaken;
  }

  /** Gives the talk of `name` its slug in the event `eventSlug`, unless another talk there has it (an error). */
  private slugFree(name: string, eventSlug: string, { slug, written }: SlugClaim): boolean {
    const key = slugKey(eventSlug, slug);
    const owner = this.slugs.get(key);
    if (owner === undefined) {
      this.slugs.set(key, name);
      return true;
    }
    // Where the other talk says its slug: its slug field, or else its file's name (1:1).
    const first = this.locate(owner, ['slug']);
    const at = written ? this.locate(name, ['slug']) : { line: 1, col: 1 };
    this.errors.push(new ContentError(this.shown(name), at, 'slug', `"${slug}" is already used in this event by ${this.shown(owner)}:${first.line}:${first.col}; rename one of them`));
    return false;
  }

  /** The id of the talk file `name`, and when it was added, whether or not the file failed its other checks. */
  private idClaim(name: string): IdClaim | undefined {
    return this.digests.get(name)?.digest ?? this.failed.get(name)?.id;
  }

  /** The error of the talk of `name`, whose id the talk of `owner` keeps: one of the two is given an unused id, or is one talk in two formats. */
  private idTaken(name: string, digest: IdClaim, owner: string): ContentError {
    const first = this.locate(owner, ['id']);
    const ids = [...[...this.digests.values()].map((d) => d.digest.id), ...[...this.failed.values()].flatMap((c) => c.id?.id ?? [])];
    this.unused = (this.unused ?? ids.reduce((highest, id) => Math.max(highest, id), 0)) + 1;
    const ownerAdded = this.idClaim(owner)!.added;
    const later = ownerAdded !== undefined && digest.added !== undefined && ownerAdded < digest.added;
    const fix = oneTalk(owner, name)
      ? 'these are one talk in two formats: keep one of the two files'
      : `ids are unique across the catalogue: give ${later ? 'this talk, added after that one,' : 'the newer of the two talks'} an unused one, such as ${this.unused} (a published talk keeps its id, which its addresses hold)`;
    return new ContentError(this.shown(name), this.locate(name, ['id']), 'id', `${digest.id} is already used by ${this.shown(owner)}:${first.line}:${first.col}; ${fix}`);
  }
}

/**
 * The talk that keeps each id: the one added first (its addresses have held the id longest), else the
 * first by path. Any other talk with that id is the one to give a new id, whichever file comes first.
 */
function idKeepers(files: readonly { path: string }[], claimOf: (name: string) => IdClaim | undefined): Map<number, string> {
  const keepers = new Map<number, string>();
  for (const { path: name } of files) {
    const claim = claimOf(name);
    if (!claim) continue;
    const kept = keepers.get(claim.id);
    const keptAdded = kept === undefined ? undefined : claimOf(kept)!.added;
    if (kept === undefined || (claim.added !== undefined && keptAdded !== undefined && claim.added < keptAdded)) keepers.set(claim.id, name);
  }
  return keepers;
}

/**
 * Where a field of a file of the content folder `dir` is written: a valid one's, or one whose only mistake
 * is a repeated key (see ParseResult), whose id or slug may be another's. Problems across files are
 * rare, so a file is parsed again to find out, once for all of its problems.
 */
export function locator(dir: string): (origin: Pick<Origin, 'name' | 'file'>, field: FieldPath, which?: 'key' | 'value') => Position {
  const docs = new Map<string, SourceDoc | undefined>();
  return (origin, field, which) => {
    const doc = cached(docs, origin.name, () => parseSource(origin.file, readFileSync(path.join(dir, origin.name))).doc);
    return doc?.locate(field, which) ?? { line: 1, col: 1 };
  };
}

export const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/** Slugs are unique within an event. */
const slugKey = (event: string, slug: string) => `${event}/${slug}`;

/** The catalogue's talk for a digest: the same object as last time for an unchanged file. */
function catalogueTalk(digest: TalkDigest, resolved: Omit<CatalogueTalk, keyof TalkDigest> & { slug: string; category: string }): CatalogueTalk {
  const { category, file, name } = resolved;
  // Every field named, in one order: talks of one shape keep the passes over the catalogue (filters, sorts, groupings) on V8's fast path.
  const make = (): CatalogueTalk => {
    const { id, title, language, speakers, tags, state, duration, recorded, aliases, added, updated, blurb, enclosure } = digest;
    const { slug, event, rev } = resolved;
    return { id, title, language, speakers, tags, state, duration, recorded, aliases, added, updated, blurb, enclosure, slug, category, event, file, name, rev };
  };
  return remembered(catalogueTalks, digest, (t) => t.category === category && t.file === file && t.name === name, make);
}

/**
 * The load that starts from the last one's basis, when only talk files were
 * edited, added or removed and nothing is wrong with them. Undefined otherwise:
 * a full load then finds and words every error as it does from scratch.
 */
function loadChanged(dir: string, display: string, entries: ContentEntry[], basis: LoadBasis): LoadResult | undefined {
  const { changed, removed } = listingChanges(basis.entries, entries);
  if (changed.length + removed.length > CHANGED_AT_MOST || changed.some((e) => e.link || e.unreadable)) return undefined;
  const eventOf = talkEventIn(basis.catalogue.events);
  if (![...changed.map((e) => e.path), ...removed].every(eventOf)) return undefined;

  const toRead = changed.filter((e) => basis.cache.get(e.path)?.stat !== statKey(e.stats!)).map((e) => e.path);
  const read = new Map(readTalks({ dir, display, names: toRead }).map((r) => [r.name, r]));
  const stale = new Set([...removed, ...changed.map((e) => e.path)].flatMap((name) => basis.talks.get(name) ?? []));
  const load = new BasisLoad(basis, stale);
  const made: CatalogueTalk[] = [];
  const filed: [string, CachedFile][] = [];
  for (const { path: name, stats } of changed) {
    const result = read.get(name);
    const known = basis.cache.get(name);
    if (result && !result.ok) return undefined;
    const { rev, digest } = result ? result : { rev: known!.rev, digest: known!.value as TalkDigest };
    const talk = load.talk(digest, eventOf(name)!, { file: shownIn(display, name), name, rev });
    if (!talk) return undefined;
    made.push(talk);
    filed.push([name, { stat: statKey(stats!), rev, value: digest }]);
  }
  if (!made.every((talk) => load.claimsFree(talk))) return undefined;

  // Nothing is wrong: the basis becomes this load's.
  for (const talk of stale) load.release(talk);
  for (const name of removed) basis.cache.delete(name);
  for (const [name, entry] of filed) basis.cache.set(name, entry);
  for (const talk of made) load.hold(talk);
  basis.entries = entries;
  basis.catalogue = { ...basis.catalogue, talks: resorted(basis.catalogue.talks, stale, made, byId) };
  return { catalogue: basis.catalogue, errors: [], files: entries.length, cache: basis.cache, read: toRead.length, basis };
}

/** The entries of `after` that `before` has not (a new or changed file), and the paths of those of `before` that `after` has not. */
function listingChanges(before: ContentEntry[], after: ContentEntry[]): { changed: ContentEntry[]; removed: string[] } {
  // Both listings are by path; an entry the listing kept is the same object.
  const changed: ContentEntry[] = [];
  const removed: string[] = [];
  for (let i = 0, j = 0; i < before.length || j < after.length; ) {
    const a = before[i];
    const b = after[j];
    if (a !== undefined && a === b) {
      i++;
      j++;
    } else if (b === undefined || (a !== undefined && a.path < b.path)) {
      removed.push(a!.path);
      i++;
    } else {
      if (a?.path === b.path) i++;
      changed.push(b);
      j++;
    }
  }
  return { changed, removed };
}

/** The event among `events` of a talk file, by its name (`<event>/videos/<file>`); undefined for any other file, and for one of an upper-case extension (talk.YAML), which a full load refuses. */
function talkEventIn(events: CatalogueEvent[]): (name: string) => CatalogueEvent | undefined {
  const eventsBySlug = new Map(events.map((e) => [e.slug, e]));
  return (name) => {
    const parts = name.split('/');
    return parts.length === 3 && parts[1] === 'videos' && DATA_FILE.test(name) ? eventsBySlug.get(parts[0]!) : undefined;
  };
}

/** Whether `key` is taken: the basis's `owners` hold it and the load did not free it, or the load gave it to a talk it made. */
const taken = <K>(owners: Map<K, unknown>, free: Set<K>, fresh: Set<K>, key: K) => (owners.has(key) && !free.has(key)) || fresh.has(key);

/**
 * A load from the last one's basis (see loadChanged): the talks it makes are checked against the ids, slugs
 * and output files the basis holds, less those of the talks they replace (freed), and those of the talks
 * made before them (fresh); once all of them pass, the basis is changed to hold them.
 */
class BasisLoad {
  private readonly freed = { ids: new Set<number>(), slugs: new Set<string>(), claims: new Set<string>() };
  private readonly fresh = { ids: new Set<number>(), slugs: new Set<string>(), claims: new Set<string>() };
  private readonly pageFiles: Set<string>;

  constructor(
    private readonly basis: LoadBasis,
    stale: Iterable<CatalogueTalk>,
  ) {
    for (const talk of stale) {
      this.freed.ids.add(talk.id);
      this.freed.slugs.add(slugKey(talk.event, talk.slug));
      for (const claim of claimsOf(talk)) this.freed.claims.add(claim);
    }
    this.pageFiles = new Set(basis.catalogue.pages.map((page) => sitePageFile(page.slug)));
  }

  /** The talk of a changed file in `event`, taking its id and slug; undefined when a full load would find its name, its category, its id or its slug wrong. */
  talk(digest: TalkDigest, event: CatalogueEvent, origin: Origin): CatalogueTalk | undefined {
    const { basis, freed, fresh } = this;
    const stem = origin.name.split('/')[2]!.replace(DATA_FILE, '');
    const slug = digest.slug ?? stem;
    if ((digest.slug === undefined && !isSlug(stem)) || (digest.category !== undefined && digest.category !== event.title)) return undefined;
    if (taken(basis.ids, freed.ids, fresh.ids, digest.id) || taken(basis.slugs, freed.slugs, fresh.slugs, slugKey(event.slug, slug))) return undefined;
    fresh.ids.add(digest.id);
    fresh.slugs.add(slugKey(event.slug, slug));
    return catalogueTalk(digest, { slug, category: event.title, event: event.slug, ...origin });
  }

  /** Takes the output files of a talk made; false when a full load would find one taken, or might (see FolderSpellings). */
  claimsFree(talk: CatalogueTalk): boolean {
    const { basis, freed, fresh } = this;
    for (const claim of claimsOf(talk)) {
      if (taken(basis.claims, freed.claims, fresh.claims, claim) || this.pageFiles.has(claim)) return false;
      fresh.claims.add(claim);
    }
    // Without the site's own folders at hand, a new folder spelled otherwise than its key may be one of them: a full load knows.
    return !(basis.folders.clash(pageFile(talk), pageFile(talk)) || talk.aliases.some((alias) => basis.folders.clash(aliasFile(alias), oldAddressFile(alias), String)));
  }

  /** Takes out of the basis a talk whose file changed or went: its file, and the id, slug and output files it held. */
  release(talk: CatalogueTalk): void {
    const { basis } = this;
    basis.talks.delete(talk.name);
    if (basis.ids.get(talk.id) === talk.name) basis.ids.delete(talk.id);
    if (basis.slugs.get(slugKey(talk.event, talk.slug)) === talk.name) basis.slugs.delete(slugKey(talk.event, talk.slug));
    for (const claim of claimsOf(talk)) if (basis.claims.get(claim) === talk.id) basis.claims.delete(claim);
  }

  /** Puts a talk made into the basis: its file, its id, slug and output files, and its aliases' folders. */
  hold(talk: CatalogueTalk): void {
    const { basis } = this;
    basis.talks.set(talk.name, talk);
    basis.ids.set(talk.id, talk.name);
    basis.slugs.set(slugKey(talk.event, talk.slug), talk.name);
    for (const claim of claimsOf(talk)) basis.claims.set(claim, talk.id);
    for (const alias of talk.aliases) basis.folders.claim(aliasFile(alias), oldAddressFile(alias), oldAddressFile(alias));
  }
}

/** The path a redirect for `alias` is written to, relative to the output folder. */
export function aliasFile(alias: string): string {
  const rel = alias.slice(1);
  return rel.endsWith('.html') ? rel : `${rel.replace(/\/?$/, '/')}index.html`;
}

/**
 * The paths the redirects for `alias` are written to: its own, and its composed form's (NFC) where that
 * differs. A browser sends a path's letters as they are written, and one typed is most often composed:
 * an address written decomposed (a name copied from macOS's files) answered its own links only. Where a
 * letter is one however Unicode encodes it (macOS), the two are one file, of the same bytes.
 */
export function aliasFiles(alias: string): string[] {
  const composed = alias.normalize('NFC');
  return composed === alias ? [aliasFile(alias)] : [aliasFile(alias), aliasFile(composed)];
}

/** The output paths of a talk's page and its short link. */
export const pageFile = (talk: { id: number; slug: string }) => fileOf(talkPath(talk));
export const shortLinkFile = (id: number) => fileOf(shortLinkPath(id));

/** The output files a talk's files take, as claims know them (see claims): its page, its short link and its aliases. */
function claimsOf(talk: CatalogueTalk): string[] {
  return [pageFile(talk), shortLinkFile(talk.id), ...talk.aliases.map(oldAddressFile)];
}

/** The file an old address's redirect takes, as claims know it: by its key, as where case is ignored (or, on macOS, how Unicode encodes a letter) two spellings are one file. */
const oldAddressFile = (alias: string) => fileKey(aliasFile(alias));

/** Who an output path is for: a talk, by its id, an event, by its slug, or a redirects file. */
type Owner = number | string | CatalogueRedirects;

/**
 * Who each output file of the talks' pages, short links and aliases, the events' aliases and the
 * site's redirects is for, by its name's key (see oldAddressFile; the talks' own files are lower-case
 * ASCII, made of ids and slugs). An old address that would overwrite another's file, or a page of the
 * site's own, is an error that says where the other is written. One owner's address in two spellings,
 * leading to one page, is not (richard's redirects.txt lists `/category/1/DjangoCon-2009` and
 * `/category/1/djangocon-2009`): where the two are one file, it has the same bytes. An old address in
 * a folder that another file's is, spelled otherwise, is an error too (see FolderSpellings).
 */
function claims(catalogue: Catalogue, locate: ReturnType<typeof locator>) {
  const claimed = new Claims(catalogue, locate);
  const aliases = (list: string[]) => list.map((alias, i): [string, FieldPath] => [alias, ['aliases', i]]);
  for (const talk of catalogue.talks) claimed.claim(talk, talk.id, aliases(talk.aliases), 'value');
  for (const event of catalogue.events) claimed.claim(event, event.slug, aliases(event.aliases), 'value');
  for (const file of catalogue.redirects) claimed.claim(file, file, file.redirects.map(({ from, to }) => [from, [from], to]), 'key');
  for (const page of catalogue.pages) claimed.page(page);
  return { owners: claimed.owners, folders: claimed.folders, errors: claimed.errors };
}

/** Where an old address is written: a list's item (an alias), or a mapping's key (a redirect, with the page it leads to, `to`). */
interface Address {
  origin: Origin;
  field: FieldPath;
  which: 'key' | 'value';
  path: string;
  to?: string;
}

const ownerNamed = (owner: Owner) => (typeof owner === 'object' ? 'a redirect' : typeof owner === 'string' ? `an alias of event ${owner}` : `an alias of talk ${owner}`);

/** The output files claimed so far (see claims), starting with the talks' pages and short links, and the errors of those claimed twice. */
class Claims {
  readonly owners = new Map<string, Owner>();
  /** The old addresses' folders, each held by the file key of the first address in it. */
  readonly folders = new FolderSpellings<string>();
  readonly errors: ContentError[] = [];
  /** Where each old address is first written, by its file, for a page or another address that would take it. */
  private readonly written = new Map<string, Address>();
  /** The old addresses' files as they are spelled. */
  private readonly spelled = new Set<string>();
  private readonly pages: Map<string, CataloguePage>;
  private readonly talkOf: Map<number, CatalogueTalk>;

  constructor(
    catalogue: Catalogue,
    private readonly locate: ReturnType<typeof locator>,
  ) {
    for (const talk of catalogue.talks) {
      this.owners.set(pageFile(talk), talk.id);
      this.owners.set(shortLinkFile(talk.id), talk.id);
    }
    this.talkOf = new Map(catalogue.talks.map((t) => [t.id, t]));
    this.pages = new Map(catalogue.pages.map((page) => [sitePageFile(page.slug), page]));
  }

  /**
   * The file key of the page or short link whose folder `folder` is, spelled as its key: the site's own folders
   * below its root (which aliasProblem keeps) each hold its index.html, a talk's page or short link or a page of the site's.
   */
  private readonly siteFolder = (folder: string) => {
    const index = `${folder}index.html`;
    return this.pages.has(index) || (this.owners.has(index) && !this.written.has(index)) ? index : undefined;
  };

  /** The address that holds `file` as its owner wrote it, what it is and where it is written (`file:line:col`). */
  private holder(file: string): { path: string; what: string; at: string } {
    const old = this.written.get(file);
    if (old) return { path: old.path, what: ownerNamed(this.owners.get(file)!), at: where(old.origin, this.locate(old.origin, old.field, old.which)) };
    // Only a talk's page or short link is not an old address: the talk says its id, the number they are named by.
    const talk = this.talkOf.get(this.owners.get(file) as number)!;
    const page = file === pageFile(talk);
    return { path: page ? talkPath(talk) : shortLinkPath(talk.id), what: `the ${page ? 'page' : 'short link'} of talk ${talk.id}`, at: where(talk, this.locate(talk, ['id'])) };
  }

  /** Claims the files of `owner`'s old addresses, written in `origin` at `field`, each a list's item or a mapping's key (`which`). */
  claim(origin: Origin, owner: Owner, paths: [path: string, field: FieldPath, to?: string][], which: 'key' | 'value'): void {
    for (const [path, field, to] of paths) {
      const own = aliasFile(path);
      const file = fileKey(own);
      const other = this.owners.get(file);
      const first = this.written.get(file);
      const again = this.spelled.has(own);
      this.spelled.add(own);
      if (other === undefined) {
        this.take(own, file, owner, { origin, field, which, path, to });
        continue;
      }
      // The same owner's address in another spelling, to the same page: where the two are one file, it has the same bytes.
      if (!again && first && other === owner && first.to === to) continue;
      this.refuse(own, file, again, { origin, field, which, path });
    }
  }

  /** Gives `owner` the file (key `file`) of an address spelled `own` that no one has: an error if its folder is another's, spelled otherwise. */
  private take(own: string, file: string, owner: Owner, address: Address): void {
    this.owners.set(file, owner);
    this.written.set(file, address);
    // An old address that is a page's file is the page's error (see page).
    const clash = this.pages.has(file) ? undefined : this.folders.claim(own, file, file, this.siteFolder);
    if (!clash) return;
    // Not the old address that may have taken a page's file: that one's folder is spelled as its own.
    const sitePage = this.pages.get(clash.holder);
    const held = sitePage ? { path: sitePagePath(sitePage.slug), what: "a page of the site's", at: where(sitePage, { line: 1, col: 1 }) } : this.holder(clash.holder);
    const message = `"${address.path}" is in /${clash.own}, and ${held.what}, "${held.path}" (${held.at}), in /${clash.folder}: one folder ${whereOneFile(clash.own, clash.folder)}; write it in /${clash.folder}, or remove it`;
    this.addressError(address, message);
  }

  /** The error of an address spelled `own` whose file (key `file`) is another's, or its own spelled so before (`again`). */
  private refuse(own: string, file: string, again: boolean, address: Address): void {
    const held = this.holder(file);
    const heldFile = aliasFile(held.path);
    const taken = again || own === heldFile ? `already ${held.what} (${held.at})` : `${held.what}, "${held.path}" (${held.at}), ${whereOneFile(own, heldFile)}`;
    this.addressError(address, `"${address.path}" is ${taken}; remove it`);
  }

  private addressError({ origin, field, which }: Address, message: string): void {
    this.errors.push(new ContentError(origin.file, this.locate(origin, field, which), fieldName(field), message));
  }

  /** The error of a page of the site's whose file an old address takes. */
  page(page: CataloguePage): void {
    const owner = this.owners.get(sitePageFile(page.slug));
    if (owner === undefined) return;
    // Only an old address can: the talks' pages and short links are under video/, which no page may be.
    const held = this.holder(sitePageFile(page.slug));
    const heldFile = aliasFile(held.path);
    const spelled = heldFile === sitePageFile(page.slug) ? '' : `"${held.path}", `;
    const inAnyCase = spelled && `, ${whereOneFile(heldFile, sitePageFile(page.slug))}`;
    this.errors.push(new ContentError(page.file, { line: 1, col: 1 }, '', `the page's address ${sitePagePath(page.slug)} is ${spelled}${held.what} (${held.at})${inAnyCase}; rename the page or remove the ${typeof owner === 'object' ? 'redirect' : 'alias'}`));
  }
}

const where = (origin: Pick<Origin, 'file'>, at: Position) => `${origin.file}:${at.line}:${at.col}`;
