// `npm run <command>` runs `node scripts/run.mjs <command> [options]`: the
// command compiled, from lib/, when lib/ was compiled from the sources as they
// are now (`npm run compile`, which `npm install` runs); else its TypeScript
// (scripts/<command>.ts) through tsx, so that an edit of the sources is never
// run stale. Compiled, a command starts about 0.3 s sooner: tsx's loader thread
// and its compiling as modules load were most of a no-op build's time.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compiledIsCurrent, ROOT } from './compiled.mjs';

const command = process.argv[2] ?? '';
if (!/^[a-z]+$/.test(command) || !existsSync(`${ROOT}/scripts/${command}.ts`)) {
  process.stderr.write(`Usage: node scripts/run.mjs <command> [options], the command one of the npm scripts (build, check, dev, import, serve, start, token, bench); each takes --help\n`);
  process.exit(2);
}
// The command reads its options from process.argv, as if it had been started on its own.
process.argv.splice(2, 1);
if (compiledIsCurrent()) {
  const { mapStackTraces } = await import(pathToFileURL(`${ROOT}/lib/src/stack-traces.js`).href);
  mapStackTraces();
  await import(pathToFileURL(`${ROOT}/lib/scripts/${command}.js`).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(`${ROOT}/scripts/${command}.ts`).href);
}
