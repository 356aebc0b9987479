// Rendering the human site from the catalogue in memory: pure functions from
// records to page strings. Templates arrive as strings; nothing here reads the disk.
import { Eta } from 'eta/core';
import type { CatalogueEvent, CatalogueTalk, FullTalk } from './load.ts';
import { renderMarkdown, sanitiseEmbed } from './markdown.ts';
import { FORMATS, languageTag, type Format } from './schema.ts';

/** Template sources by name (see TEMPLATE_NAMES). */
export type Templates = Record<string, string>;

export const TEMPLATE_NAMES = ['layout', 'home', 'event', 'talk', 'redirect', '404'] as const;

const MIME: Record<Format, string> = { mp4: 'video/mp4', webm: 'video/webm', ogv: 'video/ogg', flv: 'video/x-flv' };
// The order browsers should try sources in: widely playable first.
const PLAY_ORDER: Format[] = ['mp4', 'webm', 'ogv', 'flv'];

export const talkPath = (talk: { id: number; slug: string }) => `/video/${talk.id}/${talk.slug}/`;
export const apiPath = (talk: { id: number }) => `/api/v2/video/${talk.id}`;

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
  | { kind: 'embed'; html: string }
  | { kind: 'thumbnail'; src: string; href: string };

export function playerFor(talk: FullTalk): Player | null {
  const sources = PLAY_ORDER.filter((f) => talk[`video_${f}_url`] && !talk[`video_${f}_download_only`]).map((f) => ({
    src: talk[`video_${f}_url`]!,
    type: MIME[f],
  }));
  if (sources.length > 0) return { kind: 'video', sources, poster: talk.thumbnail_url };
  const embed = sanitiseEmbed(talk.embed);
  if (embed) return { kind: 'embed', html: embed };
  if (talk.thumbnail_url) return { kind: 'thumbnail', src: talk.thumbnail_url, href: talk.source_url };
  return null;
}

export function downloadsFor(talk: FullTalk) {
  return FORMATS.filter((f) => talk[`video_${f}_url`]).map((f) => ({
    format: f.toUpperCase(),
    url: talk[`video_${f}_url`]!,
    size: formatBytes(talk[`video_${f}_length`]),
    downloadOnly: talk[`video_${f}_download_only`],
  }));
}

/** Plain text split into paragraphs; line breaks inside a paragraph are kept by the template. */
export function paragraphs(text: string): string[][] {
  return text
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.split(/\r?\n/))
    .filter((lines) => lines.some((l) => l.trim() !== ''));
}

/** A talk as listed on other pages: just what a list item shows. */
export interface TalkLink {
  id: number;
  slug: string;
  title: string;
  language: string;
  speakers: string[];
  duration: number | null;
  recorded: string | null;
}

export function talkLink(talk: CatalogueTalk): TalkLink {
  return { id: talk.id, slug: talk.slug, title: talk.title, language: talk.language, speakers: talk.speakers, duration: talk.duration, recorded: talk.recorded };
}

type EventInfo = Pick<CatalogueEvent, 'slug' | 'title' | 'start_date' | 'end_date'>;

export interface TalkPageInput {
  talk: FullTalk;
  event: EventInfo;
  prev?: TalkLink;
  next?: TalkLink;
}

export interface EventPageInput {
  event: CatalogueEvent;
  talks: TalkLink[];
}

export interface HomeInput {
  talkCount: number;
  events: (EventInfo & { talkCount: number })[];
  newest: TalkLink[];
}

export const eventPath = (slug: string) => `/events/${slug}/`;

function listItem(link: TalkLink) {
  return {
    title: link.title,
    url: talkPath(link),
    lang: languageTag(link.language),
    speakers: link.speakers,
    duration: formatDuration(link.duration),
    recorded: link.recorded,
  };
}

export function talkView({ talk, event, prev, next }: TalkPageInput) {
  return {
    id: talk.id,
    title: talk.title,
    url: talkPath(talk),
    apiUrl: apiPath(talk),
    speakers: talk.speakers,
    category: talk.category,
    eventUrl: eventPath(event.slug),
    recorded: talk.recorded,
    duration: formatDuration(talk.duration),
    language: talk.language,
    lang: languageTag(talk.language),
    summary: paragraphs(talk.summary),
    description: renderMarkdown(talk.description),
    player: playerFor(talk),
    downloads: downloadsFor(talk),
    thumbnail: talk.thumbnail_url,
    sourceUrl: talk.source_url,
    tags: talk.tags,
    related: talk.related_urls,
    copyright: talk.copyright_text,
    qualityNotes: talk.quality_notes,
    prev: prev && listItem(prev),
    next: next && listItem(next),
  };
}

export type TalkView = ReturnType<typeof talkView>;

/** Programme order within an event: by recording date (undated first), then title, then id. */
export function byProgramme(a: TalkLink, b: TalkLink): number {
  const ra = a.recorded ?? '';
  const rb = b.recorded ?? '';
  if (ra !== rb) return ra < rb ? -1 : 1;
  return a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

/** Newest first: by recording date (undated last), then id, newest first. */
export function byNewest(a: TalkLink, b: TalkLink): number {
  const ra = a.recorded ?? '';
  const rb = b.recorded ?? '';
  if (ra !== rb) return ra < rb ? 1 : -1;
  return b.id - a.id;
}

/** Events newest first (undated last), then by slug. */
export function byEventDate(a: EventInfo, b: EventInfo): number {
  const da = a.start_date ?? '';
  const db = b.start_date ?? '';
  return da !== db ? (da < db ? 1 : -1) : a.slug < b.slug ? -1 : 1;
}

export class SiteRenderer {
  private readonly eta: Eta;

  constructor(templates: Templates) {
    this.eta = new Eta({ autoEscape: true, autoTrim: false, cache: true, useWith: false });
    for (const name of TEMPLATE_NAMES) {
      const source = templates[name];
      if (source === undefined) throw new Error(`template "${name}.eta" is missing`);
      this.eta.loadTemplate(`@${name}`, source);
    }
  }

  private render(name: (typeof TEMPLATE_NAMES)[number], data: object): string {
    return this.eta.render(`@${name}`, data);
  }

  talk(input: TalkPageInput): string {
    return this.render('talk', talkView(input));
  }

  /** A page that sends browsers and crawlers on to `target`: short links and old addresses. */
  redirect(title: string, target: string): string {
    return this.render('redirect', { title, target });
  }

  event({ event, talks }: EventPageInput): string {
    return this.render('event', {
      title: event.title,
      url: eventPath(event.slug),
      start: event.start_date,
      end: event.end_date,
      website: event.url,
      description: renderMarkdown(event.description),
      talks: talks.map(listItem),
    });
  }

  home({ talkCount, events, newest }: HomeInput): string {
    return this.render('home', {
      talkCount,
      events: events.map((e) => ({ title: e.title, url: eventPath(e.slug), start: e.start_date, end: e.end_date, talkCount: e.talkCount })),
      newest: newest.map(listItem),
    });
  }

  notFound(): string {
    return this.render('404', {});
  }
}
