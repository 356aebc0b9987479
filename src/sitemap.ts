// Sitemaps for search engines (sitemaps.org protocol): an index pointing at
// sitemaps of at most 50,000 URLs each, and robots.txt pointing at the index.
// The protocol asks for no order: entries come in the order the plan lists
// its pages, so that an edit changes the sitemaps its pages are in, not the
// order of every URL after them.
import { basePathOf } from './base-path.ts';
import { escapeMarkup } from './markdown.ts';
import type { SiteInfo } from './render.ts';

/** The protocol's limit of URLs per sitemap file. */
export const SITEMAP_LIMIT = 50_000;

export interface SitemapEntry {
  /** Site path of the page. */
  path: string;
  /** When the newest record on the page was updated (a date-time), or when the page was (a date), if known. */
  lastmod: string | null;
}

/** Record dates carry no zone: they are UTC; the protocol wants W3C date-times. A page's date stays a date. */
const w3c = (when: string) => (when.length === 10 ? when : `${when.slice(0, 19)}Z`);

/** Paths must be URL-encoded in a sitemap; the site's are already, except for characters that slugs never hold. */
const loc = (site: Pick<SiteInfo, 'baseUrl'>, path: string) => escapeMarkup(`${site.baseUrl}${encodeURI(path)}`);

/** Where a sitemap's entries come from: entries `start` to `end` of list `list`. */
interface Span {
  list: number;
  start: number;
  end: number;
}

/**
 * Lists of entries, one after another, cut into sitemaps of at most `limit`.
 * Each says which spans of which lists it holds, so that it can be keyed by
 * theirs. No entries make one empty sitemap, so that the index has one.
 */
export function sitemapChunks<T>(lists: readonly (readonly T[])[], limit = SITEMAP_LIMIT): { entries: T[]; spans: Span[] }[] {
  const chunks = [{ entries: [] as T[], spans: [] as Span[] }];
  lists.forEach((entries, list) => {
    for (let start = 0; start < entries.length; ) {
      if (chunks.at(-1)!.entries.length === limit) chunks.push({ entries: [], spans: [] });
      const chunk = chunks.at(-1)!;
      const end = Math.min(entries.length, start + limit - chunk.entries.length);
      for (let i = start; i < end; i++) chunk.entries.push(entries[i]!);
      chunk.spans.push({ list, start, end });
      start = end;
    }
  });
  return chunks;
}

export function sitemapXml(entries: SitemapEntry[], site: Pick<SiteInfo, 'baseUrl'>): string {
  const urls = entries.map((e) => `<url><loc>${loc(site, e.path)}</loc>${e.lastmod ? `<lastmod>${w3c(e.lastmod)}</lastmod>` : ''}</url>\n`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('')}</urlset>\n`;
}

export function sitemapIndexXml(paths: string[], site: Pick<SiteInfo, 'baseUrl'>): string {
  const maps = paths.map((p) => `<sitemap><loc>${loc(site, p)}</loc></sitemap>\n`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${maps.join('')}</sitemapindex>\n`;
}

/** Crawlers read robots.txt at a host's root only: a site served from a folder of its host gives its lines to the host's. */
export function robotsTxt(site: Pick<SiteInfo, 'baseUrl'>): string {
  return `User-agent: *\nDisallow: ${basePathOf(site.baseUrl)}/api/v2/\n\nSitemap: ${site.baseUrl}/sitemap.xml\n`;
}

/**
 * The base URL a build wrote `robots` for (robotsTxt's), or undefined for a file it did not write so (edited by
 * hand): the build writes it with every site, from the base URL alone, whatever the theme, so that `serve` can
 * find the folder of its host a build was made for.
 */
export function robotsBaseUrl(robots: string): string | undefined {
  const url = /^Sitemap: (.+)\/sitemap\.xml$/m.exec(robots)?.[1];
  return url !== undefined && URL.canParse(url) && robots === robotsTxt({ baseUrl: url }) ? url : undefined;
}
