// Feeds of talks, newest first, in the three formats feed readers speak:
// Atom (RFC 4287), RSS 2.0 and JSON Feed 1.1. Written from strings, as the
// sitemaps are, and as Jekyll's and Eleventy's feed plugins write theirs from
// templates: the catalogue has a feed per event, speaker and tag (48,000 on
// the pyvideo import), and a feed library's object-to-XML pass took 40% of a
// build's rendering (4.8 s against 0.4 s; see docs/performance.md).
import { isolatedAmongWords } from './bidi.ts';
import { lastUpdated, shortLinkPath } from './collections.ts';
import type { CatalogueTalk } from './load.ts';
import { nameLanguageTag, textLanguageTag } from './languages.ts';
import { escapeMarkup, escapeText, NOT_HTML_TEXT } from './markdown.ts';
import type { SiteInfo } from './render.ts';

export type FeedFormat = 'atom' | 'rss' | 'json';

/** Each feed's file, beside the page it follows. */
export const FEED_FILES: Record<FeedFormat, string> = { atom: 'feed.atom', rss: 'feed.rss', json: 'feed.json' };

export interface FeedItem extends Pick<CatalogueTalk, 'id' | 'title' | 'recorded' | 'updated' | 'category' | 'enclosure'> {
  /** Site path of the talk's page. */
  url: string;
  /** The talk's language, by name (`Japanese`): its title's and summary's, unless they are in the site's English (see textLanguageTag). */
  language: string;
  speakers: readonly string[];
  tags: readonly string[];
  /** The talk's blurb. */
  summary: string;
}

export interface FeedInput {
  title: string;
  description: string;
  /** Site path of the page the feed follows. */
  page: string;
  /** Site path of the folder the feed files live in. */
  path: string;
  items: FeedItem[];
}

const GENERATOR = 'video-catalogue';
const RIGHTS = 'The talks belong to their speakers; see each talk for its licence.';

/** Dates in records carry no zone: they are UTC. */
const utc = (dateTime: string) => new Date(`${dateTime.length === 10 ? `${dateTime}T00:00:00` : dateTime}Z`);

/**
 * Characters XML 1.0 cannot hold, even escaped (a feed with one is not XML, and readers refuse it whole: form
 * feed too, which HTML allows), and those it discourages (2.2), which the HTML a feed carries (an Atom summary,
 * an RSS description, JSON Feed's content_html) calls a parse error, as the site's pages drop them.
 */
const NOT_XML = new RegExp(`[${NOT_HTML_TEXT}\\u000C]`, 'g');

/** Text in XML: element content and quoted attributes; in JSON Feed, its HTML. */
const x = (text: string) => escapeMarkup(text.replace(NOT_XML, ''));
/**
 * Talk text where a reader takes HTML (Atom's type="html", RSS titles and
 * descriptions, the channel's as well as its items': a feed's title names its
 * event, speaker or tag): talk text is plain, so it is escaped as HTML, then as XML.
 * Quotes only as XML: a reader that shows an RSS title as the plain text the RSS
 * Advisory Board says it is would show `&#39;` for each apostrophe.
 */
const html = (text: string) => x(escapeText(text));

/**
 * An entry's id, which must never change (RFC 4287 4.2.6; RSS's guid and JSON Feed's id alike): the
 * address of the talk's short link, which leads to its page, and not the page's own, which changes with its slug.
 */
const idOf = (item: FeedItem, abs: (p: string) => string) => abs(shortLinkPath(item.id));

/** What RFC 3986 has in no URL's path, query or fragment and WHATWG's serialiser leaves as written. */
const NOT_IN_URLS = /[[\]^`{|}]/g;

/**
 * A media file's URL as URL parsers read it, where the content has it as written (and so do the API and
 * the talk's page, whose browser reads it so): a reader that parses an enclosure by RFC 3986, as most do,
 * refuses letters of other scripts and the `|`, `{` or `^` the schema takes, as a browser takes them.
 * WHATWG's serialisation (the host in punycode, letters percent-encoded), and the rest of what RFC 3986
 * refuses percent-encoded too.
 */
function mediaUrl(written: string): string {
  const url = new URL(written);
  const rest = `${url.pathname}${url.search}${url.hash}`;
  return `${url.href.slice(0, url.href.length - rest.length)}${rest.replace(NOT_IN_URLS, encodeURIComponent)}`;
}

/**
 * What a talk without a summary is said to be, in its feeds' items and its page's description: its title and its
 * event's name among words, where the "!" that ends an Arabic name would stand on its other side (isolatedAmongWords).
 */
export const talkAtEvent = (title: string, category: string) => `${isolatedAmongWords(title)}, a talk at ${isolatedAmongWords(category)}`;

/** What an item says when its talk has no summary. */
const summaryOf = (item: FeedItem) => item.summary || talkAtEvent(item.title, item.category);

/** The language of an item's title and of its summary, as the talk's page tags them: a feed is in the site's English, its talks need not be. */
const itemLanguages = (item: FeedItem) => ({ title: textLanguageTag(item.title, item.language), summary: item.summary ? textLanguageTag(item.summary, item.language) : 'en' });
/** The language of a JSON Feed item's content, when it is not the feed's English. */
function contentLanguage(item: FeedItem): string | undefined {
  const tag = textLanguageTag(item.summary || item.title, item.language);
  return tag === 'en' ? undefined : tag;
}
/** xml:lang for an element of an entry, when it is not the feed's English. */
const xmlLang = (tag: string) => (tag === 'en' ? '' : ` xml:lang="${x(tag)}"`);

/** The feed's own date comes from its items, never the clock: the same content gives the same bytes. */
const feedUpdated = (items: FeedItem[]) => utc(lastUpdated(items) ?? '1970-01-01T00:00:00');

function atom(input: FeedInput, abs: (p: string) => string, siteName: string): string {
  const entries = input.items.map((item) => {
    const url = x(abs(item.url));
    const e = item.enclosure;
    const lang = itemLanguages(item);
    return [
      '<entry>',
      `<title type="html"${xmlLang(lang.title)}>${html(item.title)}</title>`,
      `<id>${x(idOf(item, abs))}</id>`,
      `<link href="${url}"/>`,
      ...(e ? [`<link rel="enclosure" href="${x(mediaUrl(e.url))}" type="${x(e.type)}"${e.length !== null ? ` length="${e.length}"` : ''}/>`] : []),
      `<updated>${utc(item.updated).toISOString()}</updated>`,
      ...(item.recorded ? [`<published>${utc(item.recorded).toISOString()}</published>`] : []),
      `<summary type="html"${xmlLang(lang.summary)}>${html(summaryOf(item))}</summary>`,
      ...item.speakers.map((name) => `<author${xmlLang(nameLanguageTag(name, item.language) ?? 'en')}><name>${x(name)}</name></author>`),
      ...[item.category, ...item.tags].map((term) => `<category term="${x(term)}"/>`),
      '</entry>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `<id>${x(abs(input.page))}</id>`,
    `<title>${x(input.title)}</title>`,
    `<subtitle>${x(input.description)}</subtitle>`,
    `<updated>${feedUpdated(input.items).toISOString()}</updated>`,
    `<generator>${GENERATOR}</generator>`,
    `<rights>${x(RIGHTS)}</rights>`,
    // The site: the author of the talks that name no speaker (Atom wants one for every entry).
    ...(input.items.some((item) => item.speakers.length === 0) ? [`<author><name>${x(siteName)}</name></author>`] : []),
    `<link rel="alternate" type="text/html" href="${x(abs(input.page))}"/>`,
    `<link rel="self" type="application/atom+xml" href="${x(abs(`${input.path}${FEED_FILES.atom}`))}"/>`,
    ...entries,
    '</feed>\n',
  ].join('\n');
}

function rss(input: FeedInput, abs: (p: string) => string): string {
  const items = input.items.map((item) => {
    const url = x(abs(item.url));
    const e = item.enclosure;
    return [
      '<item>',
      `<title>${html(item.title)}</title>`,
      `<link>${url}</link>`,
      // A permalink (RSS's default): the short link opens the talk's page.
      `<guid>${x(idOf(item, abs))}</guid>`,
      `<pubDate>${utc(item.recorded ?? item.updated).toUTCString()}</pubDate>`,
      `<description>${html(summaryOf(item))}</description>`,
      // RSS's own <author> takes an e-mail address: names go in Dublin Core's creator.
      ...item.speakers.map((name) => `<dc:creator>${x(name)}</dc:creator>`),
      ...[item.category, ...item.tags].map((term) => `<category>${x(term)}</category>`),
      ...(e ? [`<enclosure url="${x(mediaUrl(e.url))}" length="${e.length ?? 0}" type="${x(e.type)}"/>`] : []),
      '</item>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    '<channel>',
    `<title>${html(input.title)}</title>`,
    `<link>${x(abs(input.page))}</link>`,
    `<description>${html(input.description)}</description>`,
    `<lastBuildDate>${feedUpdated(input.items).toUTCString()}</lastBuildDate>`,
    '<docs>https://www.rssboard.org/rss-specification</docs>',
    `<generator>${GENERATOR}</generator>`,
    '<language>en</language>',
    `<copyright>${x(RIGHTS)}</copyright>`,
    `<atom:link href="${x(abs(`${input.path}${FEED_FILES.rss}`))}" rel="self" type="application/rss+xml"/>`,
    ...items,
    '</channel>',
    '</rss>\n',
  ].join('\n');
}

function json(input: FeedInput, abs: (p: string) => string): string {
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: input.title,
    home_page_url: abs(input.page),
    feed_url: abs(`${input.path}${FEED_FILES.json}`),
    description: input.description,
    language: 'en',
    items: input.items.map((item) => {
      const e = item.enclosure;
      return {
        id: idOf(item, abs),
        url: abs(item.url),
        // JSON Feed's title is plain text; its content_html is HTML.
        title: item.title,
        content_html: x(summaryOf(item)),
        // One language an item in JSON Feed: its content's (the summary's, else the title's), when it is not the feed's English.
        language: contentLanguage(item),
        date_published: item.recorded ? utc(item.recorded).toISOString() : undefined,
        date_modified: utc(item.updated).toISOString(),
        authors: item.speakers.length > 0 ? item.speakers.map((name) => ({ name })) : undefined,
        tags: [item.category, ...item.tags],
        attachments: e ? [{ url: mediaUrl(e.url), mime_type: e.type, ...(e.length !== null ? { size_in_bytes: e.length } : {}) }] : undefined,
      };
    }),
  };
  return `${JSON.stringify(feed)}\n`;
}

const WRITERS: Record<FeedFormat, (input: FeedInput, abs: (p: string) => string, siteName: string) => string> = { atom, rss, json };

export function renderFeed(format: FeedFormat, input: FeedInput, site: Pick<SiteInfo, 'baseUrl' | 'name'>): string {
  return WRITERS[format](input, (p) => `${site.baseUrl}${p}`, site.name);
}
