// Loading the content folder: files → validated records → the catalogue in
// memory. Every file is read and checked, and every problem is collected, so
// one run reports them all.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { ContentError, sortErrors } from './errors.ts';
import { EVENT_FIELDS, eventSchema, isSlug, STATE_LIVE, TALK_FIELDS, talkSchema, type EventFields, type Talk } from './schema.ts';
import { parseSource, type SourceDoc } from './source.ts';
import { validate } from './validate.ts';

export interface CatalogueEvent extends EventFields {
  /** The event folder's name. */
  slug: string;
  file: string;
}

export interface CatalogueTalk extends Talk {
  slug: string;
  category: string;
  /** The slug of the event folder the talk lives in. */
  event: string;
  file: string;
}

export interface Catalogue {
  /** Sorted by slug. */
  events: CatalogueEvent[];
  /** Live and draft talks, sorted by id. */
  talks: CatalogueTalk[];
}

export interface LoadResult {
  catalogue: Catalogue;
  errors: ContentError[];
  files: number;
}

const DATA_FILE = /\.(ya?ml|json)$/;
const CATEGORY_FILE = /^category\.(ya?ml|json)$/;

export function isLive(talk: CatalogueTalk): boolean {
  return talk.state === STATE_LIVE;
}

/** Reads every content file under `dir`; errors name files relative to the working directory, as compilers do. */
export async function loadContent(dir: string): Promise<LoadResult> {
  const display = path.relative(process.cwd(), path.resolve(dir)) || '.';
  const names = (await fg('**/*', { cwd: dir, onlyFiles: true, dot: false, followSymbolicLinks: false })).filter((n) => DATA_FILE.test(n)).sort();
  const shown = (name: string) => path.posix.join(display.split(path.sep).join('/'), name);
  const errors: ContentError[] = [];

  const docs = new Map<string, SourceDoc>();
  await forEachLimit(names, 32, async (name) => {
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(dir, name));
    } catch (err) {
      errors.push(new ContentError(shown(name), { line: 1, col: 1 }, '', `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`));
      return;
    }
    const result = parseSource(shown(name), bytes);
    if (result.ok) docs.set(name, result.doc);
    else errors.push(...result.errors);
  });

  const eventFiles = new Map<string, string[]>();
  const talkFiles: string[] = [];
  for (const name of names) {
    const parts = name.split('/');
    if (parts.length === 2 && CATEGORY_FILE.test(parts[1]!)) {
      eventFiles.set(parts[0]!, [...(eventFiles.get(parts[0]!) ?? []), name]);
    } else if (parts.length === 3 && parts[1] === 'videos') {
      talkFiles.push(name);
    } else {
      errors.push(
        new ContentError(shown(name), { line: 1, col: 1 }, '', 'file is outside an event folder: talks go in <event>/videos/<slug>.yaml and events in <event>/category.yaml'),
      );
    }
  }

  const events = new Map<string, CatalogueEvent>();
  for (const [slug, files] of eventFiles) {
    if (files.length > 1) {
      errors.push(new ContentError(shown(files[1]!), { line: 1, col: 1 }, '', `event "${slug}" has two category files (${files.join(', ')}); keep one`));
    }
    if (!isSlug(slug)) {
      errors.push(new ContentError(shown(files[0]!), { line: 1, col: 1 }, '', `event folder "${slug}" is not a valid slug; rename it to lower-case letters, digits and hyphens`));
    }
    const doc = docs.get(files[0]!);
    if (!doc) continue;
    const result = validate(eventSchema, doc, EVENT_FIELDS);
    if (result.ok) events.set(slug, { ...result.value, slug, file: doc.file });
    else errors.push(...result.errors);
  }

  const talks: CatalogueTalk[] = [];
  const idOwners = new Map<number, { file: string; line: number; col: number }>();
  const slugOwners = new Map<string, string>();
  const eventsWithoutCategory = new Set<string>();
  for (const name of talkFiles) {
    const [eventSlug, , fileName] = name.split('/') as [string, string, string];
    if (!eventFiles.has(eventSlug) && !eventsWithoutCategory.has(eventSlug)) {
      eventsWithoutCategory.add(eventSlug);
      errors.push(
        new ContentError(shown(name), { line: 1, col: 1 }, '', `event folder "${eventSlug}" has no category file; create ${shown(`${eventSlug}/category.yaml`)} with at least a title`),
      );
    }
    const doc = docs.get(name);
    if (!doc) continue;
    const result = validate(talkSchema, doc, TALK_FIELDS);
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    const talk = result.value;
    const stem = fileName.replace(DATA_FILE, '');
    if (talk.slug === undefined && !isSlug(stem)) {
      errors.push(new ContentError(doc.file, { line: 1, col: 1 }, 'slug', `the file name "${stem}" is not a valid slug; rename the file to lower-case letters, digits and hyphens, or add a slug field`));
      continue;
    }
    const slug = talk.slug ?? stem;
    const event = events.get(eventSlug);
    if (event && talk.category !== undefined && talk.category !== event.title) {
      errors.push(new ContentError(doc.file, doc.locate(['category']), 'category', `"${talk.category}" is not this event's title "${event.title}"; use the title or remove the field`));
    }
    const idAt = doc.locate(['id']);
    const owner = idOwners.get(talk.id);
    if (owner) {
      errors.push(new ContentError(doc.file, idAt, 'id', `${talk.id} is already used by ${owner.file}:${owner.line}:${owner.col}; ids are unique across the catalogue, pick an unused one`));
      continue;
    }
    idOwners.set(talk.id, { file: doc.file, ...idAt });
    const slugKey = `${eventSlug}/${slug}`;
    const slugOwner = slugOwners.get(slugKey);
    if (slugOwner) {
      errors.push(new ContentError(doc.file, talk.slug === undefined ? { line: 1, col: 1 } : doc.locate(['slug']), 'slug', `"${slug}" is already used in this event by ${slugOwner}; rename one of them`));
      continue;
    }
    slugOwners.set(slugKey, doc.file);
    talks.push({ ...talk, slug, category: event?.title ?? talk.category ?? '', event: eventSlug, file: doc.file });
  }

  talks.sort((a, b) => a.id - b.id);
  return {
    catalogue: { events: [...events.values()].sort((a, b) => (a.slug < b.slug ? -1 : 1)), talks },
    errors: sortErrors(errors),
    files: names.length,
  };
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
