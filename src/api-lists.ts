// The API's list endpoints, as richard (the Django app the interface comes
// from) had them and its clients still call them: pages of records, events
// ("categories") and speakers, written as static files beside the records.
// Pure: the plan decides what goes on each page, this module says what the
// pages contain and how they are written.
import { hash } from 'node:crypto';
import { LIST_PAGE_SIZE, recordFile, type ListName, type PageName } from './headers.ts';
import { byId, type CatalogueEvent, type CatalogueTalk } from './load.ts';
import { cached } from './memo.ts';
import { inertJson } from './record.ts';

/** One page of a list endpoint. */
export interface ListPage<T> {
  name: ListName;
  /** Items in the whole list. */
  count: number;
  page: number;
  pages: number;
  items: T[];
}

/** An event as the category endpoints show it; `videos` holds record ids until it is written. */
export interface CategoryItem {
  videos: number[];
  title: string;
  description: string;
  url: string;
  start_date: string | null;
  whiteboard: string;
  slug: string;
  added: string | null;
}

export interface SpeakerItem {
  id: number;
  name: string;
  slug: string;
}

/** Splits a list into its pages; the first page exists even for an empty list, as in Django REST framework. */
export function listPages<T>(name: ListName, items: readonly T[]): ListPage<T>[] {
  const size = LIST_PAGE_SIZE[name];
  const pages = Math.max(1, Math.ceil(items.length / size));
  return Array.from({ length: pages }, (_, i) => ({ name, count: items.length, page: i + 1, pages, items: items.slice(i * size, (i + 1) * size) }));
}

/**
 * The names a list page is written under: the last page also as `last`, which `?page=last` asks for
 * (Django REST framework's PageNumberPagination reads it), so that every host serves it as a file.
 */
export const pageNames = (list: ListPage<unknown>): PageName[] => (list.page === list.pages ? [list.page, 'last'] : [list.page]);

/** The video list's order: newest recorded first (undated last), then by title, then by id. */
export function byRecordedThenTitle(a: Pick<CatalogueTalk, 'recorded' | 'title' | 'id'>, b: Pick<CatalogueTalk, 'recorded' | 'title' | 'id'>): number {
  const ra = a.recorded ?? '';
  const rb = b.recorded ?? '';
  if (ra !== rb) return ra < rb ? 1 : -1;
  if (a.title !== b.title) return a.title < b.title ? -1 : 1;
  return a.id - b.id;
}

/** An event with the ids of its live talks. */
export function categoryItem(event: CatalogueEvent, live: readonly CatalogueTalk[]): CategoryItem {
  const talks = [...live].sort(byId);
  return {
    videos: talks.map((talk) => talk.id),
    title: event.title,
    description: event.description,
    url: event.url,
    start_date: event.start_date,
    whiteboard: event.whiteboard,
    slug: event.slug,
    added: event.added ?? earliestAdded(talks),
  };
}

/** The category list's order: by title, then slug. */
export const byTitleThenSlug = (a: CategoryItem, b: CategoryItem) => (a.title !== b.title ? (a.title < b.title ? -1 : 1) : a.slug < b.slug ? -1 : 1);

function earliestAdded(talks: readonly CatalogueTalk[]): string | null {
  let first: string | null = null;
  for (const talk of talks) if (first === null || talk.added < first) first = talk.added;
  return first;
}

/**
 * A speaker's id: a number made from the slug their page has, so that it is the
 * same in every build and stays with the speaker however the catalogue grows.
 * 48 bits keep it a safe JavaScript integer with collisions out of reach.
 */
export function speakerId(slug: string): number {
  return cached(speakerIds, slug, () => Number.parseInt(hash('sha1', slug, 'hex').slice(0, 12), 16));
}

/** Every build lists every speaker: each slug is hashed once per process. */
const speakerIds = new Map<string, number>();

export function speakerItems(speakers: readonly { slug: string; names: readonly string[] }[]): SpeakerItem[] {
  const items = speakers.map((term) => ({ id: speakerId(term.slug), name: term.names[0]!, slug: term.slug }));
  const seen = new Map<number, string>();
  for (const item of items) {
    const other = seen.get(item.id);
    if (other !== undefined) throw new Error(`speakers "${other}" and "${item.slug}" have the same id ${item.id}`);
    seen.set(item.id, item.slug);
  }
  // A–Z by slug, as the site's speakers index: by the names' code units, " Ann" came first and "adam" after "Żygimantas".
  return items.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

/** The address of a list page, as Django REST framework writes it: page 1 has no query. */
export const listUrl = (baseUrl: string, name: ListName, page: number) => `${baseUrl}/api/v2/${name}/${page === 1 ? '' : `?page=${page}`}`;
const recordUrl = (baseUrl: string, id: number) => `${baseUrl}/${recordFile(id)}`;

/** The page's envelope; `results` is written by the caller (records are spliced in as the bytes of their files). */
function envelope(list: ListPage<unknown>, baseUrl: string): string {
  const next = list.page < list.pages ? listUrl(baseUrl, list.name, list.page + 1) : null;
  const previous = list.page > 1 ? listUrl(baseUrl, list.name, list.page - 1) : null;
  return inertJson({ count: list.count, next, previous }).slice(0, -1);
}

/** A page of records, from the records' own files: the list shows each record exactly as its address serves it. */
export function videoListJson(list: ListPage<unknown>, baseUrl: string, records: readonly string[]): string {
  return `${envelope(list, baseUrl)},"results":[${records.join(',')}]}`;
}

export function categoryJson(item: CategoryItem, baseUrl: string): unknown {
  return { ...item, videos: item.videos.map((id) => recordUrl(baseUrl, id)) };
}

export function categoryListJson(list: ListPage<CategoryItem>, baseUrl: string): string {
  return `${envelope(list, baseUrl)},"results":${inertJson(list.items.map((item) => categoryJson(item, baseUrl)))}}`;
}

export function speakerListJson(list: ListPage<SpeakerItem>, baseUrl: string): string {
  return `${envelope(list, baseUrl)},"results":${inertJson(list.items)}}`;
}
