// `npm run compile`, which `npm install` runs (the `prepare` script): compiles
// src/ and scripts/ into lib/ with TypeScript's compiler, and stamps lib/ with
// the digest of what it compiled, for the launcher (run.mjs) to run it while
// it is current. The type check is `npm run typecheck`'s: this only emits.
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ROOT, sourceDigest, STAMP } from './compiled.mjs';

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
// Taken before compiling: a source saved meanwhile leaves lib/ stale rather than stamped current.
const digest = sourceDigest();
const temp = `${ROOT}/.lib-${process.pid}`;
try {
  execFileSync(process.execPath, [tsc, '-p', `${ROOT}/tsconfig.lib.json`, '--outDir', temp], { stdio: 'inherit' });
  writeFileSync(`${temp}/${STAMP}`, digest);
  // Moved aside rather than removed first: lib/ is missing between two renames, not for as long as removing it takes (a command started then runs its sources).
  const old = `${temp}-old`;
  try {
    renameSync(`${ROOT}/lib`, old);
  } catch (err) {
    if (err?.code !== 'ENOENT') throw err;
  }
  renameSync(temp, `${ROOT}/lib`);
  rmSync(old, { recursive: true, force: true });
} catch (err) {
  rmSync(temp, { recursive: true, force: true });
  // A tsc that failed has printed why, before lib/ was touched; its command line, naming the folder just removed, would not.
  const reason = typeof err?.status === 'number' ? "TypeScript's errors are above; lib/ is left as it was" : err instanceof Error ? err.message.split('\n')[0] : err;
  process.stderr.write(`compile: ${reason}\n`);
  process.exit(1);
}
