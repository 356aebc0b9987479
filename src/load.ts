// Loading the content folder: files → validated records → the catalogue in
// memory. Every file is read and checked, and every problem is collected, so
// one run reports them all. Files unchanged since a previous load (same size,
// mtime and inode) are taken from that load's cache instead of being re-read.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { ContentError, sortErrors } from './errors.ts';
import { EVENT_FIELDS, eventSchema, isSlug, STATE_LIVE, TALK_FIELDS, talkSchema, type EventFields, type Talk } from './schema.ts';
import { parseSource, type FieldPath, type Position } from './source.ts';
import { validate } from './validate.ts';

interface Origin {
  /** The file as shown in messages, relative to the working directory. */
  file: string;
  /** A hash of the file's bytes: equal revisions mean equal records. */
  rev: string;
}

export interface CatalogueEvent extends EventFields, Origin {
  /** The event folder's name. */
  slug: string;
}

export interface CatalogueTalk extends Talk, Origin {
  slug: string;
  category: string;
  /** The slug of the event folder the talk lives in. */
  event: string;
}

export interface Catalogue {
  /** Sorted by slug. */
  events: CatalogueEvent[];
  /** Live and draft talks, sorted by id. */
  talks: CatalogueTalk[];
}

/** What a load remembers of each valid file, for the next load to reuse. */
export type LoadCache = Map<string, { stat: string; rev: string; value: Talk | EventFields }>;

export interface LoadResult {
  catalogue: Catalogue;
  errors: ContentError[];
  files: number;
  cache: LoadCache;
  /** Files read this time (the others came from the cache). */
  read: number;
}

const DATA_FILE = /\.(ya?ml|json)$/;
const CATEGORY_FILE = /^category\.(ya?ml|json)$/;

export function isLive(talk: CatalogueTalk): boolean {
  return talk.state === STATE_LIVE;
}

const statKey = (s: { size: number; mtimeMs: number; ino: number }) => `${s.size}:${s.mtimeMs}:${s.ino}`;

/** Reads every content file under `dir`; errors name files relative to the working directory, as compilers do. */
export async function loadContent(dir: string, options: { cache?: LoadCache } = {}): Promise<LoadResult> {
  const display = path.relative(process.cwd(), path.resolve(dir)) || '.';
  const shown = (name: string) => path.posix.join(display.split(path.sep).join('/'), name);
  const entries = (await fg('**/*', { cwd: dir, onlyFiles: true, dot: false, followSymbolicLinks: false, stats: true }))
    .filter((e) => DATA_FILE.test(e.path))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const previous = options.cache ?? new Map();
  const cache: LoadCache = new Map();
  const errors: ContentError[] = [];
  let read = 0;

  /** The file's validated value, from the cache when its stat is unchanged, else read, parsed and checked. */
  function load<T extends Talk | EventFields>(name: string, stats: { size: number; mtimeMs: number; ino: number }, kind: 'talk' | 'event'): { value: T; rev: string } | undefined {
    const key = statKey(stats);
    const hit = previous.get(name);
    if (hit && hit.stat === key) {
      cache.set(name, hit);
      return hit as unknown as { value: T; rev: string };
    }
    let bytes: Buffer;
    try {
      // Synchronous: content files are small and local, and the promise API costs several round trips per file.
      bytes = readFileSync(path.join(dir, name));
    } catch (err) {
      errors.push(new ContentError(shown(name), { line: 1, col: 1 }, '', `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`));
      return undefined;
    }
    read++;
    const parsed = parseSource(shown(name), bytes);
    if (!parsed.ok) {
      errors.push(...parsed.errors);
      return undefined;
    }
    const result = kind === 'talk' ? validate(talkSchema, parsed.doc, TALK_FIELDS) : validate(eventSchema, parsed.doc, EVENT_FIELDS);
    if (!result.ok) {
      errors.push(...result.errors);
      return undefined;
    }
    const entry = { stat: key, rev: createHash('sha1').update(bytes).digest('base64url'), value: result.value };
    cache.set(name, entry);
    return entry as unknown as { value: T; rev: string };
  }

  /** Where a field of a valid file is written; cross-file problems are rare, so the file is parsed again to find out. */
  function locate(name: string, field: FieldPath): Position {
    const parsed = parseSource(shown(name), readFileSync(path.join(dir, name)));
    return parsed.ok ? parsed.doc.locate(field) : { line: 1, col: 1 };
  }

  const eventFiles = new Map<string, (typeof entries)[number][]>();
  const talkFiles: (typeof entries)[number][] = [];
  for (const entry of entries) {
    const parts = entry.path.split('/');
    if (parts.length === 2 && CATEGORY_FILE.test(parts[1]!)) {
      eventFiles.set(parts[0]!, [...(eventFiles.get(parts[0]!) ?? []), entry]);
    } else if (parts.length === 3 && parts[1] === 'videos') {
      talkFiles.push(entry);
    } else {
      errors.push(
        new ContentError(shown(entry.path), { line: 1, col: 1 }, '', 'file is outside an event folder: talks go in <event>/videos/<slug>.yaml and events in <event>/category.yaml'),
      );
    }
  }

  const events = new Map<string, CatalogueEvent>();
  for (const [slug, files] of eventFiles) {
    if (files.length > 1) {
      errors.push(new ContentError(shown(files[1]!.path), { line: 1, col: 1 }, '', `event "${slug}" has two category files (${files.map((f) => f.path).join(', ')}); keep one`));
    }
    if (!isSlug(slug)) {
      errors.push(new ContentError(shown(files[0]!.path), { line: 1, col: 1 }, '', `event folder "${slug}" is not a valid slug; rename it to lower-case letters, digits and hyphens`));
    }
    const loaded = load<EventFields>(files[0]!.path, files[0]!.stats!, 'event');
    if (loaded) events.set(slug, { ...loaded.value, slug, file: shown(files[0]!.path), rev: loaded.rev });
  }

  const talks: CatalogueTalk[] = [];
  const idOwners = new Map<number, string>();
  const slugOwners = new Map<string, string>();
  const eventsWithoutCategory = new Set<string>();
  for (const { path: name, stats } of talkFiles) {
    const [eventSlug, , fileName] = name.split('/') as [string, string, string];
    if (!eventFiles.has(eventSlug) && !eventsWithoutCategory.has(eventSlug)) {
      eventsWithoutCategory.add(eventSlug);
      errors.push(
        new ContentError(shown(name), { line: 1, col: 1 }, '', `event folder "${eventSlug}" has no category file; create ${shown(`${eventSlug}/category.yaml`)} with at least a title`),
      );
    }
    const loaded = load<Talk>(name, stats!, 'talk');
    if (!loaded) continue;
    const talk = loaded.value;
    const file = shown(name);
    const stem = fileName.replace(DATA_FILE, '');
    if (talk.slug === undefined && !isSlug(stem)) {
      errors.push(new ContentError(file, { line: 1, col: 1 }, 'slug', `the file name "${stem}" is not a valid slug; rename the file to lower-case letters, digits and hyphens, or add a slug field`));
      continue;
    }
    const slug = talk.slug ?? stem;
    const event = events.get(eventSlug);
    if (event && talk.category !== undefined && talk.category !== event.title) {
      errors.push(new ContentError(file, locate(name, ['category']), 'category', `"${talk.category}" is not this event's title "${event.title}"; use the title or remove the field`));
    }
    const owner = idOwners.get(talk.id);
    if (owner) {
      const first = locate(owner, ['id']);
      errors.push(
        new ContentError(file, locate(name, ['id']), 'id', `${talk.id} is already used by ${shown(owner)}:${first.line}:${first.col}; ids are unique across the catalogue, pick an unused one`),
      );
      continue;
    }
    idOwners.set(talk.id, name);
    const slugKey = `${eventSlug}/${slug}`;
    const slugOwner = slugOwners.get(slugKey);
    if (slugOwner) {
      errors.push(
        new ContentError(file, talk.slug === undefined ? { line: 1, col: 1 } : locate(name, ['slug']), 'slug', `"${slug}" is already used in this event by ${slugOwner}; rename one of them`),
      );
      continue;
    }
    slugOwners.set(slugKey, file);
    talks.push({ ...talk, slug, category: event?.title ?? talk.category ?? '', event: eventSlug, file, rev: loaded.rev });
  }

  talks.sort((a, b) => a.id - b.id);
  errors.push(...aliasConflicts(talks, (talk, field) => locate(path.posix.relative(display.split(path.sep).join('/'), talk.file), field)));
  return {
    catalogue: { events: [...events.values()].sort((a, b) => (a.slug < b.slug ? -1 : 1)), talks },
    errors: sortErrors(errors),
    files: entries.length,
    cache,
    read,
  };
}

/** The path a redirect for `alias` is written to, relative to the output folder. */
export function aliasFile(alias: string): string {
  const rel = alias.slice(1);
  return rel.endsWith('.html') ? rel : `${rel.replace(/\/?$/, '/')}index.html`;
}

/** Aliases that would overwrite a talk's page, its short link or another alias. */
function aliasConflicts(talks: CatalogueTalk[], locate: (talk: CatalogueTalk, field: FieldPath) => Position): ContentError[] {
  const owners = new Map<string, string>();
  for (const talk of talks) {
    owners.set(`video/${talk.id}/${talk.slug}/index.html`, `the page of talk ${talk.id}`);
    owners.set(`video/${talk.id}/index.html`, `the short link of talk ${talk.id}`);
  }
  const errors: ContentError[] = [];
  for (const talk of talks) {
    talk.aliases.forEach((alias, i) => {
      const file = aliasFile(alias);
      const owner = owners.get(file);
      if (owner) errors.push(new ContentError(talk.file, locate(talk, ['aliases', i]), `aliases[${i}]`, `"${alias}" is already ${owner}; remove it`));
      else owners.set(file, `an alias of talk ${talk.id} (${talk.file})`);
    });
  }
  return errors;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
