// Where in a template it failed. Eta places a syntax error in the JavaScript it
// makes of a template, not in the template, and a runtime error not at all
// unless the template was compiled for debugging, which slows every render.
// So the place is found on the failure path only, by compiling again for debugging.
import path from 'node:path';
import vm from 'node:vm';
import { Eta } from 'eta/core';
import type { Templates } from './theme.ts';

export const newEta = (debug = false) => new Eta({ autoEscape: true, autoTrim: false, cache: true, useWith: false, debug });

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
export function compileFailure(file: string, source: string, err: unknown): string {
  // Eta's own parse errors (an unclosed tag or string) say where they are, after the reason.
  const parsed = /^(.*?) at line (\d+) col (\d+):/s.exec(err instanceof Error ? err.message : '');
  if (parsed) return `${at(file, Number(parsed[2]), Number(parsed[3]))}: ${parsed[1]}`;
  const place = syntaxErrorAt(source);
  return `${at(file, place?.line, place?.col)}: ${reasonOf(err)}`;
}

/**
 * Where a template's JavaScript syntax error is. Compiled for debugging, each tag's code follows
 * a mark of the tag's line (`__eta.line=12`); V8 names the line of code it stopped at, whose
 * text is the tag's own. Undefined when that line is Eta's (a block left open ends in its code).
 */
function syntaxErrorAt(source: string): { line: number; col?: number } | undefined {
  const code = newEta(true).compileToString(source);
  try {
    // The function Eta makes of it, as it makes it, with the body starting on the second line.
    new vm.Script(`(function (it, options) {\n${code}\n})`, { filename: 'template' });
    return undefined;
  } catch (err) {
    if (!(err instanceof SyntaxError)) return undefined;
    const [where = '', , caret = ''] = String(err.stack).split('\n');
    const lines = code.split('\n');
    const index = Number(/:(\d+)$/.exec(where)?.[1]) - 2;
    const line = lines[index] ?? '';
    // An output tag's code is its text in Eta's wrapping (`__eta.res+=__eta.e(…);`): the text is the template's.
    const wrapped = /^__eta\.res\+=(__eta\.e\()?(.*?)\)?;$/.exec(line.trim());
    const text = (wrapped && !wrapped[2]!.startsWith("'") ? wrapped[2]! : line).trim();
    const at = line.indexOf(text);
    if (!text) return undefined;
    let mark: number | undefined;
    for (let i = index; i >= 0 && mark === undefined; i--) mark = Number(/^__eta\.line=(\d+)$/.exec(lines[i]!)?.[1]) || undefined;
    if (mark === undefined) return undefined;
    // A tag may span lines: its text is on the mark's line or one after it.
    const own = source.split('\n');
    for (let n = mark; n <= own.length; n++) {
      const found = own[n - 1]!.indexOf(text);
      // V8 may stop just past the text, at Eta's wrapping (`<%= ) %>` closes its call early): the column stays within the tag's text.
      if (found >= 0) return { line: n, col: found + Math.min(Math.max(0, caret.indexOf('^') - at), text.length - 1) + 1 };
    }
    // An output tag's text not found as written: the tag's line, without a column. Any other line is Eta's own.
    return wrapped ? { line: mark } : undefined;
  }
}

/** A failure inside a template compiled for debugging, with the template and line it came from. */
class Placed extends Error {
  constructor(file: string, line: number | undefined) {
    super(at(file, line));
  }
}

/**
 * The template and line a render failed at, found by rendering the same data again with
 * templates compiled for debugging: the innermost template's, when one renders another (a page
 * in its layout). Undefined when it does not fail again.
 */
export function renderFailureAt(templates: Templates, folder: string, name: string, data: object): string | undefined {
  const eta = newEta(true);
  for (const [template, source] of Object.entries(templates)) {
    if (source === undefined) continue;
    const compiled = eta.compile(source);
    eta.loadTemplate(`@${template}`, function (this: Eta, ...args: Parameters<typeof compiled>) {
      try {
        return compiled.call(this, ...args);
      } catch (err) {
        // Eta wraps a failure inside a template it renders (the layout) in one of its own.
        const inner = err instanceof Placed ? err : (err as Error).cause;
        if (inner instanceof Placed) throw inner;
        throw new Placed(templateFile(folder, template), Number(/^line (\d+)\n/.exec((err as Error).message)?.[1]) || undefined);
      }
    });
  }
  try {
    eta.render(`@${name}`, data);
    return undefined;
  } catch (err) {
    return err instanceof Placed ? err.message : undefined;
  }
}
