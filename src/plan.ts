// What the site is made of: every output file, with the inputs it is rendered
// from and a key that changes whenever those inputs change. Pure and cheap: it
// renders nothing, so an incremental build can compare keys and render only
// the outputs whose key moved.
import { createHash } from 'node:crypto';
import { byRecordedThenTitle, categoryItems, listPages, speakerItems, type CategoryItem, type ListPage, type SpeakerItem } from './api-lists.ts';
import { fileOf, groupByTerm, initialOf, paginate, seriesOf, termSlug, type Term } from './collections.ts';
import { categoryFile, ENCODINGS, listFile } from './headers.ts';
import { hostFiles } from './hosting.ts';
import { FEED_FILES, type FeedFormat, type FeedInput, type FeedItem } from './feeds.ts';
import { aliasFile, isLive, type Catalogue, type CatalogueEvent, type CatalogueTalk } from './load.ts';
import {
  byEventDate,
  byNewest,
  byProgramme,
  eventPath,
  languagePath,
  speakerPath,
  tagPath,
  talkLink,
  talkPath,
  type EventSummary,
  type PageInputs,
  type PageTemplate,
  type TalkLink,
  type TalkPageInput,
  type TermLink,
} from './render.ts';
import { searchRecord, type SearchRecord } from './search.ts';
import { sitemapChunks, type SitemapEntry } from './sitemap.ts';

/** One file of the output, and the key of what it is made from. */
export interface OutputSpec {
  path: string;
  key: string;
  /** Written with .br and .gz copies beside it (see COMPRESSED_KINDS). */
  compress?: boolean;
}

/** The files an output is written as: itself, and its compressed copies. */
export const filesOf = (o: OutputSpec) => (o.compress ? [o.path, ...ENCODINGS.map((e) => `${o.path}${e.suffix}`)] : [o.path]);

export type TalkOutput = OutputSpec & ({ kind: 'record' } | { kind: 'page' } | { kind: 'redirect'; target: string });

/** A talk and the files made from it: its API record, its page, its short link and its old addresses. */
export interface TalkJob extends Omit<TalkPageInput, 'talk'> {
  /** The catalogue's digest: whoever renders the job reads the full record. */
  talk: CatalogueTalk;
  outputs: TalkOutput[];
}

/** Every other file: pages made from several talks, feeds, sitemaps. */
export type PageJob = OutputSpec &
  (
    | { [T in PageTemplate]: { kind: 'page'; template: T; input: PageInputs[T] } }[PageTemplate]
    | { kind: 'feed'; format: FeedFormat; input: FeedInput }
    | { kind: 'sitemap'; input: SitemapEntry[] }
    | { kind: 'sitemap-index'; input: string[] }
    | { kind: 'robots' }
    /** A page of the record list: the ids of its records, whose files it is made from. */
    | { kind: 'video-list'; input: ListPage<number> }
    | { kind: 'category-list'; input: ListPage<CategoryItem> }
    | { kind: 'category'; input: CategoryItem }
    | { kind: 'speaker-list'; input: ListPage<SpeakerItem> }
    /** A static host's configuration (src/hosting.ts): made from the header manifest alone. */
    | { kind: 'host-config'; input: string }
  );

export interface SitePlan {
  talks: TalkJob[];
  pages: PageJob[];
}

/** What the search index is built from, and the key of that index. */
export interface SearchPlan {
  key: string;
  records: SearchRecord[];
}

/** Short fingerprints of the code and templates each kind of output is made with. */
export interface Fingerprints {
  code: string;
  /** By template name; layout-based templates include the layout's. */
  templates: Record<string, string>;
}

export const NEWEST_ON_HOME = 20;
export const EVENTS_ON_HOME = 10;
/** Talks per page of a long list. */
export const PAGE_SIZE = 50;
/** Items per feed: feed readers only look at the newest. */
export const FEED_ITEMS = 50;
/** Talks of the same event shown on a talk page, on each side of it in the programme. */
export const EVENT_NEIGHBOURS = 3;
/** Up to this many speakers, the speakers index is one page; beyond, one page per letter. */
export const SPEAKERS_ON_ONE_PAGE = 400;

/**
 * What identifies a file's contribution to an output: the hash of its bytes and
 * its path, since the path gives a talk its slug and event (a renamed file has
 * the same bytes but another address).
 */
const token = (origin: { rev: string; name: string }): string => {
  let known = tokens.get(origin);
  if (known === undefined) {
    // Short: a page's key holds the tokens of every talk it shows, and every key is kept in the build state.
    known = createHash('sha1').update(origin.rev).update('\0').update(origin.name).digest('base64url').slice(0, 16);
    tokens.set(origin, known);
  }
  return known;
};
const tokens = new WeakMap<object, string>();

/** The files a talk's link or feed item is made from: the talk's and its event's. */
const originOf = (talk: CatalogueTalk, events: Map<string, CatalogueEvent>) => `${token(talk)}${token(events.get(talk.event)!)}`;

/**
 * The key of an input. Objects made from one talk (its link, its feed item)
 * stand in it for the tokens of the files they come from: hashing their text
 * again for every page that lists them would cost more than the rest of the plan.
 */
const hashOf = (value: unknown, made?: Map<object, string>) =>
  createHash('sha1')
    .update(JSON.stringify(value, made && ((_key, v: unknown) => (typeof v === 'object' && v !== null && made.get(v)) || v)))
    .digest('base64url')
    .slice(0, 16);

/** With `compress`, pages, sitemaps and assets are written with .br and .gz copies. */
export function planSite(catalogue: Catalogue, prints: Fingerprints, compress = true): SitePlan {
  const t = (name: string) => `${prints.code}${prints.templates[name] ?? ''}`;
  const events = new Map(catalogue.events.map((e) => [e.slug, e]));
  const live = catalogue.talks.filter(isLive);
  const made = new Map<object, string>();
  const links = new Map<CatalogueTalk, TalkLink>();
  const items = new Map<CatalogueTalk, FeedItem>();
  for (const talk of live) {
    const link = talkLink(talk);
    const item = feedItem(talk);
    links.set(talk, link);
    items.set(talk, item);
    const origin = originOf(talk, events);
    made.set(link, origin);
    made.set(item, origin);
  }

  const pages: PageJob[] = [];
  const page = <T extends PageTemplate>(sitePath: string, template: T, input: PageInputs[T]) =>
    pages.push({ kind: 'page', template, input, path: fileOf(sitePath), key: `${t(template)}${hashOf(input, made)}`, compress } as PageJob);
  const feeds = (base: string, input: Omit<FeedInput, 'path'>) => {
    const feed = { ...input, path: base };
    const key = hashOf(feed, made);
    for (const format of ['atom', 'rss', 'json'] as const) {
      // Not precompressed: three feeds per speaker and tag would add two files each for what feed readers rarely fetch.
      pages.push({ kind: 'feed', format, input: feed, path: `${base.slice(1)}${FEED_FILES[format]}`, key: `${prints.code}${format}${key}` });
    }
  };

  const byEvent = new Map<string, CatalogueTalk[]>();
  for (const talk of live) (byEvent.get(talk.event) ?? byEvent.set(talk.event, []).get(talk.event)!).push(talk);
  const newestFirst = [...live].sort((a, b) => byNewest(links.get(a)!, links.get(b)!));
  const sitemap: SitemapEntry[] = [];
  const listed = (sitePath: string, talks: CatalogueTalk[]) => sitemap.push({ path: sitePath, lastmod: lastUpdated(talks) });

  const talks: TalkJob[] = [];
  const summaries: EventSummary[] = [];
  for (const [slug, list] of byEvent) {
    const event = events.get(slug)!;
    const eventInfo = { slug: event.slug, title: event.title, start_date: event.start_date, end_date: event.end_date };
    const programme = list.map((talk) => links.get(talk)!).sort(byProgramme);
    const talkOf = new Map(list.map((talk) => [talk.id, talk]));
    programme.forEach((link, position) => {
      const talk = talkOf.get(link.id)!;
      const around = programme.slice(Math.max(0, position - EVENT_NEIGHBOURS), position + EVENT_NEIGHBOURS + 1);
      const base = originOf(talk, events);
      const job: TalkJob = {
        talk,
        event: eventInfo,
        prev: programme[position - 1],
        next: programme[position + 1],
        others: around.filter((other) => other.id !== talk.id),
        outputs: [],
      };
      job.outputs = [
        { kind: 'record', path: `api/v2/video/${talk.id}`, key: `${prints.code}${base}` },
        { kind: 'page', path: fileOf(talkPath(talk)), key: `${t('talk')}${base}${hashOf([job.prev, job.next, job.others], made)}`, compress },
        { kind: 'redirect', path: `video/${talk.id}/index.html`, key: `${t('redirect')}${token(talk)}`, target: talkPath(talk) },
        ...talk.aliases.map((alias) => ({ kind: 'redirect' as const, path: aliasFile(alias), key: `${t('redirect')}${token(talk)}`, target: talkPath(talk) })),
      ];
      talks.push(job);
      sitemap.push({ path: talkPath(talk), lastmod: talk.updated });
    });
    page(eventPath(slug), 'event', { event: eventFields(event), talks: programme, feeds: eventPath(slug) });
    feeds(eventPath(slug), { title: event.title, description: `Talks recorded at ${event.title}`, page: eventPath(slug), items: feedItems(list, links, items) });
    listed(eventPath(slug), list);
    summaries.push({ ...eventInfo, talkCount: list.length });
  }
  talks.sort((a, b) => a.talk.id - b.talk.id);
  summaries.sort(byEventDate);

  const speakers = groupByTerm(newestFirst, (talk) => talk.speakers);
  const tags = groupByTerm(newestFirst, (talk) => talk.tags);
  const languages = groupByTerm(newestFirst, (talk) => [talk.language]);
  const termPages = (terms: Term<CatalogueTalk>[], pathOf: (slug: string) => string, heading: (name: string) => string, kind: string, withFeeds: boolean) => {
    for (const term of terms) {
      const base = pathOf(term.slug);
      const name = term.names[0]!;
      for (const p of paginate(term.items, PAGE_SIZE, base)) {
        page(p.path, 'listing', {
          title: heading(name),
          kind,
          names: term.names,
          path: base,
          total: term.items.length,
          page: { number: p.number, count: p.count, prev: p.prev, next: p.next },
          talks: p.items.map((talk) => links.get(talk)!),
          feeds: withFeeds ? base : undefined,
        });
        listed(p.path, p.items);
      }
      if (withFeeds) feeds(base, { title: heading(name), description: `${heading(name)}, newest first`, page: base, items: feedItems(term.items, links, items) });
    }
  };
  termPages(speakers, speakerPath, (name) => name, 'speaker', true);
  termPages(tags, tagPath, (name) => `Talks tagged “${name}”`, 'tag', true);
  termPages(languages, languagePath, (name) => `Talks in ${name}`, 'language', false);

  for (const p of paginate(newestFirst, PAGE_SIZE, '/talks/')) {
    page(p.path, 'listing', {
      title: 'All talks',
      kind: 'all',
      names: [],
      path: '/talks/',
      total: newestFirst.length,
      page: { number: p.number, count: p.count, prev: p.prev, next: p.next },
      talks: p.items.map((talk) => links.get(talk)!),
      feeds: '/',
    });
    listed(p.path, p.items);
  }
  feeds('/', { title: 'Video catalogue', description: 'Recorded conference talks, newest first', page: '/', items: feedItems(newestFirst, links, items) });

  planSpeakerIndex(speakers, page);
  page('/tags/', 'terms', { title: 'Tags', path: '/tags/', total: tags.length, ...byInitial(tags, tagPath, '') });
  page('/languages/', 'terms', {
    title: 'Languages',
    path: '/languages/',
    total: languages.length,
    letters: [],
    groups: [{ heading: '', id: 'all', terms: languages.map((term) => termLink(term, languagePath)) }],
  });

  const series = new Map<string, EventSummary[]>();
  for (const summary of summaries) {
    const name = seriesOf(summary.title);
    (series.get(name) ?? series.set(name, []).get(name)!).push(summary);
  }
  page('/events/', 'events', { total: summaries.length, series: [...series].map(([name, list]) => ({ name, id: termSlug(name), events: list })) });

  page('/', 'home', {
    totals: { talks: live.length, events: summaries.length, speakers: speakers.length, tags: tags.length, languages: languages.length },
    newest: newestFirst.slice(0, NEWEST_ON_HOME).map((talk) => links.get(talk)!),
    events: summaries.slice(0, EVENTS_ON_HOME),
  });
  const example = newestFirst[0];
  page('/api/', 'api', { example: example ? { id: example.id, title: example.title } : null, total: live.length });
  page('/search/', 'search', { total: live.length });
  pages.push({ kind: 'page', template: 'not-found', input: {}, path: '404.html', key: t('not-found'), compress });

  const lastmod = lastUpdated(live);
  for (const sitePath of ['/', '/events/', '/speakers/', '/tags/', '/languages/', '/api/']) sitemap.push({ path: sitePath, lastmod });
  const chunks = sitemapChunks(sitemap.sort((a, b) => (a.path < b.path ? -1 : 1)));
  chunks.forEach((chunk, i) => pages.push({ kind: 'sitemap', input: chunk, path: `sitemaps/${i + 1}.xml`, key: `${prints.code}${hashOf(chunk)}`, compress }));
  const sitemapPaths = chunks.map((_, i) => `/sitemaps/${i + 1}.xml`);
  pages.push({ kind: 'sitemap-index', input: sitemapPaths, path: 'sitemap.xml', key: `${prints.code}${hashOf(sitemapPaths)}`, compress });
  pages.push({ kind: 'robots', path: 'robots.txt', key: prints.code });

  planApiLists(catalogue, live, byEvent, speakers, prints.code, pages);
  for (const file of hostFiles()) pages.push({ kind: 'host-config', input: file.body, path: file.path, key: `${prints.code}${hashOf(file.body)}` });
  checkRedirects(talks, pages);
  return { talks, pages };
}

/**
 * The search index's records, newest first. Planned apart from the pages, so
 * that the index can be built while they are planned. Keyed by the records'
 * own text, not by the files they come from: Pagefind rebuilds the whole
 * index, so a change to what search does not hold (a duration, a video URL,
 * the rest of a description) must not set it off.
 */
export function planSearch(catalogue: Catalogue, code: string): SearchPlan {
  const records = catalogue.talks.filter(isLive).sort(byNewest).map(searchRecord);
  return { key: `${code}${hashOf(records)}`, records };
}

/** The API's list endpoints. A page of records is keyed by its records' files, so it moves exactly when one of them does. */
function planApiLists(
  catalogue: Catalogue,
  live: CatalogueTalk[],
  byEvent: Map<string, CatalogueTalk[]>,
  speakers: Term<CatalogueTalk>[],
  code: string,
  pages: PageJob[],
): void {
  const eventRev = new Map(catalogue.events.map((e) => [e.slug, token(e)]));
  for (const list of listPages('video', [...live].sort(byRecordedThenTitle))) {
    const key = `${code}${list.count}/${list.page}${list.items.map((talk) => `${token(talk)}${eventRev.get(talk.event)}`).join('')}`;
    pages.push({ kind: 'video-list', input: { ...list, items: list.items.map((talk) => talk.id) }, path: listFile('video', list.page), key });
  }
  const categories = categoryItems(catalogue.events, byEvent);
  for (const list of listPages('category', categories)) pages.push({ kind: 'category-list', input: list, path: listFile('category', list.page), key: `${code}${hashOf(list)}` });
  for (const item of categories) pages.push({ kind: 'category', input: item, path: categoryFile(item.slug), key: `${code}${hashOf(item)}` });
  for (const list of listPages('speaker', speakerItems(speakers))) pages.push({ kind: 'speaker-list', input: list, path: listFile('speaker', list.page), key: `${code}${hashOf(list)}` });
}

/** The speakers index: one page, or for many speakers an A–Z page per letter. */
function planSpeakerIndex(speakers: Term<CatalogueTalk>[], page: <T extends PageTemplate>(sitePath: string, template: T, input: PageInputs[T]) => void) {
  if (speakers.length <= SPEAKERS_ON_ONE_PAGE) {
    page('/speakers/', 'terms', { title: 'Speakers', path: '/speakers/', total: speakers.length, ...byInitial(speakers, speakerPath, '') });
    return;
  }
  const sections = byInitial(speakers, speakerPath, '/speakers/');
  page('/speakers/', 'terms', { title: 'Speakers', path: '/speakers/', total: speakers.length, letters: sections.letters, groups: [] });
  for (const group of sections.groups) {
    page(`/speakers/${group.id}/`, 'terms', { title: `Speakers: ${group.heading}`, path: `/speakers/${group.id}/`, total: group.terms.length, letters: sections.letters, groups: [group] });
  }
}

const termLink = (term: Term<unknown>, pathOf: (slug: string) => string): TermLink => ({ name: term.names[0]!, url: pathOf(term.slug), count: term.items.length });

/** Terms in A–Z sections; letters link to anchors on the same page, or to `/<base><letter>/` pages. */
function byInitial(terms: Term<unknown>[], pathOf: (slug: string) => string, pageBase: string) {
  const groups: { heading: string; id: string; terms: TermLink[] }[] = [];
  for (const term of terms) {
    const id = initialOf(term.slug);
    if (groups.at(-1)?.id !== id) groups.push({ heading: id === 'other' ? 'Other' : id.toUpperCase(), id, terms: [] });
    groups.at(-1)!.terms.push(termLink(term, pathOf));
  }
  return { letters: groups.map((g) => ({ label: g.heading, url: pageBase ? `${pageBase}${g.id}/` : `#${g.id}`, count: g.terms.length })), groups };
}

function eventFields(event: CatalogueEvent) {
  return { slug: event.slug, title: event.title, start_date: event.start_date, end_date: event.end_date, url: event.url, description: event.description };
}

function lastUpdated(talks: CatalogueTalk[]): string | null {
  let last: string | null = null;
  for (const talk of talks) if (last === null || talk.updated > last) last = talk.updated;
  return last;
}

function feedItems(talks: CatalogueTalk[], links: Map<CatalogueTalk, TalkLink>, items: Map<CatalogueTalk, FeedItem>): FeedItem[] {
  return [...talks]
    .sort((a, b) => byNewest(links.get(a)!, links.get(b)!))
    .slice(0, FEED_ITEMS)
    .map((talk) => items.get(talk)!);
}

function feedItem(talk: CatalogueTalk): FeedItem {
  return {
    id: talk.id,
    title: talk.title,
    url: talkPath(talk),
    recorded: talk.recorded,
    updated: talk.updated,
    speakers: talk.speakers,
    category: talk.category,
    summary: talk.blurb,
    enclosure: talk.enclosure,
  };
}

/** Every redirect must land on a page of this build: an old link that leads to a 404 is a bug. */
function checkRedirects(talks: TalkJob[], pages: PageJob[]): void {
  const files = new Set<string>(pages.map((p) => p.path));
  for (const job of talks) for (const o of job.outputs) if (o.kind === 'page') files.add(o.path);
  for (const job of talks) {
    for (const o of job.outputs) {
      if (o.kind === 'redirect' && !files.has(fileOf(o.target))) throw new Error(`redirect ${o.path} points at ${o.target}, which this build does not write`);
    }
  }
}
