import { describe, expect, it, vi } from 'vitest';
import { etagMatches, kindOf, notModified } from '../src/headers.ts';

describe('kindOf', () => {
  it('tells records, lists, pages, index chunks, assets and feeds apart by their paths', () => {
    const kinds = {
      'api/v2/video/12': 'record',
      'api/v2/video/page.2': 'list',
      'api/v2/video/page.last': 'list',
      'api/v2/category/pycon-2024': 'list',
      'api/v2/speaker/page.1': 'list',
      // No record or page is numbered from 0: what the API's rules would not serve is a plain file.
      'api/v2/video/012': 'file',
      'api/v2/video/page.0': 'file',
      'index.html': 'page',
      'assets/player.html': 'page',
      'pagefind/fragment/en_3a1f.pf_fragment': 'immutable',
      'assets/style.css': 'asset',
      'assets/manifest.json': 'asset',
      'feed.atom': 'text',
      'sitemap-1.xml': 'text',
      'robots.txt': 'text',
      'pagefind/pagefind.js': 'file',
    };
    expect(Object.fromEntries(Object.keys(kinds).map((rel) => [rel, kindOf(rel)]))).toEqual(kinds);
  });
});

describe('etagMatches', () => {
  it('compares If-None-Match weakly and If-Match strongly, in a list or as *', () => {
    expect(etagMatches('W/"x"', '"x"')).toBe(true);
    expect(etagMatches('W/"x"', '"x"', true)).toBe(false);
    expect(etagMatches('"y", "x"', '"x"', true)).toBe(true);
    expect(etagMatches('*', '"x"', true)).toBe(true);
    expect(etagMatches('', '"x"')).toBe(false);
  });
});

describe('notModified', () => {
  const lastModified = 'Sun, 06 Nov 1994 08:49:37 GMT';
  const now = Date.parse('2026-01-01T00:00:00Z');
  const since = (ifModifiedSince: string | undefined) => notModified(undefined, ifModifiedSince, '"x"', lastModified, now);

  it('answers by the ETag whenever the request names one, whatever its date says', () => {
    expect(notModified('"x"', 'Mon, 07 Nov 1994 08:49:37 GMT', '"x"', lastModified, now)).toBe(true);
    expect(notModified('"y"', lastModified, '"x"', lastModified, now)).toBe(false);
  });

  it('takes a date from the Last-Modified sent on, in any of the three forms of an HTTP-date', () => {
    expect(since(lastModified)).toBe(true);
    expect(since('Sun, 06 Nov 1994 08:49:38 GMT')).toBe(true);
    expect(since('Sun, 06 Nov 1994 08:49:36 GMT')).toBe(false);
    expect(since('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(true);
    expect(since('Sun Nov  6 08:49:37 1994')).toBe(true);
  });

  it('reads an asctime date, which names no zone, as GMT wherever the server runs', () => {
    // West of Greenwich the same clock time, read as local, would come after the Last-Modified.
    vi.stubEnv('TZ', 'America/New_York');
    try {
      expect(since('Sun Nov  6 08:49:36 1994')).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('ignores a date that is no HTTP-date or is in the future, and a file sent without Last-Modified', () => {
    for (const text of ['1995', 'tomorrow', '1995-01-01T00:00:00Z', 'Sun, 06 Nov 1994 08:49:37 CET']) expect(since(text), text).toBe(false);
    expect(since('Thu, 01 Jan 2026 00:00:01 GMT')).toBe(false);
    expect(since('Thu, 01 Jan 2026 00:00:00 GMT')).toBe(true);
    expect(since(undefined)).toBe(false);
    expect(notModified(undefined, lastModified, '"x"', undefined, now)).toBe(false);
  });
});
