// Converting pyvideo/data records into our content format: pure functions
// from one source record to one talk file, with every repair reported.
import { decodeHTMLStrict } from 'entities';
import { iso6393 } from 'iso-639-3';
import unidecode from 'unidecode';
import type { Token, Tokens } from 'marked';
import type * as z from 'zod';
import { named, slugFromTitle, speakerPath, tagPath, termSlug } from './collections.ts';
import { languageName } from './languages.ts';
import { markdownBlocks, PLAIN_LIST_MARK } from './markdown.ts';
import { aliasProblem, FORMATS, isHttpUrl, isRealDate, isSitePath, isSlug, STATE_LIVE, type Format, type RelatedUrl, type talkSchema } from './schema.ts';

/** What a repair or a mapping did, counted by kind in the import summary. */
export interface ImportNote {
  kind: string;
  source: string;
}

type Converted<T> = { ok: true; value: T; notes: ImportNote[] } | { ok: false; error: string };

const PYVIDEO_CODES = new Set(iso6393.map((l) => l.iso6393));
const HOSTED = new Set(['youtube', 'vimeo', 'peertube', 'archive.org', 'archive']);
const FORMAT_SET = new Set<string>(FORMATS);

/** Fields of pyvideo's schema (and legacy variants found in the data) that the converter reads. */
const KNOWN_FIELDS = new Set([
  'alias', 'category', 'copyright_text', 'description', 'duration', 'id', 'language', 'quality_notes', 'recorded',
  'related_urls', 'slug', 'speakers', 'summary', 'tags', 'thumbnail_url', 'title', 'videos', 'source_url',
  'abstract', ',duration', 'related_url',
]);

/** A talk file as the import writes it: every field of the schema except those derived from its place. */
export type TalkFile = Required<Omit<z.input<typeof talkSchema>, 'slug' | 'category' | 'related_urls'>> & { related_urls: RelatedUrl[] };

export interface EventFile {
  title: string;
  description?: string;
  url?: string;
  start_date?: string;
  end_date?: string;
  aliases?: string[];
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The player address for a hosted video, or undefined when the URL has no recognisable video id. */
export function playerUrl(type: string, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const host = u.hostname.replace(/^www\./, '');
  if (type === 'youtube') {
    const id = host === 'youtu.be' ? u.pathname.slice(1) : u.pathname.startsWith('/embed/') ? u.pathname.slice(7) : u.searchParams.get('v');
    return id && /^[\w-]{6,20}$/.test(id) ? `https://www.youtube-nocookie.com/embed/${id}` : undefined;
  }
  if (type === 'vimeo') {
    const id = /^\/(?:video\/)?(\d+)/.exec(u.pathname)?.[1];
    return id ? `https://player.vimeo.com/video/${id}` : undefined;
  }
  if (type === 'peertube') {
    const id = /^\/(?:videos\/watch|w)\/([\w-]+)/.exec(u.pathname)?.[1];
    return id ? `https://${u.host}/videos/embed/${id}` : undefined;
  }
  if (type === 'archive.org' || type === 'archive') {
    const rest = /^\/details\/(.+)$/.exec(u.pathname)?.[1];
    return rest ? `https://archive.org/embed/${rest}` : undefined;
  }
  return undefined;
}

export function embedFor(player: string, title: string): string {
  return `<iframe src="${player}" title="${escapeAttribute(title)}" allow="encrypted-media; picture-in-picture; fullscreen" allowfullscreen></iframe>`;
}

/**
 * A slug as pyvideo.org's Pelican made one (pelican.utils.slugify with Django's rules): in ASCII by
 * unidecode, as Pelican's, tags stripped, what is not a letter, digit, underscore, space or hyphen
 * dropped, lower case, each run of spaces and hyphens one hyphen.
 */
function pelicanSlug(text: string): string {
  return unidecode(text.replace(/<[^>]*>/g, ''))
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '-');
}

/**
 * reStructuredText's inline link, `` `text <target>`_ `` (or `__`, anonymous), as pyvideo's texts write them; its
 * text may start with an inline literal, as pandoc wrote a link whose text is code (`` ```ipytest`` <url>`__ ``).
 */
const REST_LINK = /`((?:``[^`]+``)?[^`<>]*?)\s*<([^<>\s]+)>`__?/g;
/** A Markdown link to a path from a site's root, `[text](/presenters/x/)`: one line, no brackets in its text; not an image. */
const MARKDOWN_ROOT_LINK = /(?<!!)\[([^\][\n]*)\]\((\/(?!\/)[^()\s]*)\)/g;

/**
 * Where a link from the root of a site (`/presenters/carlton-gibson/`) in a pyvideo text leads: a URL, `''`
 * when the link has no target worth keeping (its words stay), or undefined when the site is not known (it
 * stays as text, as no page here has that path).
 */
type RootLinks = (target: string) => string | undefined;

/** Labels of a related URL that is the conference's own site, whose pages the texts were copied from. */
const CONFERENCE_SITE = /conference|website|schedule/i;
/** Cloudflare's stand-in for an e-mail address it hid from scrapers: the address is not in the text. */
const HIDDEN_EMAIL = /^\/cdn-cgi\/l\/email-protection\b/;

/**
 * pyvideo's texts were copied from the conference's site (DjangoCon US's `[Carlton Gibson](/presenters/…)`,
 * PyCon Italia's `</p3/schedule/pycon9/>`, 162 records of the snapshot), whose address a related URL gives
 * ("Conference Website", "Conference schedule"), or from the talk's YouTube page, whose links are to
 * moments of its video (`</watch?v=…&t=184s>`).
 */
function rootLinksOf(related: { label: string; url: string }[], sourceUrl: string): RootLinks {
  const site = related.find((r) => CONFERENCE_SITE.test(r.label))?.url;
  const youtube = /^https?:\/\/(?:www\.)?(?:youtube\.com|youtu\.be)\//i.test(sourceUrl);
  return (target) => {
    if (HIDDEN_EMAIL.test(target)) return '';
    if (youtube && target.startsWith('/watch?')) return onSite(target, 'https://www.youtube.com');
    return site ? onSite(target, site) : undefined;
  };
}

/** `path` on the site of `base`; undefined for what is no path of it (`//host/`, `/\host/`, which browsers read as another host's). */
function onSite(path: string, base: string): string | undefined {
  try {
    const url = new URL(path, base);
    return url.origin === new URL(base).origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const ABSOLUTE_URL = /^(?:https?:\/\/|mailto:)/i;
/** A link's text as Markdown, its brackets and backslashes escaped. */
const linkText = (text: string) => text.replace(/[[\]\\]/g, '\\$&');
/** A link as Markdown, its text escaped; an address alone as an autolink. */
const markdownLink = (label: string, url: string) => (label ? `[${linkText(label)}](<${url}>)` : `<${url}>`);

/**
 * pyvideo's summaries and descriptions are reStructuredText or plain text (pyvideo.org rendered them
 * with docutils): their inline links (in 631 descriptions of the snapshot) become Markdown links in a
 * description, `text (target)` in a summary, which is plain text, and where the target is not an
 * absolute URL that `root` cannot resolve (one pyvideo.org's page would have resolved, which no page here can).
 */
export function restLinks(text: string, markdown: boolean, root: RootLinks = () => undefined): string {
  return text.replace(REST_LINK, (_, writtenLabel: string, written: string) => {
    // pandoc wrote code and emphasis in a link's text (```ipytest``, `*GR* framework`), which docutils shows as written: in plain text, their words.
    const label = markdown ? writtenLabel : restInlineText(writtenLabel);
    const target = (written.startsWith('/') ? root(written) : undefined) ?? written;
    if (target === '') return label;
    if (!markdown || !ABSOLUTE_URL.test(target)) return label ? `${label} (${target})` : target;
    return markdownLink(label, target);
  });
}

/** What docutils lets stand before a start-string of inline markup: white space, an opening bracket or quote, a delimiter. */
const MARKUP_PREFIX = String.raw`(?<=^|[\s\p{Pd}\p{Po}\p{Ps}\p{Pi}\p{Pf}<])`;
/** What docutils lets stand after an end-string: white space, an escape, a closing bracket or quote, a delimiter. */
const MARKUP_SUFFIX = String.raw`(?=$|[\s\x00\p{Pd}\p{Po}\p{Pe}\p{Pi}\p{Pf}>])`;
/** A role's name, docutils' "simple name": words joined by single hyphens, periods, pluses, colons or underscores. */
const ROLE_NAME = String.raw`:[\p{L}\p{N}]+(?:[-.+:_][\p{L}\p{N}]+)*:`;
/** A start-string of inline markup: strong, emphasis, a literal, or interpreted text with its role before it; not before white space. */
const MARKUP_START = new RegExp(String.raw`${MARKUP_PREFIX}(?:\*\*|\*(?!\*)|\x60\x60|(${ROLE_NAME})?\x60(?!\x60))(?!\s)`, 'u');
/** The end-string of each start-string, in the text after it; interpreted text's may name its role, or end a reference (`_`, `__`). */
const MARKUP_END: Record<string, RegExp> = {
  '**': new RegExp(String.raw`(?<![\s\x00])\*\*${MARKUP_SUFFIX}`, 'u'),
  '*': new RegExp(String.raw`(?<![\s\x00])\*${MARKUP_SUFFIX}`, 'u'),
  '``': new RegExp(String.raw`(?<!\s)\x60\x60${MARKUP_SUFFIX}`, 'u'),
  '`': new RegExp(String.raw`(?<!(?<!\x00)[\s\x00])\x60(${ROLE_NAME})?(__?)?${MARKUP_SUFFIX}`, 'u'),
};
/** An opening character and the closing ones that, around a start-string (`"*"`, `(*)`), make it no markup. */
const QUOTED: Record<string, string> = { '"': '"', "'": "'", '(': ')', '<': '>', '[': ']', '{': '}', '“': '”', '‘': '’', '«': '»', '‹': '›', '„': '“' };
/** docutils' standard roles whose text is shown as it is (`:math:`W``, `:sub:`2``), and those shown after a name (`:PEP:`8``). */
const PLAIN_ROLES = new Set(['abbreviation', 'ab', 'acronym', 'ac', 'code', 'emphasis', 'literal', 'math', 'strong', 'subscript', 'sub', 'superscript', 'sup', 'title-reference', 'title', 't']);
const NAMED_ROLES: Record<string, string> = { 'pep-reference': 'PEP', pep: 'PEP', 'rfc-reference': 'RFC', rfc: 'RFC' };

/** Text as docutils shows it: its escapes (`\*`, `\_`) as the characters they escape, an escaped space or line break as nothing. */
const unescaped = (text: string) => text.replace(/\x00[ \n]?/g, '');
/** Text as written, its escapes' backslashes put back. */
const asWritten = (text: string) => text.replace(/\x00/g, '\\');

/** Interpreted text's words as plain text by its role (docutils' default, title-reference, where none is given); undefined for a role docutils does not know, which it shows as written. */
function interpretedText(text: string, role: string | undefined): string | undefined {
  const name = role?.slice(1, -1).toLowerCase() ?? 't';
  if (PLAIN_ROLES.has(name)) return unescaped(text);
  const named = NAMED_ROLES[name];
  return named ? `${named} ${unescaped(text)}` : undefined;
}

/** The plain text of the inline markup at the start of `rest`, started by `start` (its role, if any, is `role`), and the length it takes; undefined where docutils reads no markup there. */
function inlineMarkup(rest: string, start: string, role: string | undefined, before: string): { text: string; length: number } | undefined {
  const quoted = rest.length === start.length || QUOTED[before]?.includes(rest[start.length]!);
  const end = quoted ? null : MARKUP_END[start.slice(role?.length ?? 0)]!.exec(rest.slice(start.length));
  // An end-string right after the start-string ends nothing: docutils shows the start-string as written.
  if (!end || end.index === 0) return undefined;
  const content = rest.slice(start.length, start.length + end.index);
  const length = start.length + end.index + end[0].length;
  if (start === '``') return { text: asWritten(content), length };
  if (!start.endsWith('`')) return { text: unescaped(content), length };
  const [, suffixRole, reference] = end;
  // A reference (`text <url>`_) is left to restLinks; a role both before and after is docutils' error, shown as written.
  const text = reference || (role && suffixRole) ? undefined : interpretedText(content, role ?? suffixRole);
  return { text: text ?? asWritten(rest.slice(0, length)), length };
}

/** A paragraph's inline markup as docutils reads it, as plain text: the scan docutils' Inliner makes, from one start-string to the next. */
function plainParagraph(paragraph: string): string {
  const out: string[] = [];
  let rest = paragraph;
  for (let start = MARKUP_START.exec(rest); start; start = MARKUP_START.exec(rest)) {
    out.push(unescaped(rest.slice(0, start.index)));
    const markup = inlineMarkup(rest.slice(start.index), start[0], start[1], rest[start.index - 1] ?? '');
    out.push(markup?.text ?? asWritten(start[0]));
    rest = rest.slice(start.index + (markup?.length ?? start[0].length));
  }
  out.push(unescaped(rest));
  return out.join('');
}

/**
 * reStructuredText's inline markup (pyvideo.org showed a summary through docutils) as the plain text it shows: a
 * literal's, an emphasis' and interpreted text's words without their marks (``` ``datetime`` ``` is datetime, `*x*`
 * x), escaped characters without their backslash (`\*`, `easy\_install`); what docutils reads as no markup (`2*3*4`,
 * `**kwargs` with no end, `"*"`) stays as written, and so do its links (`text <url>`_), which restLinks reads after.
 * Markup does not go on over a blank line, which ends a paragraph.
 */
export function restInlineText(text: string): string {
  // Few texts have any markup or escape, and are not scanned.
  if (!/[*`\\]/.test(text)) return text;
  return text
    .replace(/\\([\s\S]?)/g, '\x00$1')
    .split(/(\n[ \t]*\n)/)
    .map((part, i) => (i % 2 === 1 ? part : plainParagraph(part)))
    .join('');
}

/** Markdown's links from the root of a site, resolved by `root`; as text, `text (/path/)`, where it cannot. */
function markdownRootLinks(text: string, root: RootLinks): string {
  return text.replace(MARKDOWN_ROOT_LINK, (_, label: string, written: string) => {
    const target = root(written);
    if (target === '') return label;
    return target === undefined ? `${label} (${written})` : `[${label}](<${target}>)`;
  });
}

/** What starts a list item, a heading or a quote at the start of a Markdown line. */
const BLOCK_START = /^(\s*)(?:([-+*>]|#{1,6})|(\d+)([.)]))(?=\s|$)/;

/**
 * The start of a line of a line block: its indent and, where the block starts a list's item
 * (`#. | *Residual Networks*`, `-  | Python version 3.5.x`), the item's marker; its "|".
 */
const LINE_BLOCK_LINE = /^(\s*(?:(?:[-+*]|\d+[.)]|#\.)\s+)?)\|(?= |$)/;

/**
 * reStructuredText's line blocks (lines that start with "| ", 142 descriptions of the snapshot: addresses,
 * verses, agendas) as lines that keep their breaks in Markdown, in a list's item too. A run of lines that end
 * with "|" too is a Markdown table, and stays as it is.
 */
export function restLineBlocks(text: string): string {
  // Most texts have no "|", and are not split into lines.
  if (!text.includes('|')) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const block = lineBlock(lines, i);
    out.push(...(block?.lines ?? [lines[i]!]));
    i = block?.end ?? i + 1;
  }
  return out.join('\n');
}

/** A line of a line block as Markdown's text: a line that would start a list, a heading or a quote in Markdown is a line of the block, as docutils shows it. */
const lineBlockText = (line: string) =>
  line.replace(BLOCK_START, (_, space: string, mark: string | undefined, digits: string, end: string) => (mark ? `${space}\\${mark}` : `${space}${digits}\\${end}`));

/**
 * The line block that starts at line `i`: what is before its first "|" (its indent, a list item's marker), each of
 * its lines as written (from the "|", then the lines that go on with it) and the index of the line after it;
 * undefined when none starts there. A line indented past the "|" goes on with the line before it, as docutils reads it.
 */
function lineBlockAt(lines: string[], i: number): { before: string; blockLines: string[][]; end: number } | undefined {
  const start = LINE_BLOCK_LINE.exec(lines[i]!);
  if (!start) return undefined;
  const column = start[1]!.length;
  const pad = ' '.repeat(column);
  const blockLines: string[][] = [];
  let end = i;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (end === i || (line.startsWith(pad) && LINE_BLOCK_LINE.exec(line)?.[1] === pad)) blockLines.push([line.slice(column)]);
    else if (!isBlank(line) && indentOf(line) > column) blockLines.at(-1)!.push(line);
    else break;
  }
  return { before: start[1]!, blockLines, end };
}

/** A line block's line as its lines of text: its first without the "|", and those that go on with it without their indent. */
const lineBlockLine = ([line, ...more]: string[]) => [line!.replace(/^\| ?/, ''), ...more.map((l) => l.trim())];

/** The line block that starts at line `i`, as Markdown's lines, and the index of the line after it; undefined when none starts there. */
function lineBlock(lines: string[], i: number): { lines: string[]; end: number } | undefined {
  const block = lineBlockAt(lines, i);
  if (!block) return undefined;
  const { before, blockLines, end } = block;
  if (blockLines.some(([line]) => /\|\s*$/.test(line!.slice(1)))) return { lines: lines.slice(i, end), end };
  const pad = ' '.repeat(before.length);
  const shown = blockLines.flatMap((written, k) => {
    const markdown = lineBlockLine(written).map((line, n) => `${k === 0 && n === 0 ? before : pad}${lineBlockText(line)}`);
    if (k < blockLines.length - 1) markdown.push(`${markdown.pop()}\\`);
    return markdown;
  });
  return { lines: shown, end };
}

/**
 * A line of one punctuation character, three or more: reStructuredText's adornment of a section title, or a
 * transition. Not of backticks, a Markdown fence (and no adornment of the snapshot's).
 */
const ADORNMENT = /^([!-/:-@[-_{-~])\1{2,}\s*$/;
/** A line that opens or closes a Markdown code fence. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A paragraph's end that introduces a literal block ("Example::", "Example: ::", "::"). */
const LITERAL_MARK = /(^|\s?)::\s*$/;
/** A directive whose content is code: `.. code:: python`, `.. code-block::`, `.. sourcecode::`. */
const CODE_DIRECTIVE = /^\.\. (?:code|code-block|sourcecode)::\s*(\S*)\s*$/;
/** A directive of an image, in a list's item too: `.. image:: URL`, `.. figure:: URL`. */
const IMAGE_DIRECTIVE = /^(\s*)\.\. (image|figure)::\s*(\S+)\s*$/;
/** A container (`.. container::`, a `<div>` around its content in docutils' HTML), in a list's item too. */
const CONTAINER = /^(\s*)\.\. container::/;
/** A list table, `.. list-table:: Lightning Talks`: its title. */
const LIST_TABLE = /^\.\. list-table::\s*(.*?)\s*$/;
/** The top of a grid table, `+------+----+`. */
const GRID_TOP = /^\+(?:-+\+)+\s*$/;
/** A line between a grid table's rows, `+------+----+`, or under its header, `+======+====+`. */
const GRID_BORDER = /^\+(?:(?:-+|=+)\+)+\s*$/;
/** A substitution defined by an image directive: `.. |pandas gif| image:: URL`, for `|pandas gif|` in the text. */
const SUBSTITUTION_IMAGE = /^\.\. \|([^|\s](?:[^|]*[^|\s])?)\| image::\s*(\S+)\s*$/;
/** A reference to a substitution: `|pandas gif|`. */
const SUBSTITUTION_REFERENCE = /(?<![\w|])\|([^|\s](?:[^|\n]*[^|\s])?)\|(?![\w|])/g;
/** A line of a directive's options, `:linenos:`, `:alt: A screenshot`: the directive's, not its content. */
const DIRECTIVE_OPTION = /^\s+:([\w-]+):(?:\s+(.*?))?\s*$/;
/** A directive whose content is HTML, shown as it is by docutils: as pandoc wrote the tags of lists it could not write otherwise. */
const RAW_HTML = /^\.\. raw:: html\s*$/;
/** A footnote: `.. [1] text`, auto-numbered `.. [#] text` (or `[#name]`), or marked with a symbol, `.. [*] text`. */
const FOOTNOTE = /^\.\. \[(#[\w-]*|\d+|\*)\]\s+(.*)$/;
/** A reference to a footnote: `[1]_`, `[#]_`, `[*]_`. */
const FOOTNOTE_REFERENCE = /\[(#[\w-]*|\d+|\*)\]_(?!\w)/g;
/** docutils' footnote symbols, in their order: the eleventh footnote so marked is `**`. */
const FOOTNOTE_SYMBOLS = ['*', '†', '‡', '§', '¶', '#', '♠', '♥', '♦', '♣'];

/**
 * The labels docutils gives footnotes and the references to them, as text: a number stays; `#` numbers them from 1,
 * `#name` once for the name, and `*` gives the symbols in turn, to the footnotes and to the references each in order.
 */
function footnoteLabels(): (mark: string) => string {
  const named = new Map<string, string>();
  let numbered = 0;
  let symbols = 0;
  return (mark) => {
    if (mark === '*') return FOOTNOTE_SYMBOLS[symbols % FOOTNOTE_SYMBOLS.length]!.repeat(Math.floor(symbols++ / FOOTNOTE_SYMBOLS.length) + 1);
    if (mark === '#') return String(++numbered);
    if (!mark.startsWith('#')) return mark;
    return named.get(mark) ?? named.set(mark, String(++numbered)).get(mark)!;
  };
}

/** A footnote's label as Markdown's text, `\[1\]`: escaped, so that no `[1]` is a link and no `*` emphasis. */
const footnoteText = (label: string) => `\\[${label.replace(/\*/g, '\\*')}\\]`;

/** An empty comment, `..` alone before a blank line: docutils' way to part two lists, or a paragraph from a quote. */
const EMPTY_COMMENT = /^\.\.\s*$/;
/**
 * A hyperlink target: `.. _CloudABI: https://nuxi.nl/`, `` .. _`Two words`: URL ``, `.. _00:00: URL`. Its name ends
 * at the first colon before white space; white space in its address is none of it, as docutils reads it
 * (pycon-es-2016's `.. _Pyomo: http: //www.pyomo.org/`).
 */
const TARGET = /^\.\. _(`[^`]+`|[^`]+?):\s+(\S.*?)\s*$/;
/**
 * A reference to a hyperlink target: `` `Two words`_ ``, `CloudABI_`, `00:00_` (a word may hold a colon, as a
 * target's name may: `.. _00:00: …&t=00m00s`). A phrase may go on over a line's end, as docutils reads it
 * (`hardware\nsupport`_), within its paragraph.
 */
const REST_REFERENCE = /`((?:[^`<>\n]|\n(?![ \t]*\n))+)`_(?!_)|(?<![\w`])([A-Za-z0-9][\w.+:-]*?)_(?![\w])/g;

/** An item of a list numbered by docutils (`#. Intro`), which Markdown reads as text: as `1.`, it numbers on from 1 as docutils did (35 descriptions). */
const AUTO_ENUMERATOR = /^(\s*)#\.(?=\s|$)/;

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;
const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';

/** Python's `__init__`, `__slots__` in running text, which Markdown makes a bold "init" (18 pyvideo descriptions). */
const DUNDER = /(?<![\w\\])__([a-z][a-z0-9_]*?)__(?!\w)/g;
/** reStructuredText's escaped space (`ndarray\ s`, `**grail**\ W`), which parts markup from a word and shows nothing; not an escaped backslash's space. */
const ESCAPED_SPACE = /(?<!\\)\\ /g;
/** Text with its dunders' underscores escaped; not in an address (`https://…/__init__.py`). */
const escapeDunders = (text: string) => text.split(/(\S*:\/\/\S*)/).map((part, i) => (i % 2 === 1 ? part : part.replace(DUNDER, '\\_\\_$1\\_\\_'))).join('');
/**
 * A line of text as Markdown, its dunders escaped and its escaped spaces taken out; not in its code spans, nor a line
 * of indented code. Most lines have neither, and are not split.
 */
const inlineText = (line: string) =>
  indentOf(line) >= 4 || !/__|\\ /.test(line) ? line : line.split(/(`+[^`]*`+)/).map((part, i) => (i % 2 === 1 ? part : escapeDunders(part.replace(ESCAPED_SPACE, '')))).join('');
/** The name a reference and its target share: case and runs of white space do not count, as in docutils. */
const refName = (name: string) => name.replace(/^`|`$/g, '').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * reStructuredText's block markup as Markdown, where Markdown would read it otherwise (745 section titles
 * in the snapshot's descriptions; `Abstract` over `~~~~~~~~` was a code fence that swallowed the rest):
 * section titles become headings, their levels in the order their adornments first appear; a literal block
 * after `::` and the content of a code directive become fenced code; an image or figure directive a
 * Markdown image; a list table or a grid table a Markdown table; a container its content; hyperlink targets
 * (`.. _CloudABI: https://nuxi.nl/`, 284) Markdown's link reference definitions, and the references to them
 * (`CloudABI_`, `` `Two words`_ ``) its reference links; a Python name such as `__slots__` in running text
 * stays text, and an escaped space (`ndarray\ s`) none. Markdown already in the text (its fences, its setext
 * headings, which come out the same) stays as it is.
 */
export function restBlocks(text: string): string {
  const conversion = new RestConversion(text.split('\n'));
  for (let i = 0; i < conversion.lines.length; ) i = conversion.convert(i);
  return conversion.markdown();
}

/**
 * One text's conversion by restBlocks: the Markdown lines made so far, and what its later lines depend on (the
 * adornments of its section titles, its hyperlink targets, the fence its lines are in). Each kind of block is
 * a method that converts the block starting at a line and gives the index of the line after it, or undefined
 * when the line starts no block of its kind.
 */
class RestConversion {
  private readonly out: string[] = [];
  /** The styles of the section titles' adornments, in the order they first appear: a title's level is its style's place. */
  private readonly styles: string[] = [];
  /** The hyperlink targets, by their names (see refName). */
  private readonly targets = new Map<string, string>();
  /** The labels of the footnotes, as their definitions come. */
  private readonly footnoteLabel = footnoteLabels();
  /** The images of the substitutions, by their names (see refName). */
  private readonly substitutions = new Map<string, string>();
  /** What closes the Markdown code fence the lines are in, if they are in one. */
  private fence: string | undefined;

  constructor(readonly lines: string[]) {}

  /** Converts the block that starts at line `i`, a line of text when it starts none; the index of the line after it. */
  convert(i: number): number {
    return (
      this.inFence(i) ?? this.sectionTitle(i) ?? this.opensFence(i) ?? this.codeDirective(i) ?? this.image(i) ?? this.container(i) ?? this.listTable(i) ?? this.gridTable(i) ??
      this.target(i) ?? this.substitution(i) ?? this.emptyComment(i) ?? this.footnote(i) ?? this.rawHtml(i) ?? this.literalBlock(i) ?? this.textLine(i)
    );
  }

  /** The Markdown, the references to the targets as reference links, those to the substitutions as their images, and those to the footnotes as their labels. */
  markdown(): string {
    const referenceLabel = footnoteLabels();
    const converted = this.substituted(this.out.join('\n')).replace(FOOTNOTE_REFERENCE, (_, mark: string) => footnoteText(referenceLabel(mark)));
    if (this.targets.size === 0) return converted;
    // References to the targets only: an identifier that ends in "_" is no reference unless a target has its name.
    return converted.replace(REST_REFERENCE, (whole, phrase: string | undefined, word: string | undefined) => {
      const name = refName(phrase ?? word!);
      return this.targets.has(name) ? `[${linkText((phrase ?? word!).trim())}]` : whole;
    });
  }

  /** The text with its references to substitutions as their images, named by the reference; other `|words|` as they are. */
  private substituted(text: string): string {
    if (this.substitutions.size === 0) return text;
    return text.replace(SUBSTITUTION_REFERENCE, (whole, name: string) => {
      const url = this.substitutions.get(refName(name));
      return url === undefined ? whole : `![${linkText(name)}](<${url}>)`;
    });
  }

  /** A line in a Markdown code fence, as it is. */
  private inFence(i: number): number | undefined {
    if (this.fence === undefined) return undefined;
    const line = this.lines[i]!;
    this.out.push(line);
    if (line.trim().startsWith(this.fence)) this.fence = undefined;
    return i + 1;
  }

  private sectionTitle(i: number): number | undefined {
    const title = overlinedTitle(this.lines, i) ?? underlinedTitle(this.lines, i);
    if (!title) return undefined;
    if (!this.styles.includes(title.style)) this.styles.push(title.style);
    this.out.push(`${'#'.repeat(Math.min(this.styles.indexOf(title.style) + 1, 6))} ${inlineText(title.text.trim())}`);
    return title.next;
  }

  /** The line that opens a Markdown code fence, as it is. */
  private opensFence(i: number): number | undefined {
    const opened = FENCE.exec(this.lines[i]!);
    if (!opened) return undefined;
    this.fence = opened[1]!;
    this.out.push(this.lines[i]!);
    return i + 1;
  }

  /** A code directive, its content fenced; undefined when no indented content follows it. */
  private codeDirective(i: number): number | undefined {
    const code = CODE_DIRECTIVE.exec(this.lines[i]!);
    if (!code) return undefined;
    // Its options (`:linenos:`) are the directive's, not the code's.
    const { next } = this.options(i + 1);
    const end = this.literal(next, code[1] ?? '');
    return end !== next ? end : undefined;
  }

  /** An image or figure directive as an image; a figure's caption (and legend) as written, a paragraph under it where docutils ends it, at its indent's end. */
  private image(i: number): number | undefined {
    const image = IMAGE_DIRECTIVE.exec(this.lines[i]!);
    if (!image) return undefined;
    const indent = image[1]!;
    const { next, values } = this.options(i + 1);
    this.out.push(`${indent}![${linkText(values.get('alt') ?? '')}](${image[3]})`);
    const caption = image[2] === 'figure' ? this.indented(next, indent.length) : undefined;
    return caption ? this.blockOfItsOwn(this.lines.slice(caption.start, caption.end), caption.end) : next;
  }

  /** A container's content in its place, at the container's indent, to be read as the text around it: the index of its first line. */
  private container(i: number): number | undefined {
    const indent = CONTAINER.exec(this.lines[i]!)?.[1];
    if (indent === undefined) return undefined;
    const { next } = this.options(i + 1);
    const content = this.indented(next, indent.length);
    this.lines.splice(i, (content?.end ?? next) - i, ...(content?.lines.map((line) => (isBlank(line) ? line : `${indent}${line}`)) ?? []));
    return i;
  }

  /** A list table as a Markdown table, after its title; undefined when its content is no list of lists. */
  private listTable(i: number): number | undefined {
    const table = LIST_TABLE.exec(this.lines[i]!);
    if (!table) return undefined;
    const { next, values } = this.options(i + 1);
    const body = this.indented(next);
    const rows = bulletItems(body?.lines ?? []).map((row) => bulletItems(row).map(cellText));
    if (!body || rows.length === 0 || rows.some((row) => row.length === 0)) return undefined;
    const header = Number(values.get('header-rows') ?? 0) > 0 ? rows.shift() : undefined;
    return this.blockOfItsOwn([...(table[1] ? [table[1], ''] : []), ...markdownTable(header, rows)], body.end);
  }

  /** A grid table as a Markdown table; undefined when a cell of it spans columns or rows, which Markdown's cannot. */
  private gridTable(i: number): number | undefined {
    const top = this.lines[i]!;
    if (!GRID_TOP.test(top)) return undefined;
    const edges = [...top.trimEnd()].flatMap((c, k) => (c === '+' ? [k] : []));
    const rows: string[][][] = [];
    let headerRows = 0;
    let cells: string[][] = [];
    let end = i + 1;
    for (; end < this.lines.length && /^[+|]/.test(this.lines[end]!); end++) {
      const line = this.lines[end]!;
      if (GRID_BORDER.test(line)) {
        if (line.trimEnd().length !== top.trimEnd().length || cells.length === 0) return undefined;
        rows.push(cells);
        cells = [];
        if (line.includes('=')) headerRows = rows.length;
        continue;
      }
      // pandoc edged some tables' rows with "+" (pycon-us-2017's), where docutils' are "|".
      if (!edges.every((k) => line[k] === '|' || line[k] === '+')) return undefined;
      edges.slice(1).forEach((k, column) => (cells[column] ??= []).push(line.slice(edges[column]! + 1, k)));
    }
    if (cells.length > 0 || rows.length === 0) return undefined;
    const texts = rows.map((row) => row.map(cellText));
    const header = headerRows > 0 ? texts.shift() : undefined;
    return this.blockOfItsOwn(markdownTable(header, texts), end);
  }

  /** A substitution's image, kept for the references to it: the definition itself shows nothing. */
  private substitution(i: number): number | undefined {
    const definition = SUBSTITUTION_IMAGE.exec(this.lines[i]!);
    if (!definition) return undefined;
    this.substitutions.set(refName(definition[1]!), definition[2]!);
    return this.options(i + 1).next;
  }

  /** An empty comment as Markdown's, which ends a list or a paragraph as docutils' did (where a blank line would join two lists). */
  private emptyComment(i: number): number | undefined {
    if (!EMPTY_COMMENT.test(this.lines[i]!) || !isBlank(this.lines[i + 1])) return undefined;
    this.out.push('<!-- -->');
    return i + 1;
  }

  /** A raw HTML directive's content as Markdown's raw HTML, which the page sanitises as any other; undefined when no indented content follows it. */
  private rawHtml(i: number): number | undefined {
    const block = RAW_HTML.test(this.lines[i]!) ? this.indented(i + 1) : undefined;
    if (!block) return undefined;
    // Markdown's HTML block starts a line after a paragraph's end and runs until a blank line.
    return this.blockOfItsOwn(block.lines, block.end);
  }

  /** A footnote as a paragraph of its own, after its label, as docutils lists it where it is written. */
  private footnote(i: number): number | undefined {
    const footnote = FOOTNOTE.exec(this.lines[i]!);
    if (!footnote) return undefined;
    const rest = this.indented(i + 1);
    return this.blockOfItsOwn([`${footnoteText(this.footnoteLabel(footnote[1]!))} ${footnote[2]}`, ...(rest?.lines ?? [])], rest?.end ?? i + 1);
  }

  /** Markdown lines as a block of their own, blank lines around them, before line `next`; `next`. */
  private blockOfItsOwn(block: string[], next: number): number {
    if (!isBlank(this.out.at(-1))) this.out.push('');
    this.out.push(...block);
    if (!isBlank(this.lines[next])) this.out.push('');
    return next;
  }

  /** The options of the directive before line `from`, by name, and the index of the first line after them. */
  private options(from: number): { next: number; values: Map<string, string> } {
    const values = new Map<string, string>();
    let next = from;
    for (let option; next < this.lines.length && (option = DIRECTIVE_OPTION.exec(this.lines[next]!)); next++) values.set(option[1]!, option[2] ?? '');
    return { next, values };
  }

  /** A hyperlink target, kept for the references to it, as a link reference definition. */
  private target(i: number): number | undefined {
    const target = TARGET.exec(this.lines[i]!);
    if (!target) return undefined;
    const url = target[2]!.replace(/\s+/g, '');
    this.targets.set(refName(target[1]!), url);
    // A definition cannot interrupt a paragraph.
    if (!isBlank(this.out.at(-1)) && !/^\[[^\]]+\]: /.test(this.out.at(-1)!)) this.out.push('');
    this.out.push(`[${linkText(refName(target[1]!))}]: <${url}>`);
    return i + 1;
  }

  /** A paragraph's last line that ends with `::`, and the literal block after it fenced. */
  private literalBlock(i: number): number | undefined {
    const line = this.lines[i]!;
    if (!LITERAL_MARK.test(line) || line.startsWith('..')) return undefined;
    // "Example::" reads "Example:"; "Example ::" and "::" alone lose the mark.
    const kept = line.replace(LITERAL_MARK, (_, before: string) => (before === '' && line.trim() !== '::' ? ':' : ''));
    if (kept.trim() !== '') this.out.push(inlineText(kept));
    return this.literal(i + 1, '');
  }

  /** A line of text, an item of a list docutils numbers (`#.`) numbered as Markdown numbers one. */
  private textLine(i: number): number {
    this.out.push(inlineText(this.lines[i]!.replace(AUTO_ENUMERATOR, '$11.')));
    return i + 1;
  }

  /** The indented block that starts at or after `from` (blank lines first), as fenced code; the index after it (`from` when there is none). */
  private literal(from: number, lang: string): number {
    const block = this.indented(from);
    if (!block) return from;
    this.out.push('', `\`\`\`${lang}`, ...block.lines, '```');
    return block.end;
  }

  /**
   * The block indented past `beyond` that starts at or after `from` (blank lines first): its lines without their indent,
   * the index of its first line and of the line after it; undefined when there is none.
   */
  private indented(from: number, beyond = 0): { lines: string[]; start: number; end: number } | undefined {
    const { lines } = this;
    let start = from;
    while (start < lines.length && isBlank(lines[start])) start++;
    const indent = start < lines.length ? indentOf(lines[start]!) : 0;
    if (indent <= beyond) return undefined;
    let end = start;
    while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]!) >= indent)) end++;
    while (end > start && isBlank(lines[end - 1])) end--;
    return { lines: lines.slice(start, end).map((line) => line.slice(indent)), start, end };
  }
}

/**
 * The items of the bullet list that `lines` are (`* - Time`, its items' lines after the first indented to their
 * text), each its lines from its text's column; none when the lines are not one list.
 */
function bulletItems(lines: string[]): string[][] {
  const items: string[][] = [];
  let column = 0;
  for (const line of lines) {
    const bullet = /^[-*+](?:\s+|$)/.exec(line);
    if (bullet) {
      column = bullet[0].length;
      items.push([line.slice(column)]);
    } else if (items.length > 0 && (isBlank(line) || indentOf(line) >= column)) items.at(-1)!.push(line.slice(column));
    else if (!isBlank(line)) return [];
  }
  return items;
}

/** A table cell's lines as the one line Markdown's cell is: docutils read them as one paragraph. */
const cellText = (lines: string[]) => lines.map((line) => line.trim()).filter((line) => line !== '').join(' ');

/** A table as Markdown's, its cells' "|" escaped; its header row empty when it has none, as Markdown's tables need one. */
function markdownTable(header: string[] | undefined, rows: string[][]): string[] {
  const width = Math.max(header?.length ?? 0, ...rows.map((row) => row.length));
  const row = (cells: string[]) => `| ${Array.from({ length: width }, (_, k) => (cells[k] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [row(header ?? []), `| ${Array<string>(width).fill('---').join(' | ')} |`, ...rows.map(row)];
}

/** A section title: its text, its adornment's style, and the index of the line after it. */
type SectionTitle = { text: string; style: string; next: number };

/** The title over- and underlined at line `i`, if one is; its style (`=/`) is not that of a title only underlined with the same character (`=`). */
function overlinedTitle(lines: string[], i: number): SectionTitle | undefined {
  const line = lines[i]!;
  const over = ADORNMENT.exec(line);
  // Over and under a title, after a blank line; three tildes are rather a Markdown fence around one line of code.
  const overlined = over && isBlank(lines[i - 1]) && !isBlank(lines[i + 1]) && !/^~{3}\s*$/.test(line) && ADORNMENT.exec(lines[i + 2] ?? '')?.[0].trim() === line.trim();
  if (!overlined || lines[i + 1]!.trim().length > line.trim().length) return undefined;
  return { text: lines[i + 1]!, style: `${over[1]}/`, next: i + 3 };
}

/** The title at line `i` underlined by the next, after a blank line, if one is. */
function underlinedTitle(lines: string[], i: number): SectionTitle | undefined {
  const line = lines[i]!;
  if (ADORNMENT.test(line) || !isBlank(lines[i - 1]) || indentOf(line) !== 0 || isBlank(line)) return undefined;
  const under = ADORNMENT.exec(lines[i + 1] ?? '');
  if (!under || line.trim().length > lines[i + 1]!.trim().length) return undefined;
  return { text: line, style: under[1]!, next: i + 2 };
}

/** A line that Markdown may read as indented code: four spaces, or a tab after fewer. */
const INDENTED_LINE = /^(?: {4}| {0,3}\t)/m;

/**
 * reStructuredText's block quotes, a block indented after a blank line, as Markdown's: Markdown reads a block
 * indented by four spaces as code, where docutils, and so pyvideo.org, showed a quote (29 descriptions of the
 * snapshot, their prose and lists in a code box). Literal blocks and code directives are fenced by then. A
 * quote's text is read again as docutils reads it, for the directives, line blocks and quotes in it. A block
 * indented less than four spaces, a quote in reStructuredText too, is already a paragraph or a list here.
 */
export function restBlockQuotes(text: string): string {
  // Indented code has a line indented so, as 153 of the snapshot's 16,095 descriptions have: the others are not read as Markdown (1–2 s of the import).
  if (!INDENTED_LINE.test(text)) return text;
  const blocks = markdownBlocks(text);
  const quote = (block: Token): block is Tokens.Code => block.type === 'code' && block.codeBlockStyle === 'indented';
  if (!blocks.some(quote)) return text;
  return blocks
    .map((block, i) => {
      if (!quote(block)) return block.raw;
      const lines = restBlockQuotes(restLineBlocks(restBlocks(block.text))).split('\n');
      // A line right after a quote would be read as the quote's own (a lazy continuation): a blank line ends it.
      const next = blocks[i + 1];
      const end = next && !(next.type === 'space' && next.raw.startsWith('\n\n')) ? '\n\n' : '';
      return `${lines.map((line) => (line === '' ? '>' : `> ${line}`)).join('\n')}${end}`;
    })
    .join('');
}

/** A pyvideo description, reStructuredText or Markdown or plain text, as Markdown (see restLinks, restBlocks, restLineBlocks, restBlockQuotes). */
export const restMarkup = (text: string, root?: RootLinks): string => restBlockQuotes(restLineBlocks(restBlocks(restLinks(text, true, root))));

/**
 * What starts an item of a list in docutils (a bullet, `-`, `*`, `+`, `•`, `‣`, `⁃`, or an enumerator, `1.`, `a)`,
 * `(iv)`, `#.`, before white space), or would once the escape before it is taken out (`\\* Recap`); the second
 * group is what the talk's page takes for an item too (PLAIN_LIST_MARK: `-`, `*`, `+`, `•`, `33.`, `1)`).
 */
const REST_LIST_ITEM = new RegExp(String.raw`^\s*(\\)?(?:(${PLAIN_LIST_MARK})|[‣⁃]|\(?(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)[.)])(?=\s|$)`);

/**
 * A summary's reStructuredText blocks as plain text that shows what docutils showed, as the talk's page shows a summary
 * (see paragraphs in render.ts: a wrapped line is joined to the one before unless it starts a list's item): a section
 * title a paragraph of its own, without its adornment lines (140 titles in 31 summaries of the snapshot; `Abstract`
 * over `~~~~~~~~` read "Abstract ~~~~~~~~"), each line of a line block a paragraph of its own, without its "|" (6
 * summaries), and a wrapped line of a paragraph that starts as a list's item would joined to the line before: docutils
 * reads a list only at a block's start, where pandoc's wrapping put "- and how it works…" and "33. Jahr" in running
 * text (18 lines in 15 summaries). Lists stay as written, their items shown a line each.
 */
export function restPlainBlocks(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  /** The indent of the paragraph the lines are in; null in a block that is no paragraph, undefined at a block's start. */
  let paragraph: number | null | undefined;
  const ownParagraphs = (paragraphs: string[], next: number) => {
    out.push(...paragraphs.flatMap((p, k) => (k === 0 && isBlank(out.at(-1)) ? [p] : ['', p])));
    if (!isBlank(lines[next])) out.push('');
    paragraph = undefined;
    return next;
  };
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    const title = paragraph === undefined ? (overlinedTitle(lines, i) ?? underlinedTitle(lines, i)) : undefined;
    const block = paragraph === undefined && !isBlank(line) ? lineBlockAt(lines, i) : undefined;
    if (title) i = ownParagraphs([title.text.trim()], title.next);
    else if (block) i = ownParagraphs(lineBlockParagraphs(block), block.end);
    else {
      const item = REST_LIST_ITEM.exec(line);
      if (paragraph === indentOf(line) && item?.[2]) out.push(`${out.pop()!.trimEnd()} ${line.trim()}`);
      else out.push(line);
      paragraph = blockAfter(paragraph, line, item);
      i++;
    }
  }
  return out.join('\n');
}

/** A line block's lines as plain text's paragraphs, the first after what is before its "|" (a list item's marker); a line without text none. */
const lineBlockParagraphs = ({ before, blockLines }: { before: string; blockLines: string[][] }) =>
  blockLines.map((written, k) => `${k === 0 ? before : ''}${lineBlockLine(written).join(' ')}`.trimEnd()).filter((line) => line !== '');

/** The block the lines after `line` are in (see restPlainBlocks): its paragraph's indent, null in a block that is no paragraph (a list), undefined after a blank line. */
function blockAfter(paragraph: number | null | undefined, line: string, item: RegExpExecArray | null): number | null | undefined {
  if (isBlank(line)) return undefined;
  if (paragraph === undefined) return item && !item[1] ? null : indentOf(line);
  // An indented line after a paragraph's first makes it a definition list's term in docutils, or is a block of its own.
  return paragraph === indentOf(line) ? paragraph : null;
}

export interface TalkContext {
  /** The source file, as shown in notes and errors, e.g. `pycon-us-2014/videos/x.json`. */
  source: string;
  /** The event's folder in pyvideo/data. */
  folder: string;
  /** The event's title in its category.json: pyvideo.org named the event's folder of pages after it. */
  eventTitle: string;
  /** The source file name without `.json`. */
  stem: string;
  id: number;
  draft: boolean;
  added: string;
  updated: string;
  /** The slug the talk is (or will be) published under. */
  slug: string;
}

/**
 * A pyvideo title as text. A few were scraped with their HTML's character references ("Python &amp; PySide"),
 * which pyvideo.org's pages left to the browser to decode; ours show a title as it is written.
 */
const plainTitle = (title: string) => decodeHTMLStrict(title);

/** Says what a repair or a mapping did to the record being converted. */
type Note = (kind: string) => void;

/** Converts one pyvideo video record; notes say what was repaired or moved. */
export function convertTalk(source: unknown, ctx: TalkContext): Converted<TalkFile> {
  if (!isObject(source)) return { ok: false, error: 'not a JSON object' };
  const notes: ImportNote[] = [];
  const note: Note = (kind) => notes.push({ kind, source: ctx.source });
  if (typeof source.title !== 'string' || source.title.trim() === '') return { ok: false, error: 'title is missing or empty' };
  const fields = fieldReader(source, note);
  // Read as the other texts are, controls and noncharacters taken out: the schema refuses them.
  const written = fields.text('title');
  const title = plainTitle(written);
  if (title !== written) note('title: HTML character references decoded (&amp; → &)');
  for (const key of Object.keys(source)) if (!KNOWN_FIELDS.has(key)) note(`field "${key}" ignored (not in pyvideo's schema)`);
  const language = talkLanguage(source.language, note);
  if ('error' in language) return { ok: false, error: language.error };
  const recorded = recordedDate(source.recorded, note);
  const duration = durationOf(source, note);
  const texts = summaryAndDescription(fields, source.abstract, note);
  const places = new Places(note);
  placeRelated(fields, source.related_url != null, places, note);
  const { media, sourceUrl, embed } = videoFields(source.source_url, fields, { title, duration }, places, note);
  const thumbnail = thumbnailOf(source.thumbnail_url, places, note);
  const aliases = talkAliases(source, ctx, title, places, note);
  // After the related URLs and the source: a link from a site's root resolves against the site the text came from.
  const { summary, description } = rootedTexts(texts, rootLinksOf(places.related, sourceUrl), note);
  const talk: TalkFile = {
    id: ctx.id,
    state: ctx.draft ? 2 : 1,
    title,
    language: language.name,
    speakers: fields.strings('speakers'),
    tags: fields.strings('tags'),
    summary,
    description,
    quality_notes: fields.text('quality_notes'),
    copyright_text: fields.text('copyright_text'),
    embed,
    thumbnail_url: thumbnail,
    duration,
    ...formatFields(media),
    source_url: sourceUrl,
    whiteboard: places.whiteboard(),
    recorded,
    added: ctx.added,
    updated: ctx.updated,
    related_urls: places.related,
    aliases,
  };
  if (ctx.draft) note('listed in NO_PUBLISH.json → draft');
  return { ok: true, value: talk, notes };
}

/** What tells a talk apart whatever its file is named: its title, the date it was recorded, and its video's address (its source, else its first media file's). */
export interface TalkEvidence {
  title: string;
  recorded: string | null;
  video: string;
}

/** A talk's evidence, as its file (written by an import, or converted) has it. */
export function evidenceOf(talk: Pick<TalkFile, 'title' | 'recorded' | 'source_url' | `video_${Format}_url`>): TalkEvidence {
  const video = talk.source_url || FORMATS.map((f) => talk[`video_${f}_url`]).find((url) => url) || '';
  return { title: talk.title, recorded: talk.recorded, video };
}

/** A record's evidence, read as convertTalk reads those fields (without its notes); undefined for a record convertTalk refuses for want of a title. */
export function recordEvidence(source: unknown): TalkEvidence | undefined {
  if (!isObject(source) || typeof source.title !== 'string') return undefined;
  const ignore: Note = () => undefined;
  const fields = fieldReader(source, ignore);
  const title = plainTitle(fields.text('title'));
  const { media, sourceUrl } = videoFields(source.source_url, fields, { title, duration: null }, new Places(ignore), ignore);
  return evidenceOf({ title, recorded: recordedDate(source.recorded, ignore), source_url: sourceUrl, ...formatFields(media) });
}

/** What the schema refuses in a text that the import takes out of one (a C0 control is in no text of the snapshot), each counted apart. */
const NOT_TEXT_TAKEN_OUT = [
  ['control characters (DEL, U+0080 to U+009F)', /[\u007f-\u009f]/g],
  ['noncharacters (U+FDD0 to U+FDEF, U+FFFE and U+FFFF of any plane)', /\p{Noncharacter_Code_Point}/gu],
] as const;

/** A record's texts, lists of texts and lists of entries, each read as the talk file takes it: what was repaired is noted. */
function fieldReader(source: Record<string, unknown>, note: Note) {
  return {
    text(field: string): string {
      const value = source[field];
      if (value === undefined) return '';
      if (value === null) {
        note(`${field} null → ""`);
        return '';
      }
      if (typeof value !== 'string') {
        note(`${field} not a string → ""`);
        return '';
      }
      // Two descriptions hold U+009D, the mojibake of a closing quote's last byte: the schema refuses these, as pages drop them.
      const takeOut = (text: string, [what, pattern]: (typeof NOT_TEXT_TAKEN_OUT)[number]) => {
        const kept = text.replace(pattern, '');
        if (kept !== text) note(`${field}: ${what} taken out`);
        return kept;
      };
      return NOT_TEXT_TAKEN_OUT.reduce(takeOut, value);
    },
    strings(field: string): string[] {
      const value = source[field];
      if (value === undefined || value === null) return [];
      if (!Array.isArray(value)) {
        note(`${field} not a list → []`);
        return [];
      }
      const kept = value.filter((v): v is string => typeof v === 'string');
      if (kept.length !== value.length) note(`${field}: non-string entries dropped`);
      return kept;
    },
    listOf(field: string): unknown[] {
      const value = source[field];
      if (Array.isArray(value)) return value;
      if (typeof value === 'string' && value !== '') {
        note(`${field}: one URL, not a list`);
        return [value];
      }
      if (isObject(value)) {
        note(`${field}: one entry, not a list`);
        return [value];
      }
      if (value != null && value !== '') note(`${field}: neither a list nor a URL, dropped`);
      return [];
    },
  };
}

type Fields = ReturnType<typeof fieldReader>;

/** The English name of the talk's language, or why the record has none. */
function talkLanguage(value: unknown, note: Note): { name: string } | { error: string } {
  if (value == null || value === '') {
    note('language missing → English');
    return { name: 'English' };
  }
  const name = languageName(value);
  // Only a missing language may become English: any other guess would file the talk under a language it may not be in.
  if (!name) return { error: `language ${JSON.stringify(value)} is neither an ISO 639 code nor the English name of a language` };
  if (!PYVIDEO_CODES.has(value as string)) note(`language "${String(value)}" is not an ISO 639-3 code: read as ${name}`);
  return { name };
}

function recordedDate(value: unknown, note: Note): string | null {
  if (typeof value === 'string') {
    const date = value.slice(0, 10);
    if (value.length > 10) note('recorded: time of day dropped');
    if (isRealDate(date)) return date;
    note('recorded: not a real date → null');
  } else if (value != null) note('recorded: not a string → null');
  return null;
}

/**
 * A week in seconds, which no recording runs; PyCon FR 2016's 47 talks hold their lengths in milliseconds (1,513,080
 * for a 25-minute talk), past it. Read as milliseconds, such a length is a talk's when it is half a day at most.
 */
const MILLISECONDS_FROM = 7 * 86_400;
const LONGEST_RECORDING = 12 * 3_600;

function durationOf(source: Record<string, unknown>, note: Note): number | null {
  const raw = source.duration ?? source[',duration'];
  if (source.duration === undefined && source[',duration'] !== undefined) note('field ",duration" read as duration');
  if (Number.isInteger(raw) && (raw as number) >= 0) {
    const seconds = Math.round((raw as number) / 1000);
    if ((raw as number) < MILLISECONDS_FROM || seconds > LONGEST_RECORDING) return raw as number;
    note('duration: milliseconds (over a week as seconds) → seconds');
    return seconds;
  }
  if (raw != null) note('duration: not a whole non-negative number → null');
  return null;
}

/** The record's summary and description, its legacy `abstract` in the first of them that is empty, else after the description. */
function summaryAndDescription(fields: Fields, abstract: unknown, note: Note): { summary: string; description: string } {
  let summary = fields.text('summary');
  let description = fields.text('description');
  if (typeof abstract === 'string' && abstract.trim() !== '') {
    if (summary === '') {
      summary = abstract;
      note('abstract → summary');
    } else if (description === '') {
      description = abstract;
      note('abstract → description');
    } else if (!description.includes(abstract)) {
      description = `${description}\n\n${abstract}`;
      note('abstract appended to description');
    }
  }
  return { summary, description };
}

/** The URLs of a record that have no field of their own, as they are placed: its related URLs, and the whiteboard's. */
class Places {
  readonly related: RelatedUrl[] = [];
  readonly unplaced: string[] = [];

  constructor(private readonly note: Note) {}

  // Where a URL went is the caller's note: a link the page shows, or the whiteboard's text when a browser cannot follow it.
  place(label: string, url: string): 'related_urls' | 'whiteboard' {
    if (!isHttpUrl(url)) {
      this.unplaced.push(url);
      return 'whiteboard';
    }
    const known = this.related.findIndex((r) => r.url === url);
    if (known === -1) this.related.push({ label, url });
    // A URL given bare and again with a label (mostly "Conference Website") is shown with the label.
    else if (this.related[known]!.label === url) this.related[known] = { label, url };
    else if (label !== url && label !== this.related[known]!.label) this.note('related_urls: a URL given again with another label, that label dropped');
    return 'related_urls';
  }

  whiteboard(): string {
    return this.unplaced.length > 0 ? `Source URLs that are not http(s) URLs: ${this.unplaced.join(' ')}` : '';
  }
}

/** Places the record's related URLs (`related_urls`, and the legacy `related_url`). */
function placeRelated(fields: Fields, legacy: boolean, places: Places, note: Note): void {
  /** Paths from the root of the conference's site (EuroPython 2020's slides, `/media/conference/slides/…`), resolved once its address is known. */
  const fromRoot: { label: string; path: string }[] = [];
  const relate = (label: string, url: string) => {
    // Five addresses were scraped with their HTML's character references (`?usp=sharing&amp;ouid=…`), which break their query.
    const decoded = decodeHTMLStrict(url);
    if (decoded !== url) note('related_urls: HTML character references in a URL decoded (&amp; → &)');
    // 52 end in a carriage return or a space (`http://2017.pyconuk.org/schedule/ `).
    const trimmed = decoded.trim();
    if (trimmed !== decoded) note('related_urls: white space around a URL trimmed');
    // 34 were written with Markdown's escapes (`Kalman\_filter`, `gephi.org/\`), whose "\" browsers read as "/".
    const plain = trimmed.replace(/\\(?=[!-/:-@[-`{-~]|$)/g, '');
    if (plain !== trimmed) note('related_urls: Markdown escapes in a URL taken out (\\_ → _)');
    if (/^\/(?![/\\])/.test(plain)) fromRoot.push({ label: label === url ? plain : label, path: plain });
    else if (places.place(label === url ? plain : label, plain) === 'whiteboard') note('related_urls: not an http(s) URL, kept in whiteboard');
  };
  const entries = [...fields.listOf('related_urls'), ...fields.listOf('related_url')];
  if (legacy) note('field "related_url" read as related_urls');
  for (const r of entries) {
    if (typeof r === 'string' && r !== '') relate(r, r);
    else if (!isObject(r)) note('related_urls: entry neither a URL nor {label, url}, dropped');
    else if (typeof r.url === 'string' && r.url !== '') relate(typeof r.label === 'string' && r.label.trim() !== '' ? r.label : r.url, r.url);
    else note('related_urls: entry without a url dropped');
  }
  const onConferenceSite = rootLinksOf(places.related, '');
  for (const { label, path } of fromRoot) {
    const url = onConferenceSite(path);
    if (url) {
      places.place(label === path ? url : label, url);
      note("related_urls: a path from the root of the conference's site → its address");
    } else if (places.place(label, path) === 'whiteboard') note('related_urls: a path from the root of a site not known, kept in whiteboard');
  }
}

type Media = Partial<Record<Format, { url: string; length: number | null }>>;

/** The record's `source_url` and `videos`: its media files by format, the address of its hosted video and that video's player; other URLs placed. */
function videoFields(sourceUrlField: unknown, fields: Fields, talk: { title: string; duration: number | null }, places: Places, note: Note): { media: Media; sourceUrl: string; embed: string } {
  const media: Media = {};
  let sourceUrl = '';
  if (isHttpUrl(sourceUrlField)) sourceUrl = sourceUrlField;
  else if (typeof sourceUrlField === 'string' && sourceUrlField !== '') {
    places.unplaced.push(sourceUrlField);
    note('source_url: not an http(s) URL, kept in whiteboard');
  }
  let embed = '';
  for (const entry of fields.listOf('videos')) {
    const video = typeof entry === 'string' ? { url: entry } : entry;
    if (!isObject(video) || typeof video.url !== 'string' || video.url === '') {
      note('videos: entry without a url skipped');
      continue;
    }
    const type = String(video.type ?? '').toLowerCase();
    const size = video.size ?? video.length;
    if (FORMAT_SET.has(type) && isHttpUrl(video.url)) {
      const fmt = type as Format;
      if (media[fmt]) {
        note(`videos: second ${type} → ${places.place(`${type.toUpperCase()} file`, video.url)}`);
        continue;
      }
      // FOSDEM 2018's four talks hold their seconds in it: no video of minutes is a file of as many bytes.
      const isDuration = size === talk.duration && talk.duration !== null;
      const length = Number.isInteger(size) && (size as number) > 0 && !isDuration ? (size as number) : null;
      if (size === 0) note(`videos: ${type} size 0 → null`);
      else if (isDuration) note(`videos: ${type} size is the talk's duration, not a size → null`);
      else if (length === null && size != null) note(`videos: ${type} size not a whole positive number → null`);
      media[fmt] = { url: video.url, length };
      note(`videos: ${type} → video_${type}_url`);
    } else if (HOSTED.has(type) && isHttpUrl(video.url)) {
      // The record's own source_url comes first; the player is the first hosted video's that has one.
      const player = embed === '' ? playerUrl(type, video.url) : undefined;
      if (player) embed = embedFor(player, talk.title);
      else if (embed === '') note(`videos: ${type} URL without a recognisable video id, no embed`);
      if (sourceUrl === '' || sourceUrl === video.url) {
        note(`videos: ${type} → ${sourceUrl === '' ? 'source_url' : 'the source_url it repeats'}${player ? ' + embed' : ''}`);
        sourceUrl = video.url;
      } else {
        note(`videos: another hosted video (${type}) → ${places.place(`Also on ${type}`, video.url)}${player ? ' + embed' : ''}`);
      }
    } else {
      note(`videos: ${type || 'untyped'} → ${places.place(type ? `${type} video` : 'Video', video.url)}`);
    }
  }
  return { media, sourceUrl, embed };
}

function thumbnailOf(value: unknown, places: Places, note: Note): string {
  if (isHttpUrl(value)) return value;
  if (value === null) note('thumbnail_url null → ""');
  else if (value !== undefined && value !== '') {
    places.unplaced.push(String(value));
    note('thumbnail_url: not an http(s) URL, kept in whiteboard');
  }
  return '';
}

/** The talk's old addresses, each a redirect to its page: its pages on pyvideo.org and its legacy `alias`. */
function talkAliases(source: Record<string, unknown>, ctx: TalkContext, title: string, places: Places, note: Note): string[] {
  const aliases: string[] = [];
  const canonical = `/video/${ctx.id}/${ctx.slug}/`;
  const pyvideoPage = `/${ctx.folder}/${ctx.stem}.html`;
  if (!aliasProblem(pyvideoPage)) aliases.push(pyvideoPage);
  else if (!isSitePath(pyvideoPage)) note('pyvideo.org page: its file name has characters a site path cannot hold, no redirect');
  else note("pyvideo.org page: a path of the site's own pages, no redirect");
  // pyvideo.org's Pelican named a talk's page after its event's title and its own slug or title, not its file (plugins/json_reader.py).
  const pelicanPage = `/${pelicanSlug(ctx.eventTitle)}/${typeof source.slug === 'string' && source.slug !== '' ? source.slug : pelicanSlug(title)}.html`;
  if (pelicanPage !== pyvideoPage && !aliasProblem(pelicanPage)) {
    aliases.push(pelicanPage);
    note('pyvideo.org page by its event\'s and its own title → redirect');
  }
  if (typeof source.alias === 'string' && source.alias !== '') {
    const legacy = `/${source.alias.replace(/^\/+|\/+$/g, '')}/`;
    const problem = legacyAliasProblem(legacy);
    if (isHttpUrl(source.alias)) note(`alias: a full URL, not a path → ${places.place('Former address', source.alias)}`);
    else if (problem) {
      places.unplaced.push(source.alias);
      note(`alias: ${problem}, kept in whiteboard`);
    } else if (legacy !== canonical) {
      // The talk's own address needs no redirect: its page is there.
      aliases.push(legacy);
      note('alias → redirect');
    }
  } else if (source.alias != null && source.alias !== '') note('alias: not a string, dropped');
  return aliases;
}

/** The summary as plain text and the description as Markdown, their links from a site's root resolved by `rootLinks`. */
function rootedTexts(texts: { summary: string; description: string }, rootLinks: RootLinks, note: Note): { summary: string; description: string } {
  const resolved = new Set<'site' | 'text' | 'words'>();
  const root: RootLinks = (target) => {
    const url = rootLinks(target);
    resolved.add(url === undefined ? 'text' : url === '' ? 'words' : 'site');
    return url;
  };
  const fromRest = (field: 'summary' | 'description', value: string, rewrite: (value: string) => string) => {
    const rewritten = rewrite(value);
    if (rewritten !== value) note(`${field}: reStructuredText markup → ${field === 'summary' ? 'plain text' : 'Markdown'}`);
    return rewritten;
  };
  const rootNotes = (field: 'summary' | 'description') => {
    if (resolved.has('site')) note(`${field}: links from the root of the site it was copied from → that site's addresses`);
    if (resolved.has('text')) note(`${field}: links from the root of a site not known → text`);
    if (resolved.has('words')) note(`${field}: links to an e-mail address Cloudflare hid → their words`);
    resolved.clear();
  };
  const summary = fromRest('summary', texts.summary, (value) => restLinks(restInlineText(restPlainBlocks(value)), false, root));
  rootNotes('summary');
  const description = markdownRootLinks(
    fromRest('description', texts.description, (value) => restMarkup(value, root)),
    root,
  );
  rootNotes('description');
  return { summary, description };
}

/** Why a legacy alias, made a site path, can be no redirect; undefined when it can. */
function legacyAliasProblem(legacy: string): string | undefined {
  if (!/^\/[\w./~-]+\/$/.test(legacy) || !isSitePath(legacy)) return 'not a plain ASCII path (other letters, spaces, a query)';
  if (aliasProblem(legacy)) return "a path of the site's own pages";
  return undefined;
}

type FormatFields = Pick<TalkFile, `video_${Format}_${'length' | 'url' | 'download_only'}`>;

/** The twelve media fields, in the contract's order; imported files are never download-only. */
function formatFields(media: Partial<Record<Format, { url: string; length: number | null }>>): FormatFields {
  const fields: Record<string, unknown> = {};
  for (const f of FORMATS) {
    fields[`video_${f}_length`] = media[f]?.length ?? null;
    fields[`video_${f}_url`] = media[f]?.url ?? null;
    fields[`video_${f}_download_only`] = false;
  }
  return fields as FormatFields;
}

/** Converts one pyvideo category.json. */
export function convertEvent(source: unknown, where: string): Converted<EventFile> {
  if (!isObject(source)) return { ok: false, error: 'not a JSON object' };
  if (typeof source.title !== 'string' || source.title.trim() === '') return { ok: false, error: 'title is missing or empty' };
  const notes: ImportNote[] = [];
  const event: EventFile = { title: source.title };
  if (typeof source.description === 'string' && source.description !== '') {
    // Written as the talks' are (vanpy's "meetup_" and ".. _meetup: …", pycon-ca-2012's "::").
    event.description = restMarkup(source.description);
    if (event.description !== source.description) notes.push({ kind: 'event description: reStructuredText markup → Markdown', source: where });
  }
  if (isHttpUrl(source.url)) event.url = source.url;
  else if (source.url) notes.push({ kind: 'event url: not an http(s) URL, dropped', source: where });
  for (const field of ['start_date', 'end_date'] as const) {
    const value = source[field];
    if (typeof value === 'string' && isRealDate(value)) event[field] = value;
    else if (value != null) notes.push({ kind: `event ${field}: not a real date, dropped`, source: where });
  }
  for (const key of Object.keys(source)) {
    if (!['title', 'description', 'url', 'start_date', 'end_date'].includes(key)) notes.push({ kind: `event field "${key}" ignored`, source: where });
  }
  // pyvideo.org's Pelican named an event's page after its title (pelicanconf.py's CATEGORY_URL).
  const page = eventPage(source.title);
  if (page) event.aliases = [page];
  else notes.push({ kind: "pyvideo.org event page: its title makes no path of a page, no redirect", source: where });
  return { ok: true, value: event, notes };
}

/** The address of an event's page on pyvideo.org, if the site can take it. */
export function eventPage(title: string): string | undefined {
  const slug = pelicanSlug(title);
  const page = `/events/${slug}.html`;
  return slug !== '' && !aliasProblem(page) ? page : undefined;
}

/**
 * pyvideo/data's redirects.txt, `<old path> <new path>` a line: the addresses of richard, the
 * Django site before pyvideo.org's Pelican, sent on to pyvideo.org's event pages. `eventOf` tells
 * whose page a new path is. Each old path becomes an alias of that event, and so does the new path
 * when it is not the event's page by its title (`eventPage`): those were named after the event's
 * folder, before the event's title changed (`/events/djangocon-2009.html`, now "DjangoCon US 2009").
 */
export function legacyRedirects(text: string, eventOf: (page: string) => { slug: string; page?: string } | undefined): { aliases: Map<string, string[]>; notes: ImportNote[] } {
  const aliases = new Map<string, Set<string>>();
  const notes: ImportNote[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const note = (kind: string) => notes.push({ kind: `redirects.txt: ${kind}`, source: `redirects.txt:${i + 1}` });
    const [from, to, ...more] = line.trim().split(/\s+/) as [string, string | undefined, ...string[]];
    const event = to === undefined ? undefined : eventOf(to);
    if (to === undefined || more.length > 0) return note('not "<old path> <new path>", skipped');
    if (event === undefined) return note("not to an event's page, skipped");
    if (aliasProblem(from)) return note('an old path no redirect can take, skipped');
    const known = aliases.get(event.slug) ?? aliases.set(event.slug, new Set()).get(event.slug)!;
    if (known.has(from)) return note('a line given before, skipped');
    if (to !== event.page && !aliasProblem(to)) known.add(to);
    known.add(from);
    note("old path → redirect to the event's page");
  });
  return { aliases: new Map([...aliases].map(([slug, paths]) => [slug, [...paths]])), notes };
}

/** The slug for a talk that has none yet: its file name when that is a valid slug, else one made from its title. */
export function chooseSlug(stem: string, title: string, id: number, taken: Set<string>): string {
  const base = isSlug(stem) ? stem : slugFromTitle(plainTitle(title)) || `talk-${id}`;
  if (!taken.has(base)) return base;
  // Another file of the event may be named as the base and the id make it (`foo-1.json`): two talks under one slug would lose one.
  let slug = `${base}-${id}`;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${id}-${n}`;
  return slug;
}

/** pyvideo.org's index pages (pelicanconf.py's CATEGORIES_SAVE_AS, AUTHORS_SAVE_AS, TAGS_SAVE_AS) and ours. */
const INDEX_PAGES: Record<string, string> = { '/events.html': '/events/', '/speakers.html': '/speakers/', '/tags.html': '/tags/' };

/**
 * The site's redirects from pyvideo.org's pages that belong to no talk or event: its indexes, each
 * speaker's page, which Pelican named after the speaker's name (AUTHOR_URL,
 * `/speaker/guido-van-rossum.html`), and each tag's page (TAG_URL, `/tag/pytest/`) whose slug is not
 * ours (`py.test` is `/tag/py-test/` here), to ours. Of live talks only: a draft's have no page.
 * Names that Pelican slugged the same shared one page there; it leads to the first one's here.
 */
export function siteRedirects(talks: readonly { speakers: readonly string[]; tags: readonly string[]; state: number }[]): Record<string, string> {
  const redirects = new Map(Object.entries(INDEX_PAGES));
  const live = talks.filter((talk) => talk.state === STATE_LIVE);
  // A tag of ours with pyvideo.org's slug has that page already, whichever tag's it was there.
  const ourTags = new Set(live.flatMap((talk) => named(talk.tags).map(termSlug)));
  for (const talk of live) {
    for (const name of named(talk.speakers)) {
      const page = `/speaker/${pelicanSlug(name)}.html`;
      if (!redirects.has(page) && pelicanSlug(name) !== '' && !aliasProblem(page)) redirects.set(page, speakerPath(termSlug(name)));
    }
    for (const tag of named(talk.tags)) {
      const slug = pelicanSlug(tag);
      const page = `/tag/${slug}/`;
      if (slug !== '' && !ourTags.has(slug) && !redirects.has(page) && !aliasProblem(page, true)) redirects.set(page, tagPath(termSlug(tag)));
    }
  }
  return Object.fromEntries([...redirects].sort(([a], [b]) => (a < b ? -1 : 1)));
}
