// Changing fields of a content file in place, the way a person editing it
// would: YAML stays YAML with its comments, quoting and key order, JSON stays
// JSON with its indentation; a changed field keeps its place, a new one goes last.
import { applyEdits, createScanner, modify, SyntaxKind } from 'jsonc-parser';
import { Document, isAlias, isCollection, isMap, isNode, isScalar, parse, parseDocument, visit, type Node, type ToStringOptions } from 'yaml';

/** New values by field name; `undefined` removes the field, so that it takes its default. */
export type FieldChanges = Record<string, unknown>;

export function editSource(name: string, text: string, changes: FieldChanges): string {
  return name.endsWith('.json') ? editJson(text, changes) : editYaml(text, changes);
}

function editYaml(text: string, changes: FieldChanges): string {
  // Edited as LF without a byte order mark, which asWritten puts back.
  const source = text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n');
  const doc = parseDocument(source, { keepSourceTokens: false });
  // What each field is to read once written: what it reads now, but for the changes.
  const expected = { ...(doc.toJS() as Record<string, unknown>), ...changes };
  const layout = { lineWidth: 0, indentSeq: !SEQUENCE_AT_KEY.test(source), flowCollectionPadding: PADDED_FLOW.test(source) };
  const untouched = doc.toString(layout);
  copyAliases(doc, Object.keys(changes));
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) {
      doc.delete(key);
      continue;
    }
    const node = doc.get(key, true);
    // A scalar keeps its node, so its quoting style and comments survive.
    if (isScalar(node) && (value === null || typeof value !== 'object')) node.value = value;
    else {
      const created = doc.createNode(value);
      // Comments on the old value (`tags: # in the order announced`) are about the field: the new value keeps them.
      if (isNode(node)) Object.assign(created, { commentBefore: node.commentBefore, comment: node.comment });
      // A list written `[a, b]` stays on its line, as an editor changes it.
      if (isCollection(node) && isCollection(created)) created.flow = node.flow;
      doc.set(key, created);
    }
  }
  const rewritten = faithfulYaml(doc, expected, layout);
  return asWritten(text, onlyChangedFields(source, untouched, rewritten) ?? rewritten);
}

/** A list's items written under its key without indentation (`speakers:` then `- A`), as a new or changed list is then written too. */
const SEQUENCE_AT_KEY = /^[^\s#-][^\n]*:[ \t]*(?:#[^\n]*)?\n-(?:[ \t]|$)/m;

/** A list or mapping on one line written with spaces inside its brackets (`[ a, b ]`), as a changed one is then written too. */
const PADDED_FLOW = /:[ \t]*[[{][ \t]/;

/** A top-level field's text: from its key to the end of the line its value ends on, comment and line break included. */
type Span = { start: number; end: number };

/** Each top-level field's span in `text`, in order; undefined unless the document is one block mapping of plain keys. */
function fieldSpans(text: string): Map<string, Span> | undefined {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0 || !isMap(doc.contents) || doc.contents.flow) return undefined;
  const spans = new Map<string, Span>();
  for (const { key, value } of doc.contents.items) {
    if (!isScalar(key) || typeof key.value !== 'string' || !key.range) return undefined;
    const last = Math.max(key.range[2], (isNode(value) && value.range?.[2]) || 0);
    const lineEnd = text.indexOf('\n', last - 1);
    spans.set(key.value, { start: key.range[0], end: text[last - 1] === '\n' ? last : lineEnd === -1 ? text.length : lineEnd + 1 });
  }
  return spans;
}

/**
 * `source` with only the fields that `rewritten` writes otherwise than `untouched` (the yaml library's writing of
 * the same document before the change) taken from `rewritten`, as an editor changes those lines alone: the library
 * writes the whole file its own way (a list's indentation, a folded or plain string on several lines, spacing),
 * which put lines no one changed into the change. Undefined when it cannot be done so (then the whole is rewritten).
 */
function onlyChangedFields(source: string, untouched: string, rewritten: string): string | undefined {
  const [own, before, after] = [fieldSpans(source), fieldSpans(untouched), fieldSpans(rewritten)];
  if (!own || !before || !after || own.size === 0) return undefined;
  const slice = (text: string, span: Span) => text.slice(span.start, span.end);
  const edits: (Span & { text: string })[] = [];
  /** `text` in place of `source`'s [start, end), ending as that did, with a line break or without (the file's last line). */
  const replace = (start: number, end: number, text: string) => {
    const bare = source[end - 1] !== '\n' && text.endsWith('\n');
    edits.push({ start, end, text: bare && start === end ? `\n${text.slice(0, -1)}` : bare ? text.slice(0, -1) : text });
  };
  let previous: Span | undefined;
  for (const [key, span] of own) {
    const now = after.get(key);
    if (!now) replace(commentAbove(source, span.start, previous?.end), span.end, '');
    else if (slice(untouched, before.get(key)!) !== slice(rewritten, now)) replace(span.start, span.end, slice(rewritten, now));
    previous = span;
  }
  const end = Math.max(...[...own.values()].map((span) => span.end));
  const added = [...after].filter(([key]) => !own.has(key));
  if (added.length > 0) replace(end, end, added.map(([, span]) => slice(rewritten, span)).join(''));
  let out = source;
  for (const edit of edits.sort((a, b) => b.start - a.start || b.end - a.end)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  // Whatever this missed (an anchor's scope, a comment's place), the file must read as the library's whole rewrite does.
  return sameYaml(out, rewritten) ? out : undefined;
}

/**
 * Where the comment lines right above a field that starts at `start` begin, after the field before it, which ends at
 * `after`: a removed field's comment goes with it, as an editor removes it (and the yaml library did), rather than
 * come to stand above the next field. Not past a blank line, nor above the first field (a file's heading).
 */
function commentAbove(text: string, start: number, after: number | undefined): number {
  if (after === undefined) return start;
  let from = start;
  while (from > after) {
    const line = text.lastIndexOf('\n', from - 2) + 1;
    if (line < after || !/^[ \t]*#/.test(text.slice(line, from))) break;
    from = line;
  }
  return from;
}

function sameYaml(a: string, b: string): boolean {
  try {
    return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
  } catch {
    return false;
  }
}

/**
 * Each alias, outside the fields to change, of what those fields hold (`summary: *t` of `title: &t …`) becomes a copy
 * of the value it reads: it would otherwise read the new value, or, its anchor removed, stop the file being written.
 */
function copyAliases(doc: Document, keys: readonly string[]): void {
  const changing = new Set(keys.map((key) => doc.get(key, true)).filter(isNode));
  const inChange = (node: unknown, ancestors: readonly unknown[]) => changing.has(node as Node) || ancestors.some((a) => changing.has(a as Node));
  /** Each anchor as last defined (a name may be given again), and whether it is in a field to change. */
  const anchors = new Map<string, { node: Node; changing: boolean }>();
  visit(doc, {
    Node(_, node, ancestors) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target?.changing && !inChange(node, ancestors)) return doc.createNode(target.node.toJS(doc));
      } else if (node.anchor) anchors.set(node.anchor, { node, changing: inChange(node, ancestors) });
      return undefined;
    },
  });
}

/** `out` with the line breaks and byte order mark of `text`: yaml writes "\n" and drops the mark, which would change every line of a file saved on Windows. */
function asWritten(text: string, out: string): string {
  const lines = text.includes('\r\n') ? out.replace(/\n/g, '\r\n') : out;
  return text.startsWith('\ufeff') ? `\ufeff${lines}` : lines;
}

/**
 * The document as text, each of `fields` written so that it reads back as given.
 * The yaml library writes a string whose lines are only spaces as a block
 * scalar that reads back without them (`" "` as `|-` and an empty line), and
 * keeps a tag written for the old value (`!!str` turns null into "null"); such
 * fields are written again double-quoted and untagged, which holds any value.
 */
function faithfulYaml(doc: Document, fields: FieldChanges, layout: ToStringOptions = { lineWidth: 0 }): string {
  const text = doc.toString(layout);
  const back = parse(text) as Record<string, unknown>;
  const wrong = Object.keys(fields).filter((key) => fields[key] !== undefined && JSON.stringify(back[key]) !== JSON.stringify(fields[key]));
  if (wrong.length === 0) return text;
  for (const key of wrong) {
    visit(doc.get(key, true) as Parameters<typeof visit>[0], {
      Scalar(_, node) {
        node.tag = undefined;
        if (typeof node.value === 'string') node.type = 'QUOTE_DOUBLE';
      },
    });
  }
  return doc.toString(layout);
}

function editJson(text: string, changes: FieldChanges): string {
  if (!text.trim().includes('\n')) return editOneLineJson(text, changes);
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  const formattingOptions = { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: '\n' };
  let out = text;
  for (const [key, value] of Object.entries(changes)) out = applyEdits(out, modify(out, [key], value, { formattingOptions }));
  return out;
}

/**
 * A file written on one line (`JSON.stringify`, `jq -c`) stays on one line: values go in as
 * `JSON.stringify` writes them, and a new field takes the spacing of the file's first colon and
 * comma, where jsonc-parser would write `, "key": value`.
 */
function editOneLineJson(text: string, changes: FieldChanges): string {
  const spacing = oneLineSpacing(text);
  let out = text;
  for (const [key, value] of Object.entries(changes)) {
    const named = `${JSON.stringify(key)}: `;
    const edits = modify(out, [key], value, {}).map((edit) => {
      const comma = edit.content.startsWith(',');
      if (!edit.content.startsWith(named, comma ? 1 : 0)) return edit;
      const rest = edit.content.slice((comma ? 1 : 0) + named.length);
      return { ...edit, content: `${comma ? `,${spacing.afterComma}` : ''}${JSON.stringify(key)}${spacing.beforeColon}:${spacing.afterColon}${rest}` };
    });
    out = applyEdits(out, edits);
  }
  return out;
}

/** The white space around the first colon and after the first comma between the fields of a JSON object. */
function oneLineSpacing(text: string): { beforeColon: string; afterColon: string; afterComma: string } {
  const spacing: Record<'beforeColon' | 'afterColon' | 'afterComma', string | undefined> = { beforeColon: undefined, afterColon: undefined, afterComma: undefined };
  const scanner = createScanner(text, false);
  /** The spacing the next token tells, if it is white space: none, if it is not. */
  let after: 'afterColon' | 'afterComma' | undefined;
  let space = '';
  let depth = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const trivia = token === SyntaxKind.Trivia;
    if (after) spacing[after] = trivia ? scanner.getTokenValue() : '';
    after = undefined;
    if (trivia) {
      space = scanner.getTokenValue();
      continue;
    }
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) depth++;
    else if (token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) depth--;
    // Only between the fields: a value's own spacing is its own.
    else if (depth === 1 && token === SyntaxKind.ColonToken && spacing.afterColon === undefined) {
      spacing.beforeColon = space;
      after = 'afterColon';
    } else if (depth === 1 && token === SyntaxKind.CommaToken && spacing.afterComma === undefined) after = 'afterComma';
    space = '';
  }
  const afterColon = spacing.afterColon ?? ' ';
  // A file of one field has no comma to go by: written as its colon is (`{"id":3}`, `{"id": 3}`).
  return { beforeColon: spacing.beforeColon ?? '', afterColon, afterComma: spacing.afterComma ?? afterColon };
}

/** A new content file holding `fields`, in the given order. */
export function newSource(name: string, fields: Record<string, unknown>): string {
  return name.endsWith('.json') ? `${JSON.stringify(fields, null, 2)}\n` : faithfulYaml(new Document(fields), fields);
}
