// The site's own pages (About, FAQ, a code of conduct): one Markdown file
// each in the content folder's _pages/, with YAML front matter between `---`
// lines as Hugo, Astro and Eleventy read it. The file's name is the page's
// slug and its address is /<slug>/, at the site's root, beside the site's own
// folders, which it may not take.
import { fileOf, slugRename } from './collections.ts';
import { ContentError } from './errors.ts';
import { PAGES_DIR } from './listing.ts';
import type { NavLink } from './render.ts';
import { isSlug, notTextIn, PAGE_FIELDS, PAGE_INSTEAD, pageSchema, SITE_ROOT_NAMES, type PageFields } from './schema.ts';
import { decodeUtf8, lineStartsOf, parseSource, positionAt } from './source.ts';
import { checkParsed, validate, type Validated } from './validate.ts';

/** A page file as read: its front matter's fields and its Markdown. Pages are few: the catalogue keeps their text, unlike talks'. */
export type PageSource = PageFields & { body: string };

export const sitePagePath = (slug: string) => `/${slug}/`;
export const sitePageFile = (slug: string) => fileOf(sitePagePath(slug));

/** The site's own folders at its root: the names aliases may not take, and video/, where the talks' pages are. */
const RESERVED: ReadonlySet<string> = new Set([...SITE_ROOT_NAMES, 'video']);

/**
 * The slug of the page at `name` (its path in the content folder), or why the file cannot be a page:
 * `named` when it is a page but for its name, whose fields are then checked too.
 */
export function pageSlug(name: string): { ok: true; slug: string } | { ok: false; problem: string; named?: true } {
  const [, file, ...deeper] = name.split('/');
  if (deeper.length === 0 && /\.md$/i.test(file!) && !file!.endsWith('.md')) {
    return { ok: false, problem: `a page's extension is written in lower case; rename the file to ${file!.slice(0, -3)}.md` };
  }
  if (deeper.length > 0 || !file!.endsWith('.md')) {
    return { ok: false, problem: `the ${PAGES_DIR} folder holds pages, a Markdown file each directly in it (${PAGES_DIR}/<slug>.md); move this file out, or make it one` };
  }
  const slug = file!.slice(0, -'.md'.length);
  if (!isSlug(slug)) return { ok: false, named: true, problem: `the file name "${slug}" is not a valid slug, and the page's address is /<file name>/; rename the file to ${slugRename(slug, '.md')}` };
  if (RESERVED.has(slug)) return { ok: false, named: true, problem: `the page's address /${slug}/ is where the site keeps its own pages or files; rename the file` };
  return { ok: true, slug };
}

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*\r?$/m;
const BELOW_BLANK_LINES = /^(?:[ \t]*\r?\n)+---[ \t]*\r?\n/;

const failure = (file: string, message: string): Validated<never> => ({ ok: false, errors: [new ContentError(file, { line: 1, col: 1 }, '', message)] });

/** A page file's bytes → its fields and Markdown, or every problem of its front matter at its line and column. */
export function parsePage(file: string, bytes: Uint8Array): Validated<PageSource> {
  const decoded = decodeUtf8(file, bytes);
  if (!decoded.ok) return { ok: false, errors: [decoded.error] };
  const text = decoded.text.replace(/^\uFEFF/, '');
  const opening = OPENING.exec(text);
  // Hugo and Astro read a front matter below blank lines, Jekyll and Eleventy do not: told to add it, its owner would not see why.
  if (!opening) return failure(file, BELOW_BLANK_LINES.test(text) ? 'the front matter\'s opening "---" is not the file\'s first line; remove the blank lines above it' : 'a page starts with its front matter: a line "---", its fields (title: …), then a line "---"; add it');
  const closing = CLOSING.exec(text.slice(opening[0].length));
  if (!closing) return failure(file, 'the front matter opened on line 1 has no closing "---" line; add one after its fields');
  const end = opening[0].length + closing.index;
  // Parsed from the file's start, its opening line a YAML document marker: the lines and columns of errors are the file's.
  const fields = checkParsed(parseSource(file, Buffer.from(text.slice(0, end))), (doc) => validate(pageSchema, doc, PAGE_FIELDS, PAGE_INSTEAD));
  const bodyStart = end + closing[0].length;
  const body = text.slice(bodyStart);
  const notText = bodyProblems(file, text, bodyStart, body);
  if (!fields.ok || notText.length > 0) return { ok: false, errors: [...(fields.ok ? [] : fields.errors), ...notText] };
  return { ok: true, value: { ...fields.value, body: body.replace(/^\n/, '') } };
}

/** What is not text in a page's Markdown (`body`, at `bodyStart` of the file's `text`), at its line and column, as in a field. */
function bodyProblems(file: string, text: string, bodyStart: number, body: string): ContentError[] {
  const found = notTextIn(body);
  if (found.length === 0) return [];
  const lines = lineStartsOf(text);
  return found.map(({ index, message }) => new ContentError(file, positionAt(lines, bodyStart + index), '', `the page's text ${message}`));
}

/** The pages the build publishes: all but drafts. */
export const published = <P extends PageFields>(pages: readonly P[]): P[] => pages.filter((page) => !page.draft);

/** The navigation's links to the published pages that ask for one: by order (0 when not given), then text, then slug. */
export function navOf(pages: readonly (PageFields & { slug: string })[]): NavLink[] {
  return published(pages)
    .filter((page) => page.nav)
    .map((page) => ({ order: page.order ?? 0, slug: page.slug, link: { title: page.linkTitle ?? page.title, url: sitePagePath(page.slug) } }))
    .sort((a, b) => a.order - b.order || (a.link.title < b.link.title ? -1 : a.link.title > b.link.title ? 1 : 0) || (a.slug < b.slug ? -1 : 1))
    .map(({ link }) => link);
}
