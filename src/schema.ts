// The content schemas: one per collection (events, talks, pages). Every rule a
// record must meet lives here, so the build, `check` and later writers agree.
import * as z from 'zod';
import { slugFromTitle } from './collections.ts';
import { codePoints, fileKey, WHERE_CASE_IS_IGNORED, whereOneFile } from './file-keys.ts';
import { SLUG_PATTERN } from './headers.ts';
import { isLanguage, languageHints } from './languages.ts';

export const FORMATS = ['ogv', 'mp4', 'webm', 'flv'] as const;
export type Format = (typeof FORMATS)[number];
/** The order players and podcatchers should try formats in: widely playable first. */
export const PLAYABLE_FIRST: readonly Format[] = ['mp4', 'webm', 'ogv', 'flv'];
export const VIDEO_MIME: Record<Format, string> = { mp4: 'video/mp4', webm: 'video/webm', ogv: 'video/ogg', flv: 'video/x-flv' };

export const STATE_LIVE = 1;
export const STATE_DRAFT = 2;

/**
 * What no page, feed or API record can carry: a control character XML refuses (tab and line breaks aside), DEL or
 * a C1 control, or a noncharacter of any plane (U+FDD0 to U+FDEF, U+FFFE, U+1FFFF: HTML calls each a parse error,
 * and pages and feeds drop them, where the API would publish them), or half a surrogate pair.
 */
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Noncharacter_Code_Point}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

/** NOT_TEXT's characters, and any surrogate, paired or not: a quick test that nearly every string passes (NOT_TEXT's is four times slower). */
const MAYBE_NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ud800-\udfff\ufffe\uffff]/;

/**
 * Each string in a parsed value that holds what is not text (see NOT_TEXT), by its path, with how to
 * fix it. JSON can escape any of them (`\u0000`, `\ud800`) and YAML's double quotes most: a feed with
 * one is not XML, and Pagefind's index refuses it.
 */
export function textProblems(value: unknown): { path: (string | number)[]; message: string }[] {
  const found: { path: (string | number)[]; message: string }[] = [];
  // One path, pushed and popped: every file of a build is walked, and nearly all of them hold only text.
  const path: (string | number)[] = [];
  const walk = (item: unknown, key: string | number) => {
    path.push(key);
    visit(item);
    path.pop();
  };
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      // A field is told its first: one fix at a time, as the other problems of a field are.
      const [first] = notTextIn(item);
      if (first) found.push({ path: [...path], message: first.message });
    } else if (Array.isArray(item)) item.forEach((inner, i) => walk(inner, i));
    else if (item !== null && typeof item === 'object') for (const key of Object.keys(item)) walk((item as Record<string, unknown>)[key], key);
  };
  visit(value);
  return found;
}

const NOT_TEXT_ALL = new RegExp(NOT_TEXT.source, 'gu');

/** Where `text` holds what is not text (see NOT_TEXT), each with how to fix it: in a field (textProblems), or in a page's Markdown, which is no field of a value. */
export function notTextIn(text: string): { index: number; message: string }[] {
  return MAYBE_NOT_TEXT.test(text) ? [...text.matchAll(NOT_TEXT_ALL)].map((found) => ({ index: found.index, message: notTextMessage(found[0]) })) : [];
}

function notTextMessage(bad: string): string {
  const code = codePoints(bad);
  // A lone surrogate is one code unit; a noncharacter past the first plane is a pair of them.
  return bad.length === 1 && /[\ud800-\udfff]/.test(bad)
    ? `holds half of a character (the surrogate ${code}, without its other half); write the whole character, or remove the escape`
    : `holds ${code}, ${bad < '\u00a0' ? 'a control character' : 'a noncharacter'} no page or feed can carry; remove it`;
}

/** How a value that is not what was expected is named in a message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      if (!Number.isInteger(value)) return 'a decimal number';
      // JSON and YAML numbers past 2^53 lose digits: such an id or length would not read back as written.
      return Number.isSafeInteger(value) ? 'a number' : `${value}, past the largest whole number kept exactly (${Number.MAX_SAFE_INTEGER})`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'a mapping';
    default:
      return 'nothing';
  }
}

type Issue = { input?: unknown; code?: string; path?: PropertyKey[] };

/**
 * What an item of a list is told when it is left empty (`-` with nothing after it), or is a mapping (`- name: Ada`,
 * or a colon in a name, `- Python: the Good Parts`), with what to write in it; undefined for any other value.
 */
function listItemProblem(iss: Issue, item: string): string | undefined {
  if (typeof iss.path?.at(-1) !== 'number') return undefined;
  if (iss.input === null) return `is an empty item ("-" with nothing after it, or null); write ${item} there, or remove the item`;
  if (describeValue(iss.input) === 'a mapping') return `expected ${item}, got a mapping; write only ${item}, in quotes if it holds ": "`;
  return undefined;
}

/** Zod's `error` option for a field: names what was expected and what came; `item`, what to write in an empty item of a list. */
function expecting(what: string, item = what) {
  return {
    error: (iss: Issue) =>
      iss.input === undefined
        ? `required field is missing; add it (${what})`
        : (listItemProblem(iss, item) ??
          (iss.input === null ? `expected ${what}, got null (as a name with no value after it is); give it a value, or remove the field` : `expected ${what}, got ${describeValue(iss.input)}`)),
  };
}

const urlMessage = 'expected an absolute http(s) URL such as "https://example.org/talk"';

/**
 * Why `value` is no absolute http(s) URL to publish, with how to write it; undefined when it is one.
 * `alternatives` are what the field takes besides (`, or ""`). WHATWG's parser, as browsers have it,
 * takes more than is written right: `https:///x` as `https://x/`, a "\" as "/" (which other clients
 * keep), and `"`, "<", ">" or a space percent-encoded, where the API and the feeds publish the URL as
 * it is written.
 */
function urlProblem(value: string, alternatives = ''): string | undefined {
  const scheme = /^https?:/i.exec(value)?.[0];
  if (scheme === undefined) return `${urlMessage}${alternatives}`;
  if (value.trim() !== value) return 'has white space before or after it; remove it';
  const bad = /[\s"<>\\]|%(?![0-9a-f]{2})/i.exec(value)?.[0];
  if (bad !== undefined && /\s/.test(bad)) return `holds ${bad === ' ' ? 'a space,' : `${codePoints(bad)}, white space,`} which no URL can; write it as ${encodeURIComponent(bad)}`;
  if (bad === '\\') return 'holds "\\", which browsers read as "/" and other clients do not; write "/" or %5C';
  if (bad === '%') return 'holds a "%" that starts no escape (%XX); write it as %25';
  if (bad !== undefined) return `holds ${bad === '"' ? `'"'` : `"${bad}"`}, which no URL can (browsers send it as ${encodeURIComponent(bad)}, the API and feeds would publish it as written); write it as ${encodeURIComponent(bad)}`;
  const slashes = /^\/*/.exec(value.slice(scheme.length))![0];
  if (slashes !== '//') return `has ${slashes === '' ? 'nothing' : `"${slashes}"`} after "${scheme}", where "//" and the host go; write "${scheme}//${value.slice(scheme.length + slashes.length)}"`;
  try {
    return new URL(value).hostname === '' ? `${urlMessage}${alternatives}` : undefined;
  } catch {
    return `${urlMessage}${alternatives}`;
  }
}

export const isHttpUrl = (value: unknown): value is string => typeof value === 'string' && urlProblem(value) === undefined;

/** A URL field's check; one with `alternatives` also takes "". */
const urlCheck = (alternatives?: string) => (value: string, ctx: z.RefinementCtx) => {
  const problem = alternatives !== undefined && value === '' ? undefined : urlProblem(value, alternatives);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};

// `format` (and `choices` below) travel into the field descriptions OPTIONS answers with (src/writes.ts).
const url = z.string(expecting('a URL string')).superRefine(urlCheck()).meta({ format: 'uri' });
const optionalUrl = z.string(expecting('a URL string or ""')).superRefine(urlCheck(', or ""')).default('').meta({ format: 'uri' });
const mediaUrl = z.string(expecting('a URL string, "" or null')).superRefine(urlCheck(', "" or null')).nullable().default(null).meta({ format: 'uri' });
/**
 * Zod's `error` option for text: a number or true or false where it belongs (`title: 1984`, a tag `- 3.10`, which
 * YAML reads as 3.1) is told to be quoted.
 */
function expectingText(what: string, item?: string) {
  const { error } = expecting(what, item);
  return { error: (iss: Issue) => (typeof iss.input === 'number' || typeof iss.input === 'boolean' ? `${error(iss)}; write it in quotes ("…") to keep it as text` : error(iss)) };
}

/** Text that must say something, as a title. */
const nonEmpty = (what: string) => z.string(expectingText(what)).refine((v) => v.trim() !== '', { error: 'must not be empty' });

const text = z.string(expectingText('a string')).default('');
/** Zod's `error` option for a list: one item written as the field's value (`speakers: Ada`), or its items as a mapping's fields, are told how to write a list. */
function expectingList(what: string) {
  return {
    error: (iss: Issue) =>
      typeof iss.input === 'string' || describeValue(iss.input) === 'a mapping'
        ? `expected ${what}, got ${describeValue(iss.input)}; write it as a list: each item on a line of its own under the field, after "- " (in JSON, ["…"])`
        : expecting(what).error(iss),
  };
}

/** A list of strings, such as speakers' names; `item` is what one of them is ("the speaker's name"). */
const stringList = (item: string) => z.array(z.string(expectingText('a string', item)), expectingList('a list of strings')).default([]);
/**
 * A whole number from `least` up, given the JSON Schema type `integer` for OPTIONS. Not zod's z.int():
 * a decimal fails that in a way that stops the object's own checks, and one run would then not report
 * a length without its URL, or `updated` before `added`, in the same file.
 */
const wholeNumber = (what: string, least: number, fromText: (text: string) => string | undefined = numeral) =>
  z
    .number({
      error: (iss) => {
        const fix = typeof iss.input === 'string' ? fromText(iss.input.trim()) : undefined;
        return fix ? `expected ${what}, got "${iss.input as string}"; ${fix}` : expecting(what).error(iss);
      },
    })
    .refine((v) => Number.isSafeInteger(v) && v >= least, {
      error: (iss) => `expected ${what}, got ${Number.isSafeInteger(iss.input) ? String(iss.input) : describeValue(iss.input)}`,
    })
    .meta({ type: 'integer' });
const count = (what: string, fromText?: (text: string) => string | undefined) => wholeNumber(`${what} or null`, 0, fromText);

/** The fix for a whole number written as text ("12"). */
const numeral = (text: string) => (/^\d+$/.test(text) ? 'write it without quotes' : undefined);

/** The fix for a duration written as a clock's or in minutes ("1:30:00", "90 min"): its seconds. */
function inSeconds(text: string): string | undefined {
  const clock = /^(\d+):([0-5]\d):([0-5]\d)$/.exec(text);
  const minutes = /^(\d+)\s*(?:m|mins?|minutes?)$/i.exec(text);
  const seconds = clock ? Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3]) : minutes ? Number(minutes[1]) * 60 : undefined;
  return seconds === undefined ? numeral(text) : `write it in seconds, ${seconds}`;
}
const bytes = count('a whole number of bytes').nullable().default(null);
/** YAML 1.1's words for true and false, which YAML 1.2, as the content is read, takes for text (`nav: yes`). */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map(['y', 'yes', 'on', 'true', 'n', 'no', 'off', 'false'].map((word, i) => [word, i < 4]));
const flag = z
  .boolean({
    error: (iss) => {
      const meant = typeof iss.input === 'string' ? BOOLEAN_WORDS.get(iss.input.trim().toLowerCase()) : undefined;
      return meant === undefined ? expecting('true or false').error(iss) : `expected true or false, got "${iss.input as string}"; write ${meant}, without quotes`;
    },
  })
  .default(false);

/** Whether `value` is a day of the calendar as YYYY-MM-DD, from 0001-01-01 (Python's first, and HTML's `<time>` takes no year 0). */
export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Not Date.UTC(y, …): it reads a year under 100 as 19xx, and 0050-01-01 was no real date.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return y > 0 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function isRealDateTime(value: string, fraction: 'none' | 'optional'): boolean {
  const pattern = fraction === 'none' ? /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})$/ : /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{3})?$/;
  const m = pattern.exec(value);
  return !!m && isRealDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60;
}

/** The end of a message on a date or date-time that is not real: why, where a year 0000 looks like one. */
const notRealBecause = (value: unknown) => (typeof value === 'string' && value.startsWith('0000-') ? ': years are counted from 0001, there is no year 0000' : '');

export const date = z
  .string(expecting('a date YYYY-MM-DD'))
  .refine(isRealDate, { error: (iss) => `expected a real calendar date YYYY-MM-DD, got "${String(iss.input)}"${notRealBecause(iss.input)}` })
  .meta({ format: 'date' });

const slugPattern = new RegExp(`^${SLUG_PATTERN}$`);
export const isSlug = (value: string) => slugPattern.test(value);
/** Filesystems stop a file or folder name at 255 bytes: past it, check passed and the build failed (ENAMETOOLONG). */
const NAME_MAX = 255;
/** A site path's files are written under temporary names (tempName in src/output.ts) about 25 bytes longer (`.x.html.br.vc-<pid>-<time>`): its parts keep that room and more. */
const FILE_NAME_MAX = 200;
const slug = z
  .string(expecting('a slug'))
  .refine(isSlug, {
    error: (iss) => {
      const slug = slugFromTitle(String(iss.input));
      return `expected lower-case letters, digits and hyphens only${slug ? `; write "${slug}"` : ', e.g. "my-talk-title"'}`;
    },
  })
  .refine((v) => v.length <= NAME_MAX, { error: (iss) => `expected at most ${NAME_MAX} characters (the slug names a folder), got ${String(iss.input).length}` });

const language = z
  .string(expecting('an English language name such as "English"'))
  .refine(isLanguage, {
    error: (iss) => {
      const hints = languageHints(String(iss.input)).map((hint) => `"${hint}"`);
      const meant = hints.length > 1 ? `${hints.slice(0, -1).join(', ')} or ${hints.at(-1)}` : hints[0];
      return `unknown language "${String(iss.input)}": use an English language name from ISO 639-3${meant ? ` (did you mean ${meant}?)` : ''}`;
    },
  })
  .default('English');

/** What a {label, url} lacks or has too many of: the union's own error says only that no branch matched (a mapping with both is checked field by field). */
function relatedUrlHint(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
  const keys = Object.keys(value);
  const wrong = [
    ...['label', 'url'].filter((key) => !keys.includes(key)).map((key) => `\`${key}\` is missing`),
    ...keys.filter((key) => key !== 'label' && key !== 'url').map((key) => `\`${key}\` is not one of its fields`),
  ];
  return wrong.length > 0 ? ` whose ${wrong.join(', ')}` : '';
}

/** A related link's text: a page would show one of only white space as no link text at all. */
const linkLabel = z.string(expectingText('a string')).refine((v) => v.trim() !== '', {
  error: (iss) => (iss.input === '' ? 'expected some text, got an empty string' : "holds only white space; write the link's text, or give the URL alone (it is its own text)"),
});

const relatedUrl = z.union(
  [url.transform((u) => ({ label: u, url: u })), z.strictObject({ label: linkLabel, url })],
  { error: relatedUrlProblem },
);

/** What a related URL that is none is told: an item left empty, a string that is no http(s) URL, or a value of another kind. */
function relatedUrlProblem(iss: Issue): string {
  // A string fails the union as a whole: its own problem is the URL's.
  if (typeof iss.input === 'string') return urlProblem(iss.input, ', or {label, url}')!;
  // A mapping has its own hint (relatedUrlHint), past what a list's item is told.
  return (iss.input === null ? listItemProblem(iss, 'a URL') : undefined) ?? `expected a URL or {label, url}, got ${describeValue(iss.input)}${relatedUrlHint(iss.input)}`;
}

/**
 * An old address of the talk on this site, e.g. `/pycon-us-2014/a-talk.html`; the build writes a redirect there.
 * Written as it reads, not percent-encoded: letters of any script are the file's name as a request for it
 * decodes (pyvideo.org had pages named in Japanese and Korean), and the server refuses a `%` that decoding leaves.
 */
export const isSitePath = (value: string) => sitePathProblem(value) === undefined;

/** What keeps `value` from being a path on the site, named so that it can be fixed; undefined when it is one. */
function sitePathProblem(value: string): string | undefined {
  if (!value.startsWith('/')) return 'it does not start with "/"';
  const bad = /[^\p{L}\p{M}\p{N}._~!$&'()*+,;=:@/-]/u.exec(value)?.[0];
  if (bad === '?' || bad === '#') return `it has a ${bad === '?' ? 'query' : 'fragment'} ("${bad}"), which no file on the site can have`;
  // The server refuses a "%" in any path, encoded or not (src/server.ts): no request could reach the file.
  if (bad === '%') return /%[0-9a-f]{2}/i.test(value) ? 'it is percent-encoded: write it as it reads (letters of any script are fine)' : 'it holds "%", which a path on the site cannot; write it out ("percent") or leave it out';
  if (bad !== undefined) return `it holds ${/\s/.test(bad) ? 'a space' : `"${bad}"`}, which a path on the site cannot`;
  const segment = value.split('/').find((seg) => seg === '..' || seg === '.' || seg.startsWith('.'));
  if (segment !== undefined) return segment === '..' || segment === '.' ? `it has a "${segment}" segment` : `it names a hidden file or folder ("${segment}")`;
  const long = value.split('/').find((seg) => Buffer.byteLength(seg) > FILE_NAME_MAX);
  if (long !== undefined) return `its part "${long.slice(0, 24)}…" is ${Buffer.byteLength(long)} bytes long, past the ${FILE_NAME_MAX} a file or folder name on the site may take`;
  return undefined;
}

/**
 * The names the site's own files and folders take at its root. An alias there would overwrite a
 * page, or stand where a folder must be; talks' pages and short links are under video/, where the
 * check across talks keeps aliases apart from them. test/build.test.ts holds the list against a
 * build's output.
 */
export const SITE_ROOT_NAMES: ReadonlySet<string> = new Set([
  ...['404.html', 'index.html', 'robots.txt', 'sitemap.xml', 'feed.atom', 'feed.json', 'feed.rss'],
  ...['api', 'assets', 'events', 'language', 'languages', 'pagefind', 'search', 'speaker', 'speakers', 'tag', 'tags', 'talks'],
  ...['_headers', '_redirects', 'Caddyfile', 'firebase.json', 'nginx.conf', 'vercel.json'],
]);

/**
 * The sitemaps the index at /sitemap.xml lists, numbered from 1, at the site's root beside it: a
 * sitemap may list only addresses under its own folder (sitemaps.org, "Sitemap file location").
 */
export const sitemapFile = (n: number) => `sitemap-${n}.xml`;
const SITEMAP_FILE = /^sitemap-[1-9]\d*\.xml$/i;

const ROOT_NAMES_FOLDED: ReadonlySet<string> = new Set([...SITE_ROOT_NAMES].map(fileKey));

/** Whether `name`, at the site's root, is one of the site's own files and folders (SITE_ROOT_NAMES, or a sitemap), as fileKey compares names. */
export function isSiteRootName(name: string): boolean {
  const key = fileKey(name);
  return ROOT_NAMES_FOLDED.has(key) || SITEMAP_FILE.test(key);
}

/**
 * The folders of the site's lists, in which it writes only folders and index.html (and feeds, not
 * named .html). test/build.test.ts holds this against a build's output.
 */
export const LIST_FOLDERS: ReadonlySet<string> = new Set(['events', 'language', 'languages', 'speaker', 'speakers', 'tag', 'tags', 'talks']);

/** A page named `<name>.html` directly in one of them is no page of the site's: pyvideo.org's events were at /events/<slug>.html. */
const freeInList = (segments: string[]) => segments.length === 2 && LIST_FOLDERS.has(segments[0]!) && segments[1]!.endsWith('.html') && segments[1] !== 'index.html';

/**
 * The folders of the pages of an event, a speaker, a tag and a language (`/tag/<slug>/`). An old site's
 * page of one may have had another slug (pyvideo.org's `/tag/pytest/` is our `/tag/py-test/`): a site's
 * redirect may take such an address, which the build checks is no page of its own (see targetProblems).
 */
const ITEM_FOLDERS: ReadonlySet<string> = new Set(['events', 'language', 'speaker', 'tag']);
const itemPage = (segments: string[]) => segments.length === 3 && ITEM_FOLDERS.has(segments[0]!) && segments[1] !== '' && segments[2] === '';

/** Why `value` cannot be a talk's or an event's alias, or undefined when it can; `redirect`: a site's redirect's old path, which may also be an item's page. */
export function aliasProblem(value: string, redirect = false): string | undefined {
  const problem = sitePathProblem(value);
  if (problem) return `expected a path on this site such as "/pycon-2014/a-talk.html", got "${value}": ${problem}`;
  // Compared by their files' keys: where case is ignored, "/Index.html" is the home page's file and "/API/…" the API's folder.
  const folded = fileKey(value);
  /** Why `written`, a part of the path as written, is `part` of the site's own. */
  const oneWith = (written: string, part: string) => (written === part ? '' : `, ${whereOneFile(written, part)}`);
  const segments = folded.split('/').slice(1);
  // "/" is the home page's address; .br and .gz are the copies --compress writes beside a file.
  const root = segments[0] || 'index.html';
  const written = value.split('/')[1]!;
  if (isSiteRootName(root.replace(/\.(br|gz)$/, '')) && !freeInList(segments) && !(redirect && itemPage(segments))) {
    return `"${value}" is among the site's own pages and files (/${root}${oneWith(written || 'index.html', root)}); choose a path outside them`;
  }
  // Talks' pages and short links are under video/, kept apart across talks; its own index leads to all talks.
  // Without its slash too: an alias's file is <path>/index.html.
  if (/^\/video(?:\/(?:index\.html)?)?$/.test(folded)) return `"${value}" is among the site's own pages and files (/video/index.html${oneWith(value, folded)}); choose a path outside them`;
  // The site writes its folders as their keys: "/Events/x.html" would land in "events/" where case is ignored (see FolderSpellings).
  if (segments.length > 1 && written !== root && (isSiteRootName(root) || root === 'video')) {
    return `"${value}" is in the site's own folder /${root}/ (/${written}/${oneWith(written, root)}); spell it /${root}/, or choose a path outside it`;
  }
  // Pages and redirects are files named *.html: a folder so named could stand where one of them must be.
  if (segments.slice(0, -1).some((segment) => segment.endsWith('.html'))) return `"${value}" goes through a folder named like a page (.html); end the path there`;
  // Only ".html" makes a file (see aliasFile): "/a.HTML" would be a folder, the name of "/a.html"'s file where case is ignored.
  if (folded.endsWith('.html') && !value.endsWith('.html')) return `"${value}" ends in "${value.slice(-5)}", which names a folder here and a page's file (.html) ${WHERE_CASE_IS_IGNORED}; write ".html"`;
  // Servers never send a file so named as itself, nor redirect it to its folder (a request for a copy gets 404).
  if (/\.(br|gz)\/?$/.test(folded)) return `"${value}" ends in .br or .gz, the names of compressed copies, which are never served as pages; choose another ending`;
  return undefined;
}

const alias = z.string(expecting('a site path', 'an old address such as "/old/path.html"')).superRefine((value, ctx) => {
  const problem = aliasProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const formatFields = {
  video_ogv_length: bytes,
  video_ogv_url: mediaUrl,
  video_ogv_download_only: flag,
  video_mp4_length: bytes,
  video_mp4_url: mediaUrl,
  video_mp4_download_only: flag,
  video_webm_length: bytes,
  video_webm_url: mediaUrl,
  video_webm_download_only: flag,
  video_flv_length: bytes,
  video_flv_url: mediaUrl,
  video_flv_download_only: flag,
};

const addedAt = z
  .string(expecting('a date-time YYYY-MM-DDThh:mm:ss'))
  .refine((v) => isRealDateTime(v, 'none'), {
    error: (iss) => `expected a real date-time YYYY-MM-DDThh:mm:ss (no fraction, no zone), got "${String(iss.input)}"${notRealBecause(iss.input)}`,
  })
  .meta({ format: 'date-time' });

/** A talk's `added` and `updated` for a moment, in UTC: `2026-11-22T10:15:00` and `2026-11-22T10:15:00.123`. */
export function timestamps(now: Date): { added: string; updated: string } {
  const iso = now.toISOString();
  return { added: iso.slice(0, 19), updated: iso.slice(0, 23) };
}

export const talkSchema = z
  .strictObject({
    category: z.string(expectingText("the event's title")).optional(),
    language,
    slug: slug.optional(),
    speakers: stringList("the speaker's name"),
    tags: stringList('the tag'),
    id: wholeNumber('a positive whole number', 1),
    state: z
      .union([z.literal(STATE_LIVE), z.literal(STATE_DRAFT)], {
        error: (iss) => `expected 1 (live) or 2 (draft), got ${JSON.stringify(iss.input) ?? 'nothing'}`,
      })
      .default(STATE_LIVE)
      .meta({ choices: [{ value: STATE_LIVE, display_name: 'Live' }, { value: STATE_DRAFT, display_name: 'Draft' }] }),
    title: nonEmpty('a non-empty title'),
    summary: text,
    description: text,
    quality_notes: text,
    copyright_text: text,
    embed: text,
    thumbnail_url: optionalUrl,
    duration: count('a whole number of seconds', inSeconds).nullable().default(null),
    ...formatFields,
    source_url: optionalUrl,
    whiteboard: text,
    recorded: date.nullable().default(null),
    added: addedAt,
    updated: z
      .string(expecting('a date-time YYYY-MM-DDThh:mm:ss, with or without .fff'))
      .refine((v) => isRealDateTime(v, 'optional'), {
        error: (iss) => `expected a real date-time YYYY-MM-DDThh:mm:ss, with or without .fff (no zone), got "${String(iss.input)}"${notRealBecause(iss.input)}`,
      })
      .transform((v) => (v.length === 19 ? `${v}.000` : v))
      .meta({ format: 'date-time' }),
    related_urls: z.array(relatedUrl, expectingList('a list of URLs')).default([]),
    aliases: z.array(alias, expectingList('a list of site paths such as "/old/path.html"')).default([]),
  })
  // Cross-field rules also run when other fields failed, so one run reports every problem.
  .superRefine(
    (talk, ctx) => {
      for (const fmt of FORMATS) {
        if (typeof talk[`video_${fmt}_url`] === 'string' && talk[`video_${fmt}_url`] !== '') continue;
        const length = talk[`video_${fmt}_length`];
        if (length !== null && length !== undefined) {
          ctx.addIssue({ code: 'custom', path: [`video_${fmt}_length`], message: `must be null when video_${fmt}_url is empty; add the URL or remove the length` });
        }
        if (talk[`video_${fmt}_download_only`] === true) {
          ctx.addIssue({ code: 'custom', path: [`video_${fmt}_download_only`], message: `must be false when video_${fmt}_url is empty; add the URL or remove the flag` });
        }
      }
      const { added, updated } = talk;
      // Compared only when both are what they must be: a malformed one has its own error, and a zone would make the order another.
      if (typeof added === 'string' && typeof updated === 'string' && isRealDateTime(added, 'none') && isRealDateTime(updated, 'optional') && updated.slice(0, 19) < added) {
        ctx.addIssue({ code: 'custom', path: ['updated'], message: `is before added (${added}); it must be the same or later` });
      }
    },
    { when: () => true },
  );

export type Talk = z.output<typeof talkSchema>;

/** Each field of a talk and the value its schema gives when it is missing, if any. */
const TALK_DEFAULTS = Object.entries(talkSchema.shape).map(([key, field]) => {
  const missing = (field as z.ZodType).safeParse(undefined);
  return [key, missing.success ? missing.data : undefined] as const;
});
/** The fields whose schema changes what it is given (a URL given alone becomes `{label, url}`, `updated` gets its milliseconds). */
const TRANSFORMED = ['related_urls', 'updated'] as const;

/**
 * What talkSchema.parse gives for a record it has accepted before (the same bytes): the fields
 * in the schema's order, with its defaults and transforms, but without its checks, which took a
 * cold build of the pyvideo import about a second of the main thread's rendering (every URL
 * parsed, every date matched).
 */
export function acceptedTalk(value: Record<string, unknown>): Talk {
  const talk: Record<string, unknown> = {};
  for (const [key, missing] of TALK_DEFAULTS) {
    // A fresh list per talk: a default's own would be shared by every talk without the field.
    const given = value[key] !== undefined ? value[key] : Array.isArray(missing) ? [] : missing;
    if (given !== undefined) talk[key] = given;
  }
  for (const key of TRANSFORMED) talk[key] = talkSchema.shape[key].parse(talk[key]);
  return talk as Talk;
}
export type RelatedUrl = Talk['related_urls'][number];

export const eventSchema = z
  .strictObject({
    title: nonEmpty('a non-empty title'),
    description: text,
    url: optionalUrl,
    start_date: date.nullable().default(null),
    end_date: date.nullable().default(null),
    whiteboard: text,
    /** When the event was added to the catalogue; by default its earliest talk's `added`. */
    added: addedAt.optional(),
    /** Old addresses of the event's page, as a talk's. */
    aliases: z.array(alias, expectingList('a list of site paths such as "/events/old-name.html"')).default([]),
  })
  .superRefine(
    (event, ctx) => {
      const { start_date: start, end_date: end } = event;
      if (typeof start === 'string' && typeof end === 'string' && end < start) {
        ctx.addIssue({ code: 'custom', path: ['end_date'], message: `is before start_date (${start}); swap them` });
      }
    },
    { when: () => true },
  );

export type EventFields = z.output<typeof eventSchema>;

/** A page's front matter (see src/pages.ts): named as Hugo, Astro and Eleventy sites name theirs, so that a page moved in keeps its fields. */
export const pageSchema = z
  .strictObject({
    title: nonEmpty('a non-empty title'),
    /** The page's meta description and lead paragraph. */
    description: text,
    /** Whether the site's navigation links to the page. */
    nav: flag,
    /** Where in the navigation, lowest first; pages of the same order go by their links' text. */
    order: wholeNumber('a whole number', Number.MIN_SAFE_INTEGER).optional(),
    /** The text of the page's link in the navigation, when it is not the title (Hugo's name for it). */
    linkTitle: nonEmpty('a non-empty link text').optional(),
    /** Not published yet: checked as any page, but the build writes no file for it and no link to it. */
    draft: flag,
    /** When the page last changed: its sitemap entry's lastmod. */
    updated: date.optional(),
  })
  // Also when other fields failed, so one run reports every problem.
  .superRefine(
    (page, ctx) => {
      // Not when `nav` is itself wrong ("yes"): its own error says what to write.
      if (page.order !== undefined && page.nav === false) ctx.addIssue({ code: 'custom', path: ['order'], message: 'orders the page in the navigation, which it is not in; add nav: true or remove order' });
      if (page.linkTitle !== undefined && page.nav === false) ctx.addIssue({ code: 'custom', path: ['linkTitle'], message: "is the text of the page's link in the navigation, which it is not in; add nav: true or remove linkTitle" });
    },
    { when: () => true },
  );

export type PageFields = z.output<typeof pageSchema>;

/** An address with `{path}` in it, where a content file's path goes (GitHub's, GitLab's and Forgejo's edit pages take it so). */
const editUrl = z.string(expecting('a URL string')).superRefine((value, ctx) => {
  const at = (path: string) => value.replaceAll('{path}', path);
  const origin = (url: string) => (isHttpUrl(url) ? new URL(url).origin : undefined);
  if (!value.includes('{path}') || !isHttpUrl(at('x'))) {
    ctx.addIssue({ code: 'custom', message: 'expected an absolute http(s) URL with {path} where a file\'s path in the content folder goes, such as "https://github.com/you/talks/edit/main/content/{path}"' });
  } else if (origin(at('x')) !== origin(at('a/b'))) {
    // In the host (https://{path}.example.org/) each file's path would make a host of its own.
    ctx.addIssue({ code: 'custom', message: '{path} is in the URL\'s host; put it in the path, after the host, such as "https://github.com/you/talks/edit/main/content/{path}"' });
  }
});

/** The site's name when its settings file does not give one. */
export const DEFAULT_SITE_NAME = 'Video catalogue';

/** The site's own settings (`content/_site.yaml`), as a Hugo or Pelican site keeps its title in its configuration. */
export const siteSchema = z.strictObject({
  /** Beside every page's title, in the header, as the feeds' author and the site-wide feed's title, and OpenGraph's site_name. */
  name: nonEmpty('a non-empty name').default(DEFAULT_SITE_NAME),
  /** Where a content file is edited, `{path}` standing for its path in the content folder: each talk's, event's and page's "Edit this page" link. */
  edit_url: editUrl.optional(),
});

export type SiteFields = z.output<typeof siteSchema>;

export const TALK_FIELDS = Object.keys(talkSchema.shape);
/**
 * Fields of other collections (a page's `draft`, a talk's `state`) or of other site generators (Jekyll's `published`),
 * and what each collection has for them: a draft's, removed as the fix of an unknown field, would be published.
 */
const TALK_DRAFT = 'a talk is a draft with `state: 2` (and live with `state: 1`, the default)';
export const TALK_INSTEAD: Readonly<Record<string, string>> = { draft: TALK_DRAFT, published: TALK_DRAFT };
const EVENT_DRAFT = 'an event has no state of its own: it is on the site while one of its talks is live, so make its talks drafts (`state: 2`) to keep it off';
export const EVENT_INSTEAD: Readonly<Record<string, string>> = { draft: EVENT_DRAFT, state: EVENT_DRAFT, published: EVENT_DRAFT };
const PAGE_DRAFT = 'a page is a draft with `draft: true`';
export const PAGE_INSTEAD: Readonly<Record<string, string>> = { state: PAGE_DRAFT, published: PAGE_DRAFT };
export const EVENT_FIELDS = Object.keys(eventSchema.shape);
export const PAGE_FIELDS = Object.keys(pageSchema.shape);
export const SITE_FIELDS = Object.keys(siteSchema.shape);
/** What Hugo's and Eleventy's sites call the setting. */
export const SITE_INSTEAD: Readonly<Record<string, string>> = { title: 'the site\'s title is its `name`' };
