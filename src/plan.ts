// What the site is made of: every output file, with the inputs it is rendered
// from and a key that changes whenever those inputs change. Pure and cheap: it
// renders nothing, so an incremental build can compare keys and render only
// the outputs whose key moved.
import { createHash, hash } from 'node:crypto';
import { isolated, isolatedAmongWords } from './bidi.ts';
import { byTitleThenSlug, categoryItem, listPages, pageNames, speakerItems, type CategoryItem, type ListPage, type SpeakerItem } from './api-lists.ts';
import { indexCatalogue, type CatalogueIndex } from './catalogue-index.ts';
import { byEventDate, byNewest, byProgramme, eventPath, fileOf, initialOf, languagePath, lastUpdated, named, paginate, recordedSpan, seriesOf, speakerPath, tagPath, talkPath, termSlug, type Page, type Term } from './collections.ts';
import { categoryFile, HOST_FILES, listFile, recordFile, type HostFile } from './headers.ts';
import { FEED_FILES, type FeedFormat, type FeedInput, type FeedItem } from './feeds.ts';
import { aliasFiles, shortLinkFile, type Catalogue, type CatalogueEvent, type CataloguePage, type CatalogueTalk } from './load.ts';
import { cached } from './memo.ts';
import { published, sitePagePath } from './pages.ts';
import { FOLDER_INDEXES } from './redirects.ts';
import {
  talkLink,
  type EventSummary,
  type PageInputs,
  type PageTemplate,
  type TalkLink,
  type TalkPageInput,
  type TermLink,
} from './render.ts';
import { sitemapFile } from './schema.ts';
import { PAGES_INDEX, SEARCH_SHARD_SIZE, searchIndexes, shardCount, shardDir } from './search-shards.ts';
import { pageSearchRecord, searchRecord, type SearchRecord } from './search.ts';
import { sitemapChunks, type SitemapEntry } from './sitemap.ts';

/** One file of the output, and the key of what it is made from. */
export interface OutputSpec {
  path: string;
  key: string;
  /** Written with .br and .gz copies beside it (see COMPRESSED_KINDS). */
  compress?: boolean;
}

type TalkOutput = OutputSpec & ({ kind: 'record' } | { kind: 'page' } | { kind: 'redirect'; target: string });

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
    /** An event's old address or one of the site's redirects (a talk's are its job's outputs). */
    | { kind: 'redirect'; input: { title: string; target: string } }
    /** A page of the record list: the ids of its records, whose files it is made from. */
    | { kind: 'video-list'; input: ListPage<number> }
    | { kind: 'category-list'; input: ListPage<CategoryItem> }
    | { kind: 'category'; input: CategoryItem }
    | { kind: 'speaker-list'; input: ListPage<SpeakerItem> }
    /** A static host's configuration (src/hosting.ts): made from the header manifest and the site's base path. */
    | { kind: 'host-config'; input: HostFile }
  );

export interface SitePlan {
  /** The jobs, as planned together: a memo gives a part again, the same object, when nothing it is made from changed. */
  parts: Part[];
}

/** Outputs planned together: talks' files, other pages, and the sitemap entries of its HTML pages. */
export interface Part {
  /** Unique in a plan: the build state keeps the part's files under it (see BuildState.parts). */
  name: string;
  /**
   * What the part is made from, as the files it comes from: for a build in another process to
   * tell, without planning it, that it would plan the part the same (see planParts' `known`).
   * Only the parts that hold most of a site's files have one: an event's, a speaker's, a tag's
   * and a language's, and the site's redirects.
   */
  signature?: string;
  /** Not planned: made from the same files as the last build's part of its name, whose files stay as they are. */
  kept?: boolean;
  talks: TalkJob[];
  pages: PageJob[];
  sitemap: SitemapEntry[];
}

/** What the search index is built from: the talks' shards (see searchIndexes), then the pages' index if the site has pages (PAGES_INDEX). */
export interface SearchPlan {
  shards: SearchShard[];
  /**
   * The key of each live talk's search record, by the files it is made from (its own and its
   * event's), for the next plan to look up (see planSearch): kept in the build's state.
   */
  keys: Map<string, string>;
  /** The records of a shard to index, made when it is built and not kept once the index has them (at 100,000 talks they weigh 140 MB). */
  records(shard: SearchShard): SearchRecord[];
}

/** A shard of the search index: its folder in the output, the key of its files and the talks or pages they are made from. */
interface SearchShard {
  dir: string;
  key: string;
  talks: CatalogueTalk[];
  pages: CataloguePage[];
}

/** Short fingerprints of the code and templates each kind of output is made with. */
export interface Fingerprints {
  code: string;
  /** By template name; each includes the templates it names (see templatesUsed). */
  templates: Record<string, string>;
}

const NEWEST_ON_HOME = 20;
const EVENTS_ON_HOME = 10;
/** Talks per page of a long list. */
const PAGE_SIZE = 50;
/**
 * Talks per page of an event's programme: its whole programme where it can be
 * (pyvideo's largest event has 184), in pages past that, as a page of 5,000
 * links (820 KB) is no page to read.
 */
export const EVENT_PAGE_SIZE = 500;
/** Items per feed: feed readers only look at the newest. */
const FEED_ITEMS = 50;
/** Talks of the same event shown on a talk page, on each side of it in the programme. */
const EVENT_NEIGHBOURS = 3;
/** Up to this many speakers or tags, their index is one page; beyond, one page per letter. */
export const TERMS_ON_ONE_PAGE = 400;
/**
 * Speakers or tags per page of a letter's, past which it is cut into pages as an event's programme
 * is: 2,000 made a page of 220 KB (pyvideo's A has 1,420 speakers). A line of the index weighs
 * about 110 bytes, so a page weighs what a page of EVENT_PAGE_SIZE talks does, about 80 KB.
 */
export const TERMS_PAGE_SIZE = 750;

/**
 * What identifies a file's contribution to an output: the hash of its bytes and
 * its path, since the path gives a talk its slug and event (a renamed file has
 * the same bytes but another address).
 */
const token = (origin: { rev: string; name: string }): string =>
  // Short: a page's key holds the tokens of every talk it shows, and every key is kept in the build state.
  cached(tokens, origin, () => hash('sha1', `${origin.rev}\0${origin.name}`, 'base64url').slice(0, 16));
const tokens = new WeakMap<object, string>();

/** The files a talk's link or feed item is made from: the talk's and its event's. */
const originOf = (talk: CatalogueTalk, events: Map<string, CatalogueEvent>) => `${token(talk)}${token(events.get(talk.event)!)}`;

/**
 * The key of an input. Objects made from one talk (its link, its feed item)
 * stand in it for the tokens of the files they come from: hashing their text
 * again for every page that lists them would cost more than the rest of the plan.
 */
const hashOf = (value: unknown, made?: Map<object, string>) =>
  // The one-shot hash: a Hash object per key cost a tenth of the plan.
  hash('sha1', JSON.stringify(value, made && ((_key, v: unknown) => (typeof v === 'object' && v !== null && made.get(v)) || v)), 'base64url').slice(0, 16);

/** A part of the plan, what it was made from, and the parts made within it. */
interface Memoised {
  from: readonly unknown[];
  value: unknown;
  within: Map<string, Memoised>;
}

/** The parts of one level of a plan, each looked up among the last plan's at that level. */
class Parts {
  readonly next = new Map<string, Memoised>();

  constructor(private readonly last: Map<string, Memoised>) {}

  /** The part under `name`: the last plan's if it was made `from` the same values (the same objects, in the same order). */
  get<T>(name: string, from: readonly unknown[], make: (within: Parts) => T): T {
    const known = this.last.get(name);
    if (known && sameValues(known.from, from)) {
      this.next.set(name, known);
      return known.value as T;
    }
    // Made again: the parts within it are looked up among those it had.
    const within = new Parts(known?.within ?? new Map());
    const value = make(within);
    this.next.set(name, { from, value, within: within.next });
    return value;
  }
}

/** What a memo holds of the plans it made: their context, their parts and the catalogue's index. */
interface Planned {
  context: string;
  last: Map<string, Memoised>;
  index: CatalogueIndex | undefined;
}

/**
 * Parts of a plan kept between builds by a long-running caller (the dev
 * server): after an edit, only the parts made from an edited file are planned
 * again, and the catalogue's index is worked out from the last one. What a
 * plan no longer uses is dropped; another code, templates, options or event
 * file drops it all. The parts are shared between plans: nothing may change them.
 * Only the plans of builds that succeed count (see keep and undo).
 */
export class PlanMemo {
  private context = '';
  private last = new Map<string, Memoised>();
  private index: CatalogueIndex | undefined;
  /** What the plans of the last build that succeeded left. */
  private kept: Planned = { context: this.context, last: this.last, index: undefined };

  indexOf(catalogue: Catalogue): CatalogueIndex {
    return (this.index = indexCatalogue(catalogue.talks, this.index));
  }

  begin(context: string): Parts {
    if (context !== this.context) this.last = new Map();
    this.context = context;
    return new Parts(this.last);
  }

  /** Keeps the parts of a plan that ended: one that threw leaves those of the last one that did. */
  end(parts: Parts): void {
    this.last = parts.next;
  }

  /** The build that made the plans since the last keep or undo succeeded: the next build starts from them. */
  keep(): void {
    this.kept = { context: this.context, last: this.last, index: this.index };
  }

  /**
   * The build that made them failed: back to the plans of the last one that succeeded. A
   * template that fails only on a page plans with its own fingerprint, and so does taking it
   * back; from the failed build's plan that would plan everything again.
   */
  undo(): void {
    ({ context: this.context, last: this.last, index: this.index } = this.kept);
  }
}

/** The catalogue's index: worked out from the memo's last one, if there is a memo. */
export const indexOf = (catalogue: Catalogue, memo: PlanMemo | undefined) => (memo ? memo.indexOf(catalogue) : indexCatalogue(catalogue.talks));

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Adds a page made with a template. */
type PageOf = <T extends PageTemplate>(sitePath: string, template: T, input: PageInputs[T]) => void;

/** A part of the plan, made again unless a memo has it made from the same values; `make` plans the parts within it. */
type PartOf = <T>(name: string, from: () => readonly unknown[], make: (part: PartOf) => T) => T;

/** What a memo has, or makes, for a level of a plan; what a part is made from is only listed when there is a memo. */
const partOf =
  (parts: Parts | undefined): PartOf =>
  (name, from, make) =>
    parts ? parts.get(name, from(), (within) => make(partOf(within))) : make(partOf(undefined));

/** The whole plan at once (see planParts). */
export function planSite(catalogue: Catalogue, prints: Fingerprints, compress = false, memo?: PlanMemo, shardSize = SEARCH_SHARD_SIZE): SitePlan {
  return { parts: [...planParts(catalogue, prints, compress, memo, shardSize)] };
}

/**
 * The plan's parts, each made when it is asked for: a build that renders them
 * as they come holds a few at a time, not the whole site's jobs (at 100,000
 * talks, hundreds of MB). What the last parts are made from (the sitemaps,
 * the events and category lists) is gathered on the way. With `compress`,
 * the HTML pages and the sitemaps are written with .br and .gz copies (not
 * the feeds: see Planner.feeds). The theme's assets are not in the plan:
 * build.ts keys and writes them.
 *
 * The parts that hold many files are signed. `known`, for a build without a
 * memo (in a process of its own) that keeps a state, holds the signatures of
 * the last build's parts (none after a first build): a part whose signature
 * it holds is kept rather than planned. After an edit of one talk, that keeps
 * all but a few of the events' and terms' parts, which hold 98% of the files.
 */
export function* planParts(
  catalogue: Catalogue,
  prints: Fingerprints,
  compress = false,
  memo?: PlanMemo,
  shardSize = SEARCH_SHARD_SIZE,
  known?: ReadonlyMap<string, { signature?: string }>,
): Generator<Part> {
  const plan = new Planner(catalogue, prints, compress, memo, shardSize, known);
  const { speakers, tags, languages } = plan.index;
  const summaries: EventSummary[] = [];
  for (const [slug, list] of plan.byEvent) {
    const part = eventPart(plan, plan.events.get(slug)!, list);
    summaries.push(part.summary);
    yield plan.give(part);
  }
  for (const term of speakers) yield plan.give(termPart(plan, term, SPEAKERS));
  for (const term of tags) yield plan.give(termPart(plan, term, TAGS));
  for (const term of languages) yield plan.give(termPart(plan, term, LANGUAGES));
  yield plan.give(allTalksPart(plan));
  yield plan.give(videoListsPart(plan));
  yield plan.give(speakerListsPart(plan));
  yield plan.give(termIndexPart(plan, 'speaker-index', speakers, planSpeakerIndex));
  yield plan.give(termIndexPart(plan, 'tag-index', tags, planTagIndex));
  yield plan.give(termIndexPart(plan, 'language-index', languages, planLanguageIndex));
  const items: CategoryItem[] = [];
  for (const event of catalogue.events) {
    const part = categoryPart(plan, event);
    items.push(part.item);
    yield plan.give(part);
  }
  yield plan.give(categoryListsPart(plan, items.sort(byTitleThenSlug)));
  // The site's own pages, after every other part: a page added or removed moves no other sitemap entry.
  for (const own of published(catalogue.pages)) yield plan.give(sitePagePart(plan, own));
  if (catalogue.redirects.length > 0) yield plan.give(redirectsPart(plan));
  const site = sitePart(plan, summaries.sort(byEventDate));
  // Only a plan taken to its end is kept: planSite takes it whole.
  plan.end();
  yield site;
}

/**
 * What the planners of every kind of part share, made once per plan: the
 * catalogue's index, the memo's top level, what a talk's files are and what is
 * made from one talk, and how a page, a list's feeds and a signed part are made.
 */
class Planner {
  /** The catalogue's index (see indexOf). */
  readonly index: CatalogueIndex;
  /** The events, by slug. */
  readonly events: Map<string, CatalogueEvent>;
  /** Each event's live talks. */
  readonly byEvent = new Map<string, CatalogueTalk[]>();
  /** The tokens of the files a talk's link or feed item is made from (see originOf), worked out once per talk. */
  readonly origin: (talk: CatalogueTalk) => string;
  /** What was made from one talk (its link, its feed item), and the tokens of the files it is made from. */
  readonly made = new Map<object, string>();
  readonly linkOf: (talk: CatalogueTalk) => TalkLink;
  readonly itemOf: (talk: CatalogueTalk) => FeedItem;
  /** The sitemap entries of the parts given so far, in their order. */
  readonly sitemaps: SitemapEntry[][] = [];
  /** The memo's parts of this plan, if there is a memo. */
  private readonly top: Parts | undefined;
  private readonly part: PartOf;
  private readonly context: string;

  constructor(
    readonly catalogue: Catalogue,
    readonly prints: Fingerprints,
    readonly compress: boolean,
    private readonly memo: PlanMemo | undefined,
    readonly shardSize: number,
    private readonly known: ReadonlyMap<string, { signature?: string }> | undefined,
  ) {
    // A talk's link shows its event's title: an edited event file replans everything.
    this.top = memo?.begin(`${JSON.stringify(prints)}${compress}${shardSize}${catalogue.events.map(token).join('')}`);
    this.part = partOf(this.top);
    this.index = indexOf(catalogue, memo);
    const events = new Map(catalogue.events.map((e) => [e.slug, e]));
    this.events = events;
    const origins = new Map<CatalogueTalk, string>();
    this.origin = (talk) => cached(origins, talk, () => originOf(talk, events));
    this.linkOf = this.madeFrom(talkLink);
    this.itemOf = this.madeFrom(feedItem);
    for (const talk of this.index.live) (this.byEvent.get(talk.event) ?? this.byEvent.set(talk.event, []).get(talk.event)!).push(talk);
    // Every file's key holds the fingerprints and the options, and so does every signature.
    this.context = hash('sha1', `${JSON.stringify(prints)}${compress}`, 'base64url');
  }

  /** A talk's link or feed item, made once per plan; keys hash its origin in its place (see hashOf). */
  private madeFrom<V extends object>(make: (talk: CatalogueTalk) => V): (talk: CatalogueTalk) => V {
    const known = new Map<CatalogueTalk, V>();
    return (talk) =>
      cached(known, talk, () => {
        const value = make(talk);
        this.made.set(value, this.origin(talk));
        return value;
      });
  }

  /** What the key of a file made with a template starts with: the fingerprints of the code and of the template. */
  prefix(template: string): string {
    return `${this.prints.code}${this.prints.templates[template] ?? ''}`;
  }

  page<T extends PageTemplate>(sitePath: string, template: T, input: PageInputs[T]): PageJob {
    return { kind: 'page', template, input, path: fileOf(sitePath), key: `${this.prefix(template)}${hashOf(input, this.made)}`, compress: this.compress } as PageJob;
  }

  /** The feeds of a list: its newest talks (`talks` are newest first). */
  feeds(base: string, title: string, description: string, talks: readonly CatalogueTalk[]): PageJob[] {
    const feed: FeedInput = { title, description, page: base, items: talks.slice(0, FEED_ITEMS).map(this.itemOf), path: base };
    const key = hashOf(feed, this.made);
    // Not precompressed: three feeds per speaker and tag would add two files each for what feed readers rarely fetch.
    return (['atom', 'rss', 'json'] as const).map((format) => ({ kind: 'feed', format, input: feed, path: `${base.slice(1)}${FEED_FILES[format]}`, key: `${this.prints.code}${format}${key}` }));
  }

  /** A part of the plan's top level (see PartOf), named as the memo names it. */
  topPart<T extends Omit<Part, 'name'>>(name: string, from: () => readonly unknown[], make: (part: PartOf) => T): T & { name: string } {
    return this.part(name, from, (within) => ({ ...make(within), name }));
  }

  /**
   * A part that holds many files, signed with the files it is made from (`files`, as tokens). With
   * `known`, one the last build made from the same files is kept: only what the rest of the plan
   * gathers from it (`facts`) is worked out. Else it is planned, from the memo if there is one (which
   * signs a part only when it makes it again).
   */
  // No closure is named in the functions that call it per event or term: tsx names every one it can (keepNames), which cost the dev server's builds 20 ms.
  signed<F extends { sitemap: SitemapEntry[] }>(name: string, from: () => readonly unknown[], files: () => string, facts: () => F, make: (part: PartOf) => Omit<Part, 'name'> & F): Part & F {
    if (!this.known) return this.topPart(name, from, (within) => ({ ...make(within), signature: this.sign(name, files()) }));
    const signature = this.sign(name, files());
    if (this.known.get(name)?.signature === signature) return { ...facts(), name, signature, kept: true, talks: [], pages: [] };
    return { ...make(partOf(undefined)), name, signature };
  }

  private sign(name: string, files: string): string {
    return hash('sha1', `${this.context}\0${name}\0${files}`, 'base64url').slice(0, 16);
  }

  /** A part as the plan gives it, its sitemap entries gathered for the sitemaps (see siteFiles). */
  give<P extends Part>(part: P): P {
    this.sitemaps.push(part.sitemap);
    return part;
  }

  /** Keeps the parts of this plan in the memo, if there is one, for the next plan to look up. */
  end(): void {
    if (this.top) this.memo!.end(this.top);
  }
}

/** An event's part, signed with its talks' files. */
function eventPart(plan: Planner, event: CatalogueEvent, list: CatalogueTalk[]) {
  return plan.signed(`event\0${event.slug}`, () => list, () => list.map(plan.origin).join(''), () => eventFacts(event, list), () => planEvent(plan, event, list));
}

/** What the rest of the plan gathers from an event's part: its line on the events page, and its sitemap entries. */
function eventFacts(event: CatalogueEvent, list: CatalogueTalk[]) {
  const eventInfo = { slug: event.slug, title: event.title, start_date: event.start_date, end_date: event.end_date };
  // By path, not by programme: a new title that moves a talk in its event leaves the sitemap as it was. Its pages are the programme's.
  const sitemap = [...listEntries(eventPath(event.slug), [...list].sort(byProgramme), EVENT_PAGE_SIZE), ...list.map((talk) => ({ path: talkPath(talk), lastmod: talk.updated }))].sort((a, b) => (a.path < b.path ? -1 : 1));
  return { eventInfo, sitemap, summary: { ...eventInfo, talkCount: list.length, ...recordedSpan(list) } };
}

/** An event: its talks' records, pages and redirects, and the event's page and feeds. */
function planEvent(plan: Planner, event: CatalogueEvent, list: CatalogueTalk[]) {
  const facts = eventFacts(event, list);
  const programme = list.map(plan.linkOf).sort(byProgramme);
  const talks = talkJobs(plan, facts.eventInfo, list, programme);
  const newest = [...list].sort(byNewest);
  const redirect = { title: event.title, target: eventPath(event.slug) };
  const fields = eventFields(event);
  const { recordedFrom, recordedTo } = facts.summary;
  const pages = [
    ...paginate(programme, EVENT_PAGE_SIZE, eventPath(event.slug)).map((p) =>
      plan.page(p.path, 'event', { event: fields, recordedFrom, recordedTo, total: list.length, page: pageOf(p), talks: p.items, feeds: eventPath(event.slug) }),
    ),
    ...plan.feeds(eventPath(event.slug), isolatedAmongWords(event.title), `Talks recorded at ${isolatedAmongWords(event.title)}`, newest),
    ...event.aliases.flatMap(aliasFiles).map((file): PageJob => ({ kind: 'redirect', input: redirect, path: file, key: `${plan.prefix('redirect')}${hashOf(redirect)}` })),
  ];
  return { ...facts, talks, pages };
}

/** The jobs of an event's talks, in its programme: each talk's page shows its neighbours in it. */
function talkJobs(plan: Planner, event: TalkJob['event'], list: CatalogueTalk[], programme: TalkLink[]): TalkJob[] {
  const talkOf = new Map(list.map((talk) => [talk.id, talk]));
  return programme.map((link, position): TalkJob => {
    const talk = talkOf.get(link.id)!;
    const around = programme.slice(Math.max(0, position - EVENT_NEIGHBOURS), position + EVENT_NEIGHBOURS + 1);
    const base = plan.origin(talk);
    const prev = programme[position - 1];
    const next = programme[position + 1];
    const others = around.filter((other) => other.id !== talk.id);
    const outputs: TalkOutput[] = [
      { kind: 'record', path: recordFile(talk.id), key: `${plan.prints.code}${base}` },
      { kind: 'page', path: fileOf(talkPath(talk)), key: `${plan.prefix('talk')}${base}${hashOf([prev, next, others], plan.made)}`, compress: plan.compress },
      talkRedirect(plan, talk, shortLinkFile(talk.id)),
      ...talk.aliases.flatMap(aliasFiles).map((file) => talkRedirect(plan, talk, file)),
    ];
    return { talk, event, prev, next, others, outputs };
  });
}

/** The redirect at `path` (the talk's short link or an old address) to the talk's page. */
function talkRedirect(plan: Planner, talk: CatalogueTalk, path: string): TalkOutput {
  return { kind: 'redirect', path, key: `${plan.prefix('redirect')}${token(talk)}`, target: talkPath(talk) };
}

/** A kind of term: its name in its parts' names and its lists, where a term's list is, its heading, and whether the list has feeds. */
interface TermKind {
  kind: string;
  pathOf: (slug: string) => string;
  heading: (name: string) => string;
  withFeeds: boolean;
}

const SPEAKERS: TermKind = { kind: 'speaker', pathOf: speakerPath, heading: isolatedAmongWords, withFeeds: true };
const TAGS: TermKind = { kind: 'tag', pathOf: tagPath, heading: (name) => `Talks tagged “${isolatedAmongWords(name)}”`, withFeeds: true };
const LANGUAGES: TermKind = { kind: 'language', pathOf: languagePath, heading: (name) => `Talks in ${isolated(name)}`, withFeeds: false };

/** A term's part, signed with its names and its talks' files: a term the edit did not touch is the same object, and so is its part. */
function termPart(plan: Planner, term: Term<CatalogueTalk>, of: TermKind) {
  return plan.signed(`${of.kind}\0${term.slug}`, () => [term], () => `${term.names.join('\0')}\0${term.items.map(plan.origin).join('')}`, () => ({ sitemap: listEntries(of.pathOf(term.slug), term.items) }), (within) => {
    const list = { title: of.heading(term.names[0]!), kind: of.kind, names: term.names, path: of.pathOf(term.slug) };
    return listPart(plan, list, term.items, within, of.withFeeds ? { base: list.path, title: list.title, description: `${list.title}, newest first` } : undefined);
  });
}

/** A list of talks, newest first: a part per page of it, and one for its feeds (the newest talks) if `feed` names them. */
function listPart(
  plan: Planner,
  list: Pick<PageInputs['listing'], 'title' | 'kind' | 'names' | 'path'>,
  talks: readonly CatalogueTalk[],
  part: PartOf,
  feed?: { base: string; title: string; description: string },
): Omit<Part, 'name'> {
  const pages: PageJob[] = [];
  for (const p of paginate(talks, PAGE_SIZE, list.path)) {
    pages.push(
      part(p.path, () => [list.title, list.names.join('\0'), feed?.base, p.count, talks.length, ...p.items], () =>
        plan.page(p.path, 'listing', {
          ...list,
          total: talks.length,
          page: pageOf(p),
          talks: p.items.map(plan.linkOf),
          feeds: feed?.base,
        }),
      ),
    );
  }
  if (feed) {
    const newest = talks.slice(0, FEED_ITEMS);
    pages.push(...part('feeds', () => [feed.title, feed.description, ...newest], () => plan.feeds(feed.base, feed.title, feed.description, newest)));
  }
  return { talks: [], pages, sitemap: listEntries(list.path, talks) };
}

/** Which page of its list a page is, and the pages before and after it: what its pager links. */
const pageOf = (p: Page<unknown>) => ({ number: p.number, count: p.count, prev: p.prev, next: p.next });

const listed = (sitePath: string, talks: readonly CatalogueTalk[]): SitemapEntry => ({ path: sitePath, lastmod: lastUpdated(talks) });

/** The sitemap entries of a list's pages. */
const listEntries = (sitePath: string, talks: readonly CatalogueTalk[], size = PAGE_SIZE) => paginate(talks, size, sitePath).map((p) => listed(p.path, p.items));

/** The list of all talks, whose feeds are the site's. */
function allTalksPart(plan: Planner) {
  const { newestFirst } = plan.index;
  const everyTalk = { title: 'All talks', kind: 'all', names: [], path: '/talks/' };
  return plan.topPart('all', () => [newestFirst], (within) => listPart(plan, everyTalk, newestFirst, within, { base: '/', title: plan.catalogue.site.name, description: 'Recorded conference talks, newest first' }));
}

/** The API's list of records. A page of records is keyed by its records' files, so it moves exactly when one of them does. */
function videoListsPart(plan: Planner) {
  const { byRecorded } = plan.index;
  return plan.topPart('video-lists', () => [byRecorded], (part) => ({
    talks: [],
    pages: listPages('video', byRecorded).flatMap((list) =>
      pageNames(list).map((at) =>
        part(String(at), () => [list.count, ...list.items], (): PageJob => {
          const key = `${plan.prints.code}${list.count}/${list.page}${list.items.map(plan.origin).join('')}`;
          return { kind: 'video-list', input: { ...list, items: list.items.map((talk) => talk.id) }, path: listFile('video', at), key };
        }),
      ),
    ),
    sitemap: [],
  }));
}

/** The API's list of speakers, planned again when a speaker comes, goes, or changes its name or count. */
function speakerListsPart(plan: Planner) {
  const { speakers } = plan.index;
  return plan.topPart('speaker-lists', () => termFacts(speakers), () => ({
    talks: [],
    pages: listPages('speaker', speakerItems(speakers)).flatMap((list) => pageNames(list).map((at): PageJob => ({ kind: 'speaker-list', input: list, path: listFile('speaker', at), key: `${plan.prints.code}${hashOf(list)}` }))),
    sitemap: [],
  }));
}

/** An index of terms, planned again when a term comes, goes, or changes its name or count. */
function termIndexPart(plan: Planner, name: string, terms: Term<CatalogueTalk>[], make: (terms: Term<CatalogueTalk>[], add: PageOf) => void) {
  return plan.topPart(name, () => termFacts(terms), () => {
    const pages: PageJob[] = [];
    const sitemap: SitemapEntry[] = [];
    make(terms, (sitePath, template, input) => {
      pages.push(plan.page(sitePath, template, input));
      // The index's first page is among the sitemap's head; its letter pages carry no date, as the part is planned again only when a term comes, goes or changes its name or count.
      if (pages.length > 1) sitemap.push({ path: sitePath, lastmod: null });
    });
    return { talks: [], pages, sitemap };
  });
}

/** The speakers index (see azIndex). */
const planSpeakerIndex = azIndex('Speakers', '/speakers/', speakerPath);
/** The tags index (see azIndex). */
const planTagIndex = azIndex('Tags', '/tags/', tagPath);

/** The one page of an index that is not cut into pages. */
const ONE_PAGE = { number: 1, count: 1 };

/**
 * An A–Z index of terms at `index`: one page, or for many terms a page per letter (`<index><letter>/`),
 * whose terms past TERMS_PAGE_SIZE are cut into pages.
 */
function azIndex(title: string, index: string, pathOf: (slug: string) => string) {
  return (terms: Term<CatalogueTalk>[], page: PageOf) => {
    if (terms.length <= TERMS_ON_ONE_PAGE) {
      page(index, 'terms', { title, path: index, index, total: terms.length, page: ONE_PAGE, ...byInitial(terms, pathOf, '') });
      return;
    }
    const { letters, groups } = byInitial(terms, pathOf, index);
    page(index, 'terms', { title, path: index, index, total: terms.length, page: ONE_PAGE, letters, groups: [] });
    for (const group of groups) {
      const path = `${index}${group.id}/`;
      for (const p of paginate(group.terms, TERMS_PAGE_SIZE, path)) {
        page(p.path, 'terms', { title: `${title}: ${group.heading}`, path, index, total: group.terms.length, page: pageOf(p), letters, groups: [{ ...group, terms: p.items }] });
      }
    }
  };
}

/** The languages index: one page, one list. */
function planLanguageIndex(languages: Term<CatalogueTalk>[], page: PageOf) {
  page('/languages/', 'terms', {
    title: 'Languages',
    path: '/languages/',
    index: '/languages/',
    total: languages.length,
    page: ONE_PAGE,
    letters: [],
    groups: [{ heading: '', id: 'all', terms: languages.map((term) => termLink(term, languagePath)) }],
  });
}

/** An event's record in the API's list of categories, planned again when the event or one of its talks changes. */
function categoryPart(plan: Planner, event: CatalogueEvent) {
  const list = plan.byEvent.get(event.slug) ?? [];
  return plan.topPart(`category\0${event.slug}`, () => [event, ...list], () => {
    const item = categoryItem(event, list);
    return { item, talks: [], pages: [{ kind: 'category', input: item, path: categoryFile(item.slug), key: `${plan.prints.code}${hashOf(item)}` } as PageJob], sitemap: [] };
  });
}

/** The API's list of categories: the events' records (`items`), in the list's order. */
function categoryListsPart(plan: Planner, items: CategoryItem[]) {
  return plan.topPart('category-lists', () => items, () => ({
    talks: [],
    pages: listPages('category', items).flatMap((list) => pageNames(list).map((at): PageJob => ({ kind: 'category-list', input: list, path: listFile('category', at), key: `${plan.prints.code}${hashOf(list)}` }))),
    sitemap: [],
  }));
}

/** A page of the site's own, listed in the sitemap with its date if it gives one. */
function sitePagePart(plan: Planner, own: CataloguePage) {
  const { slug, title, description, body, name } = own;
  return plan.topPart(`page\0${slug}`, () => [own], () => ({ talks: [], pages: [plan.page(sitePagePath(slug), 'page', { slug, title, description, body, name })], sitemap: [{ path: sitePagePath(slug), lastmod: own.updated ?? null }] }));
}

/** The site's redirects (src/redirects.ts), whose pages are in no sitemap; where each leads is its title, as a page leads to nothing else. */
function redirectsPart(plan: Planner) {
  const { redirects } = plan.catalogue;
  return plan.signed('redirects', () => redirects, () => redirects.map(token).join(''), () => ({ sitemap: [] }), () => ({
    talks: [],
    pages: redirects.flatMap((file) =>
      file.redirects.flatMap(({ from, to }) => {
        const input = { title: to, target: to };
        return aliasFiles(from).map((file): PageJob => ({ kind: 'redirect', input, path: file, key: `${plan.prefix('redirect')}${hashOf(input)}` }));
      }),
    ),
    sitemap: [],
  }));
}

/** The last part: pages made from the whole catalogue and files made from every part before it, planned again every time. */
function sitePart(plan: Planner, summaries: EventSummary[]): Part {
  return { name: 'site', talks: [], pages: [...sitePages(plan, summaries), ...siteFiles(plan)], sitemap: [] };
}

/** The redirects of the items' folders, the events page (from the events' `summaries`, newest first), the home page, and the API's, search and not-found pages. */
function sitePages(plan: Planner, summaries: EventSummary[]): PageJob[] {
  const { live, newestFirst, speakers, tags, languages } = plan.index;
  const pages: PageJob[] = [];
  // An item's address cut back to its folder (/speaker/ of /speaker/<slug>/, /video/ of a short link) leads to the index of its kind.
  for (const [folder, title, target] of FOLDER_INDEXES) {
    const input = { title, target };
    pages.push({ kind: 'redirect', input, path: `${folder}/index.html`, key: `${plan.prefix('redirect')}${hashOf(input)}` });
  }
  pages.push(plan.page('/events/', 'events', { total: summaries.length, series: bySeries(summaries) }));
  pages.push(
    plan.page('/', 'home', {
      totals: { talks: live.length, events: summaries.length, speakers: speakers.length, tags: tags.length, languages: languages.length },
      newest: newestFirst.slice(0, NEWEST_ON_HOME).map(plan.linkOf),
      events: summaries.slice(0, EVENTS_ON_HOME),
    }),
  );
  const example = newestFirst[0];
  pages.push(plan.page('/api/', 'api', { example: example ? { id: example.id, title: example.title, language: example.language } : null, total: live.length }));
  const pagesIndex = published(plan.catalogue.pages).length > 0 ? `/${PAGES_INDEX}/` : null;
  // Without talks their one shard is an empty index, which Pagefind cannot search: a site of pages alone lists none.
  pages.push(plan.page('/search/', 'search', { total: live.length, indexes: live.length > 0 ? searchIndexes(live.length, plan.shardSize) : [], pages: pagesIndex }));
  pages.push({ kind: 'page', template: 'not-found', input: {}, path: '404.html', key: plan.prefix('not-found'), compress: plan.compress });
  return pages;
}

/** The events in their series (see seriesOf), each series where its first event is in `summaries`. */
function bySeries(summaries: EventSummary[]): PageInputs['events']['series'] {
  const series = new Map<string, EventSummary[]>();
  for (const summary of summaries) {
    const name = seriesOf(summary.title);
    (series.get(name) ?? series.set(name, []).get(name)!).push(summary);
  }
  return [...series].map(([name, list]) => ({ name, id: termSlug(name), events: list }));
}

/** The sitemaps of the parts given before (see Planner.give), robots.txt and the static hosts' configurations. */
function siteFiles(plan: Planner): PageJob[] {
  const { code } = plan.prints;
  const lastmod = lastUpdated(plan.index.live);
  const head = ['/', '/events/', '/speakers/', '/tags/', '/languages/', '/api/'].map((sitePath) => ({ path: sitePath, lastmod }));
  const files = planSitemaps([head, ...plan.sitemaps], code, plan.compress);
  files.push({ kind: 'robots', path: 'robots.txt', key: code });
  // The code's fingerprint holds the base URL the files are written for, as robots.txt's key does.
  for (const name of HOST_FILES) files.push({ kind: 'host-config', input: name, path: name, key: code });
  return files;
}

/**
 * The search index's shards, each with its talks newest first. Planned
 * apart from the pages, so that the index can be built while they are
 * planned. Keyed by the records' own text, not by the files they come from:
 * Pagefind rebuilds a shard whole, so a change to what search does not hold
 * (a duration, a video URL, the rest of a description) must not set it off.
 * A record's key is looked up in the last plan's `known` keys by the files it
 * is made from, and only worked out for a talk whose files changed: making
 * and hashing every record took a one-talk build of the pyvideo import half
 * a second.
 */
export function planSearch(catalogue: Catalogue, code: string, known: ReadonlyMap<string, string> = new Map(), memo?: PlanMemo, shardSize = SEARCH_SHARD_SIZE): SearchPlan {
  const { newestFirst } = indexOf(catalogue, memo);
  const events = new Map(catalogue.events.map((e) => [e.slug, e]));
  const keys = new Map<string, string>();
  /** Records made to be keyed, for the shards to build: on a first build, all of them. */
  const made = new Map<CatalogueTalk, SearchRecord>();
  const keyOf = (talk: CatalogueTalk) => {
    const origin = originOf(talk, events);
    let key = known.get(origin);
    if (key === undefined) {
      const record = searchRecord(talk);
      made.set(talk, record);
      key = hashOf(record);
    }
    keys.set(origin, key);
    return key;
  };
  const shards: SearchShard[] = [];
  const total = newestFirst.length;
  // Counted from the oldest talk (see searchIndexes): shard n holds the talks ranked n × size onwards, oldest first.
  for (let n = 0; n < shardCount(total, shardSize); n++) {
    const talks = newestFirst.slice(Math.max(0, total - (n + 1) * shardSize), total - n * shardSize);
    // Hashed at once: an update per record costs more than the hashing.
    shards.push({ dir: shardDir(n), key: `${code}${hash('sha1', talks.map(keyOf).join(''), 'base64url').slice(0, 16)}`, talks, pages: [] });
  }
  const pages = published(catalogue.pages);
  if (pages.length > 0) shards.push({ dir: PAGES_INDEX, key: `${code}${hashOf(pages.map(pageSearchRecord))}`, talks: [], pages });
  return { shards, keys, records: (shard) => [...shard.talks.map((talk) => made.get(talk) ?? searchRecord(talk)), ...shard.pages.map(pageSearchRecord)] };
}

/** What lists of terms show of each: its slug, its name and how many talks it has. */
function termFacts(terms: Term<CatalogueTalk>[]): unknown[] {
  // Once per list: the speakers index and the speakers' API list are both made from them.
  return cached(facts, terms, () => {
    const made: unknown[] = [];
    for (const term of terms) made.push(term.slug, term.names[0], term.items.length);
    return made;
  });
}

const facts = new WeakMap<Term<CatalogueTalk>[], unknown[]>();

/**
 * The sitemaps and their index. A sitemap is keyed by the spans of the parts'
 * entries it holds, each part's entries hashed once: a memo gives the same
 * entries again for a part an edit did not touch.
 */
function planSitemaps(lists: SitemapEntry[][], code: string, compress: boolean): PageJob[] {
  const chunks = sitemapChunks(lists);
  const jobs = chunks.map((chunk, i): PageJob => {
    const key = createHash('sha1');
    for (const { list, start, end } of chunk.spans) key.update(`${entriesKey(lists[list]!)}${start}/${end}\n`);
    return { kind: 'sitemap', input: chunk.entries, path: sitemapFile(i + 1), key: `${code}${key.digest('base64url').slice(0, 16)}`, compress };
  });
  const paths = chunks.map((_, i) => `/${sitemapFile(i + 1)}`);
  jobs.push({ kind: 'sitemap-index', input: paths, path: 'sitemap.xml', key: `${code}${hashOf(paths)}`, compress });
  return jobs;
}

const entriesKey = (entries: SitemapEntry[]) => cached(entryKeys, entries, () => hashOf(entries));
const entryKeys = new WeakMap<SitemapEntry[], string>();

const termLink = (term: Term<unknown>, pathOf: (slug: string) => string): TermLink => ({ name: term.names[0]!, url: pathOf(term.slug), count: term.items.length });

const ROOT_ORDER = new Intl.Collator('und');

/**
 * Terms in A–Z sections, 0-9 first and Other last; letters link to anchors on the same page, or to
 * `/<base><letter>/` pages. Sections are gathered, not cut where the initial changes: the slugs of
 * names not spelt in Latin letters (`u-…`) sort among the U's but belong to Other.
 */
function byInitial(terms: Term<unknown>[], pathOf: (slug: string) => string, pageBase: string) {
  const sections = new Map<string, PageInputs['terms']['groups'][number]>();
  for (const term of terms) {
    const id = initialOf(term.slug);
    cached(sections, id, () => ({ heading: id === 'other' ? 'Other' : id.toUpperCase(), id, terms: [] })).terms.push(termLink(term, pathOf));
  }
  // Other's slugs are hashes: its names go in the order of their own scripts (Unicode's root collation), not the hashes'.
  sections.get('other')?.terms.sort((a, b) => ROOT_ORDER.compare(a.name, b.name) || (a.url < b.url ? -1 : 1));
  const rank = (id: string) => (id === '0-9' ? '' : id === 'other' ? '~' : id);
  const groups = [...sections.values()].sort((a, b) => (rank(a.id) < rank(b.id) ? -1 : 1));
  return { letters: groups.map((g) => ({ label: g.heading, url: pageBase ? `${pageBase}${g.id}/` : `#${g.id}`, count: g.terms.length })), groups };
}

function eventFields(event: CatalogueEvent) {
  return { slug: event.slug, title: event.title, start_date: event.start_date, end_date: event.end_date, url: event.url, description: event.description, name: event.name };
}

function feedItem(talk: CatalogueTalk): FeedItem {
  return {
    id: talk.id,
    title: talk.title,
    url: talkPath(talk),
    language: talk.language,
    recorded: talk.recorded,
    updated: talk.updated,
    speakers: named(talk.speakers),
    category: talk.category,
    tags: named(talk.tags),
    summary: talk.blurb,
    enclosure: talk.enclosure,
  };
}
