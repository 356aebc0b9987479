// Stack traces of the code compiled into lib/ name the TypeScript it was compiled from (src/cli.ts:32:3), as they
// do run through tsx: lib/ runs only while it was compiled from the sources as they are, so its maps' lines are
// theirs. The launcher (scripts/run.mjs) sets this up for the main thread, and each compiled thread's entry for its
// own: a worker thread formats its errors' stacks itself, before they reach the main thread as text.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { COMPILED } from './program.ts';

/** lib/'s source map of the module at `url`, undefined where it has none. */
function sourceMap(url: string): SourceMap | undefined {
  try {
    return new SourceMap(JSON.parse(readFileSync(new URL(`${url}.map`), 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Maps the frames of lib/'s modules in the stack traces this thread formats from now on. The maps are read when a
 * trace is written, not as --enable-source-maps reads them, every module's as it loads, which takes 25–35 ms of every
 * command's start.
 */
export function mapStackTraces(): void {
  // Node maps them itself where it was started with --enable-source-maps (and its formatter then reads each frame's file);
  // so does tsx, which runs the sources.
  if (process.sourceMapsEnabled || !COMPILED) return;
  // Node's own formatter, which heads a trace as Node does (`TypeError [ERR_INVALID_ARG_TYPE]: …`), where it exposes it.
  const format = Error.prepareStackTrace ?? ((error: Error, sites: { toString(): string }[]) => [Error.prototype.toString.call(error), ...sites].join('\n    at '));
  const lib = new URL('../', import.meta.url).href;
  const maps = new Map<string, SourceMap | undefined>();
  const frame = (site: NodeJS.CallSite): string => {
    const [url, line, column] = [site.getFileName(), site.getLineNumber(), site.getColumnNumber()];
    if (!url?.startsWith(lib) || line === null || column === null) return site.toString();
    if (!maps.has(url)) maps.set(url, sourceMap(url));
    const entry = maps.get(url)?.findEntry(line - 1, column - 1);
    if (!entry || !('originalSource' in entry)) return site.toString();
    return site.toString().replace(`${url}:${line}:${column}`, `${new URL(entry.originalSource, url).href}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, sites) => format(error, sites.map((site) => ({ toString: () => frame(site) })) as unknown as NodeJS.CallSite[]);
}
