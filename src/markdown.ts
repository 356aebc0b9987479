// Untrusted text to safe HTML: Markdown through marked (which does not
// sanitise), then an allow-list; player embeds through a stricter one.
import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

const marked = new Marked({ gfm: true, breaks: false, async: false });

// The page's own h1 and h2 structure stays intact: authored headings start at h3.
const demote = (level: number) => sanitizeHtml.simpleTransform(`h${Math.min(level + 2, 6)}`, {});

const MARKDOWN_POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'sub', 'sup', 'small',
    'a', 'abbr', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], code: ['class'], th: ['align'], td: ['align'], ol: ['start'], abbr: ['title'] },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    h1: demote(1),
    h2: demote(2),
    h3: demote(3),
    h4: demote(4),
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener' }),
  },
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Plain text as HTML or XML text, safe in element content and in quoted attributes. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function renderMarkdown(source: string): string {
  if (source.trim() === '') return '';
  return sanitizeHtml(marked.parse(source) as string, MARKDOWN_POLICY);
}

const isHttps = (src: string | undefined) => !!src && /^https:\/\/[^/\s]+/i.test(src);

const EMBED_POLICY: sanitizeHtml.IOptions = {
  allowedTags: ['iframe', 'video', 'source'],
  allowedAttributes: {
    iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'frameborder', 'loading', 'referrerpolicy'],
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

export function sanitiseEmbed(html: string): string {
  if (html.trim() === '') return '';
  return sanitizeHtml(html, EMBED_POLICY).trim();
}

/**
 * Plain text for excerpts and the search index: Markdown and HTML marks are
 * dropped rather than rendered (the excerpt is escaped wherever it is shown).
 */
export function blurb(text: string, length: number): string {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= length) return plain;
  const cut = plain.slice(0, length);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), length - 40)).trimEnd()}…`;
}
