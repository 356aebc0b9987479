// Parsing one content file (YAML or JSON) into a plain value that remembers
// where each field came from, so that every later error can name line:col.
import { parseTree, findNodeAtLocation, ParseErrorCode, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document, type Node as YamlNode } from 'yaml';
import { ContentError } from './errors.ts';

export type FieldPath = ReadonlyArray<string | number>;

export interface Position {
  line: number;
  col: number;
}

export interface SourceDoc {
  file: string;
  value: unknown;
  /** Where `path` is written: its key for `which: 'key'`, else its value; the nearest existing ancestor when absent. */
  locate(path: FieldPath, which?: 'key' | 'value'): Position;
}

/**
 * A file whose only mistake is a repeated key still gives its `doc`, read as the parsers read it (the last
 * one wins): its other problems are told in the same run (see checkParsed in src/validate.ts).
 */
export type ParseResult = { ok: true; doc: SourceDoc } | { ok: false; errors: ContentError[]; doc?: SourceDoc };

export function positionAt(lineStarts: number[], offset: number): Position {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: offset - lineStarts[lo]! + 1 };
}

export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Decodes UTF-8 strictly; on failure names the first byte that is not UTF-8. */
export function decodeUtf8(file: string, bytes: Uint8Array): { ok: true; text: string } | { ok: false; error: ContentError } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    return { ok: true, text };
  } catch {
    const lossy = new TextDecoder('utf-8').decode(bytes);
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let byteOffset = 0;
    for (let i = 0; i < lossy.length; i++) {
      const cp = lossy.codePointAt(i)!;
      const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      const genuine = cp === 0xfffd && buf[byteOffset] === 0xef && buf[byteOffset + 1] === 0xbf && buf[byteOffset + 2] === 0xbd;
      if (cp === 0xfffd && !genuine) {
        const pos = positionAt(lineStartsOf(lossy), i);
        const hex = buf[byteOffset]!.toString(16).toUpperCase().padStart(2, '0');
        return {
          ok: false,
          error: new ContentError(file, pos, '', `file is not UTF-8 (byte 0x${hex}); save it as UTF-8`),
        };
      }
      byteOffset += width;
      if (cp > 0xffff) i++;
    }
    return { ok: false, error: new ContentError(file, { line: 1, col: 1 }, '', 'file is not UTF-8; save it as UTF-8') };
  }
}

/** Whether a content file is JSON, by its extension in any case: a talk.JSON is checked as the talk.json it is to be named. */
export const isJson = (file: string) => /\.json$/i.test(file);

export function parseSource(file: string, bytes: Uint8Array): ParseResult {
  const decoded = decodeUtf8(file, bytes);
  if (!decoded.ok) return { ok: false, errors: [decoded.error] };
  const text = decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
  return isJson(file) ? parseJson(file, text) : parseYaml(file, text);
}

// Every JSON string, aligned from an opening quote (JSON has no quotes outside strings); group 1 marks a property name.
// Runs of plain characters are one step each: an alternation per character overflowed V8's stack on a 10 MB string.
const JSON_STRING = /"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?/g;

function countProperties(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countProperties(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  for (const key in value) n += 1 + countProperties((value as Record<string, unknown>)[key]);
  return n;
}

/** True when `text` names more properties than `value` has: some object repeats a key. */
function repeatsKeys(text: string, value: unknown): boolean {
  let names = 0;
  JSON_STRING.lastIndex = 0;
  for (let m = JSON_STRING.exec(text); m; m = JSON_STRING.exec(text)) if (m[1] !== undefined) names++;
  return names !== countProperties(value);
}

// The fast path is the engine's JSON.parse; the position-keeping parser runs only
// to explain an error or to locate a field, which valid files rarely need.
function parseJson(file: string, text: string): ParseResult {
  let value: unknown;
  let valid = true;
  try {
    value = JSON.parse(text);
  } catch {
    valid = false;
  }
  let lines: number[] | undefined;
  let tree: Node | undefined;
  const positions = () => {
    if (!lines) {
      lines = lineStartsOf(text);
      const syntax: ParseError[] = [];
      tree = parseTree(text, syntax, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
      if (!valid || syntax.length > 0) {
        // Later syntax errors are mostly echoes of the first: report that one. Comments are not: where they are all that is wrong, each is said.
        if (isYamlMapping(text)) return [new ContentError(file, { line: 1, col: 1 }, '', `JSON syntax error: the file is written in YAML; rename it to ${file.split('/').at(-1)!.replace(/json$/, 'yaml')}`)];
        const told = syntax.every((e) => e.error === ParseErrorCode.InvalidCommentToken) ? syntax : syntax.slice(0, 1);
        return told.length > 0
          ? told.map((e) => new ContentError(file, positionAt(lines!, e.offset), '', `JSON syntax error: ${describeJsonError(text, lines!, e)}`))
          : [new ContentError(file, { line: 1, col: 1 }, '', 'JSON syntax error')];
      }
    }
    return [];
  };
  if (!valid) return { ok: false, errors: positions() };
  const doc: SourceDoc = {
    file,
    value,
    locate(path, which = 'value') {
      positions();
      if (!tree) return { line: 1, col: 1 };
      for (let depth = path.length; depth >= 0; depth--) {
        const node = findNodeAtLocation(tree, path.slice(0, depth) as (string | number)[]);
        if (!node) continue;
        const keyNode = which === 'key' && depth === path.length && node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
        return positionAt(lines!, (keyNode ?? node).offset);
      }
      return { line: 1, col: 1 };
    },
  };
  if (repeatsKeys(text, value)) {
    positions();
    return { ok: false, errors: tree ? duplicateJsonKeys(file, tree, lines!) : [], doc };
  }
  return { ok: true, doc };
}

// What a comment in a JSON file is told: a line or block comment, as JavaScript writes them, or a "#" one, as YAML and Python do.
const NO_COMMENTS = 'JSON has no comments; remove it, or write the file in YAML (.yaml), where # starts a comment';

/** Whether `text`, which is no JSON, is a mapping of fields written one a line as YAML writes them: a YAML file named .json. */
function isYamlMapping(text: string): boolean {
  const doc = parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, strict: true });
  // Not one in braces: YAML takes JSON with a trailing comma, which is JSON's mistake.
  return doc.errors.length === 0 && isMap(doc.contents) && !doc.contents.flow;
}

const JSON_ERRORS: Record<string, string> = {
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a quoted property name',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected content after the end of the value',
  InvalidCommentToken: NO_COMMENTS,
  UnexpectedEndOfComment: NO_COMMENTS,
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string (control characters must be escaped)',
};

function describeJsonError(text: string, lines: number[], error: ParseError): string {
  const code = printParseErrorCode(error.error);
  const before = text.slice(0, error.offset).trimEnd();
  if ((code === 'PropertyNameExpected' || code === 'ValueExpected') && before.endsWith(',')) {
    const at = positionAt(lines, before.length - 1);
    return `trailing comma; remove the comma at line ${at.line}, column ${at.col}`;
  }
  if (code === 'InvalidSymbol') return unexpectedInJson(text, error.offset);
  if (code === 'ValueExpected' && before === '') return 'the file is empty; write its fields as an object, {"name": value, …}';
  return JSON_ERRORS[code] ?? code;
}

/** JSON's words, by how other languages spell them (Python's True and None). */
const JSON_WORDS: Record<string, string> = { true: 'true', false: 'false', null: 'null', none: 'null' };

/** What to write instead of a character JSON has no place for: most often the quotes, names or words of YAML, JavaScript or Python. */
function unexpectedInJson(text: string, offset: number): string {
  if (text[offset] === "'") return `unexpected character '; JSON writes names and strings in double quotes ("…")`;
  if (text[offset] === '#') return NO_COMMENTS;
  const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(offset))?.[0];
  const instead = word === undefined ? undefined : JSON_WORDS[word.toLowerCase()];
  if (word !== undefined && instead !== undefined) return `unexpected word ${word}; JSON writes it ${instead}`;
  if (word !== undefined && /[{,]$/.test(text.slice(0, offset).trimEnd())) return `a name without quotes; write it in double quotes ("${word}")`;
  return 'unexpected character; JSON writes text in double quotes ("…")';
}

function duplicateJsonKeys(file: string, node: Node, lines: number[], path: string[] = []): ContentError[] {
  const errors: ContentError[] = [];
  if (node.type === 'object') {
    const seen = new Map<string, Node>();
    for (const prop of node.children ?? []) {
      const key = prop.children?.[0];
      if (!key) continue;
      const name = String(key.value);
      const first = seen.get(name);
      if (first) {
        const at = positionAt(lines, first.offset);
        errors.push(
          new ContentError(file, positionAt(lines, key.offset), fieldName([...path, name]), `duplicate key (also at line ${at.line}); keep only one`),
        );
      } else seen.set(name, key);
      const value = prop.children?.[1];
      if (value) errors.push(...duplicateJsonKeys(file, value, lines, [...path, name]));
    }
  } else if (node.type === 'array') {
    (node.children ?? []).forEach((child, i) => errors.push(...duplicateJsonKeys(file, child, lines, [...path, `[${i}]`])));
  }
  return errors;
}

function parseYaml(file: string, text: string): ParseResult {
  const lines = lineStartsOf(text);
  // YAML 1.2 core schema: dates stay strings, so the schema sees what was written.
  const doc: Document = parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false, strict: true });
  if (doc.errors.length > 0) {
    // One mistake often trips the parser more than once on its line (a list item out of line: three errors): the first says it.
    const seen = new Set<number>();
    return {
      ok: false,
      errors: doc.errors.flatMap((e) => {
        // A field out of line is said at the field, not at the spaces before it that the parser points at.
        const pos = positionAt(lines, e.code === 'BAD_INDENT' ? past(text, e.pos[0], ' ') : e.pos[0]);
        if (e.code === 'DUPLICATE_KEY') {
          const first = firstOfKey(doc, e.pos[0]);
          const also = first === undefined ? '' : ` (also at line ${positionAt(lines, first).line})`;
          return [new ContentError(file, pos, keyAt(text, e.pos[0]), `duplicate key${also}; keep only one`)];
        }
        if (seen.has(pos.line)) return [];
        seen.add(pos.line);
        return [new ContentError(file, pos, '', `YAML syntax error: ${yamlProblem(e.code, firstLine(e.message))}`)];
      }),
      doc: doc.errors.every((e) => e.code === 'DUPLICATE_KEY') ? sourceDocOf(file, doc, lines) : undefined,
    };
  }
  return { ok: true, doc: sourceDocOf(file, doc, lines) };
}

/** A YAML document the parser read, as the checks see it. */
function sourceDocOf(file: string, doc: Document, lines: number[]): SourceDoc {
  return {
    file,
    value: doc.toJS({ maxAliasCount: 100 }),
    locate(path, which = 'value') {
      let node: unknown = doc.contents;
      let found: number | undefined = (doc.contents as YamlNode | null)?.range?.[0];
      for (let i = 0; i < path.length; i++) {
        const seg = path[i]!;
        let next: unknown;
        let keyOffset: number | undefined;
        if (isMap(node)) {
          const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
          if (pair) {
            next = pair.value;
            keyOffset = (pair.key as YamlNode).range?.[0];
          }
        } else if (isSeq(node) && typeof seg === 'number') {
          next = node.items[seg];
        }
        if (next === undefined && keyOffset === undefined) break;
        const last = i === path.length - 1;
        const valueOffset = (next as YamlNode | null)?.range?.[0];
        found = last && which === 'key' && keyOffset !== undefined ? keyOffset : (valueOffset ?? keyOffset ?? found);
        node = next;
      }
      return found === undefined ? { line: 1, col: 1 } : positionAt(lines, found);
    },
  };
}

/** The offset of the first character at or after `offset` that is not `char`. */
function past(text: string, offset: number, char: string): number {
  let at = offset;
  while (text[at] === char) at++;
  return at;
}

/** The plain or quoted mapping key written at `offset`. */
/** Where the key that the key at `offset` repeats is first written in its mapping, as JSON's duplicates say. */
function firstOfKey(doc: Document, offset: number): number | undefined {
  let first: number | undefined;
  visit(doc, {
    Map(_, map) {
      const keys = map.items.map((pair) => (isScalar(pair.key) ? pair.key : undefined));
      const repeated = keys.find((key) => key?.range?.[0] === offset);
      if (!repeated) return undefined;
      first = keys.find((key) => key !== undefined && key.value === repeated.value)?.range?.[0];
      return visit.BREAK;
    },
  });
  return first === offset ? undefined : first;
}

function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset);
  const quoted = /^(["'])(.*?)\1/.exec(rest);
  return quoted ? quoted[2]! : (/^[^:\n]*/.exec(rest)?.[0] ?? '').trim();
}

/** What a file nested too deeply for a parser's stack is told, whichever parser ran out. */
export const TOO_DEEP = 'nested too deeply to read; a content file is a mapping of fields, most of them text';

/**
 * A YAML syntax error in words for whoever writes the file, with the fix: the yaml library's are for
 * programmers ("use YAML.parseAllDocuments()"), and its commonest, for a title with a colon in it, names none.
 */
function yamlProblem(code: string, message: string): string {
  switch (code) {
    case 'MULTIPLE_DOCS':
      return 'a second document ("---") in the file; a file holds one talk or event, so remove it or move it to a file of its own';
    case 'BLOCK_AS_IMPLICIT_KEY':
      return message.startsWith('Nested mappings')
        ? `${message}; a value with ": " in it must be quoted (title: "Python: the Good Parts"), and a field starts where the others do`
        : `${message}; line the items of a list up under one another`;
    case 'MULTILINE_IMPLICIT_KEY':
      return `${message}; write each field as name: value, with a space after the colon, and indent the lines of a long value under its name or quote it`;
    case 'TAB_AS_INDENT':
      return `${message}; indent with spaces`;
    case 'BAD_SCALAR_START':
      return `${message}; quote the value`;
    case 'BAD_INDENT':
      if (message.startsWith('Flow sequence')) return `${message}; end a list written in brackets with "]", or write it as lines of "- item" under its name`;
      if (message.startsWith('Flow map')) return `${message}; end a mapping written in braces with "}"`;
      if (message.startsWith('All mapping items')) return `${message}; start each field where the others beside it start`;
      return message;
  }
  // The parser's stack ran out on lists or mappings nested thousands deep.
  if (message.startsWith('Maximum call stack size exceeded')) return TOO_DEEP;
  const quote = /^Missing closing (["'])quote$/.exec(message);
  if (quote) return `a value opened with ${quote[1]} has no closing ${quote[1]}; close it, or write it without quotes`;
  if (message.startsWith('Implicit map keys need to be followed by map values')) {
    return `${message}; write each field as name: value, and indent the lines of a block of text (after | or >) under its name`;
  }
  return message;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0]!;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/** `tags[2]`, `related_urls[0].url`: how a field path is shown in messages. */
export function fieldName(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (seg.startsWith('[')) out += seg;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}
