// Lock files: one process at a time writes a build's output (the lock in its state folder), and
// no build reads a content folder while an import writes it (CONTENT_LOCK in that folder). A lock
// file names its process, so that one left by a process that died is known for what it is.
import { readFileSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { ContentError } from './errors.ts';
import { startOf, stillRuns } from './processes.ts';

/**
 * Held by an import while it writes a content folder, and left there when it stops part way (killed, a full disk):
 * the folder then holds half a catalogue, which builds refuse until the import is run again. Hidden, as builds
 * read no dot file.
 */
export const CONTENT_LOCK = '.import.lock';

/** Another live process holds a lock this one needs: `by` its build (of the output) or its import (into the content). */
export class Locked extends Error {
  constructor(
    readonly pid: number,
    readonly by: 'build' | 'import',
    where: string,
  ) {
    super(`another ${by} (process ${pid}) is writing ${where}; wait for it to finish`);
  }
}

/** The lock `file`'s holder: a live process other than this one, `left` by one that has gone (or by this one), or none. */
function lockHolder(file: string): number | 'left' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [holder, start] = text.split(' ');
  const pid = Number(holder);
  return pid && pid !== process.pid && stillRuns(pid, start) ? pid : 'left';
}

/** Takes the lock `file` for this process, or throws `held(pid)` while a live one holds it; one left is taken over. */
export async function takeLock(file: string, held: (pid: number) => Error): Promise<() => Promise<void>> {
  await mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      try {
        await handle.writeFile(`${process.pid} ${startOf(process.pid) ?? ''}`.trim());
      } catch (err) {
        // A lock that could not be written (a full disk) is not left behind, and its file not left open.
        await rm(file, { force: true });
        throw err;
      } finally {
        await handle.close();
      }
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(file);
      if (typeof holder === 'number') throw held(holder);
      await rm(file, { force: true });
    }
  }
  throw new Error(`cannot lock ${file}`);
}

/** Takes the content folder's lock for an import while it writes. */
export const lockContent = (content: string): Promise<() => Promise<void>> => takeLock(path.join(content, CONTENT_LOCK), (pid) => new Locked(pid, 'import', content));

/**
 * Whether the content folder may be built: throws while an import writes it (a build waits for it, as for another
 * build), and is the error to tell when one stopped part way.
 */
export function checkContent(content: string): ContentError | undefined {
  const file = path.join(content, CONTENT_LOCK);
  const holder = lockHolder(file);
  if (typeof holder === 'number') throw new Locked(holder, 'import', content);
  if (holder !== 'left') return undefined;
  return new ContentError(
    file,
    { line: 1, col: 1 },
    '',
    'an import into this folder stopped before it had written every file, so it holds part of the catalogue: run the same import again to finish it, or remove this file to build the content as it is',
  );
}
