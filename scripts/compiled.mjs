// Whether lib/ holds the TypeScript sources compiled as they are now: asked by
// the launcher (run.mjs) on every command, and stamped by the compiler
// (compile.mjs), which puts its lib/ in place with swapIn; the build's code
// fingerprint is made from the same digest (src/build.ts). A digest of the
// sources' bytes, not of their times, so that a checkout that puts the same
// files back keeps lib/ current.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Written into lib/ by the compiler: the digest of what it was compiled from. */
export const STAMP = '.sources';

/** A digest of every TypeScript file of src/ and scripts/, and of the compiler's settings. */
export function sourceDigest(root = ROOT) {
  const hash = createHash('sha1');
  for (const dir of ['src', 'scripts']) {
    // Its subfolders too, as the compiler takes them (tsconfig.lib.json includes the folders whole).
    for (const name of readdirSync(`${root}/${dir}`, { recursive: true }).filter((n) => n.endsWith('.ts')).sort()) hash.update(`${dir}/${name}\0`).update(readFileSync(`${root}/${dir}/${name}`));
  }
  for (const name of ['tsconfig.json', 'tsconfig.lib.json']) hash.update(`${name}\0`).update(readFileSync(`${root}/${name}`));
  return hash.digest('hex');
}

/** Whether lib/ was compiled from the sources as they are (false when it is not there). */
export function compiledIsCurrent(root = ROOT) {
  try {
    return readFileSync(`${root}/lib/${STAMP}`, 'utf8') === sourceDigest(root);
  } catch {
    return false;
  }
}

/**
 * Puts the folder `compiled` in lib/'s place, moving the lib/ there into `aside` (a folder to remove). Moved aside rather
 * than removed first: lib/ is missing between two renames, not for as long as removing it takes (a command started then
 * runs its sources). A compile ending at the same time can put its lib/ there between the two renames: that one is moved
 * aside in turn, so the compile that ends last is kept, and neither fails.
 */
export function swapIn(compiled, aside, root = ROOT, rename = renameSync) {
  for (let attempt = 0; ; attempt++) {
    try {
      rename(`${root}/lib`, `${aside}/old-${attempt}`);
    } catch (err) {
      if (err?.code !== 'ENOENT') throw err;
    }
    try {
      return rename(compiled, `${root}/lib`);
    } catch (err) {
      // Linux says ENOTEMPTY, other systems EEXIST; a few tries are for many compiles at once, not for a folder that stays.
      if ((err?.code !== 'ENOTEMPTY' && err?.code !== 'EEXIST') || attempt >= 10) throw err;
    }
  }
}
