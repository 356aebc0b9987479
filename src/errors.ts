// One problem in the content, reported as `file:line:col field: message`,
// the format editors and terminals turn into a link to the spot.
import type { Position } from './source.ts';

export class ContentError {
  constructor(
    readonly file: string,
    readonly pos: Position,
    readonly field: string,
    readonly message: string,
  ) {}

  toString(): string {
    const where = `${this.file}:${this.pos.line}:${this.pos.col}`;
    return this.field ? `${where} ${this.field}: ${this.message}` : `${where} ${this.message}`;
  }
}

/** Errors in the order a reader walks the tree: by file, then line, then column. */
export function sortErrors(errors: ContentError[]): ContentError[] {
  return [...errors].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.pos.line - b.pos.line || a.pos.col - b.pos.col || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}
