// Paths as the file system resolves them: a folder reached through a symbolic link, or through `..`
// after one, is the folder it leads to. The commands refuse folders inside one another by them, and
// the server sends nothing from outside its folder.
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Whether `inner` is `outer` or lies within it; both resolved paths (a child named `..x` is within). */
export function contains(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** `file` resolved as the file system resolves it, as far as it exists; the rest, not yet made, as written. */
export function realPath(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? path.resolve(file) : path.join(realPath(parent), path.basename(file));
  }
}
