// Where in a template it failed. Eta places a syntax error in the JavaScript it
// makes of a template, not in the template, and a runtime error only when the
// template was compiled for debugging, which slows every render, and then at
// the line its tag starts on. So the place is found on the failure path only,
// by compiling again for debugging and reading the place V8 names in that
// JavaScript back into the template's text, which Eta copies there as written.
import path from 'node:path';
import vm from 'node:vm';
import { Eta, type TemplateFunction } from 'eta/core';
import type { Templates } from './theme.ts';

export const newEta = (debug = false) => new Eta({ autoEscape: true, autoTrim: false, cache: true, useWith: false, debug });

/**
 * The templates' problems, one a line, as the commands report them: not a crash, and not the
 * content's. `count` of them are errors, more than the lines when not every one is listed.
 */
export class TemplateError extends Error {
  constructor(
    readonly problems: string[],
    readonly count = problems.length,
  ) {
    super(problems.join('\n'));
  }
}

/** A template that failed on a page: where in the templates (`templates/talk.eta:12:5`), the page's address when known, and why. */
export class RenderError extends Error {
  constructor(
    readonly place: string,
    readonly page: string | undefined,
    readonly reason: string,
  ) {
    super(failureMessage(place, page, reason, 0));
  }
}

/** `templates/talk.eta:2:17, rendering /video/12/x/ and 4,211 other pages: reason`. */
function failureMessage(place: string, page: string | undefined, reason: string, others: number): string {
  const more = others === 0 ? '' : ` and ${others.toLocaleString('en')} other page${others === 1 ? '' : 's'}`;
  return `${place}${page ? `, rendering ${page}${more}` : more && `, rendering a page${more}`}: ${reason}`;
}

/**
 * One failure of the templates on pages, however many: the place and reason of a RenderError,
 * the first page it failed on, and how many pages. Plain data, as a render thread sends it back
 * (an error thrown there reaches the main thread without its class).
 */
export interface RenderFailure {
  place: string;
  reason: string;
  page: string | undefined;
  pages: number;
}

/** Distinct failures of the templates listed at most, so that the first ones are not scrolled away; the count says how many more. */
const LISTED_FAILURES = 20;

/**
 * The failures of the templates on a build's pages, one per place and reason: a template line
 * that fails on every talk page is one error. Batches are added in the order the plan made them,
 * whichever thread finished first, so that the page named first is the same in every run.
 */
export class RenderFailures {
  private readonly byBatch: [number, RenderFailure[]][] = [];
  /** Pages that failed so far. */
  pages = 0;

  /** The failures of the `batch`th batch. */
  add(batch: number, failures: RenderFailure[]): void {
    if (failures.length === 0) return;
    this.byBatch.push([batch, failures]);
    for (const failure of failures) this.pages += failure.pages;
  }

  /** The failures as the commands report them, or undefined without any; `stopped` when rendering stopped before every page was rendered. */
  error(stopped: boolean): TemplateError | undefined {
    if (this.byBatch.length === 0) return undefined;
    const merged = mergeFailures(this.byBatch.sort(([a], [b]) => a - b).flatMap(([, failures]) => failures));
    const lines = byPosition(merged.map((f) => failureMessage(f.place, f.page, f.reason, f.pages - 1)));
    const unlisted = lines.length - LISTED_FAILURES;
    return new TemplateError(
      [
        ...lines.slice(0, LISTED_FAILURES),
        ...(unlisted > 0 ? [`… and ${unlisted} more ${unlisted === 1 ? 'failure' : 'failures'} of the templates, not listed`] : []),
        ...(stopped ? [`rendering stopped after ${this.pages.toLocaleString('en')} pages failed: other pages may fail too once these are fixed`] : []),
      ],
      lines.length,
    );
  }
}

/** `failures` with one entry per place and reason, the first page each failed on, and the pages counted. */
export function mergeFailures(failures: RenderFailure[]): RenderFailure[] {
  const byKey = new Map<string, RenderFailure>();
  for (const failure of failures) {
    const key = `${failure.place}\0${failure.reason}`;
    const known = byKey.get(key);
    if (known) known.pages += failure.pages;
    else byKey.set(key, { ...failure });
  }
  return [...byKey.values()];
}

/** Eta's reason for a failure, without the JavaScript it adds to a syntax error. */
export function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Eta names what it did not find, not where templates come from.
  const unknown = /^Failed to get template '(.*)'$/.exec(message);
  if (unknown) return noTemplate(unknown[1]!, "include('@footer') for footer.eta");
  return message.split(/\n=+\n/)[0]!.replace(/^Bad template syntax\s*/, 'syntax error: ').trim();
}

/** A template that is not in the folder (`name` as Eta names it, `@footr`), and what to do. */
export const noTemplate = (name: string, fix: string) => `no template '${name}': a template is included by its file's name in the templates folder with an @, ${fix}`;

/** A template's file as messages name it: in the templates folder as it was given (`templates/talk.eta`). */
export const templateFile = (folder: string, name: string) => path.join(folder, `${name}.eta`);

/** Compiles each template into `eta`, which keeps those that compile; those that do not are named, one a line. */
export function loadTemplates(eta: Eta, templates: Templates, folder: string): string[] {
  const failures: string[] = [];
  for (const [name, source] of Object.entries(templates)) {
    try {
      eta.loadTemplate(`@${name}`, source);
    } catch (err) {
      failures.push(compileFailure(templateFile(folder, name), source, err));
    }
  }
  return failures;
}

/** The templates' problems (`file:line[:col]: …`, or a file's own) in the order of the content's errors (sortErrors): by file, then position. */
export function byPosition(problems: string[]): string[] {
  const keyed = problems.map((problem) => {
    const at = /^(.*?):(\d+)(?::(\d+))?: /.exec(problem);
    return { problem, file: at ? at[1]! : problem, line: Number(at?.[2] ?? 0), col: Number(at?.[3] ?? 0) };
  });
  keyed.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.col - b.col);
  return keyed.map((k) => k.problem);
}

/** A template's file, line, and column when known: `templates/talk.eta:12:5`. */
const at = (file: string, line?: number, col?: number) => `${file}${line === undefined ? '' : col === undefined ? `:${line}` : `:${line}:${col}`}`;

/** The message for a template that does not compile: `templates/talk.eta:12:5: syntax error: …`. */
function compileFailure(file: string, source: string, err: unknown): string {
  // Eta's own parse errors (an unclosed tag or string) say where they are, after the reason.
  const parsed = /^(.*?) at line (\d+) col (\d+):/s.exec(err instanceof Error ? err.message : '');
  if (parsed) return `${at(file, Number(parsed[2]), Number(parsed[3]))}: ${parsed[1]}`;
  const place = syntaxErrorAt(source);
  return `${at(file, place?.line, place?.col)}: ${reasonOf(err)}`;
}

/** A place in a template: its line, and its column when known. */
interface Place {
  line: number;
  col?: number;
}

/**
 * A tag of a template, in the template and in the JavaScript Eta makes of it compiled for debugging,
 * where Eta copies the tag's text as written: `from` is its code's start (the mark of its line,
 * `__eta.line=3`), `to` the end of its code's last line, and `until` the end of the code of the text
 * after it (the next tag's start, or that of Eta's own code after the template's; `to` when not
 * known); `code` and `source` are where its text starts in the one and the other.
 */
interface Tag {
  from: number;
  to: number;
  until: number;
  code: number;
  source: number;
  length: number;
}

/** What Eta writes before a tag's text, by the tag's kind: none for code, and the output's, escaped or raw (newEta's options). */
const WRAPPING: Record<string, string> = { e: '', r: '__eta.res+=', i: '__eta.res+=__eta.e(' };
/** A tag's opening as Eta's parser reads it: `<%`, its white space control, its kind, then the white space its text starts after. */
const OPENING = /<%[-_]?\s*[=~]?\s*/y;

/**
 * The tags of `source`, found in it and in `code`, its JavaScript. A tag whose text is not where
 * Eta's parser and compiler put it ends the list: the tags after it are not placed at all, rather
 * than placed wrong.
 */
function tagsOf(source: string, code: string): Tag[] {
  const tags: Omit<Tag, 'until'>[] = [];
  let inSource = 0;
  let inCode = 0;
  let complete = true;
  for (const part of newEta(true).parse(source)) {
    if (typeof part === 'string') continue;
    // Eta's parser takes the first `<%` after the last tag as the next tag's opening.
    OPENING.lastIndex = source.indexOf('<%', inSource);
    const opened = OPENING.lastIndex >= 0 && OPENING.exec(source);
    const mark = `__eta.line=${part.lineNo}\n`;
    const from = code.indexOf(mark, inCode);
    const wrapping = WRAPPING[part.t];
    if (!opened || from < 0 || wrapping === undefined || !source.startsWith(part.val, OPENING.lastIndex) || !code.startsWith(wrapping + part.val, from + mark.length)) {
      complete = false;
      break;
    }
    const tag = { from, code: from + mark.length + wrapping.length, source: OPENING.lastIndex, length: part.val.length };
    inSource = tag.source + tag.length;
    inCode = tag.code + tag.length;
    tags.push({ ...tag, to: code.indexOf('\n', inCode) });
  }
  // Eta's own code after the template's starts with the call of the layout; the text's code before it has no line break of its own.
  const body = complete ? code.indexOf('\nif (__eta.layout) {', tags.at(-1)?.to) : -1;
  return tags.map((tag, n) => ({ ...tag, until: tags[n + 1]?.from ?? (body >= 0 ? body : tag.to) }));
}

/** Where the line `line` (from 1) starts in `text`, its lines ended as V8 ends them when it numbers a script's lines. */
function lineStart(text: string, line: number): number | undefined {
  const ends = /\r\n?|[\n\u2028\u2029]/g;
  for (let n = 1; n < line; n++) if (!ends.exec(text)) return undefined;
  return ends.lastIndex;
}

/**
 * The place in a template of a place in `code`, the JavaScript Eta made of it compiled for debugging
 * (`line` from 1, `col` from 1, as V8 gives them): within the text of the tag whose code it is, the
 * line of the tag's text that failed, however many lines the tag spans; in the code of the text
 * after a tag, the line the tag's text ends on. Undefined in Eta's own code (a block left open
 * fails at the end of it).
 */
function placeOf(source: string, code: string, line: number, col: number): Place | undefined {
  const start = lineStart(code, line);
  if (start === undefined) return undefined;
  const at = start + col - 1;
  const tag = tagsOf(source, code).find((t) => t.from <= at && at <= t.until);
  if (!tag) return undefined;
  // The code of the text after a tag cannot fail by itself: the tag's left something open (`<% if ( { %>`), where its text ends, at a column V8 cannot tell.
  if (at > tag.to) return { line: placeAt(source, tag.source + tag.length).line };
  // V8 may name Eta's wrapping, just before the text or past it (`<%= x ) %>` closes Eta's call early): the place stays within the text.
  return placeAt(source, tag.source + Math.min(Math.max(0, at - tag.code), Math.max(0, tag.length - 1)));
}

/** The line and column of `offset` in `text`. */
function placeAt(text: string, offset: number): Place {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
}

/** The names a template's code is compiled with (Eta's): its data, and its options. */
const PARAMS = ['it', 'options'];

/** Where a template's JavaScript syntax error is, from V8's report: its line, then the code, then a caret under the spot. */
function syntaxErrorAt(source: string): Place | undefined {
  const code = newEta(true).compileToString(source);
  try {
    vm.compileFunction(code, PARAMS, { filename: 'template' });
    return undefined;
  } catch (err) {
    if (!(err instanceof SyntaxError)) return undefined;
    const [where = '', , caret = ''] = String(err.stack).split('\n');
    return placeOf(source, code, Number(/:(\d+)$/.exec(where)?.[1]), caret.indexOf('^') + 1);
  }
}

/** A failure inside a template compiled for debugging, with the template and place it came from. */
class Placed extends Error {
  constructor(file: string, place: Place | undefined) {
    super(at(file, place?.line, place?.col));
  }
}

/**
 * Where in a template compiled for debugging as `code`, under the name `filename`, the failure `err`
 * came from: the innermost place in the template's tags in the stack of the error it caught (Eta's
 * RuntimeErr keeps that as its cause), else the line of the tag Eta names (a value thrown that is
 * no Error has no stack, and a stack stops at V8's ten calls).
 */
function runtimeErrorAt(source: string, code: string, filename: string, err: Error): Place | undefined {
  const frames = err.cause instanceof Error ? String(err.cause.stack).split('\n') : [];
  const calls = frames.map((frame) => /^\s*at (?:.* \()?(.*):(\d+):(\d+)\)?$/.exec(frame)).filter((call) => call?.[1] === filename);
  // A call in Eta's own code (include(), defined before the template's) is followed to the tag that called it.
  const place = calls.map((call) => placeOf(source, code, Number(call![2]), Number(call![3]))).find(Boolean);
  // The line of the tag, as Eta's RuntimeErr names it.
  const line = Number(/^line (\d+)\n/.exec(err.message)?.[1]);
  return place || (line ? { line } : undefined);
}

/**
 * What finds the template and place a render failed at, by rendering the same data again with
 * templates compiled for debugging: the innermost template's, when one renders another (a page
 * in its layout); undefined when it does not fail again. Compiled once for the failures of a
 * build: a template that fails on every talk page would otherwise be compiled again for each.
 */
export function renderFailureAt(templates: Templates, folder: string): (name: string, data: object) => string | undefined {
  const eta = newEta(true);
  for (const [template, source] of Object.entries(templates)) {
    if (source === undefined) continue;
    const code = eta.compileToString(source);
    // Compiled under a name of its own, so that its calls in an error's stack are told from another template's.
    const filename = `@${template}`;
    const compiled = vm.compileFunction(code, PARAMS, { filename }) as TemplateFunction;
    eta.loadTemplate(filename, function (this: Eta, ...args: Parameters<TemplateFunction>) {
      try {
        return compiled.call(this, ...args);
      } catch (err) {
        // Eta wraps a failure inside a template it renders (the layout) in one of its own.
        const inner = err instanceof Placed ? err : (err as Error).cause;
        if (inner instanceof Placed) throw inner;
        throw new Placed(templateFile(folder, template), runtimeErrorAt(source, code, filename, err as Error));
      }
    });
  }
  return (name, data) => {
    try {
      eta.render(`@${name}`, data);
      return undefined;
    } catch (err) {
      return err instanceof Placed ? err.message : undefined;
    }
  };
}
