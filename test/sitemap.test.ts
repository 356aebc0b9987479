import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { robotsBaseUrl, robotsTxt, SITEMAP_LIMIT, sitemapChunks, sitemapIndexXml, sitemapXml } from '../src/sitemap.ts';

const SITE = { baseUrl: 'https://talks.example.org' };

describe('sitemaps', () => {
  it('split at the protocol limit of 50,000 URLs', () => {
    expect(SITEMAP_LIMIT).toBe(50_000);
    const entries = Array.from({ length: 120_001 }, (_, i) => i);
    expect(sitemapChunks([entries]).map((c) => c.entries.length)).toEqual([50_000, 50_000, 20_001]);
    expect(sitemapChunks([[1, 2, 3], [], [4], [5, 6]], 2)).toEqual([
      { entries: [1, 2], spans: [{ list: 0, start: 0, end: 2 }] },
      { entries: [3, 4], spans: [{ list: 0, start: 2, end: 3 }, { list: 2, start: 0, end: 1 }] },
      { entries: [5, 6], spans: [{ list: 3, start: 0, end: 2 }] },
    ]);
    expect(sitemapChunks([])).toEqual([{ entries: [], spans: [] }]);
  });

  it('list absolute, escaped URLs with W3C lastmod dates', () => {
    const xml = sitemapXml(
      [
        { path: '/video/1/a/', lastmod: '2024-06-01T10:00:00.123' },
        { path: '/tag/c-plus-plus/?x=1&y=2', lastmod: null },
        { path: '/about/', lastmod: '2026-11-20' },
      ],
      SITE,
    );
    expect(XMLValidator.validate(xml)).toBe(true);
    const urls = new XMLParser().parse(xml).urlset.url;
    expect(urls[0]).toEqual({ loc: 'https://talks.example.org/video/1/a/', lastmod: '2024-06-01T10:00:00Z' });
    expect(urls[1]).toEqual({ loc: 'https://talks.example.org/tag/c-plus-plus/?x=1&y=2' });
    expect(urls[2]).toEqual({ loc: 'https://talks.example.org/about/', lastmod: '2026-11-20' });
    expect(xml).toContain('&amp;y=2');
  });

  it('index the sitemaps, and robots.txt points at the index', () => {
    const xml = sitemapIndexXml(['/sitemap-1.xml', '/sitemap-2.xml'], SITE);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(new XMLParser().parse(xml).sitemapindex.sitemap).toEqual([{ loc: 'https://talks.example.org/sitemap-1.xml' }, { loc: 'https://talks.example.org/sitemap-2.xml' }]);
    expect(robotsTxt(SITE)).toContain('Sitemap: https://talks.example.org/sitemap.xml\n');
  });

  it("keeps crawlers out of the API under a folder of the host the site is served from, for the host's robots.txt", () => {
    expect(robotsTxt({ baseUrl: 'https://user.github.io/talks' })).toBe('User-agent: *\nDisallow: /talks/api/v2/\n\nSitemap: https://user.github.io/talks/sitemap.xml\n');
  });

  it('gives back the base URL robots.txt was written for, for serve, and nothing for a file the build did not write so', () => {
    for (const baseUrl of ['https://user.github.io/talks', 'https://talks.example.org', 'http://127.0.0.1:8080/a/b.c']) expect(robotsBaseUrl(robotsTxt({ baseUrl }))).toBe(baseUrl);
    const edited = `${robotsTxt({ baseUrl: 'https://user.github.io/talks' })}Disallow: /drafts/\n`;
    for (const text of [edited, '', 'User-agent: *\nDisallow:\n', 'Sitemap: nonsense/sitemap.xml\n']) expect(robotsBaseUrl(text), text).toBeUndefined();
  });
});
