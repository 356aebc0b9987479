// Text of any direction in a line of plain text with other text: a talk's title
// in a page's <title> beside the site's name, in a feed's title or summary.

/** Bidirectional formatting that reaches past the text it is in: embeddings, overrides, isolates. */
const EXPLICIT_BIDI = /[\u202a-\u202e\u2066-\u2069]/;
/** Paragraph separators (bidirectional class B), which end every isolate, embedding and override open before them. */
const PARAGRAPH_BREAK = /[\n\r\u001c-\u001e\u0085\u2029]/;

/**
 * `text` without explicit bidirectional formatting: for text cut anywhere and shown in pieces (a search
 * result's excerpt), where no isolate around the whole can close an override left open in a piece.
 */
export function withoutBidiFormatting(text: string): string {
  return EXPLICIT_BIDI.test(text) ? text.replace(new RegExp(EXPLICIT_BIDI.source, 'g'), '') : text;
}

/**
 * Letters written right to left: the blocks of Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan and Mandaic and
 * their presentation forms, and the right-to-left blocks beyond the first plane (Phoenician to Adlam).
 */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * `text` as a first-strong isolate (FSI … PDI), its own isolates closed, when it holds explicit
 * bidirectional formatting: text that goes into a line of plain text with others (a `<title>`, a
 * feed's title), where an override left open (U+202E) would reverse what follows it, the site's
 * name too. Elements with `dir` isolate their text themselves; other text is left as it is.
 */
export function isolated(text: string): string {
  return EXPLICIT_BIDI.test(text) ? isolate(text) : text;
}

/**
 * `text` as `isolated` gives it, and as an isolate too when it holds letters written right to left: a name set
 * between words of a line ("Talks tagged “…”"), a heading as well as a `<title>`, where the punctuation at
 * either end of a right-to-left name (`بايثون!`) would take the line's direction and stand on the other side
 * of the name.
 */
export function isolatedAmongWords(text: string): string {
  return EXPLICIT_BIDI.test(text) || RIGHT_TO_LEFT.test(text) ? isolate(text) : text;
}

/**
 * `text` in FSI … PDI, its own isolates closed. Its paragraph separators become spaces: after one, an
 * override would be open again outside the isolate.
 */
function isolate(text: string): string {
  let open = 0;
  let out = '';
  for (const char of text.replace(new RegExp(PARAGRAPH_BREAK.source, 'g'), ' ')) {
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

/** The mark that closes each opening one: PDF an embedding or override, PDI an isolate. */
const CLOSER: Record<string, string> = { '\u202a': '\u202c', '\u202b': '\u202c', '\u202d': '\u202c', '\u202e': '\u202c', '\u2066': '\u2069', '\u2067': '\u2069', '\u2068': '\u2069' };

/**
 * `text` with the explicit bidirectional formatting each of its paragraphs leaves open closed at that
 * paragraph's end, innermost first, as the Unicode Bidirectional Algorithm closes it there: for text
 * that is cut short (an excerpt) or whose paragraphs are joined into one line, where an override open at
 * the end of a piece would reverse what follows it. A PDF closes nothing opened outside an isolate it is
 * in; a PDI closes its isolate and what was opened inside it.
 */
export function withBidiFormattingClosed(text: string): string {
  if (!EXPLICIT_BIDI.test(text)) return text;
  let open: string[] = [];
  let out = '';
  const closeAll = () => {
    out += open.reverse().join('');
    open = [];
  };
  for (const char of text) {
    if (char in CLOSER) open.push(CLOSER[char]!);
    else if (char === '\u202c' && open.at(-1) === '\u202c') open.pop();
    else if (char === '\u2069' && open.includes('\u2069')) open.length = open.lastIndexOf('\u2069');
    else if (PARAGRAPH_BREAK.test(char)) closeAll();
    out += char;
  }
  closeAll();
  return out;
}
