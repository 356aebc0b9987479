// `npm run <command>` runs `node scripts/run.mjs <command> [options]`: the
// command compiled, from lib/, when lib/ was compiled from the sources as they
// are now (`npm run compile`, which `npm install` runs); else its TypeScript
// (scripts/<command>.ts) through tsx, so that an edit of the sources is never
// run stale. Compiled, a command starts about 0.3 s sooner: tsx's loader thread
// and its compiling as modules load were most of a no-op build's time.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { pathToFileURL } from 'node:url';
import { compiledIsCurrent, ROOT } from './compiled.mjs';

const command = process.argv[2] ?? '';
if (!/^[a-z]+$/.test(command) || !existsSync(`${ROOT}/scripts/${command}.ts`)) {
  process.stderr.write(`Usage: node scripts/run.mjs <command> [options], the command one of the npm scripts (build, check, dev, import, serve, start, token, bench); each takes --help\n`);
  process.exit(2);
}
/** lib/'s source map of the module at `url`, undefined where it has none. */
function sourceMap(url) {
  try {
    return new SourceMap(JSON.parse(readFileSync(new URL(`${url}.map`), 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Stack traces name the TypeScript that lib/ was compiled from (src/cli.ts:32:3), as they do run through tsx: lib/ runs
 * only while compiled from the sources as they are, so its maps' lines are theirs. Read when a trace is written, not
 * as --enable-source-maps reads them, every module's as it loads, which takes 25–35 ms of every command's start.
 */
function mapStackTraces() {
  // Node maps them itself where it was started with --enable-source-maps (and its formatter then reads each frame's file).
  if (process.sourceMapsEnabled) return;
  // Node's own formatter, which heads a trace as Node does (`TypeError [ERR_INVALID_ARG_TYPE]: …`), where it exposes it.
  const format = Error.prepareStackTrace ?? ((error, sites) => [Error.prototype.toString.call(error), ...sites].join('\n    at '));
  const lib = pathToFileURL(`${ROOT}/lib/`).href;
  const maps = new Map();
  const frame = (site) => {
    const [url, line, column] = [site.getFileName(), site.getLineNumber(), site.getColumnNumber()];
    if (!url?.startsWith(lib)) return site.toString();
    if (!maps.has(url)) maps.set(url, sourceMap(url));
    const entry = maps.get(url)?.findEntry(line - 1, column - 1);
    if (entry?.originalSource === undefined) return site.toString();
    return site.toString().replace(`${url}:${line}:${column}`, `${new URL(entry.originalSource, url).href}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, sites) => format(error, sites.map((site) => ({ toString: () => frame(site) })));
}

// The command reads its options from process.argv, as if it had been started on its own.
process.argv.splice(2, 1);
if (compiledIsCurrent()) {
  mapStackTraces();
  await import(pathToFileURL(`${ROOT}/lib/scripts/${command}.js`).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(`${ROOT}/scripts/${command}.ts`).href);
}
