// `npm run compile`, which `npm install` runs (the `prepare` script): compiles
// src/ and scripts/ into lib/ with TypeScript's compiler, and stamps lib/ with
// the digest of what it compiled, for the launcher (run.mjs) to run it while
// it is current. The type check is `npm run typecheck`'s: this only emits.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { ROOT, sourceDigest, STAMP, swapIn } from './compiled.mjs';

/** The compiler's own settings and the folders it compiles (tsconfig.lib.json includes src and scripts). */
const SOURCES = ['src', 'scripts', 'tsconfig.json', 'tsconfig.lib.json'];
/** A compile's temporary folder, named by its process: the next compile removes one whose process has gone. */
const TEMP = /^\.lib-(\d+)/;
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

/** Whether process `pid` runs (as another user too). */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err?.code === 'EPERM';
  }
}

/** Removes what compiles killed at once (SIGKILL, a second Ctrl+C) left behind; one still at work keeps its folder. */
function removeStaleTemps() {
  for (const name of readdirSync(ROOT)) {
    const pid = TEMP.exec(name)?.[1];
    if (pid !== undefined && !running(Number(pid))) rmSync(`${ROOT}/${name}`, { recursive: true, force: true });
  }
}

/** Runs TypeScript's compiler in `cwd`; resolves with its exit code, and the signal (SIGINT, SIGTERM) that stopped this compile if one did. */
async function runCompiler(tsc, args, cwd) {
  const child = spawn(process.execPath, [tsc, ...args], { cwd, stdio: 'inherit' });
  let stopped;
  const stop = (signal) => {
    stopped = signal;
    // Ctrl+C reaches the compiler too (the terminal signals the whole process group), a SIGTERM sent to this process alone does not.
    child.kill(signal);
  };
  // Once: a second signal stops this process at once, its folder left for the next compile to remove. Kept after the compiler
  // exits, so that a signal cannot stop the swap below between its two renames, with lib/ moved aside.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, stop);
  const [code] = await once(child, 'exit');
  return { code, stopped };
}

removeStaleTemps();
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
  const { code, stopped } = await runCompiler(tsc, ['-p', 'tsconfig.lib.json', '--outDir', 'lib'], temp);
  if (stopped) {
    rmSync(temp, { recursive: true, force: true });
    process.exit(128 + constants.signals[stopped]);
  }
  // A compiler that failed has printed why.
  if (code !== 0) throw new Error("TypeScript's errors are above");
  writeFileSync(`${temp}/lib/${STAMP}`, digest);
  swapIn(`${temp}/lib`, temp);
  rmSync(temp, { recursive: true, force: true });
} catch (err) {
  rmSync(temp, { recursive: true, force: true });
  fail(err instanceof Error ? err.message.split('\n')[0] : err);
}
