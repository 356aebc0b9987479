// `npm run compile`, which `npm install` runs (the `prepare` script): compiles
// src/ and scripts/ into lib/ with TypeScript's compiler, and stamps lib/ with
// the digest of what it compiled, for the launcher (run.mjs) to run it while
// it is current. The type check is `npm run typecheck`'s: this only emits.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ROOT, sourceDigest, STAMP } from './compiled.mjs';

/** The compiler's own settings and the folders it compiles (tsconfig.lib.json includes src and scripts). */
const SOURCES = ['src', 'scripts', 'tsconfig.json', 'tsconfig.lib.json'];
const USAGE = `Usage: npm run compile [-- --prepare]

Compiles src/ and scripts/ into lib/, which the npm scripts run while it is compiled from the sources as they are
(else they run the TypeScript through tsx, about 0.3 s slower to start). npm install runs it with --prepare.

  --prepare   as npm install runs it: a compile that fails warns and exits 0, as the commands run without lib/
  -h, --help  this help
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.find((arg) => arg !== '--prepare');
if (unknown !== undefined) {
  // As the commands refuse an option they do not take: `npm run compile -- --watch` must not pass for a watch.
  process.stderr.write(`compile: unexpected ${unknown}: it takes no options but --prepare and --help\n`);
  process.exit(2);
}
// npm install's compile: lib/ only makes the commands start sooner, they run without it, so its failure must not fail the install.
const prepare = args.includes('--prepare');

/** Says why nothing was compiled, and exits: 1, but 0 for npm install, which goes on. */
function fail(reason) {
  const install = prepare ? ' (npm install goes on: the commands run without it, only slower to start)' : '';
  process.stderr.write(`compile: ${reason}; lib/ is left as it was, and the npm scripts run the sources through tsx while it is not compiled from them${install}\n`);
  process.exit(prepare ? 0 : 1);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  fail('TypeScript is not installed (an install without devDependencies, npm ci --omit=dev), so nothing was compiled');
}
const temp = `${ROOT}/.lib-${process.pid}`;
try {
  // The compiler compiles a copy of the sources, and the stamp is the copy's digest: an edit saved while it runs, even
  // one undone before it ends, cannot leave lib/ stamped with other bytes than it read.
  mkdirSync(temp);
  for (const name of SOURCES) cpSync(`${ROOT}/${name}`, `${temp}/${name}`, { recursive: true });
  const digest = sourceDigest(temp);
  // From the copy, the compiler's errors name the files as from the project (src/cli.ts), not in a folder about to go.
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.lib.json', '--outDir', 'lib'], { cwd: temp, stdio: 'inherit' });
  writeFileSync(`${temp}/lib/${STAMP}`, digest);
  // Moved aside rather than removed first: lib/ is missing between two renames, not for as long as removing it takes (a command started then runs its sources).
  try {
    renameSync(`${ROOT}/lib`, `${temp}/old`);
  } catch (err) {
    if (err?.code !== 'ENOENT') throw err;
  }
  renameSync(`${temp}/lib`, `${ROOT}/lib`);
  rmSync(temp, { recursive: true, force: true });
} catch (err) {
  rmSync(temp, { recursive: true, force: true });
  // A tsc that failed has printed why, before lib/ was touched; its command line, naming the folder just removed, would not.
  fail(typeof err?.status === 'number' ? "TypeScript's errors are above" : err instanceof Error ? err.message.split('\n')[0] : err);
}
