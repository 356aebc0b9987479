// What a build remembers for the next one, in a cache folder outside the
// output: the key of every output file (the manifest) and the loaded content.
// One file, replaced atomically, and only trusted for the output folder it
// was written for (same path, same folder inode).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { LoadCache } from './load.ts';
import { isAlive, writeFileAtomic } from './output.ts';

export interface BuildState {
  /** Fingerprint of the code that wrote it: another version starts afresh. */
  code: string;
  /** The inode of the output folder it describes. */
  outIno: number;
  /** Output path → key of what it was made from. */
  manifest: Map<string, string>;
  load: LoadCache;
}

export const STATE_FILE = 'state.v8';

/** The state folder for one output folder: builds of different outputs keep apart. */
export function stateDirFor(cacheRoot: string, outDir: string): string {
  const id = createHash('sha1').update(path.resolve(outDir)).digest('hex').slice(0, 12);
  return path.join(cacheRoot, 'video-catalogue', id);
}

export function readState(stateDir: string, code: string, outDir: string): BuildState | undefined {
  try {
    const state = v8.deserialize(readFileSync(path.join(stateDir, STATE_FILE))) as BuildState;
    if (state.code !== code || !existsSync(outDir) || statSync(outDir).ino !== state.outIno) return undefined;
    return state;
  } catch {
    return undefined;
  }
}

/** Writes the state under a temporary name; the build moves it into place when its output is in place. */
export async function writeStateNext(stateDir: string, state: BuildState): Promise<[string, string]> {
  await mkdir(stateDir, { recursive: true });
  const next = path.join(stateDir, `${STATE_FILE}.next`);
  await writeFileAtomic(next, v8.serialize(state));
  return [next, path.join(stateDir, STATE_FILE)];
}

/** Holds the state folder for one build at a time; a lock left by a dead process is taken over. */
export async function lockState(stateDir: string): Promise<() => Promise<void>> {
  await mkdir(stateDir, { recursive: true });
  const file = path.join(stateDir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) throw new Error(`another build (process ${pid}) is writing this output; wait for it to finish`);
      await rm(file, { force: true });
    }
  }
  throw new Error(`cannot lock ${file}`);
}

