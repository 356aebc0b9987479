// Checking one parsed file against its collection's schema, with every
// problem mapped back to the line and column it was written at.
import type * as z from 'zod';
import { ContentError } from './errors.ts';
import { describeValue, textProblems } from './schema.ts';
import { fieldName, type ParseResult, type SourceDoc } from './source.ts';
import { closest } from './suggest.ts';

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: ContentError[] };

/**
 * `fields` are the collection's, for "did you mean" on a misspelt one; `instead` says what to write for a
 * field another collection has (a page's `draft`, where a talk has `state`).
 */
export function validate<S extends z.ZodType>(schema: S, doc: SourceDoc, fields: readonly string[], instead: Readonly<Record<string, string>> = {}): Validated<z.output<S>> {
  const { value } = doc;
  if (value === null || value === undefined) {
    return { ok: false, errors: [new ContentError(doc.file, { line: 1, col: 1 }, '', 'no fields (the file, or its front matter, holds none); write them, one "name: value" a line')] };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    // Said where the value starts: past the comments above it, and past a page's opening "---".
    return { ok: false, errors: [new ContentError(doc.file, doc.locate([]), '', `expected a mapping of fields, got ${describeValue(value)}; ${mappingFix(doc.file, value)}`)] };
  }
  const result = schema.safeParse(value);
  const notText = textProblems(value);
  if (result.success && notText.length === 0) return { ok: true, value: result.data };
  const errors = notText.map(({ path, message }) => new ContentError(doc.file, doc.locate(path), fieldName(path), message));
  const told = new Set(errors.map((e) => e.field));
  for (const issue of result.success ? [] : result.error.issues) {
    const path = issue.path as (string | number)[];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = path.length === 0 ? closest(key, fields) : undefined;
        const fix = (path.length === 0 && Object.hasOwn(instead, key) ? instead[key] : undefined) ?? (hint ? `did you mean \`${hint}\`?` : 'remove it (see "Content format" in the README for the known fields)');
        errors.push(new ContentError(doc.file, doc.locate([...path, key], 'key'), fieldName([...path, key]), `unknown field; ${fix}`));
      }
      continue;
    }
    if (!told.has(fieldName(path))) errors.push(new ContentError(doc.file, doc.locate(path), fieldName(path), issue.message));
  }
  return { ok: false, errors };
}

/**
 * `check` on a parsed file. A file whose only mistake is a repeated key is checked too, so that one run tells
 * its other problems; the repeated field's own are left out, as which of its values was meant is not known.
 */
export function checkParsed<T>(parsed: ParseResult, check: (doc: SourceDoc) => Validated<T>): Validated<T> {
  if (parsed.ok) return check(parsed.doc);
  const checked = parsed.doc ? check(parsed.doc) : undefined;
  const repeated = parsed.errors.map((e) => e.field);
  // A field named like one inside the repeated one is not (a redirect's `/a.html` beside a repeated `/a`).
  const value = parsed.doc?.value;
  const topLevel = (field: string) => value !== null && typeof value === 'object' && Object.hasOwn(value, field);
  const inside = (field: string, repeatedField: string) => !topLevel(field) && (field.startsWith(`${repeatedField}.`) || field.startsWith(`${repeatedField}[`));
  const others = checked && !checked.ok ? checked.errors.filter((e) => !repeated.some((field) => e.field === field || inside(e.field, field))) : [];
  return { ok: false, errors: [...parsed.errors, ...others] };
}

/** How to write a file's fields, for one whose whole value is another thing: most often a line without its colon (`title About`). */
function mappingFix(file: string, value: unknown): string {
  if (file.endsWith('.json')) return 'write an object of fields, {"name": value, …}';
  if (Array.isArray(value)) return 'write the fields one "name: value" a line, without "- " before them';
  return 'write the fields one "name: value" a line, with ": " between the name and the value';
}
