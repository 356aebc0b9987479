// How the catalogue is browsed: talks grouped by speaker, tag and language,
// events grouped into series, the orders they are listed in, their slugs and
// addresses, and long lists cut into pages. Pure functions over the catalogue in memory.
import { hash } from 'node:crypto';
import slugify from '@sindresorhus/slugify';
import { cached } from './memo.ts';

const SLUG_OPTIONS = {
  decamelize: false,
  // Without these, "C", "C++" and "C#" would all share the page "c".
  customReplacements: [
    ['+', ' plus '],
    ['#', ' sharp '],
    ['&', ' and '],
  ] as [string, string][],
};

// Slugging is slow and names repeat across talks and pages: each distinct name is slugged once per process.
const slugs = new Map<string, string>();

/**
 * The URL slug of a speaker's name or a tag. Names in scripts the transliterator
 * does not cover (Chinese, Japanese, ...) get a stable slug made from a hash.
 */
export function termSlug(name: string): string {
  return cached(slugs, name, () => withinFolderName(slugify(name, SLUG_OPTIONS)) || `u-${hashOf(name.normalize('NFC'))}`);
}

/** A slug from a talk title, short enough for a URL; empty when the title has no Latin letters or digits. */
export function slugFromTitle(title: string): string {
  const slug = slugify(title, { decamelize: false });
  if (slug.length <= 60) return slug;
  const cut = slug.slice(0, 61);
  return cut.slice(0, cut.lastIndexOf('-') > 20 ? cut.lastIndexOf('-') : 60).replace(/-+$/, '');
}

/** What to rename a file or folder whose name is no slug to: the slug of its name (`Bad_Name` → `bad-name`) with `ext`, or, where it has no Latin letters or digits, what a slug is made of. */
export function slugRename(name: string, ext = ''): string {
  const slug = slugFromTitle(name);
  return slug ? `${slug}${ext}` : 'lower-case letters, digits and hyphens';
}

const hashOf = (text: string) => hash('sha1', text, 'hex').slice(0, 10);

/**
 * A slug is a folder name, which filesystems cut at 255 bytes (the build failed
 * with ENAMETOOLONG on a longer name or tag): one past SLUG_MAX keeps its start
 * and ends with a hash of the whole, so that names that slug the same still
 * share a page and names that differ only further on do not.
 */
const SLUG_MAX = 200;
const withinFolderName = (slug: string) => (slug.length <= SLUG_MAX ? slug : `${slug.slice(0, SLUG_MAX - 11).replace(/-+$/, '')}-${hashOf(slug)}`);

/** The slug termSlug gives a name it cannot spell in Latin letters (日本 太郎). */
const UNSPELT = /^u-[0-9a-f]{10}$/;

/** A speaker, tag or language and the talks filed under it; spellings that slug the same share one. */
export interface Term<T> {
  slug: string;
  /** The spellings as stored, most used first. */
  names: string[];
  items: T[];
}

/** Groups `items` by the terms `pick` gives for each, in the order of `items`; terms sorted by slug. */
export function groupByTerm<T>(items: readonly T[], pick: (item: T) => readonly string[], slugOf: (name: string) => string = termSlug): Term<T>[] {
  const terms = new Map<string, { names: Map<string, number>; items: T[] }>();
  for (const item of items) {
    eachTerm(item, pick, slugOf, (name, slug) => {
      const term = cached(terms, slug, () => ({ names: new Map<string, number>(), items: [] as T[] }));
      count(term.names, name, 1);
      // A talk that names the same term twice (two spellings of one tag) is listed once.
      if (term.items.at(-1) !== item) term.items.push(item);
    });
  }
  return [...terms].sort(([a], [b]) => bySlug(a, b)).map(([slug, term]) => ({ slug, names: mostUsedFirst(term.names), items: term.items }));
}

/**
 * What groupByTerm gives for the items after an edit, worked out from the terms
 * before it: only the terms of the `removed` and `added` items are made again,
 * the others are the same objects. `compare` is the items' order, and total.
 */
export function regroupByTerm<T>(
  previous: readonly Term<T>[],
  removed: readonly T[],
  added: readonly T[],
  pick: (item: T) => readonly string[],
  compare: (a: T, b: T) => number,
  slugOf: (name: string) => string = termSlug,
): Term<T>[] {
  const touched = new Map<string, { removed: Set<T>; added: T[]; uses: Map<string, number> }>();
  /** Enters the item under the terms it names, counting the uses of each spelling it gives (`by`: 1 added, -1 removed). */
  const enter = (item: T, by: number) => {
    const seen = new Set<string>();
    eachTerm(item, pick, slugOf, (name, slug) => {
      const change = cached(touched, slug, () => ({ removed: new Set<T>(), added: [], uses: new Map() }));
      count(change.uses, name, by);
      if (seen.has(slug)) return;
      seen.add(slug);
      if (by < 0) change.removed.add(item);
      else change.added.push(item);
    });
  };
  for (const item of removed) enter(item, -1);
  for (const item of added) enter(item, 1);
  const before = new Map<string, Term<T>>();
  for (const term of previous) if (touched.has(term.slug)) before.set(term.slug, term);
  const remade = new Map<string, Term<T> | undefined>();
  for (const [slug, { removed, added, uses }] of touched) {
    const kept = before.get(slug);
    const items = resorted(kept?.items ?? [], removed, added, compare);
    // An edit that leaves the spellings' counts as they were (a new title) leaves their order too.
    let names = kept && [...uses.values()].every((n) => n === 0) ? kept.names : undefined;
    if (!names && items.length > 0) {
      const counts = new Map<string, number>();
      for (const item of items) eachTerm(item, pick, slugOf, (name, itsSlug) => itsSlug === slug && count(counts, name, 1));
      names = mostUsedFirst(counts);
    }
    remade.set(slug, items.length > 0 ? { slug, names: names!, items } : undefined);
  }
  const fresh = [...touched.keys()].filter((slug) => !before.has(slug)).sort(bySlug);
  const terms: Term<T>[] = [];
  const keep = (term: Term<T> | undefined) => term && terms.push(term);
  let next = 0;
  for (const term of previous) {
    while (next < fresh.length && fresh[next]! < term.slug) keep(remade.get(fresh[next++]!));
    keep(remade.has(term.slug) ? remade.get(term.slug) : term);
  }
  while (next < fresh.length) keep(remade.get(fresh[next++]!));
  return terms;
}

/**
 * `sorted` (in the order of `compare`, which must be total) without `removed`
 * and with `added`: what sorting the new items again gives, in one pass.
 */
export function resorted<T>(sorted: readonly T[], removed: ReadonlySet<T>, added: readonly T[], compare: (a: T, b: T) => number): T[] {
  const incoming = [...added].sort(compare);
  const items: T[] = [];
  let next = 0;
  for (const item of sorted) {
    if (removed.has(item)) continue;
    while (next < incoming.length && compare(incoming[next]!, item) < 0) items.push(incoming[next++]!);
    items.push(item);
  }
  while (next < incoming.length) items.push(incoming[next++]!);
  return items;
}

/** The speakers or tags of a talk that pages show and link: a blank one (pyvideo has "" speakers) names no one, and has no page. */
export const named = (names: readonly string[]): readonly string[] => (names.some(isBlank) ? names.filter((name) => !isBlank(name)) : names);
const isBlank = (name: string) => name.trim() === '';

/** Each term an item names, with its slug. */
function eachTerm<T>(item: T, pick: (item: T) => readonly string[], slugOf: (name: string) => string, visit: (name: string, slug: string) => unknown): void {
  for (const name of named(pick(item))) visit(name, slugOf(name));
}

const count = <K>(counts: Map<K, number>, key: K, by: number) => counts.set(key, (counts.get(key) ?? 0) + by);

const bySlug = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Spellings by how often they are used, then alphabetically. */
const mostUsedFirst = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1] || bySlug(a[0], b[0])).map(([name]) => name);

/** When the newest of `items` was updated (their `updated` strings sort as dates), or null for none. */
export function lastUpdated(items: readonly { updated: string }[]): string | null {
  let last: string | null = null;
  for (const item of items) if (last === null || item.updated > last) last = item.updated;
  return last;
}

/** The A–Z section a slug is filed under: a letter, "0-9" or "other". */
export function initialOf(slug: string): string {
  if (UNSPELT.test(slug)) return 'other';
  const c = slug.charAt(0);
  if (c >= 'a' && c <= 'z') return c;
  if (c >= '0' && c <= '9') return '0-9';
  return 'other';
}

const YEAR = /\b(?:19|20)\d{2}\b/;

/**
 * The series an event belongs to, from its title: "PyCon US 2014" and
 * "PyCon US 2015" are both "PyCon US". A title without a year is its own series.
 */
export function seriesOf(title: string): string {
  const match = YEAR.exec(title);
  if (!match) return title.trim();
  const tidy = (s: string) => s.replace(/^[\s\-–—:,.(]+|[\s\-–—:,.(]+$/g, '').trim();
  return tidy(title.slice(0, match.index)) || tidy(title.slice(match.index + match[0].length).replace(YEAR, '')) || title.trim();
}

/** The addresses of a talk's page and of the lists' pages: an event's, a speaker's, a tag's, a language's. */
export const talkPath = (talk: { id: number; slug: string }) => `/video/${talk.id}/${talk.slug}/`;
/** A talk's short link, which leads to its page and stays when its slug changes. */
export const shortLinkPath = (id: number) => `/video/${id}/`;
export const eventPath = (slug: string) => `/events/${slug}/`;
export const speakerPath = (slug: string) => `/speaker/${slug}/`;
export const tagPath = (slug: string) => `/tag/${slug}/`;
export const languagePath = (slug: string) => `/language/${slug}/`;

/** One page of a paginated list. */
export interface Page<T> {
  number: number;
  count: number;
  /** Site path of this page: the list's own for the first, `<base>page/N/` after it. */
  path: string;
  items: T[];
  prev?: string;
  next?: string;
}

export const pagePath = (base: string, number: number) => (number === 1 ? base : `${base}page/${number}/`);

/** Cuts `items` into pages of `size`; an empty list is one empty page, so the list's address always exists. */
export function paginate<T>(items: readonly T[], size: number, base: string): Page<T>[] {
  const count = Math.max(1, Math.ceil(items.length / size));
  return Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    count,
    path: pagePath(base, i + 1),
    items: items.slice(i * size, (i + 1) * size),
    prev: i > 0 ? pagePath(base, i) : undefined,
    next: i < count - 1 ? pagePath(base, i + 2) : undefined,
  }));
}

/** The file a site path is written to. */
export const fileOf = (sitePath: string) => (sitePath.endsWith('/') ? `${sitePath.slice(1)}index.html` : sitePath.slice(1));

/** What a talk is ordered by: its recording date, title and id. */
type ProgrammeOrdered = { recorded: string | null; title: string; id: number };
/** What an event is ordered by: its start date, else its talks' first recording date, then its slug. */
type DateOrdered = { start_date: string | null; recordedFrom: string | null; slug: string };

/** Programme order within an event: by recording date (undated last, after the days they may belong to), then title, then id. */
export function byProgramme(a: ProgrammeOrdered, b: ProgrammeOrdered): number {
  const ra = a.recorded ?? '\uffff';
  const rb = b.recorded ?? '\uffff';
  if (ra !== rb) return ra < rb ? -1 : 1;
  return a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

/** Newest first: by recording date (undated last), then id, newest first. */
export function byNewest(a: Omit<ProgrammeOrdered, 'title'>, b: Omit<ProgrammeOrdered, 'title'>): number {
  const ra = a.recorded ?? '';
  const rb = b.recorded ?? '';
  if (ra !== rb) return ra < rb ? 1 : -1;
  return b.id - a.id;
}

/** Events newest first, by their start date, else their talks' first recording date (undated last), then by slug. */
export function byEventDate(a: DateOrdered, b: DateOrdered): number {
  const da = a.start_date ?? a.recordedFrom ?? '';
  const db = b.start_date ?? b.recordedFrom ?? '';
  return da !== db ? (da < db ? 1 : -1) : a.slug < b.slug ? -1 : 1;
}

/** The first and last recording dates of `talks` (null when none has one): what shows of an event without dates of its own. */
export function recordedSpan(talks: readonly { recorded: string | null }[]): { recordedFrom: string | null; recordedTo: string | null } {
  let recordedFrom: string | null = null;
  let recordedTo: string | null = null;
  for (const { recorded } of talks) {
    if (recorded === null) continue;
    if (recordedFrom === null || recorded < recordedFrom) recordedFrom = recorded;
    if (recordedTo === null || recorded > recordedTo) recordedTo = recorded;
  }
  return { recordedFrom, recordedTo };
}
