// One problem in the content, reported as `file:line:col field: message`,
// the format editors and terminals turn into a link to the spot.
import type { Position } from './source.ts';

/**
 * Control characters, which a terminal acts on (an escape sequence sets its colours, its title or the
 * clipboard) and a line break, which would make a line that looks like another error: a message quotes
 * what the content (or a command's argument) says, and these are shown as escapes instead. Tabs stay. Bidirectional formatting
 * characters and Unicode's line and paragraph separators are escaped too: a right-to-left override
 * reverses the rest of the line, so that a quoted value could show a path or a fix it does not say.
 */
const UNSHOWN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
export const visible = (text: string) =>
  text.replace(UNSHOWN, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });

export class ContentError {
  constructor(
    readonly file: string,
    readonly pos: Position,
    readonly field: string,
    readonly message: string,
  ) {}

  toString(): string {
    const where = `${this.file}:${this.pos.line}:${this.pos.col}`;
    return visible(this.field ? `${where} ${this.field}: ${this.message}` : `${where} ${this.message}`);
  }
}

/** Errors in the order a reader walks the tree: by file, then line, then column. */
export function sortErrors(errors: ContentError[]): ContentError[] {
  return [...errors].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.pos.line - b.pos.line || a.pos.col - b.pos.col || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}
