// Text of any direction in a line of plain text with other text: a talk's title
// in a page's <title> beside the site's name, in a feed's title or summary.

/** Bidirectional formatting that reaches past the text it is in: embeddings, overrides, isolates. */
const EXPLICIT_BIDI = /[\u202a-\u202e\u2066-\u2069]/;
/** Paragraph separators (bidirectional class B), which end every isolate, embedding and override open before them. */
const PARAGRAPH_BREAK = /[\n\r\u001c-\u001e\u0085\u2029]/g;

/**
 * `text` without explicit bidirectional formatting: for text cut anywhere and shown in pieces (a search
 * result's excerpt), where no isolate around the whole can close an override left open in a piece.
 */
export function withoutBidiFormatting(text: string): string {
  return EXPLICIT_BIDI.test(text) ? text.replace(new RegExp(EXPLICIT_BIDI.source, 'g'), '') : text;
}

/**
 * `text` as a first-strong isolate (FSI … PDI), its own isolates closed, when it holds explicit
 * bidirectional formatting: text that goes into a line of plain text with others (a `<title>`, a
 * feed's title), where an override left open (U+202E) would reverse what follows it, the site's
 * name too. Its paragraph separators become spaces: after one, an override would be open again
 * outside the isolate. Elements with `dir` isolate their text themselves; other text is left as it is.
 */
export function isolated(text: string): string {
  if (!EXPLICIT_BIDI.test(text)) return text;
  let open = 0;
  let out = '';
  for (const char of text.replace(PARAGRAPH_BREAK, ' ')) {
    if (char === '\u2066' || char === '\u2067' || char === '\u2068') open++;
    else if (char === '\u2069') {
      // A closing mark with nothing of the text's to close would close the isolate around it.
      if (open === 0) continue;
      open--;
    }
    out += char;
  }
  return `\u2068${out}${'\u2069'.repeat(open)}\u2069`;
}
