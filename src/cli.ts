// What every command shares: option parsing with --help, and how results and
// failures reach the terminal.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { contains } from './paths.ts';
import { closest } from './suggest.ts';

/** `host:port` as a URL writes it: an IPv6 address in brackets. */
export const authority = (host: string, port: number | string): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in help, e.g. DIR or N. */
  value?: string;
  default?: string;
  /** The option without which this one counts for nothing (`bench --seconds` without `--serve`): given alone, it is refused. */
  with?: string;
}

interface CommandSpec<O extends Record<string, OptionSpec>> {
  name: string;
  summary: string;
  options: O;
  /** Extra paragraphs at the end of --help. */
  notes?: string;
  /** The positional arguments, for the usage line, e.g. `pyvideo <path>`; none are accepted without it. */
  args?: string;
  /** Options of the other commands that this one names otherwise, and its own name for each: `serve --out` is its --dir. */
  otherwise?: Record<string, string>;
}

type Values<O extends Record<string, OptionSpec>> = { [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean : string };

function helpText<O extends Record<string, OptionSpec>>(spec: CommandSpec<O>): string {
  const rows = Object.entries(spec.options).map(([name, o]) => {
    const flag = `--${name}${o.value ? ` ${o.value}` : ''}`;
    const dflt = o.default !== undefined ? ` (default: ${o.default})` : '';
    return `  ${flag.padEnd(22)} ${o.description}${dflt}`;
  });
  rows.push(`  ${'--help, -h'.padEnd(22)} show this help`);
  return [`Usage: npm run ${spec.name} -- ${spec.args ? `${spec.args} ` : ''}[options]`, '', spec.summary, '', 'Options:', ...rows, ...(spec.notes ? ['', spec.notes] : []), ''].join('\n');
}

/** Parses argv; prints help and exits on --help, prints the problem and exits 2 on a bad option. */
export function parseCommand<O extends Record<string, OptionSpec>>(spec: CommandSpec<O>, argv = process.argv.slice(2)): Values<O> & { _: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  // Defaults after the paths given are read from the shell's folder (see typedPath): they are the package's own.
  for (const [name, o] of Object.entries(spec.options)) options[name] = { type: o.type };
  const taken = takenByNpm(spec);
  if (taken) refuse(spec.name, `npm took --${taken} for itself, as it came before "--": give the options after it, as in npm run ${spec.name} -- ${needed(taken, spec.options)}`);
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: spec.args !== undefined }));
  } catch (err) {
    refuse(spec.name, parseFailure(err as Error & { code?: string }, spec));
  }
  if (values.help) {
    process.stdout.write(helpText(spec));
    process.exit(0);
  }
  for (const [name, o] of Object.entries(spec.options)) {
    const given = values[name];
    if (given !== undefined && o.with !== undefined && !values[o.with]) refuse(spec.name, `--${name} counts only with --${o.with}: give --${o.with} too, or leave --${name} out`);
    if (typeof given === 'string' && PATH_VALUES.has(o.value ?? '')) {
      // An empty path (`--tokens "$TOKENS"` with TOKENS unset) names no file: a server without writes, a build without its cache and lock.
      if (given === '') refuse(spec.name, needsValue(name, spec.options));
      values[name] = typedPath(given, spec.name);
    } else if (given === undefined && o.default !== undefined) values[name] = o.default;
  }
  return { ...(values as Values<O>), _: positionals };
}

/** A command line the command cannot take: why, on stderr, and exit code 2. */
function refuse(command: string, why: string): never {
  process.stderr.write(`${command}: ${why}\nRun "npm run ${command} -- --help" for the options.\n`);
  process.exit(2);
}

/** An option as it is given: `--content DIR`, `--clean`. */
const needed = (name: string, options: Record<string, OptionSpec>) => `--${name}${options[name]?.type === 'boolean' ? '' : ` ${options[name]?.value ?? 'VALUE'}`}`;

const needsValue = (name: string, options: Record<string, OptionSpec>) => `--${name} needs a value: ${needed(name, options)}`;

/** npm's own settings of the names of some of the commands' options: npm sets its cache's in every script, and uses them. */
const NPM_SETTINGS = new Set(['cache', 'json']);

/**
 * The command's option that `npm run <command> --content x` gave npm rather than the command: npm takes what comes
 * before `--` as its own settings, sets an unknown one to "true" in its scripts' environment (npm_config_content) and
 * passes its value on as an argument, so that `--clean` went without a word and `--port 3000` left "3000" unexplained.
 */
function takenByNpm(spec: CommandSpec<Record<string, OptionSpec>>): string | undefined {
  if (process.env.npm_lifecycle_event !== spec.name) return undefined;
  return Object.keys(spec.options).find((name) => !NPM_SETTINGS.has(name) && process.env[`npm_config_${name.replaceAll('-', '_')}`] !== undefined);
}

/** The options whose values are paths, by what --help calls their value. */
const PATH_VALUES = new Set(['DIR', 'FILE']);

/**
 * A path as typed in the shell that ran `npm run <command>`. npm runs a script in the package's folder,
 * wherever it was typed (and says where in INIT_CWD): `cd talks && npm run check -- --content .` means
 * the folder the shell is in, as it would for any other program. Given relative to the folder the
 * command runs in, as its messages show paths, when inside it, else whole (`npm --prefix`: `../../tmp/x`
 * says less than `/tmp/x`), as messages name a content folder. Not under another script, whose INIT_CWD
 * a process it starts inherits (a test run by `npm test` passes paths of its own folder). An absolute
 * path stays as typed.
 */
export function typedPath(typed: string, command: string): string {
  const shell = process.env.INIT_CWD;
  if (!shell || process.env.npm_lifecycle_event !== command || typed === '' || path.isAbsolute(typed)) return typed;
  const meant = path.resolve(shell, typed);
  return contains(process.cwd(), meant) ? path.relative(process.cwd(), meant) || '.' : meant;
}

/**
 * Why an argument list does not parse, in the commands' own words (Node's as they are for anything else), with
 * the option meant when one is near: for an unknown option Node tells what to do with a positional that starts
 * with a dash, which no command here takes.
 */
function parseFailure(err: Error & { code?: string }, { options, otherwise }: CommandSpec<Record<string, OptionSpec>>): string {
  const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(-{1,2})([^'=]*)/.exec(err.message) : null;
  if (unknown) {
    const meant = otherwise?.[unknown[2]!] ?? closest(unknown[2]!, ['help', ...Object.keys(options)]);
    return `unknown option ${unknown[1]}${unknown[2]}${meant ? `; did you mean --${meant}?` : ''}`;
  }
  // "argument missing" at the end of the line, "argument is ambiguous" before another option.
  const missing = /^Option '--([^' ]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(err.message)?.[1];
  if (missing) return needsValue(missing, options);
  // Node names a flag with its short form as '-h, --help'.
  const flag = /^Option '(?:-\w, )?--([^']+)' does not take an argument/.exec(err.message)?.[1];
  if (flag) return `--${flag} takes no value: give it alone to turn it on`;
  const extra = /^Unexpected argument '([^']*)'/.exec(err.message)?.[1];
  if (extra !== undefined) return `unexpected argument "${extra}": this command takes options only`;
  return err.message;
}

/** An option's value that its command cannot take: exit code 2, as for an unknown option. */
export class OptionError extends Error {}

/**
 * Arguments the command cannot take: what it takes, and the word meant when the one given is near one of `words`,
 * as an unknown option is told (`token lst`, `import pyvido`).
 */
export function argumentsError(expected: string, given: string | undefined, words: readonly string[]): OptionError {
  const meant = given === undefined || words.includes(given) ? undefined : closest(given, words);
  return new OptionError(`expected ${expected}${meant ? `; did you mean "${meant}"?` : ''}`);
}

/** Runs a command's body; an unexpected failure is one line on stderr and exit code 1, a bad option's value exit code 2. */
export function run(name: string, body: () => Promise<number | void>): void {
  // A reader of the output that went away (`npm run token list | head -1`) ends the output, not the command: Node
  // throws a failed write to stdout (EPIPE) as an uncaught error, which stopped the command part way with a stack trace.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  body().then(
    (code) => {
      if (typeof code === 'number') process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof OptionError) {
        process.stderr.write(`${name}: ${err.message}\nRun "npm run ${name} -- --help" for the options.\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

export function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A count as English writes it, its thousands grouped ("21,713"), for the terminal and for templates (`it.formatCount`). */
export const formatCount = (n: number) => n.toLocaleString('en');

/** "1 talk", "21,713 talks": a count and its noun, for the terminal's summaries and for templates (`it.counted`, see countedOnOneLine). */
export const counted = (n: number, noun: string, space = ' ') => `${formatCount(n)}${space}${n === 1 ? noun : `${noun}s`}`;
