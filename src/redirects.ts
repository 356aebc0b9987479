// The site's redirects: old addresses that belong to no talk or event (a
// speaker's page on the site the catalogue moved from, an index page), each
// sent on to a page of this site. They are given in one place, as Docusaurus's
// and Astro's are: a mapping of old path to new path in each data file of the
// content folder's _redirects/. A talk's or event's own old addresses are its
// aliases. A redirect to a page the build does not write is an error, as
// Docusaurus makes it: a speaker whose last talk is gone takes their page along.
import type { CatalogueIndex } from './catalogue-index.ts';
import { eventPath, languagePath, speakerPath, tagPath, talkPath } from './collections.ts';
import { ContentError } from './errors.ts';
import { DATA_FILE, REDIRECTS_DIR } from './listing.ts';
import type { Catalogue, Origin } from './load.ts';
import { cached } from './memo.ts';
import { published, sitePagePath } from './pages.ts';
import { fileKey, whereOneFile } from './file-keys.ts';
import { aliasProblem, isSitePath } from './schema.ts';
import { decodeUtf8, parseSource, type FieldPath, type Position, type SourceDoc } from './source.ts';
import { closest } from './suggest.ts';
import { checkParsed, type Validated } from './validate.ts';

/** A redirects file as read: its old paths and where each leads, in the file's order. */
export interface RedirectsSource {
  redirects: { from: string; to: string }[];
}

export interface CatalogueRedirects extends RedirectsSource, Origin {}

/** Why the file at `name` (its path in the content folder) cannot be a redirects file, or undefined when it can. */
export function redirectsFileProblem(name: string): string | undefined {
  const [, file, ...deeper] = name.split('/');
  if (deeper.length > 0 || !DATA_FILE.test(file!)) return `the ${REDIRECTS_DIR} folder holds redirects files, a YAML or JSON file each directly in it (${REDIRECTS_DIR}/<name>.yaml); move this file out`;
  return undefined;
}

/** A redirects file's bytes → its redirects, or every problem of it at its line and column (beside a repeated old path, its others: see checkParsed). */
export function parseRedirects(file: string, bytes: Uint8Array): Validated<RedirectsSource> {
  const decoded = decodeUtf8(file, bytes);
  if (!decoded.ok) return { ok: false, errors: [decoded.error] };
  return checkParsed(parseSource(file, Buffer.from(decoded.text)), redirectsOf);
}

/** The redirects a parsed redirects file gives, or every problem of them. */
function redirectsOf(doc: SourceDoc): Validated<RedirectsSource> {
  const { file } = doc;
  // An empty file is a file of no redirects yet.
  if (doc.value === null) return { ok: true, value: { redirects: [] } };
  if (typeof doc.value !== 'object' || Array.isArray(doc.value)) {
    return { ok: false, errors: [new ContentError(file, { line: 1, col: 1 }, '', 'expected a mapping of old paths to the pages they lead to, a line each: "/old/path.html: /new/page/"')] };
  }
  const errors: ContentError[] = [];
  const redirects: RedirectsSource['redirects'] = [];
  for (const [from, to] of Object.entries(doc.value)) {
    const problem = aliasProblem(from, true);
    if (problem) errors.push(new ContentError(file, doc.locate([from], 'key'), from, problem));
    const got = to === null ? 'nothing (as a line with no value after its colon has); write the page it leads to, or remove the line' : JSON.stringify(to);
    if (typeof to !== 'string' || !isSitePath(to)) errors.push(new ContentError(file, doc.locate([from]), from, `expected the path of a page of this site such as "/speakers/", got ${got}`));
    else if (!problem) redirects.push({ from, to });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { redirects } };
}

/** The folders of the site's lists whose pages a redirect may lead to; '' stands for the rest (the home page, the indexes, the site's own pages). */
export const PAGE_FOLDERS = ['', 'events', 'speaker', 'tag', 'language', 'video'] as const;
type PageFolder = (typeof PAGE_FOLDERS)[number];
const NAMED_FOLDERS: ReadonlySet<string> = new Set(PAGE_FOLDERS.filter((folder) => folder !== ''));
const folderOf = (path: string): PageFolder => {
  const folder = path.slice(1, path.indexOf('/', 1));
  return NAMED_FOLDERS.has(folder) ? (folder as PageFolder) : '';
};

/**
 * The folders of items' pages with no page of their own, and the index each leads to: folder, title,
 * index. The build writes a redirect there (src/plan.ts), which no redirect of the site's may lead to.
 */
export const FOLDER_INDEXES = [
  ['speaker', 'Speakers', '/speakers/'],
  ['tag', 'Tags', '/tags/'],
  ['language', 'Languages', '/languages/'],
  ['video', 'All talks', '/talks/'],
] as const;

/**
 * The addresses of the pages a redirect may lead to: the site's home, its indexes and the first
 * page of each of its lists, each event's, speaker's, tag's and language's page, each talk's page
 * and the site's own pages. Not the further pages of long lists, nor redirects: a redirect leads
 * to a page, not to another redirect. Each folder's are listed when a redirect leads into it: the
 * import's 12,932 lead to speakers and tags, and listing every talk's page too took a dev server's build 20 ms.
 */
export class SitePages {
  private readonly lists = new Map<PageFolder, Set<string>>();

  constructor(
    private readonly catalogue: Catalogue,
    private readonly index: CatalogueIndex,
  ) {}

  has(path: string): boolean {
    return this.in(folderOf(path)).has(path);
  }

  /** The pages whose addresses are in `folder`. */
  in(folder: PageFolder): Set<string> {
    return cached(this.lists, folder, () => new Set(this.list(folder)));
  }

  private list(folder: PageFolder): string[] {
    const { catalogue, index } = this;
    switch (folder) {
      case 'events': {
        const events = new Set(index.live.map((talk) => talk.event));
        return ['/events/', ...catalogue.events.filter((event) => events.has(event.slug)).map((event) => eventPath(event.slug))];
      }
      case 'speaker':
        return index.speakers.map((term) => speakerPath(term.slug));
      case 'tag':
        return index.tags.map((term) => tagPath(term.slug));
      case 'language':
        return index.languages.map((term) => languagePath(term.slug));
      case 'video':
        return index.live.map(talkPath);
      case '':
        return ['/', '/talks/', '/speakers/', '/tags/', '/languages/', '/search/', '/api/', ...published(catalogue.pages).map((page) => sitePagePath(page.slug))];
    }
  }
}

/**
 * The page of the live talk whose short link (`/video/12/`, itself a redirect) is `to`: nearer than any page its
 * spelling is near, another talk's (`/video/1/a/`).
 */
function pageOfShortLink(to: string, index: () => CatalogueIndex): string | undefined {
  const id = /^\/video\/(\d+)\/?$/.exec(to)?.[1];
  const talk = id === undefined ? undefined : index().live.find((t) => t.id === Number(id));
  return talk && talkPath(talk);
}

/**
 * Each redirect that leads to no page the build writes, at the line and column of where it leads, and
 * each that takes the address of one (an old site's `/tag/<slug>/` that is now a tag of this site's own).
 */
export function targetProblems(catalogue: Catalogue, index: () => CatalogueIndex, locate: (origin: Origin, field: FieldPath, which?: 'key') => Position): ContentError[] {
  const errors: ContentError[] = [];
  let pages: SitePages | undefined;
  for (const file of catalogue.redirects) {
    for (const { from, to } of file.redirects) {
      pages ??= new SitePages(catalogue, index());
      // The site's own addresses are lower-case ASCII (slugs), their own keys: where case is ignored, "/Tag/Python/" is "/tag/python/"'s file.
      const key = fileKey(from);
      if (pages.has(key)) {
        const inAnyCase = key === from ? '' : ` (${key}, ${whereOneFile(from, key)})`;
        errors.push(new ContentError(file.file, locate(file, [from], 'key'), from, `"${from}" is a page of this site's own${inAnyCase}; remove the line`));
      }
      if (pages.has(to)) continue;
      const draft = catalogue.pages.find((page) => page.draft && sitePagePath(page.slug) === to);
      if (draft) {
        errors.push(new ContentError(file.file, locate(file, [from]), from, `"${to}" is a draft page (${draft.file}), which the build does not write; publish it, point the line at another page, or remove the line`));
        continue;
      }
      // A typo in a name: the nearest page of the same list (a speaker's of the speakers', a page of _pages/ of the site's own at its root).
      const folderIndex = FOLDER_INDEXES.find(([folder]) => to === `/${folder}/` || to === `/${folder}`)?.[2];
      const near = folderIndex ?? (pages.has(`${to}/`) ? `${to}/` : (pageOfShortLink(to, index) ?? closest(to, [...pages.in(folderOf(to))])));
      const fix = near ? `did you mean ${near}?` : 'point it at one, or remove the line';
      errors.push(new ContentError(file.file, locate(file, [from]), from, `"${to}" is no page of this site (a speaker, tag or event without a live talk has none); ${fix}`));
    }
  }
  return errors;
}
