// The content folder's listing: every data file with the numbers of its stat
// that say whether it changed, and one signature of them all. Kept apart from
// the loader, which it does not need: a build that finds nothing changed reads
// only this.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, statSync, type Dirent } from 'node:fs';
import type { LoadCache } from './load.ts';
import { cached } from './memo.ts';

export const DATA_FILE = /\.(ya?ml|json)$/;
/** An event's file, in its folder. */
export const CATEGORY_FILE = /^category\.(ya?ml|json)$/;
/** Listed too, so that the loader can say how to name them: a talk in `talk.YAML` would otherwise vanish without a word. */
export const ANY_CASE_DATA_FILE = new RegExp(DATA_FILE.source, 'i');
/** The folder of the site's own pages (src/pages.ts); no event folder can be named so, as a slug has no underscore. */
export const PAGES_DIR = '_pages';
/** The folder of the site's redirects (src/redirects.ts), as safe from events' folders. */
export const REDIRECTS_DIR = '_redirects';
/** The site's settings (src/schema.ts, siteSchema), at the content folder's root. */
export const SITE_FILE = /^_site\.(ya?ml|json)$/;
/** A backup (`about.md~`, `.bak`, `.orig`), an autosave (`#about.md#`), a swap or temporary file (`.swp`, `.tmp`). */
const EDITOR_LEFTOVER = /(?:~|\.sw[a-p]|\.bak|\.orig|\.tmp)$|(?:^|\/)#[^/]*#$/;
/** The file vim writes and removes beside one it saves, to learn whether it may write the folder: `4913`, or 5036, 5159, … where that one is there. */
const VIM_WRITE_TEST = /(?:^|\/)(\d+)$/;
const isVimWriteTest = (name: string) => {
  const n = Number(VIM_WRITE_TEST.exec(name)?.[1]);
  return n >= 4913 && (n - 4913) % 123 === 0;
};
/**
 * What editors leave beside a file they save: never content, nor an asset (see isThemeFile), and no save for the dev server to
 * build. Those hidden (emacs's lock `.#about.md`, vim's `.about.md.swp`, macOS's `.DS_Store`) are passed over anyway (isHidden).
 */
export const isEditorLeftover = (name: string) => EDITOR_LEFTOVER.test(name) || isVimWriteTest(name);
/** Every other file under it is content, the loader refusing what is not a page: any other Markdown in the content folder is not read. */
const isContent = (name: string) => (ANY_CASE_DATA_FILE.test(name) || name.startsWith(`${PAGES_DIR}/`)) && !isEditorLeftover(name);
/** A path (inside the content or templates folder) with a part the walk passes over, as fast-glob does: a dot file, or one in a dot folder. */
export const isHidden = (name: string) => name.split('/').some((part) => part.startsWith('.'));
/** Whether the file `name` (its path inside the content folder) is one the listing holds. */
export const isListed = (name: string) => isContent(name) && !isHidden(name);

export type ContentEntry = {
  path: string;
  stats?: { size: number; mtimeMs: number; ctimeMs: number; ino: number };
  /** A symbolic link, which the loader refuses (the link's own stat, not what it leads to's). */
  link?: true;
  /** A folder the walk may not read (its code, `EACCES`), which the loader refuses: the content in it would leave the site without a word. */
  unreadable?: string;
};

/** Every content file (data files, and pages) under `dir` with the numbers of its stat that matter, sorted by path. */
export async function listContent(dir: string): Promise<ContentEntry[]> {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${dir}: the content folder is not there (removed or renamed?); put it back to build`);
  const names: string[] = [];
  const unreadable = new Map<string, string>();
  walk(dir, '', names, unreadable);
  // A file removed between the listing and its stat is not there.
  return [...names, ...unreadable.keys()].sort().flatMap((name) => entryOf(dir, name, unreadable.get(name)) ?? []);
}

/**
 * The content files' names under `folder` (inside `dir`), as fast-glob listed them before: no dot files, nothing in dot folders.
 * Walked by hand because listing is most of a no-op build: fast-glob took 200–290 ms on the import's 22,256 files, this walk 100 ms.
 */
function walk(dir: string, folder: string, names: string[], unreadable: Map<string, string>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder ? `${dir}/${folder}` : dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A folder removed while the walk reached it is not there; one it may not read is the loader's to refuse, with the rest.
    if (folder && code === 'ENOENT') return;
    if (folder && (code === 'EACCES' || code === 'EPERM')) {
      unreadable.set(folder, code);
      return;
    }
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const name = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) walk(dir, name, names, unreadable);
    // A link is listed, for the loader to refuse, where it stands for content: a folder's (which is not walked) or a content file's. Left
    // out, the talks it leads to would leave the site without a word.
    else if (entry.isFile() ? isContent(name) : entry.isSymbolicLink() && (isContent(name) || statSync(`${dir}/${name}`, { throwIfNoEntry: false })?.isDirectory() === true)) names.push(name);
  }
}

/**
 * Only the numbers are kept: a full Stats object per file would weigh more than the catalogue. The change
 * time too, which nothing but the system sets: a file written again with its size and with its modification
 * time put back (`touch -d`, `cp -p`, `rsync -t`, a file system whose times are whole seconds) has a new one.
 */
function entryOf(dir: string, name: string, unreadable?: string): ContentEntry | undefined {
  const stats = lstatSync(`${dir}/${name}`, { throwIfNoEntry: false });
  if (!stats?.isFile() && !stats?.isSymbolicLink() && !(unreadable && stats?.isDirectory())) return undefined;
  const entry: ContentEntry = { path: name, stats: { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino } };
  if (stats.isSymbolicLink()) entry.link = true;
  if (unreadable) entry.unreadable = unreadable;
  return entry;
}

/**
 * The content listing kept up to date from a watcher's events, so that a build
 * after an edit stats the files the watcher saw change, not the whole folder.
 */
export class WatchedListing {
  private entries: ContentEntry[] | undefined;
  private changed: Set<string> | 'all' = 'all';

  constructor(readonly dir: string) {}

  /** A file was added, changed or removed (its path inside the folder); without one, the next listing is made afresh. */
  saw(name?: string): void {
    if (name === undefined) this.changed = 'all';
    else if (this.changed !== 'all') this.changed.add(name);
  }

  /** The listing as listContent would give it now. */
  async current(): Promise<ContentEntry[]> {
    const changed = this.changed;
    this.changed = new Set();
    this.entries = changed === 'all' || !this.entries ? await listContent(this.dir) : patchListing(this.dir, this.entries, changed);
    return this.entries;
  }
}

/** `entries` with the files named in `changed` stated again: added, updated or dropped. The others stay the same objects. */
function patchListing(dir: string, entries: ContentEntry[], changed: Set<string>): ContentEntry[] {
  const patched = [...entries];
  for (const name of changed) {
    const entry = isListed(name) ? entryOf(dir, name) : undefined;
    let at = 0;
    for (let end = patched.length; at < end; ) {
      const middle = (at + end) >>> 1;
      if (patched[middle]!.path < name) at = middle + 1;
      else end = middle;
    }
    const there = patched[at]?.path === name;
    if (entry) patched.splice(at, there ? 1 : 0, entry);
    else if (there) patched.splice(at, 1);
  }
  return patched;
}

/** How many of `entries` a load with `cache` would have to read. */
export function countStale(entries: ContentEntry[], cache: LoadCache | undefined): number {
  if (!cache) return entries.length;
  let stale = 0;
  for (const e of entries) if (cache.get(e.path)?.stat !== statKey(e.stats!)) stale++;
  return stale;
}

/** One string that changes whenever any content file is added, removed, or changes size, mtime, ctime or inode. */
export function contentSignature(entries: ContentEntry[]): string {
  // The numbers as they are, not statKey's text: writing the import's 22,256 files' times as decimals made this take 120–160 ms, these 40 ms.
  const numbers = new Float64Array(entries.length * 4);
  let at = 0;
  for (const { stats } of entries) {
    numbers[at++] = stats!.size;
    numbers[at++] = stats!.mtimeMs;
    numbers[at++] = stats!.ctimeMs;
    numbers[at++] = stats!.ino;
  }
  return createHash('sha1').update(entries.map((e) => e.path).join('\0')).update(numbers).digest('base64url');
}

type Stats = NonNullable<ContentEntry['stats']>;
/** Made once per stat: a watched listing keeps the stats of the files it did not see change. */
export const statKey = (s: Stats) => cached(statKeys, s, () => `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`);
const statKeys = new WeakMap<Stats, string>();
