// Where this program's own files are. It runs either from its TypeScript sources (through tsx, or
// vitest) or compiled into lib/ (`npm run compile`, which `npm install` runs; scripts/run.mjs picks
// the compiled code while it is current), and the two lay their files out differently.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether this is the code compiled into lib/src/, rather than src/ run as TypeScript. */
export const COMPILED = import.meta.url.endsWith('.js');

/** The project's folder: the one with package.json, templates/ and src/. */
export const PROJECT_ROOT = fileURLToPath(new URL(COMPILED ? '../../' : '../', import.meta.url));

/**
 * The file a worker thread of `name` (render-worker, search-worker) starts from. A thread starts
 * without the loader that runs the main thread's TypeScript, so from the sources it starts from
 * the `.mjs` entry that registers one; compiled, from the module itself.
 */
export const threadEntry = (name: string): URL => new URL(`./${name}.${COMPILED ? 'js' : 'mjs'}`, import.meta.url);

/** Node's arguments that run one of the commands (scripts/<command>.ts) as `npm run <command>` does. */
export const commandArgs = (command: string, ...args: string[]): string[] => [path.join(PROJECT_ROOT, 'scripts', 'run.mjs'), command, ...args];
