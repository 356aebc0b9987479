// Untrusted text to safe HTML: Markdown through marked (which does not
// sanitise), then an allow-list; player embeds through a stricter one.
import { decodeHTMLAttribute, decodeHTMLStrict } from 'entities';
import { naughtyHref } from 'launder';
import { Marked, Tokenizer, type RendererObject, type Token, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { withBidiFormattingClosed } from './bidi.ts';
import { cached } from './memo.ts';

const OPTIONS = { gfm: true, breaks: false, async: false } as const;
const marked = new Marked(OPTIONS);

/**
 * GFM's autolinks run to the next space, which Chinese, Japanese and Korean text does not put after
 * a link: "napari (https://napari.org)です。" would link `https://napari.org)です。` (five pyvideo
 * talks). A link ends where a wide character follows its punctuation, and at wide punctuation; a
 * wide letter after an address's own character (`/wiki/東京`) may be the address's, and is kept.
 * What is left of the link is trimmed as GFM trims its end (an unmatched `)`).
 */
const WIDE_AFTER_LINK = /(?<=[)\].,;:!?'"])[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[\u3000-\u303f\uff00-\uffef]/;
marked.use({
  tokenizer: {
    url(src) {
      const token = Tokenizer.prototype.url.call(this, src);
      const cut = token ? token.raw.search(WIDE_AFTER_LINK) : -1;
      return cut > 0 ? Tokenizer.prototype.url.call(this, src.slice(0, cut)) : token;
    },
  },
});

/**
 * The level authored headings start at, so that the page's own outline stays intact: a talk's
 * description sits under the page's h1 and an h2 of its own (3), an event's description and a
 * site page's text right under the h1 (2). The text's shallowest heading takes that level, whichever
 * it is (many descriptions start at `##`, which would skip one), and each deeper level it uses the next
 * one (`#` and `#####` are h3 and h4), down to h6: the outline skips no level.
 */
export type HeadingTop = 2 | 3;
/** The level each of h1 to h6 of a text becomes, as digits ("345666"): its levels in use, moved to follow on from `top`. */
type Shift = string;
const shifted = (level: number, shift: Shift) => Number(shift[level - 1]);
const LINK_REL = 'nofollow ugc noopener';
const LINK_CHECK = { allowedSchemes: ['http', 'https', 'mailto'], allowProtocolRelative: false };
const CODE_CLASS = /^language-[\w-]+$/;
// A table column's alignment goes in a class: marked writes `align`, which HTML made obsolete on cells.
const ALIGNS = ['left', 'center', 'right'];
const ALIGN_CLASSES = ALIGNS.map((align) => `align-${align}`);
const alignedCell = (tagName: string, { align, ...attribs }: sanitizeHtml.Attributes) => ({
  tagName,
  attribs: align !== undefined && ALIGNS.includes(align) ? { ...attribs, class: `align-${align}` } : attribs,
});
/**
 * A target that stays in the folder of the page showing the text ("slides.pdf",
 * "./notes", "github.com/x" without its scheme): the build writes nothing there
 * but the page and its feeds, so it was written for another site and can only
 * 404 here (two pyvideo talks had one). `../` leaves the folder and may be meant.
 */
const IN_PAGE_FOLDER = /^(?![a-z][a-z\d+.-]*:|[/\\#?]|\.\.(?:[/\\]|$))/i;
/**
 * Whether a link keeps its target: sanitize-html drops an empty one (it is not
 * a boolean attribute) and one the scheme check refuses, and one in the page's
 * folder is dropped. An `a` without one is a placeholder, where HTML forbids
 * `rel`, so only a kept target gets LINK_REL.
 */
const keptHref = (href: string | undefined) => !!href && !naughtyHref(href, LINK_CHECK) && !IN_PAGE_FOLDER.test(href.trim());

/** Whether `tag` is a well-formed BCP 47 language tag, which a `lang` attribute must be. */
function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}
/**
 * An authored `lang` is kept where it is a language tag: the one way to mark a passage in another language
 * than its page's (an event's description in Japanese and English), so that a screen reader reads it in
 * that language's voice (WCAG 3.1.2). Run after each tag's own transform.
 */
const checkedLang = (tagName: string, { lang, ...attribs }: sanitizeHtml.Attributes) => ({
  tagName,
  attribs: lang !== undefined && isLanguageTag(lang) ? { ...attribs, lang } : attribs,
});

const markdownPolicy = (shift: Shift): sanitizeHtml.IOptions => ({
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'sub', 'sup', 'small',
    'a', 'abbr', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: { '*': ['lang'], a: ['href', 'title', 'rel'], code: ['class'], th: ['class'], td: ['class'], ol: ['start'], abbr: ['title'] },
  allowedClasses: { code: [CODE_CLASS], th: ALIGN_CLASSES, td: ALIGN_CLASSES },
  ...LINK_CHECK,
  disallowedTagsMode: 'discard',
  transformTags: {
    ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((level) => [`h${level}`, sanitizeHtml.simpleTransform(`h${shifted(level, shift)}`, {})])),
    '*': checkedLang,
    th: alignedCell,
    td: alignedCell,
    a: (tagName, { rel: _authored, ...attribs }) => {
      if (keptHref(attribs.href)) return { tagName, attribs: { ...attribs, rel: LINK_REL } };
      const { href: _dropped, ...placeholder } = attribs;
      return { tagName, attribs: placeholder };
    },
  },
});

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Plain text as HTML or XML text, safe in element content and in quoted attributes. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Plain text as HTML element content only: quotes left as they are, for a reader that may show the escapes. */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => ESCAPES[c]!);
}

/** An http(s) address in plain text, up to a space, a quote or an angle bracket; WIDE_AFTER_LINK ends it in CJK text. */
const BARE_URL = /\bhttps?:\/\/[^\s<>"']+/gi;

/**
 * Plain text as HTML, its http(s) addresses links to them, as GitHub links a bare address: the
 * punctuation that ends a sentence, a `)` the address did not open and CJK text after it stay text. A summary is plain
 * text (294 of the pyvideo import's give their slides or code so), which pyvideo.org showed linked.
 */
export function linkedText(text: string): string {
  let html = '';
  let last = 0;
  for (const match of text.matchAll(BARE_URL)) {
    const wide = match[0].search(WIDE_AFTER_LINK);
    let url = (wide > 0 ? match[0].slice(0, wide) : match[0]).replace(/[.,;:!?*_~]+$/, '');
    while (url.endsWith(')') && (url.match(/\)/g)?.length ?? 0) > (url.match(/\(/g)?.length ?? 0)) url = url.slice(0, -1).replace(/[.,;:!?*_~]+$/, '');
    html += `${escapeMarkup(text.slice(last, match.index))}<a href="${escapeMarkup(url)}" rel="${LINK_REL}">${escapeMarkup(url)}</a>`;
    last = match.index + url.length;
  }
  return html + escapeMarkup(text.slice(last));
}

/**
 * marked's own output, narrowed to what markdownPolicy lets through, for
 * Markdown without raw HTML: such text can only become marked's own tags, so
 * these are all that differ from the policy's result (task-list boxes
 * dropped, headings moved, links checked and marked nofollow, code
 * classes checked, cells aligned by class), and sanitize-html, a third of a
 * cold build's Markdown time, is left for the few descriptions with HTML in
 * them (6 of the pyvideo import's 18,675). A test renders both ways and
 * compares.
 */
const policyRenderer = (shift: Shift): RendererObject<string, string> => ({
  heading({ tokens, depth }) {
    const level = shifted(depth, shift);
    return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
  },
  // The policy drops the box and keeps the space marked puts after it.
  checkbox: () => ' ',
  tablecell({ tokens, header, align }) {
    const tag = header ? 'th' : 'td';
    return `<${tag}${align ? ` class="align-${align}"` : ''}>${this.parser.parseInline(tokens)}</${tag}>\n`;
  },
  code({ text, lang, escaped }) {
    const language = /^\S+/.exec(lang ?? '')?.[0];
    const kept = language && CODE_CLASS.test(`language-${language}`);
    const body = text ? `${text.replace(/\n$/, '')}\n` : '';
    return `<pre><code${kept ? ` class="language-${language}"` : ''}>${escaped ? body : escapeMarkup(body)}</code></pre>\n`;
  },
  link({ href, title, text, tokens, autolink }) {
    const content = autolink ? escapeMarkup(text) : this.parser.parseInline(tokens);
    let url: string;
    try {
      url = encodeURI(href).replace(/%25/g, '%');
    } catch {
      return content;
    }
    // Outside an autolink, entity references in the target are what a browser reads them as.
    if (!autolink) url = decodeHTMLAttribute(url);
    // The check sanitize-html makes, so that both ways keep the same targets.
    const target = keptHref(url) ? ` href="${escapeMarkup(url)}"` : '';
    const tip = title ? ` title="${escapeMarkup(decodeHTMLAttribute(title))}"` : '';
    return `<a${target}${tip}${target ? ` rel="${LINK_REL}"` : ''}>${content}</a>`;
  },
});

/** Each shift's policy and fast-path parser, made once. */
const ways = new Map<Shift, { policy: sanitizeHtml.IOptions; fast: Marked }>();
const wayOf = (shift: Shift) => cached(ways, shift, () => ({ policy: markdownPolicy(shift), fast: new Marked({ ...OPTIONS, renderer: policyRenderer(shift) }) }));

const HTML_HEADING = /<h([1-6])[\s/>]/gi;

/** Whether the text has raw HTML, and the shift that puts its headings, Markdown's or HTML's, at `top` and the levels after it. */
function survey(tokens: Token[], top: HeadingTop): { html: boolean; shift: Shift } {
  let html = false;
  const used = new Set<number>();
  marked.walkTokens(tokens, (token) => {
    if (token.type === 'heading') used.add(token.depth);
    else if (token.type === 'html') {
      html = true;
      for (const [, level] of token.raw.matchAll(HTML_HEADING)) used.add(Number(level));
    }
  });
  const above = (level: number) => [...used].filter((other) => other < level).length;
  return { html, shift: [1, 2, 3, 4, 5, 6].map((level) => Math.min(top + above(level), 6)).join('') };
}

/**
 * marked passes on any `&word;` in text as a character reference, known or not
 * ("Q&A;" on a pyvideo talk), where HTML reads an unknown one as text, and
 * calls it a parse error: the fast path escapes its `&`, as sanitize-html does.
 */
const escapeUnknownReferences = (html: string) => html.replace(/&\w+;/g, (ref) => (decodeHTMLStrict(ref) === ref ? `&amp;${ref.slice(1)}` : ref));

/**
 * Each Markdown image made a link to it, named by its alt text: the page loads nothing from other
 * sites and loses nothing the author wrote (two talks of the pyvideo import have one). Inside a link,
 * which cannot hold another, its alt text alone. A raw HTML <img> the allow-list drops.
 */
function imagesAsLinks(tokens: Token[], inLink = false): void {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === 'image') {
      const alt: Token[] = token.tokens ?? [];
      if (inLink) {
        tokens.splice(i, 1, ...alt);
        i--;
        continue;
      }
      const named: Token[] = alt.length > 0 ? alt : [{ type: 'text', raw: token.href, text: token.href, escaped: false }];
      tokens[i] = { type: 'link', raw: token.raw, href: token.href, title: token.title, text: token.text, tokens: named };
      imagesAsLinks(named, true);
      continue;
    }
    const within = inLink || token.type === 'link';
    if ('tokens' in token && token.tokens) imagesAsLinks(token.tokens, within);
    if (token.type === 'list') for (const item of token.items) imagesAsLinks(item.tokens, within);
    if (token.type === 'table') for (const cell of [...token.header, ...token.rows.flat()]) imagesAsLinks(cell.tokens, within);
  }
}

/** A Markdown text's blocks as the site reads them: each token's `raw`, in order, is the text (its line ends made `\n`). */
export const markdownBlocks = (source: string): Token[] => marked.lexer(source);

/** A Markdown text's tokens as its page renders them: marked's, each image made a link. */
function pageTokens(source: string): Token[] {
  const tokens = marked.lexer(source);
  imagesAsLinks(tokens);
  return tokens;
}

/** pageTokens' tokens as the page's HTML, through sanitize-html where they have raw HTML. */
function renderTokens(tokens: Token[], top: HeadingTop, lang = SITE_LANG): string {
  const { html, shift } = survey(tokens, top);
  return inScrollingBoxes(html ? sanitizeHtml(marked.parser(tokens), wayOf(shift).policy) : escapeUnknownReferences(wayOf(shift).fast.parser(tokens)), lang);
}

/** A table's tags in sanitised HTML (its start tag whole), where a `<` or `>` of text or of an attribute's value is escaped. */
const TABLE_TAG = /<table\b[^>]*>|<\/table>/g;
const TABLE_START = /<table\b/g;
/** The language of the words the site writes itself, as the layout's `<html lang>`: a table's box's name. */
const SITE_LANG = 'en';

/**
 * Each table of sanitised HTML in a box of its own, which scrolls sideways where the table is wider than the
 * page (style.css keeps a table's words whole: at 320 px, a wide one's were broken a letter or two a line).
 * The keyboard reaches the box to scroll it, so it is a region with a name: "Table", or its number of several.
 * A text in another language than the site's (`lang`, its tag) has none of its words to name the box by (GitHub's
 * tables have no caption, and the sanitiser keeps none), so the name is the site's, and marked as in its language,
 * which a screen reader reads a name in: a Japanese voice read "Table" out as Japanese. The table keeps the text's.
 */
function inScrollingBoxes(html: string, lang: string): string {
  const count = html.match(TABLE_START)?.length ?? 0;
  if (count === 0) return html;
  const inSiteLang = lang === SITE_LANG ? '' : ` lang="${SITE_LANG}"`;
  let number = 0;
  return html.replace(TABLE_TAG, (tag) => {
    if (tag === '</table>') return '</table></div>';
    const label = count > 1 ? `Table ${++number}` : 'Table';
    const table = inSiteLang && !/\slang="/.test(tag) ? tag.replace('<table', `<table lang="${lang}"`) : tag;
    return `<div class="table-scroll" role="region" tabindex="0" aria-label="${label}"${inSiteLang}>${table}`;
  });
}

/** `lang`: the BCP 47 tag of the text's language, where it is not the site's English (a talk's description's). */
export function renderMarkdown(source: string, top: HeadingTop = 3, lang = SITE_LANG): string {
  return source.trim() === '' ? '' : renderTokens(pageTokens(source), top, lang);
}

/** Every Markdown source through sanitize-html, as renderMarkdown does with those that have HTML in them: what its fast path must match. */
export function renderMarkdownSanitised(source: string, top: HeadingTop = 3, lang = SITE_LANG): string {
  if (source.trim() === '') return '';
  const tokens = pageTokens(source);
  return inScrollingBoxes(sanitizeHtml(marked.parser(tokens), wayOf(survey(tokens, top).shift).policy), lang);
}

const isHttps = (src: string | undefined) => !!src && /^https:\/\/[^/\s]+/i.test(src);

/** What the site lets a player's frame use: the features talk.eta gives the players it makes itself. */
const PLAYER_ALLOW = 'fullscreen; picture-in-picture; encrypted-media';

const EMBED_POLICY: sanitizeHtml.IOptions = {
  allowedTags: ['iframe', 'video', 'source'],
  allowedAttributes: {
    // Not frameborder, which YouTube's embed code still writes: HTML made it obsolete, and the style sheet draws no border.
    iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'loading', 'referrerpolicy'],
    video: ['src', 'width', 'height', 'controls', 'preload', 'poster'],
    source: ['src', 'type'],
  },
  allowedSchemes: ['https'],
  selfClosing: [...sanitizeHtml.defaults.selfClosing, 'source'],
  allowedSchemesAppliedToAttributes: ['src', 'poster'],
  allowProtocolRelative: false,
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
  // Players that would load from anywhere but an absolute https URL are dropped whole.
  exclusiveFilter: (frame) =>
    (frame.tag === 'iframe' && !isHttps(frame.attribs.src)) ||
    (frame.tag === 'source' && !isHttps(frame.attribs.src)) ||
    (frame.tag === 'video' && frame.attribs.src !== undefined && !isHttps(frame.attribs.src)),
};

/**
 * An embed's iframe as the page shows it. Its own `allow` would hand the page it frames, from any host,
 * the camera, microphone or location under the site's name (the browser asks as if the site wanted
 * them): it gets the features the site's own players have, fullscreen among them. One without a title (which names it to a
 * screen reader) is given `title`. Its address is asked for over https, as a browser asks for it from a
 * page served so: YouTube's and Vimeo's classic embed codes (`src="//www.youtube.com/embed/…"`, or
 * `http://`) would otherwise leave no player.
 */
const embedFrame =
  (title: string): sanitizeHtml.Transformer =>
  (tagName, attribs) => {
    const frame: sanitizeHtml.Attributes = {
      ...attribs,
      ...(attribs.src === undefined ? {} : { src: attribs.src.trim().replace(/^(?:http:)?\/\/(?=[^/\\])/i, 'https://') }),
      ...(attribs.allow === undefined ? {} : { allow: PLAYER_ALLOW }),
      ...(attribs.title?.trim() ? {} : { title }),
    };
    // The site's allow gives fullscreen: an allowfullscreen beside it (YouTube's embed code, the pyvideo import's) is
    // what Chromium warns of on every such page ("Allow attribute will take precedence over 'allowfullscreen'").
    if (frame.allow !== undefined) delete frame.allowfullscreen;
    return { tagName, attribs: frame };
  };

/**
 * An embed's player, safe (see embedFrame): the first the embed has, as a talk has one; a video element
 * with its controls, as nothing else on the page starts it.
 */
export function sanitiseEmbed(html: string, title: string): string {
  if (html.trim() === '') return '';
  let players = 0;
  return sanitizeHtml(html, {
    ...EMBED_POLICY,
    exclusiveFilter: (frame) => EMBED_POLICY.exclusiveFilter!(frame) || ((frame.tag === 'iframe' || frame.tag === 'video') && ++players > 1),
    transformTags: { iframe: embedFrame(title), video: (tagName, attribs) => ({ tagName, attribs: { ...attribs, controls: '' } }) },
  }).trim();
}

/** The tags renderMarkdown writes that text runs on through; every other but `br` (a line's end) ends a block. */
const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'code', 'del', 'em', 'i', 'ins', 'kbd', 'mark', 's', 'samp', 'small', 'strong', 'sub', 'sup', 'u']);

/**
 * renderMarkdown's HTML as the text a reader of it reads, each block's on a line of its own (a paragraph,
 * as far as bidirectional text goes): its tags out (a `>` in its attributes is escaped, as is any `<` of
 * its text), then its character references decoded, once.
 */
const textOf = (html: string) =>
  decodeHTMLStrict(html.replace(/<\/?([a-z][a-z\d]*)[^>]*>/gi, (_, name: string) => (INLINE_TAGS.has(name) ? '' : name === 'br' ? ' ' : '\n')));

/** The text of the page's HTML for pageTokens' tokens. */
const pageText = (tokens: Token[]) => textOf(renderTokens(tokens, 3));

/**
 * The text textOf reads in renderMarkdown's fast path for tokens without raw HTML, read off the tokens
 * (rendering and reading back each talk's description held up loading a catalogue): each block's on a
 * line of its own, an escape the character it escapes, code and an autolink as written (the page escapes
 * them), other text its character references decoded once, a line break a space.
 */
function shownText(tokens: Token[] = []): string {
  let text = '';
  for (const token of tokens) text += tokenText(token);
  return text;
}

function tokenText(token: Token): string {
  switch (token.type) {
    case 'paragraph':
    case 'heading':
    case 'blockquote':
      return `\n${shownText(token.tokens)}\n`;
    case 'list':
      return `\n${token.items.map((item: Tokens.ListItem) => shownText(item.tokens)).join('\n')}\n`;
    case 'table':
      return `\n${[...token.header, ...token.rows.flat()].map((cell: Tokens.TableCell) => shownText(cell.tokens)).join('\n')}\n`;
    case 'code':
      return `\n${token.text}\n`;
    case 'hr':
      return '\n';
    case 'br':
      return ' ';
    case 'codespan':
      return token.text;
    case 'link':
      return token.autolink ? token.text : shownText(token.tokens);
    case 'text':
    case 'escape':
      return 'tokens' in token && token.tokens ? shownText(token.tokens) : decodeHTMLStrict(token.text);
    default:
      return 'tokens' in token ? shownText(token.tokens) : '';
  }
}

/** A character Markdown, HTML or a character reference may read as more than itself (an escape, code, emphasis, a link, a tag, a table, a strikethrough), or a line end MARKUP_LINE does not see (CRLF). */
const MARKUP_CHARACTER = /[\\`*_[\]<>&|~\r]/;
/**
 * A line Markdown reads as a block's mark: a heading, a quote, a list item, or a heading's underline or a rule
 * (one of `*` or `_` is a MARKUP_CHARACTER already). A line indented as code is code as written, its text the same.
 */
const MARKUP_LINE = /^ {0,3}(?:[#>]|[-+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-=](?:[ \t]*[-=])*[ \t]*$)/m;

/**
 * An excerpt of Markdown for the search index and feeds, of the text its page shows: the page's HTML
 * as renderMarkdown makes it, without its tags (the excerpt is escaped wherever it is shown). So each
 * escape is the character it escapes, code is as written, a table is its cells' text, an image its alt
 * text, and the comments and what the sanitiser drops with its element (a script's code) are left out
 * as the page leaves them out. Its character references are the characters the page shows (`wasn&#39;t`
 * in text scraped from HTML), decoded once: `&lt;b&gt;` is text. Text without raw HTML is read off its
 * tokens; with it (6 of the pyvideo import's 16,095 descriptions), off its sanitised HTML, as only the
 * whole of it shows what the sanitiser keeps (an unclosed <script> hides every block after it).
 */
export function blurb(markdown: string, length: number): string {
  // Most descriptions (10,123 of the pyvideo import's 16,095) are text Markdown reads as itself: lexing them, four
  // times the cost of the rest of an excerpt, added a second to loading that catalogue for the same text.
  if (!MARKUP_CHARACTER.test(markdown) && !MARKUP_LINE.test(markdown)) return excerpt(markdown, length);
  const tokens = pageTokens(markdown);
  return excerpt(survey(tokens, 3).html ? pageText(tokens) : shownText(tokens), length);
}

/** An excerpt of the text of the page's HTML, for every text, as blurb makes one for those with raw HTML: what its reading of the tokens must match. */
export const blurbOfPage = (markdown: string, length: number): string => excerpt(pageText(pageTokens(markdown)), length);

/**
 * What starts an item of a list in a plain text such as a summary, before white space: `-`, `*`, `+`, `•`, or a
 * number of up to three digits and `.` or `)`. Such a line keeps a line of its own on a talk's page (paragraphs in
 * render.ts), which the importer's reading of reStructuredText must know (restPlainBlocks in pyvideo.ts).
 */
export const PLAIN_LIST_MARK = String.raw`(?:[-*+•]|\d{1,3}[.)])`;

/**
 * Code points HTML calls a parse error wherever they stand, as a character class's ranges: controls other than
 * whitespace, and noncharacters. The schema refuses them in content (and the import takes out the U+009D of two
 * pyvideo talks' mojibake), but a template may write any: readers show nothing for them, and pages and feeds are
 * better without.
 */
export const NOT_HTML_TEXT = '\\u0000-\\u0008\\u000B\\u000E-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\uFFFE\\uFFFF';
/** Each page drops them in one pass, about 3 ms a MB: escaped text, Markdown, embed and JSON-LD alike. */
export const NOT_IN_HTML = new RegExp(`[${NOT_HTML_TEXT}]`, 'g');

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** A run of white space other than a lone space: the single spaces between words, most of a text's, are left as they are, at half the cost of replacing each. */
const WHITE_SPACE_RUN = / \s+|[^\S ]\s*/g;

/**
 * Plain text on one line, cut at a word to at most `length` characters (and an ellipsis), the bidirectional
 * formatting each of its lines and the cut leave open closed (see withBidiFormattingClosed): an override
 * would otherwise run on into the next line and past the excerpt, over the text shown after it.
 */
export function excerpt(text: string, length: number): string {
  // A Markdown text's numeric references (`&#1;`) are read as their characters: the search index and the API page's excerpt would carry them.
  const plain = withBidiFormattingClosed(text.replace(NOT_IN_HTML, '')).replace(WHITE_SPACE_RUN, ' ').trim();
  if (plain.length <= length) return plain;
  const cut = plain.slice(0, length);
  // Through a word too long to end at, never through a grapheme: half a surrogate pair is no character (an emoji in a text
  // without spaces, as PyCon Taiwan's descriptions mix them with Chinese), and a letter without its accent, a family
  // without its last member or half a flag is another; the feeds, the JSON-LD and the page's description would carry it.
  const end = graphemes.segment(plain).containing(Math.max(cut.lastIndexOf(' '), length - 40, 0))!.index;
  // A copy: V8 makes a slice that keeps the whole text alive as long as the excerpt, which every talk's digest holds (23 MB of descriptions on the pyvideo import).
  return structuredClone(`${withBidiFormattingClosed(cut.slice(0, end).trimEnd())}…`);
}
