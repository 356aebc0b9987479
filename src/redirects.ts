// The site's redirects: old addresses that belong to no talk or event (a
// speaker's page on the site the catalogue moved from, an index page), each
// sent on to a page of this site. They are given in one place, as Docusaurus's
// and Astro's are: a mapping of old path to new path in each data file of the
// content folder's _redirects/. A talk's or event's own old addresses are its
// aliases. A redirect to a page the build does not write is an error, as
// Docusaurus makes it: a speaker whose last talk is gone takes their page along.
import type { CatalogueIndex } from './catalogue-index.ts';
import { eventPath, languagePath, speakerPath, tagPath, talkPath } from './collections.ts';
import { closest } from './suggest.ts';
import { ContentError } from './errors.ts';
import { REDIRECTS_DIR } from './listing.ts';
import type { Catalogue, Origin } from './load.ts';
import { published, sitePagePath } from './pages.ts';
import { aliasProblem, isSitePath } from './schema.ts';
import { decodeUtf8, parseSource, type FieldPath, type Position } from './source.ts';
import type { Validated } from './validate.ts';

/** A redirects file as read: its old paths and where each leads, in the file's order. */
export interface RedirectsSource {
  redirects: { from: string; to: string }[];
}

export interface CatalogueRedirects extends RedirectsSource, Origin {}

/** Why the file at `name` (its path in the content folder) cannot be a redirects file, or undefined when it can. */
export function redirectsFileProblem(name: string): string | undefined {
  const [, file, ...deeper] = name.split('/');
  if (deeper.length > 0 || !/\.(ya?ml|json)$/.test(file!)) return `the ${REDIRECTS_DIR} folder holds redirects files, a YAML or JSON file each directly in it (${REDIRECTS_DIR}/<name>.yaml); move this file out`;
  return undefined;
}

/** A redirects file's bytes → its redirects, or every problem of it at its line and column. */
export function parseRedirects(file: string, bytes: Uint8Array): Validated<RedirectsSource> {
  const decoded = decodeUtf8(file, bytes);
  if (!decoded.ok) return { ok: false, errors: [decoded.error] };
  const parsed = parseSource(file, Buffer.from(decoded.text));
  if (!parsed.ok) return parsed;
  const { doc } = parsed;
  // An empty file is a file of no redirects yet.
  if (doc.value === null) return { ok: true, value: { redirects: [] } };
  if (typeof doc.value !== 'object' || Array.isArray(doc.value)) {
    return { ok: false, errors: [new ContentError(file, { line: 1, col: 1 }, '', 'expected a mapping of old paths to the pages they lead to, a line each: "/old/path.html: /new/page/"')] };
  }
  const errors: ContentError[] = [];
  const redirects: RedirectsSource['redirects'] = [];
  for (const [from, to] of Object.entries(doc.value)) {
    const problem = aliasProblem(from);
    if (problem) errors.push(new ContentError(file, doc.locate([from], 'key'), from, problem));
    if (typeof to !== 'string' || !isSitePath(to)) errors.push(new ContentError(file, doc.locate([from]), from, `expected the path of a page of this site such as "/speakers/", got ${JSON.stringify(to)}`));
    else if (!problem) redirects.push({ from, to });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { redirects } };
}

/**
 * The addresses of the pages a redirect may lead to: the site's home, its indexes and the first
 * page of each of its lists, each event's, speaker's, tag's and language's page, each talk's page
 * and the site's own pages. Not the further pages of long lists, nor redirects: a redirect leads
 * to a page, not to another redirect.
 */
export function sitePages(catalogue: Catalogue, index: CatalogueIndex): Set<string> {
  const pages = new Set(['/', '/events/', '/talks/', '/speakers/', '/tags/', '/languages/', '/search/', '/api/']);
  const events = new Set(index.live.map((talk) => talk.event));
  for (const event of catalogue.events) if (events.has(event.slug)) pages.add(eventPath(event.slug));
  for (const talk of index.live) pages.add(talkPath(talk));
  for (const [terms, pathOf] of [[index.speakers, speakerPath], [index.tags, tagPath], [index.languages, languagePath]] as const) for (const term of terms) pages.add(pathOf(term.slug));
  for (const page of published(catalogue.pages)) pages.add(sitePagePath(page.slug));
  return pages;
}

/** Each redirect that leads to no page the build writes, at the line and column of where it leads. */
export function targetProblems(catalogue: Catalogue, index: () => CatalogueIndex, locate: (origin: Origin, field: FieldPath) => Position): ContentError[] {
  const errors: ContentError[] = [];
  let pages: Set<string> | undefined;
  for (const file of catalogue.redirects) {
    for (const { from, to } of file.redirects) {
      pages ??= sitePages(catalogue, index());
      if (pages.has(to)) continue;
      // A typo in a name: the nearest page of the same list (a speaker's of the speakers').
      const list = to.slice(0, to.indexOf('/', 1) + 1);
      const near = pages.has(`${to}/`) ? `${to}/` : closest(to, [...pages].filter((page) => list !== '' && page.startsWith(list)));
      const fix = near ? `did you mean ${near}?` : 'point it at one, or remove the line';
      errors.push(new ContentError(file.file, locate(file, [from]), from, `"${to}" is no page of this site (a speaker, tag or event without a live talk has none); ${fix}`));
    }
  }
  return errors;
}
