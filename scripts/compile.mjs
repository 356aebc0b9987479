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

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write('Usage: npm run compile\n\nCompiles src/ and scripts/ into lib/, which the npm scripts run while it is compiled from the sources as they are\n(else they run the TypeScript through tsx, about 0.3 s slower to start). npm install runs it.\n');
  process.exit(0);
}
if (args.length > 0) {
  // As the commands refuse an option they do not take: `npm run compile -- --watch` must not pass for a watch.
  process.stderr.write(`compile: unexpected ${args[0]}: it takes no options but --help\n`);
  process.exit(2);
}
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without devDependencies (npm ci --omit=dev): the commands run through tsx.
  process.stderr.write('compile: TypeScript is not installed (an install without devDependencies); the commands run their sources through tsx\n');
  process.exit(0);
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
  const reason = typeof err?.status === 'number' ? "TypeScript's errors are above; lib/ is left as it was" : err instanceof Error ? err.message.split('\n')[0] : err;
  process.stderr.write(`compile: ${reason}\n`);
  process.exit(1);
}
