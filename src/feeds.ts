// Feeds of talks, newest first, in the three formats feed readers speak:
// Atom, RSS 2.0 and JSON Feed, written by the `feed` library.
import { Feed, type Item } from 'feed';
import type { Enclosure } from './load.ts';
import { escapeMarkup } from './markdown.ts';
import type { SiteInfo } from './render.ts';

export type FeedFormat = 'atom' | 'rss' | 'json';

/** Each feed's file, beside the page it follows. */
export const FEED_FILES: Record<FeedFormat, string> = { atom: 'feed.atom', rss: 'feed.rss', json: 'feed.json' };

export interface FeedItem {
  id: number;
  title: string;
  /** Site path of the talk's page. */
  url: string;
  recorded: string | null;
  updated: string;
  speakers: string[];
  category: string;
  summary: string;
  enclosure: Enclosure | null;
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

/**
 * A downloadable file, where each format wants it: the library writes RSS's
 * enclosure as given, names Atom's type after the file's extension (so it is
 * passed as a video), and leaves JSON Feed's attachments to an extension.
 */
function enclosureFields(format: FeedFormat, enclosure: Enclosure | null): Partial<Item> {
  if (!enclosure) return {};
  const length = enclosure.length ?? 0;
  if (format === 'rss') return { enclosure: { url: enclosure.url, type: enclosure.type, length } };
  if (format === 'atom') return { video: { url: enclosure.url, length } };
  const attachment = { url: enclosure.url, mime_type: enclosure.type, ...(enclosure.length !== null ? { size_in_bytes: enclosure.length } : {}) };
  return { extensions: [{ name: 'attachments', objects: [attachment] as unknown as Record<string, unknown> }] };
}

/** Dates in records carry no zone: they are UTC. */
const utc = (dateTime: string) => new Date(`${dateTime.length === 10 ? `${dateTime}T00:00:00` : dateTime}Z`);

export function renderFeed(format: FeedFormat, input: FeedInput, site: SiteInfo): string {
  const abs = (p: string) => `${site.baseUrl}${p}`;
  // The feed's own date comes from its items, never the clock: the same content gives the same bytes.
  const updated = input.items.reduce<string | null>((last, item) => (last === null || item.updated > last ? item.updated : last), null);
  const feed = new Feed({
    id: abs(input.page),
    title: input.title,
    description: input.description,
    link: abs(input.page),
    language: 'en',
    updated: utc(updated ?? '1970-01-01T00:00:00'),
    generator: 'video-catalogue',
    copyright: 'The talks belong to their speakers; see each talk for its licence.',
    feedLinks: { atom: abs(`${input.path}${FEED_FILES.atom}`), rss: abs(`${input.path}${FEED_FILES.rss}`), json: abs(`${input.path}${FEED_FILES.json}`) },
  });
  // Atom and RSS readers take titles and summaries as HTML, JSON Feed readers titles as text: talk text is
  // plain, so it is escaped wherever it would be read as markup.
  const html = escapeMarkup;
  const title = format === 'json' ? (text: string) => text : html;
  for (const item of input.items) {
    feed.addItem({
      title: title(item.title),
      id: abs(item.url),
      link: abs(item.url),
      date: utc(item.updated),
      published: item.recorded ? utc(item.recorded) : undefined,
      description: html(item.summary || `${item.title}, a talk at ${item.category}`),
      author: item.speakers.length > 0 ? item.speakers.map((name) => ({ name })) : undefined,
      category: [{ name: item.category }],
      ...enclosureFields(format, item.enclosure),
    });
  }
  // The library indents its output; across tens of thousands of feeds the indentation alone weighs megabytes.
  if (format === 'json') return `${JSON.stringify(JSON.parse(feed.json1()))}\n`;
  return `${(format === 'atom' ? feed.atom1() : feed.rss2()).replace(/>\n\s+</g, '>\n<')}\n`;
}
