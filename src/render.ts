// Rendering the human site from the catalogue in memory: pure functions from
// records to page strings. Templates arrive as strings; nothing here reads the disk.
import { Eta } from 'eta/core';
import type { Catalogue, CatalogueEvent, CatalogueTalk } from './load.ts';
import { isLive } from './load.ts';
import { renderMarkdown, sanitiseEmbed } from './markdown.ts';
import { FORMATS, languageTag, type Format } from './schema.ts';

/** Template sources by name (`layout`, `home`, `talk`, `redirect`, `404`). */
export type Templates = Record<string, string>;

export const TEMPLATE_NAMES = ['layout', 'home', 'talk', 'redirect', '404'] as const;

export interface Page {
  /** Path inside the output folder, with forward slashes. */
  path: string;
  body: string;
}

const MIME: Record<Format, string> = { mp4: 'video/mp4', webm: 'video/webm', ogv: 'video/ogg', flv: 'video/x-flv' };
// The order browsers should try sources in: widely playable first.
const PLAY_ORDER: Format[] = ['mp4', 'webm', 'ogv', 'flv'];

export const talkPath = (talk: { id: number; slug: string }) => `/video/${talk.id}/${talk.slug}/`;
export const apiPath = (talk: { id: number }) => `/api/v2/video/${talk.id}`;
export const eventAnchor = (slug: string) => `event-${slug}`;

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

export function playerFor(talk: CatalogueTalk): Player | null {
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

export function downloadsFor(talk: CatalogueTalk) {
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

export function talkView(talk: CatalogueTalk, event: CatalogueEvent | undefined) {
  return {
    id: talk.id,
    title: talk.title,
    url: talkPath(talk),
    apiUrl: apiPath(talk),
    speakers: talk.speakers,
    category: talk.category,
    eventUrl: `/#${eventAnchor(talk.event)}`,
    eventDates: event ? { start: event.start_date, end: event.end_date } : null,
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
  };
}

export type TalkView = ReturnType<typeof talkView>;

function byRecordedThenTitle(a: CatalogueTalk, b: CatalogueTalk): number {
  const ra = a.recorded ?? '';
  const rb = b.recorded ?? '';
  if (ra !== rb) return ra < rb ? -1 : 1;
  return a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

/** Events newest first (undated last), each with its live talks in programme order. */
export function homeView(catalogue: Catalogue) {
  const live = catalogue.talks.filter(isLive);
  const events = [...catalogue.events]
    .sort((a, b) => {
      const da = a.start_date ?? '';
      const db = b.start_date ?? '';
      return da !== db ? (da < db ? 1 : -1) : a.slug < b.slug ? -1 : 1;
    })
    .map((event) => ({
      anchor: eventAnchor(event.slug),
      title: event.title,
      start: event.start_date,
      end: event.end_date,
      url: event.url,
      description: renderMarkdown(event.description),
      talks: live
        .filter((t) => t.event === event.slug)
        .sort(byRecordedThenTitle)
        .map((t) => ({ title: t.title, lang: languageTag(t.language), url: talkPath(t), speakers: t.speakers, duration: formatDuration(t.duration), recorded: t.recorded })),
    }))
    .filter((e) => e.talks.length > 0);
  return { events, talkCount: live.length };
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

  talk(talk: CatalogueTalk, event: CatalogueEvent | undefined): Page {
    return { path: `video/${talk.id}/${talk.slug}/index.html`, body: this.render('talk', talkView(talk, event)) };
  }

  /** `/video/<id>/`, the short link, pointing at the page with the slug. */
  talkRedirect(talk: CatalogueTalk): Page {
    return { path: `video/${talk.id}/index.html`, body: this.render('redirect', { title: talk.title, target: talkPath(talk) }) };
  }

  home(catalogue: Catalogue): Page {
    return { path: 'index.html', body: this.render('home', homeView(catalogue)) };
  }

  notFound(): Page {
    return { path: '404.html', body: this.render('404', {}) };
  }
}
