// Rendering every output made from the catalogue in memory but the API records:
// the human site's pages, the API's lists, feeds, sitemaps and the host files. Pure
// functions from records to strings; templates arrive as strings, nothing here reads the disk.
import type { Eta } from 'eta/core';
import { decodeHTMLAttribute } from 'entities';
import { isolated, isolatedAmongWords } from './bidi.ts';
import { categoryJson, categoryListJson, speakerListJson } from './api-lists.ts';
import { basePathOf, rebased } from './base-path.ts';
import type { CatalogueEvent, CataloguePage, CatalogueTalk, FullTalk } from './load.ts';
import { eventPath, languagePath, named, pagePath, speakerPath, tagPath, talkPath, termSlug } from './collections.ts';
import { renderFeed, talkAtEvent } from './feeds.ts';
import { recordFile } from './headers.ts';
import { hostFile } from './hosting.ts';
import type { PageJob } from './plan.ts';
import { robotsTxt, sitemapIndexXml, sitemapXml } from './sitemap.ts';
import { excerpt, linkedText, NOT_IN_HTML, PLAIN_LIST_MARK, renderMarkdown, sanitiseEmbed, type HeadingTop } from './markdown.ts';
import { sitePagePath } from './pages.ts';
import { API_FIELDS, inertJson } from './record.ts';
import { languageTag, nameLanguageTag, textLanguageTag } from './languages.ts';
import { FORMATS, PLAYABLE_FIRST, VIDEO_MIME, type Format } from './schema.ts';
import { counted, formatCount } from './cli.ts';
import { byPosition, loadTemplates, newEta, reasonOf, RenderError, renderFailureAt, templateFile, TemplateError } from './template-errors.ts';
import { TEMPLATE_NAMES, type Templates } from './theme.ts';

/** The templates that make whole pages from a plan's page jobs. */
export type PageTemplate = Exclude<(typeof TEMPLATE_NAMES)[number], 'layout' | 'talk' | 'redirect'>;

/** What pages need to know about the site itself. */
export interface SiteInfo {
  /**
   * Absolute URL of the site's root, without the trailing slash: canonical links, feeds and sitemaps need it. Its path,
   * if any, is the folder of its host the site is served from (base-path.ts): templates are given it as `site.basePath`.
   */
  baseUrl: string;
  /** The site's own pages that its navigation links to, in order (see navOf). */
  nav: readonly NavLink[];
  /** The site's name (content/_site.yaml). */
  name: string;
  /** Where a content file is edited, `{path}` standing for its path in the content folder (content/_site.yaml's edit_url). */
  editUrl?: string;
}

/** The address at which the content file `source` (its path in the content folder) is edited, if the site says where. */
export function editLink(site: Pick<SiteInfo, 'editUrl'>, source: string): string | null {
  return site.editUrl ? site.editUrl.replaceAll('{path}', source.split('/').map(encodeURIComponent).join('/')) : null;
}

/** A link in the site's navigation to one of its own pages. */
export interface NavLink {
  title: string;
  url: string;
}

const apiPath = (talk: { id: number }) => `/${recordFile(talk.id)}`;

/** Seconds as H:MM:SS; '' when unknown. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** Bytes in decimal units, as file managers show them. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '';
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

export type Player =
  | { kind: 'video'; sources: { src: string; type: string }[]; poster: string }
  | { kind: 'iframe'; src: string; host: string }
  | { kind: 'embed'; html: string; src: string | undefined }
  | { kind: 'thumbnail'; src: string; href: string };

const YOUTUBE_ID = /^[\w-]{11}$/;

/**
 * The privacy-friendly embed address of a video on YouTube (youtube-nocookie),
 * Vimeo or a PeerTube instance, from the address of its page; null for other hosts.
 */
export function embedFor(sourceUrl: string): { src: string; host: string } | null {
  let url: URL;
  try {
    url = new URL(sourceUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.replace(/^(www|m)\./, '');
  const parts = url.pathname.split('/').filter(Boolean);
  let youtube: string | undefined;
  if (host === 'youtu.be') youtube = parts[0];
  else if (host === 'youtube.com' || host === 'youtube-nocookie.com') youtube = parts[0] === 'watch' ? (url.searchParams.get('v') ?? undefined) : ['embed', 'live', 'shorts', 'v'].includes(parts[0] ?? '') ? parts[1] : undefined;
  if (youtube !== undefined) return YOUTUBE_ID.test(youtube) ? { src: `https://www.youtube-nocookie.com/embed/${youtube}`, host: 'YouTube' } : null;
  if (host === 'vimeo.com' || host === 'player.vimeo.com') {
    const id = parts.find((p) => /^\d+$/.test(p));
    return id ? { src: `https://player.vimeo.com/video/${id}`, host: 'Vimeo' } : null;
  }
  // PeerTube instances have no common host name, but a recognisable path.
  const peertube = (parts[0] === 'videos' && (parts[1] === 'watch' || parts[1] === 'embed') && parts[2]) || (parts[0] === 'w' && parts[1]);
  if (peertube && /^[\w-]{8,40}$/.test(peertube)) return { src: `https://${url.host}/videos/embed/${peertube}`, host: 'PeerTube' };
  return null;
}

/** A sanitised embed's first iframe's address (sanitize-html writes attributes double-quoted, `&` as `&amp;`). */
function iframeSrc(html: string): string | undefined {
  const src = /<iframe\b[^>]*?\ssrc="([^"]*)"/.exec(html)?.[1];
  return src === undefined ? undefined : decodeHTMLAttribute(src);
}

/**
 * The address of the host's player a page shows, which search engines take as
 * the video's embedUrl and og:video: the iframe made from the source URL, or
 * the embed's own (archive.org and other hosts, 959 talks of the pyvideo
 * import, had neither embedUrl nor contentUrl without it).
 */
const playerUrl = (player: Player | null) => (player?.kind === 'iframe' || player?.kind === 'embed' ? player.src : undefined);

/**
 * Whether a page may load `url`: its policy (headers.ts) takes media and images from https only, as
 * a browser on an https site would (mixed content). An http file stays a link among the downloads.
 */
const loadable = (url: string | null | undefined): url is string => !!url && /^https:/i.test(url);

/**
 * The one player a talk page shows: its own files first (no third party), then the host's player, then
 * the thumbnail. Files over http, which the page could not play (540 talks of the pyvideo import, most
 * of them also on YouTube), leave the player to the host.
 */
export function playerFor(talk: FullTalk): Player | null {
  const sources = PLAYABLE_FIRST.filter((f) => loadable(talk[`video_${f}_url`]) && !talk[`video_${f}_download_only`]).map((f) => ({
    src: talk[`video_${f}_url`]!,
    type: VIDEO_MIME[f],
  }));
  if (sources.length > 0) return { kind: 'video', sources, poster: loadable(talk.thumbnail_url) ? talk.thumbnail_url : '' };
  const iframe = embedFor(talk.source_url);
  if (iframe) return { kind: 'iframe', ...iframe };
  const embed = sanitiseEmbed(talk.embed, `Video player: ${isolatedAmongWords(talk.title)}`);
  if (embed) return { kind: 'embed', html: embed, src: iframeSrc(embed) };
  if (loadable(talk.thumbnail_url)) return { kind: 'thumbnail', src: talk.thumbnail_url, href: talk.source_url };
  return null;
}

/** A file of the talk to download; `size` as formatBytes writes it. */
export interface Download {
  format: string;
  url: string;
  size: string;
  downloadOnly: FullTalk[`video_${Format}_download_only`];
}

/** Each format's name as its makers write it: WebM, not WEBM. */
const FORMAT_NAMES: Record<Format, string> = { ogv: 'OGV', mp4: 'MP4', webm: 'WebM', flv: 'FLV' };

function downloadsFor(talk: FullTalk): Download[] {
  return FORMATS.filter((f) => talk[`video_${f}_url`]).map((f) => ({
    format: FORMAT_NAMES[f],
    url: talk[`video_${f}_url`]!,
    size: formatBytes(talk[`video_${f}_length`]),
    downloadOnly: talk[`video_${f}_download_only`],
  }));
}

/** A line of plain text that starts an item of a list: it keeps a line of its own. */
const LIST_ITEM = new RegExp(String.raw`^\s*${PLAIN_LIST_MARK}\s`);

/**
 * Plain text split into paragraphs at blank lines, and each into its lines, which the template keeps.
 * A line that does not start a list item continues the one before it, as a wrapped line does in
 * Markdown or reStructuredText: 927 summaries of the pyvideo import are wrapped at about 72 columns.
 */
export function paragraphs(text: string): string[][] {
  return text
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((p) => {
      const lines: string[] = [];
      for (const line of p.split(/\r?\n/)) {
        if (lines.length === 0 || LIST_ITEM.test(line)) lines.push(line);
        else lines.push(`${lines.pop()!.trimEnd()} ${line.trim()}`);
      }
      return lines;
    })
    .filter((lines) => lines.some((l) => l.trim() !== ''));
}

/** True when two texts have the same words, however they are spaced and wrapped. */
function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.trim().split(/\s+/).join(' ');
  return words(a) === words(b);
}

/** A talk as listed on other pages: just what a list item shows, its speakers as pages name them (see named). */
export type TalkLink = Pick<CatalogueTalk, 'id' | 'slug' | 'title' | 'language' | 'duration' | 'recorded' | 'event' | 'category'> & { speakers: readonly string[] };

export function talkLink(talk: CatalogueTalk): TalkLink {
  return {
    id: talk.id,
    slug: talk.slug,
    title: talk.title,
    language: talk.language,
    speakers: named(talk.speakers),
    duration: talk.duration,
    recorded: talk.recorded,
    event: talk.event,
    category: talk.category,
  };
}

type EventInfo = Pick<CatalogueEvent, 'slug' | 'title' | 'start_date' | 'end_date'>;
export type EventSummary = EventInfo & {
  talkCount: number;
  /** Its talks' first recording date: what an event without a start_date is ordered by (528 of the pyvideo import's 540). */
  recordedFrom: string | null;
  /** Its talks' last recording date: a meetup's list line spans its years (ChiPy's 2008 to 2024), as its page does. */
  recordedTo: string | null;
};

export interface TalkPageInput {
  talk: FullTalk;
  event: EventInfo;
  prev?: TalkLink;
  next?: TalkLink;
  /** Talks near this one in the event's programme. */
  others: TalkLink[];
}

/** A speaker, tag or language in an index. */
export interface TermLink {
  name: string;
  url: string;
  count: number;
  /** The BCP 47 tag of its name where it is not the page's English (see nameLanguageTag): templates get it, plans do not. */
  lang?: string;
}


/** Which page of a list a page is, and the paths of the pages before and after it. */
type ListPage = { number: number; count: number; prev?: string; next?: string };

/** The input of each page template. */
export interface PageInputs {
  home: { totals: { talks: number; events: number; speakers: number; tags: number; languages: number }; newest: TalkLink[]; events: EventSummary[] };
  events: { total: number; series: { name: string; id: string; events: EventSummary[] }[] };
  /** One page of an event's programme (see EVENT_PAGE_SIZE): `talks` are this page's, `total` and the recording dates the whole event's. */
  event: { event: EventInfo & Pick<CatalogueEvent, 'url' | 'description' | 'name'>; recordedFrom: string | null; recordedTo: string | null; total: number; page: ListPage; talks: TalkLink[]; feeds: string };
  /** One page of talks: all of them, or a speaker's, a tag's, a language's. */
  listing: {
    title: string;
    kind: string;
    /** Every spelling filed under this page. */
    names: string[];
    path: string;
    total: number;
    page: ListPage;
    talks: TalkLink[];
    feeds?: string;
  };
  /**
   * An index of speakers, tags or languages, or one letter's page of it, or one page of a letter's (see TERMS_PAGE_SIZE):
   * `path` is the index's or the letter's, `index` the index's, `total` counts the index's terms or the letter's.
   */
  terms: { title: string; path: string; index: string; total: number; page: ListPage; letters: { label: string; url: string; count: number }[]; groups: { heading: string; id: string; terms: TermLink[] }[] };
  /** `indexes`: the search index's shards, newest first (see searchIndexes); `pages`: the site's pages' index, if it has pages. */
  search: { total: number; indexes: string[]; pages: string | null };
  api: { example: { id: number; title: string; language: string } | null; total: number };
  'not-found': Record<string, never>;
  /** One of the site's own pages; `body` is its Markdown. */
  page: Pick<CataloguePage, 'slug' | 'title' | 'description' | 'body' | 'name'>;
}

/** A talk in a template's list: `home`'s `newest`, `event`'s and `listing`'s `talks`, `talk`'s `others`, `prev` and `next`. */
type TalkItem = Pick<TalkLink, 'title' | 'speakers' | 'recorded' | 'category'> & {
  url: string;
  /** The BCP 47 tag of its title (see textLanguageTag): all a list shows of the talk's text. */
  lang: string;
  /** The BCP 47 tag of each of its speakers' names, or undefined for one in the page's English (see nameLanguageTag). */
  speakerLangs: (string | undefined)[];
  /** H:MM:SS, or '' when unknown. */
  duration: string;
  eventUrl: string;
};

/** An event in a template's list: `home`'s `events`, each of `events`' `series[].events`. */
export type EventItem = Pick<EventSummary, 'title' | 'talkCount' | 'recordedFrom' | 'recordedTo'> & { url: string; start: EventSummary['start_date']; end: EventSummary['end_date'] };

/** A page's input as its template gets it: the fields in `Changed` remade for the page, and its absolute address. */
type Viewed<Input, Changed = Record<never, never>> = Omit<Input, keyof Changed> & Changed & { canonical: string };

export type HomeView = Viewed<PageInputs['home'], { newest: TalkItem[]; events: EventItem[] }>;
export type EventsView = Viewed<PageInputs['events'], { series: (Omit<PageInputs['events']['series'][number], 'events'> & { events: EventItem[] })[] }>;
export interface EventView {
  title: string;
  url: string;
  canonical: string;
  start: CatalogueEvent['start_date'];
  end: CatalogueEvent['end_date'];
  /** Its talks' first and last recording dates: what a page can show of an event without dates of its own. */
  recordedFrom: string | null;
  recordedTo: string | null;
  website: CatalogueEvent['url'];
  /** HTML, from the event's Markdown. */
  description: string;
  /** Its talks, all of them: `talks` are those of this page. */
  total: number;
  page: PageLinks;
  /** This page's talks by the day they were recorded, in the programme's order (undated talks last, as it sorts them). */
  days: RecordingDay[];
  feeds: PageInputs['event']['feeds'];
  /** Where its category file is edited (see editLink), or null. */
  editUrl: string | null;
}
export type ListingView = Viewed<PageInputs['listing'], { talks: TalkItem[]; page: PageLinks }> & {
  /**
   * On a speaker's page, the BCP 47 tag of their name, its title, where it is not the page's English (see nameLanguageTag):
   * the language of the page's talks where they are all in one and the name has its letters. A tag's title is the site's words around it.
   */
  lang: string | undefined;
  /** The tag of each of `names`, where it is not the page's English. */
  nameLangs: (string | undefined)[];
};

/** Talks of an event recorded on one day (`date` null for those without a date). */
export interface RecordingDay {
  date: string | null;
  talks: TalkItem[];
}

/** Talks in the programme's order, cut where the recording date changes: the programme sorts by date first, so each day is one run. */
export function byRecordingDay(talks: TalkItem[]): RecordingDay[] {
  const days: RecordingDay[] = [];
  for (const talk of talks) {
    const last = days.at(-1);
    if (last && last.date === talk.recorded) last.talks.push(talk);
    else days.push({ date: talk.recorded, talks: [talk] });
  }
  return days;
}

/** A page of a list, with links to jump by: the first and last pages, and the pages near it (the list of all talks has 435 on the pyvideo import). */
export type PageLinks = ListPage & { first: string; last: string; near: { number: number; url: string }[] };

/** Pages this far before and after a page are linked from it. */
const NEAR_PAGES = 2;

function pageLinks(path: string, page: ListPage): PageLinks {
  const near: PageLinks['near'] = [];
  for (let n = Math.max(1, page.number - NEAR_PAGES); n <= Math.min(page.count, page.number + NEAR_PAGES); n++) near.push({ number: n, url: pagePath(path, n) });
  return { ...page, first: pagePath(path, 1), last: pagePath(path, page.count), near };
}
export type TermsView = Viewed<PageInputs['terms'], { page: PageLinks }>;
export type SearchView = Viewed<PageInputs['search']>;
export type ApiView = Viewed<PageInputs['api'], { example: (NonNullable<PageInputs['api']['example']> & { url: string; lang: string }) | null; origin: string; fields: typeof API_FIELDS }>;
export type NotFoundView = PageInputs['not-found'];
export interface SitePageView extends Pick<PageInputs['page'], 'description'> {
  title: string;
  url: string;
  canonical: string;
  /** HTML, from the page's Markdown. */
  content: string;
  /** Where its file is edited (see editLink), or null. */
  editUrl: string | null;
}
export interface RedirectView {
  title: string;
  target: string;
  canonical: string;
}

/**
 * Each template's `it`, by the template's name, without the `site` every one also gets. The layout
 * is not here: it gets the page's `it`, with the page's HTML as `body` and what the page passed to layout().
 */
export interface TemplateData {
  home: HomeView;
  events: EventsView;
  event: EventView;
  listing: ListingView;
  terms: TermsView;
  talk: TalkView;
  redirect: RedirectView;
  search: SearchView;
  api: ApiView;
  'not-found': NotFoundView;
  page: SitePageView;
}

function listItem(link: TalkLink): TalkItem {
  return {
    title: link.title,
    url: talkPath(link),
    lang: textLanguageTag(link.title, link.language),
    speakers: link.speakers,
    speakerLangs: link.speakers.map((name) => nameLanguageTag(name, link.language)),
    duration: formatDuration(link.duration),
    recorded: link.recorded,
    category: link.category,
    eventUrl: eventPath(link.event),
  };
}

/** ISO 8601 duration, as schema.org wants it. */
function isoDuration(seconds: number | null): string | undefined {
  if (seconds === null) return undefined;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${seconds % 60 || (!h && !m) ? `${seconds % 60}S` : ''}`;
}

/** schema.org VideoObject for search engines; inert JSON, so no text in it can close its script element. */
function videoObject(talk: FullTalk, url: string, file: string | undefined, player: Player | null, description: string): string {
  const speakers = named(talk.speakers);
  return inertJson({
    '@context': 'https://schema.org',
    '@type': 'VideoObject',
    name: talk.title,
    description,
    url,
    thumbnailUrl: talk.thumbnail_url ? [talk.thumbnail_url] : undefined,
    // When the talk came to this catalogue (an import's time for all of pyvideo's); when it was given is the date the video was made.
    uploadDate: `${talk.added}Z`,
    dateCreated: talk.recorded ?? undefined,
    duration: isoDuration(talk.duration),
    inLanguage: languageTag(talk.language),
    contentUrl: file,
    embedUrl: playerUrl(player),
    keywords: named(talk.tags).join(', ') || undefined,
    actor: speakers.length ? speakers.map((name) => ({ '@type': 'Person', name })) : undefined,
  });
}

/** A speaker or tag of a talk, linked to its page, with the BCP 47 tag of its name where it is not the page's English (see nameLanguageTag). */
type TalkTerm = Pick<TermLink, 'name' | 'url' | 'lang'>;

export interface TalkView extends Pick<FullTalk, 'id' | 'category' | 'recorded' | 'language'> {
  title: string;
  /** The page's title in the browser: the talk's and its event's. */
  pageTitle: string;
  /** The title and the event's name set among the site's words in an attribute (the player's title, the thumbnail's alt text, the pager's name), which holds no <bdi>. */
  titleAmongWords: string;
  categoryAmongWords: string;
  url: string;
  canonical: string;
  apiUrl: string;
  speakers: TalkTerm[];
  eventUrl: string;
  duration: string;
  languageUrl: string;
  /** The BCP 47 tag of the talk's language. */
  lang: string;
  /** The BCP 47 tags of its title, summary and description: each may be in English where the talk is not (see textLanguageTag). */
  titleLang: string;
  summaryLang: string;
  descriptionLang: string;
  summary: string[][];
  /** HTML, from the talk's Markdown. */
  description: string;
  metaDescription: string;
  player: Player | null;
  downloads: Download[];
  thumbnail: FullTalk['thumbnail_url'];
  sourceUrl: FullTalk['source_url'];
  tags: TalkTerm[];
  related: FullTalk['related_urls'];
  copyright: FullTalk['copyright_text'];
  qualityNotes: FullTalk['quality_notes'];
  prev: TalkItem | undefined;
  next: TalkItem | undefined;
  others: TalkItem[];
  /** `[property, content]` pairs. */
  openGraph: string[][];
  /** Inert JSON for a `<script type="application/ld+json">`. */
  jsonLd: string;
  /** Where its file is edited (see editLink), or null. */
  editUrl: string | null;
}

export function talkView({ talk, event, prev, next, others }: TalkPageInput, site: SiteInfo): TalkView {
  const url = talkPath(talk);
  const player = playerFor(talk);
  // Search engines show about 160 characters of a description; cut from the catalogue's excerpt, not from the whole text again.
  const titleAmongWords = isolatedAmongWords(talk.title);
  const categoryAmongWords = isolatedAmongWords(talk.category);
  const descriptionLang = textLanguageTag(talk.description, talk.language);
  const description = excerpt(talk.blurb, 160) || talkAtEvent(talk.title, talk.category);
  const image = talk.thumbnail_url;
  // The file a feed encloses: the first playable format's, over https first.
  const file = talk.enclosure?.url;
  const video = file ?? playerUrl(player) ?? '';
  return {
    id: talk.id,
    title: isolated(talk.title),
    // Many talks share a title ("Lightning Talks", "Keynote": 1,671 pages of the pyvideo import): the event tells them apart in a browser's tabs and a search engine's results.
    pageTitle: `${titleAmongWords} · ${categoryAmongWords}`,
    titleAmongWords,
    categoryAmongWords,
    url,
    canonical: `${site.baseUrl}${url}`,
    apiUrl: apiPath(talk),
    speakers: named(talk.speakers).map((name) => ({ name, url: speakerPath(termSlug(name)), lang: nameLanguageTag(name, talk.language) })),
    category: talk.category,
    eventUrl: eventPath(event.slug),
    recorded: talk.recorded,
    duration: formatDuration(talk.duration),
    language: talk.language,
    languageUrl: languagePath(termSlug(talk.language)),
    lang: languageTag(talk.language),
    titleLang: textLanguageTag(talk.title, talk.language),
    summaryLang: textLanguageTag(talk.summary, talk.language),
    descriptionLang,
    // A summary that is its description word for word (13 of the pyvideo import's) is shown once, as the description.
    summary: sameWords(talk.summary, talk.description) ? [] : paragraphs(talk.summary),
    description: siteMarkdown(site, talk.description, 3, descriptionLang),
    metaDescription: description,
    player,
    downloads: downloadsFor(talk),
    thumbnail: image,
    sourceUrl: talk.source_url,
    tags: named(talk.tags).map((name) => ({ name, url: tagPath(termSlug(name)), lang: nameLanguageTag(name, talk.language) })),
    related: talk.related_urls,
    copyright: talk.copyright_text,
    qualityNotes: talk.quality_notes,
    prev: prev && listItem(prev),
    next: next && listItem(next),
    others: others.map(listItem),
    openGraph: [
      ['og:type', 'video.other'],
      ['og:site_name', site.name],
      ['og:title', talk.title],
      ['og:description', description],
      ['og:url', `${site.baseUrl}${url}`],
      ...(image ? [['og:image', image]] : []),
      ...(video ? [['og:video', video]] : []),
    ],
    jsonLd: videoObject(talk, `${site.baseUrl}${url}`, file, player, description),
    editUrl: editLink(site, talk.name),
  };
}

/** A count and its noun with a no-break space between them: a narrow screen wrapped "2 talks" between the two. */
const countedOnOneLine = (n: number, noun: string) => counted(n, noun, '\u00a0');

/** Turns plans into file contents: pages through the templates, feeds and sitemaps through their modules. */
export class SiteRenderer {
  private readonly eta: Eta;
  /** Where a render failed (see renderFailureAt): made on the first failure, never on a page that renders. */
  private failureAt?: ReturnType<typeof renderFailureAt>;
  /** The site as templates see it: with its base path (`/talks`, '' at a host's root), which they write before each of the site's own addresses. */
  private readonly templateSite: SiteInfo & { basePath: string };

  /**
   * `folder` is the templates folder as it was given: errors name the template's file in it, at their places in
   * `written`, the templates as written where `templates` spell an asset's address otherwise (Theme's `written`).
   */
  constructor(
    templates: Templates,
    readonly site: SiteInfo,
    private readonly folder: string,
    private readonly written = templates,
  ) {
    this.eta = newEta();
    this.templateSite = { ...site, basePath: basePathOf(site.baseUrl) };
    for (const name of TEMPLATE_NAMES) if (templates[name] === undefined) throw new TemplateError([`${templateFile(folder, name)} is missing`]);
    // Every template that does not compile is named at once, one a line.
    const failures = loadTemplates(this.eta, templates, folder);
    if (failures.length > 0) throw new TemplateError(byPosition(written === templates ? failures : loadTemplates(newEta(), written, folder)));
  }

  /** Renders with the template `name`; a failure names the template and line it came from, and the page when it is known. */
  private render<N extends keyof TemplateData>(name: N, data: TemplateData[N], page?: string): string {
    // Beside the data, what every template may use: the site, the helper that counts in words and the one that links addresses in text.
    const input = { ...data, site: this.templateSite, counted: countedOnOneLine, formatCount, linked: linkedText };
    try {
      return this.eta.render(`@${name}`, input).replace(NOT_IN_HTML, '');
    } catch (err) {
      this.failureAt ??= renderFailureAt(this.written, this.folder);
      throw new RenderError(this.failureAt(name, input) ?? templateFile(this.folder, name), page, reasonOf(err));
    }
  }

  talk(input: TalkPageInput): string {
    return this.render('talk', talkView(input, this.site), talkPath(input.talk));
  }

  /** A page that sends browsers and crawlers on to `target`: short links and old addresses. */
  redirect(title: string, target: string): string {
    return this.render('redirect', { title: isolated(title), target, canonical: `${this.site.baseUrl}${target}` }, `the redirect to ${target}`);
  }

  /** The bytes of a page job: a page, a feed, a sitemap or robots.txt. */
  output(job: PageJob): string {
    switch (job.kind) {
      case 'page':
        return this.page(job.template, job.input as never, job.path);
      case 'feed':
        return renderFeed(job.format, job.input, this.site);
      case 'sitemap':
        return sitemapXml(job.input, this.site);
      case 'sitemap-index':
        return sitemapIndexXml(job.input, this.site);
      case 'robots':
        return robotsTxt(this.site);
      case 'redirect':
        return this.redirect(job.input.title, job.input.target);
      case 'category-list':
        return categoryListJson(job.input, this.site.baseUrl);
      case 'category':
        return inertJson(categoryJson(job.input, this.site.baseUrl));
      case 'speaker-list':
        return speakerListJson(job.input, this.site.baseUrl);
      case 'host-config':
        return hostFile(job.input, basePathOf(this.site.baseUrl));
      case 'video-list':
        throw new Error('a page of records is made from the record files, once they are written: see writeRecordLists');
    }
  }

  /** `file`, the output path, names the page in an error by its address, as a talk's is named. */
  page<T extends PageTemplate>(template: T, input: PageInputs[T], file?: string): string {
    return this.render(template, pageViews[template](input, this.site), file && `/${file.replace(/(^|\/)index\.html$/, '$1')}`);
  }
}

const canonical = (site: SiteInfo, p: string) => `${site.baseUrl}${p}`;

/** Content's Markdown as a page of the site shows it: its addresses from the site's root under the site's base path. */
const siteMarkdown = (site: SiteInfo, source: string, top: HeadingTop, lang?: string) => rebased(renderMarkdown(source, top, lang), basePathOf(site.baseUrl));

/** A page of the list at `path`: its pager's links, and its own address as the canonical one. */
const paged = (site: SiteInfo, path: string, page: ListPage) => ({ page: pageLinks(path, page), canonical: canonical(site, pagePath(path, page.number)) });

/** What each page template is given of its input: a map rather than a switch, so that each view is checked against its template's type. */
const pageViews: { [T in PageTemplate]: (input: PageInputs[T], site: SiteInfo) => TemplateData[T] } = {
  home: (home, site) => ({ ...home, canonical: canonical(site, '/'), newest: home.newest.map(listItem), events: home.events.map((e) => eventItem(e)) }),
  events: (events, site) => ({ ...events, canonical: canonical(site, '/events/'), series: events.series.map((s) => ({ ...s, events: s.events.map((e) => eventItem(e)) })) }),
  event: ({ event, recordedFrom, recordedTo, total, page, talks, feeds }, site) => ({
    title: isolatedAmongWords(event.title),
    url: eventPath(event.slug),
    ...paged(site, eventPath(event.slug), page),
    start: event.start_date,
    end: event.end_date,
    recordedFrom,
    recordedTo,
    website: event.url,
    description: siteMarkdown(site, event.description, 2),
    total,
    days: byRecordingDay(talks.map(listItem)),
    feeds,
    editUrl: editLink(site, event.name),
  }),
  listing: (listing, site) => {
    // A speaker's or a tag's names are in the language of its talks where they are all in one; else their letters alone tell it.
    const languages = new Set(listing.talks.map((talk) => talk.language));
    const language = languages.size === 1 ? listing.talks[0]!.language : undefined;
    const nameLangs = listing.names.map((name) => nameLanguageTag(name, language));
    return { ...listing, ...paged(site, listing.path, listing.page), talks: listing.talks.map(listItem), lang: listing.kind === 'speaker' ? nameLangs[0] : undefined, nameLangs };
  },
  terms: (terms, site) => ({
    ...terms,
    ...paged(site, terms.path, terms.page),
    groups: terms.groups.map((group) => ({ ...group, terms: group.terms.map((term) => ({ ...term, lang: nameLanguageTag(term.name) })) })),
  }),
  api: (api, site) => ({ ...api, canonical: canonical(site, '/api/'), origin: site.baseUrl, fields: API_FIELDS, example: api.example && { ...api.example, url: apiPath(api.example), lang: textLanguageTag(api.example.title, api.example.language) } }),
  search: (search, site) => ({ ...search, canonical: canonical(site, '/search/') }),
  page: ({ slug, title, description, body, name }, site) => ({
    title: isolatedAmongWords(title),
    url: sitePagePath(slug),
    canonical: canonical(site, sitePagePath(slug)),
    description,
    content: siteMarkdown(site, body, 2),
    editUrl: editLink(site, name),
  }),
  'not-found': () => ({}),
};

function eventItem(e: EventSummary): EventItem {
  return { title: e.title, url: eventPath(e.slug), start: e.start_date, end: e.end_date, recordedFrom: e.recordedFrom, recordedTo: e.recordedTo, talkCount: e.talkCount };
}

