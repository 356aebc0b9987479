// The folder of its host a site is served from (https://user.github.io/talks/, a GitHub Pages project
// site): its base path. The build keeps every page's own path from the root (/talks/, /video/12/a-talk/),
// which names its file in the output folder, and writes the base path before each address on a page; the
// server takes it off each request's path before it looks for the file. At a host's root it is ''.
import { cached } from './memo.ts';

const basePaths = new Map<string, string>();

/**
 * The base path of a base URL (checked, without its trailing slash): `/talks` for https://user.github.io/talks, '' at a
 * root. Kept once read: a build asks it for every talk's page whose description it renders.
 */
export function basePathOf(baseUrl: string): string {
  return cached(basePaths, baseUrl, (url) => new URL(url).pathname.replace(/\/+$/, ''));
}

/**
 * The site's own path of a request's (decoded) path under `base`: `/talks/video/12/` is `/video/12/`; null for a
 * path outside the site (`/talks` itself, without its slash, too), which no file of it answers.
 */
export function sitePathOf(base: string, pathname: string): string | null {
  if (base === '') return pathname;
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : null;
}

/**
 * HTML written from content (a page's Markdown, a talk's description) with its links from the site's root
 * (`[events](/events/)`) under `base`: their authors wrote them for the site, wherever it is served. Another
 * host's (`//cdn.example/…`), a relative address and a fragment are left alone. The HTML is the Markdown
 * renderer's, whose only addresses are links' (`<a href>`), in double quotes, and whose text and attribute values
 * hold no `<`, `>` or `"` but as references: what reads like a link in text is none.
 */
export function rebased(html: string, base: string): string {
  return base === '' ? html : html.replace(/(<a\s(?:[^<>]*?\s)?href=")\/(?!\/)/g, `$1${base}/`);
}
