// Writing the output folder, so that it is always either the previous build
// or the new one, never half of each, whenever a build stops: a build that
// replaces it (Staging) writes a staging folder beside it and swaps it in; one
// that patches it (Patch) writes changed files under temporary names and
// renames them by a journal.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import fse from 'fs-extra';
import { ENCODINGS } from './headers.ts';
import { ownTag, tagRuns } from './processes.ts';

/**
 * Writes a file so that readers see the old bytes or the new ones, never a part: temp file, fsync, rename.
 * Given pieces, it writes each as it comes, so that the whole file need not be in memory at once.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<Uint8Array>, mode = 0o644): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${ownTag()}-${Math.random().toString(36).slice(2)}`);
  const handle = await open(temp, 'w', mode);
  try {
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else for (const piece of data) await handle.write(piece);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    // A write cut off (a full disk: ENOSPC) leaves no part of the file behind, which would keep the space it took.
    await rm(temp, { force: true });
    throw err;
  }
}

/** A name writeFileAtomic gives its temporary file, with the tag of the process that writes it (see ownTag). */
const ATOMIC_TEMP = /^\..+\.tmp-([\d_]+)-[a-z\d]*$/;

/**
 * Removes the temporary files of writeFileAtomic in `dir` whose writer is gone: one killed as it wrote (SIGKILL, or
 * the machine stopping) left its hidden file there for ever. A writer that still runs keeps its own.
 */
export async function removeKilledTemps(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    const writer = ATOMIC_TEMP.exec(name)?.[1];
    // One this user may not remove stays, as it would have: the write that looks is not to fail for it.
    if (writer !== undefined && !tagRuns(writer)) await rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

function siblings(outDir: string) {
  const parent = path.dirname(outDir);
  const base = path.basename(outDir);
  return { parent, staging: `.${base}.staging-`, old: `.${base}.old-` };
}

/** The failure of a build whose output folder `outDir` was removed (`rm -rf dist`) or replaced while it ran. */
export const outputReplaced = (outDir: string): Error => new Error(`${outDir} was removed or replaced during the build; build again`);

/**
 * What tells a folder from another made later at its path: its inode, and when it was made. A folder removed and
 * made again (`rm -rf dist && mkdir dist`) is often given the freed inode back: by the inode alone, the new empty
 * folder was taken for the output the last build wrote, and a build found nothing to write into it.
 */
export function folderId(dir: string): string | undefined {
  const stats = statSync(dir, { throwIfNoEntry: false });
  return stats && (birthTimesKept() ? `${stats.ino}@${stats.birthtimeMs}` : `${stats.ino}`);
}

let birthTimes: boolean | undefined;
/**
 * Whether this process is given folders' birth times. Where Node cannot ask for them (no statx, as under an old
 * container's seccomp profile) it gives the change time instead, which a folder's own entries move: a patch's
 * renames would then make the output another folder. There the inode alone tells folders apart, as it used to.
 * Told by the temporary folder, whose entries come and go: its birth time is its change time only then, or where
 * it never changed. (A file system that keeps no birth time gives 0 for every folder, which changes nothing.)
 */
function birthTimesKept(): boolean {
  if (birthTimes === undefined) {
    const stats = statSync(tmpdir(), { throwIfNoEntry: false });
    birthTimes = stats !== undefined && stats.birthtimeMs !== stats.ctimeMs;
  }
  return birthTimes;
}

/** folderId of an output folder a build has in hand: one gone fails the build, as outputReplaced says. */
export function outputId(outDir: string): string {
  const id = folderId(outDir);
  if (id === undefined) throw outputReplaced(outDir);
  return id;
}

/** Whether the build that named a folder `prefix` + its ownTag() + `-…` still runs. */
const makerRuns = (name: string, prefix: string): boolean => tagRuns(name.slice(prefix.length).split('-')[0]!);

/**
 * Undoes what an interrupted build left: puts back an output folder that was
 * moved aside but not replaced, and removes staging folders of dead builds.
 */
export async function recover(outDir: string): Promise<void> {
  const { parent, staging, old } = siblings(outDir);
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  const olds = entries.filter((e) => e.startsWith(old) && !makerRuns(e, old)).sort();
  if (!existsSync(outDir) && olds.length > 0) await rename(path.join(parent, olds.pop()!), outDir);
  for (const name of olds) await fse.remove(path.join(parent, name));
  for (const name of entries.filter((e) => e.startsWith(staging) && !makerRuns(e, staging))) {
    await fse.remove(path.join(parent, name));
  }
}

/**
 * Gives a folder beside the output the output folder's permissions and group before anything is written in it: the
 * staging folder takes the output's place, and what is written in the others is moved into it, and a web server may
 * read the site by them (`chgrp www-data dist; chmod 2750 dist`). Set first, a set-group-ID bit gives every file and
 * folder written in it that group too, as writing into the output folder did.
 */
async function keepAccess(outDir: string, dir: string): Promise<void> {
  const before = statSync(outDir, { throwIfNoEntry: false });
  if (!before) return;
  try {
    // The group first: giving a folder another group may clear its set-group-ID bit.
    if (before.gid !== statSync(dir).gid) await chown(dir, -1, before.gid);
    // The build writes in it: whatever the folder had, its owner may (as a new folder's may).
    await chmod(dir, (before.mode & 0o7777) | 0o700);
  } catch {
    // Not a group this user is in (EPERM), or a file system without groups: a mode meant for that group would shut
    // out whoever read the site by it (deploy:www-data 2750 as deploy:deploy 2750), so the folder stays as new ones are.
  }
}

/**
 * A folder beside the output, on the same filesystem so that what is written
 * there can be renamed into place: the staging folder of a full build, or
 * where another program writes files for the output (the search index). A
 * later build removes it if this one dies.
 */
export async function scratchFolder(outDir: string, purpose: string): Promise<string> {
  const { parent, staging } = siblings(path.resolve(outDir));
  await mkdir(parent, { recursive: true });
  const dir = path.join(parent, `${staging}${ownTag()}-${Date.now().toString(36)}-${purpose}`);
  await mkdir(dir);
  await keepAccess(path.resolve(outDir), dir);
  return dir;
}

/** Where a build writes: a fresh staging folder, or patches into the existing output folder. */
export interface WriteTarget {
  root: string;
  mode: 'fresh' | 'patch';
  /** Names this build's temporary files when patching. */
  tag: string;
}

/** The temporary name a patch writes `rel` under: a dot file beside it, so no server shows it. */
export const tempName = (rel: string, tag: string) => path.join(path.dirname(rel), `.${path.basename(rel)}.vc-${tag}`);

/**
 * Writes output files, synchronously (it runs in worker threads as well as the
 * main one). When patching, a file whose bytes would not change is left alone,
 * and a changed one is written under a temporary name for the commit to rename.
 */
export class FileWriter {
  private readonly dirs = new Set<string>();
  files = 0;
  bytes = 0;
  unchanged = 0;
  /** Paths written under a temporary name, waiting for the commit. */
  readonly staged: string[] = [];

  constructor(readonly target: WriteTarget) {}

  /** Writes `rel`; with `compress`, also its .br and .gz copies for servers that send them as they are. */
  write(rel: string, body: string | Uint8Array, compress = false): void {
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    const changed = this.writeOne(rel, data);
    if (!compress) return;
    const written = changed ? undefined : statSync(path.join(this.target.root, rel)).mtimeMs;
    for (const { suffix, encode } of ENCODINGS) if (written === undefined || !this.copyOf(`${rel}${suffix}`, written)) this.writeOne(`${rel}${suffix}`, encode(data));
  }

  /**
   * Whether `copy` is a copy of its unchanged file, last written at `written`: not when it is missing (a build without
   * copies came before) or older than the file, which was then written since, as a fix made by hand to what this build renders.
   */
  private copyOf(copy: string, written: number): boolean {
    const copied = statSync(path.join(this.target.root, copy), { throwIfNoEntry: false });
    return copied !== undefined && copied.mtimeMs >= written;
  }

  /**
   * Moves `from`, a file another program wrote on the output's filesystem, to
   * `rel`, as write would have written its bytes (`from` stays where it is when
   * the file in place already has them).
   */
  move(rel: string, from: string): void {
    this.put(rel, statSync(from).size, (current) => current.equals(readFileSync(from)), (dest) => moveFile(from, dest));
  }

  /** False when the file already had these bytes. */
  private writeOne(rel: string, data: Uint8Array): boolean {
    return this.put(rel, data.byteLength, (current) => Buffer.compare(current, data) === 0, (dest) => writeFileSync(dest, data));
  }

  private put(rel: string, size: number, same: (current: Buffer) => boolean, place: (dest: string) => void): boolean {
    const file = path.join(this.target.root, rel);
    if (this.target.mode === 'patch') {
      let current: Buffer | undefined;
      try {
        current = readFileSync(file);
      } catch {
        current = undefined;
      }
      if (current && current.byteLength === size && same(current)) {
        this.unchanged++;
        return false;
      }
    }
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    if (this.target.mode === 'patch') {
      place(path.join(this.target.root, tempName(rel, this.target.tag)));
      this.staged.push(rel);
    } else place(file);
    this.files++;
    this.bytes += size;
    return true;
  }
}

/**
 * Renames `from` to `dest`, or copies it where they are on two file systems: beside an output folder that is a
 * mount point of its own (a container's volume), where the search index is written, is its parent's.
 */
function moveFile(from: string, dest: string): void {
  try {
    renameSync(from, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyFileSync(from, dest);
  }
}

/**
 * The folders an output folder holds that are not the build's: fsck's `lost+found`, which a partition made for
 * the site has at its root (mkfs makes it, and fsck puts there what it recovers), where the output is a mount point.
 */
export const notTheBuilds = (outDir: string): string[] => (swappable(outDir) ? [] : ['lost+found']);

/** notTheBuilds as fast-glob's `ignore`: not even listed, as a user other than root may not read lost+found. */
export const notTheBuildsGlobs = (outDir: string): string[] => notTheBuilds(outDir).map((name) => `${fg.escapePath(name)}/**`);

/**
 * Whether a staging folder beside the output folder can replace it: not when the output is a mount point of its
 * own (a container's volume, a partition), which cannot be renamed away (EBUSY) nor renamed into (EXDEV).
 */
export function swappable(outDir: string): boolean {
  const out = statSync(outDir, { throwIfNoEntry: false });
  return out === undefined || out.dev === statSync(path.dirname(path.resolve(outDir))).dev;
}

/** A build that replaces the output folder (see build.ts): everything is written into a staging folder that replaces it whole. */
export class Staging {
  private constructor(
    readonly outDir: string,
    readonly target: WriteTarget,
  ) {}

  static async open(outDir: string): Promise<Staging> {
    const resolved = path.resolve(outDir);
    await recover(resolved);
    return new Staging(resolved, { root: await scratchFolder(resolved, 'build'), mode: 'fresh', tag: '' });
  }

  /** Swaps the staging folder in as the output folder. */
  async commit(): Promise<void> {
    const { parent, old } = siblings(this.outDir);
    const aside = path.join(parent, `${old}${ownTag()}-${Date.now().toString(36)}`);
    const hadOutput = existsSync(this.outDir);
    if (hadOutput) await rename(this.outDir, aside);
    await rename(this.target.root, this.outDir);
    if (hadOutput) await fse.remove(aside);
  }

  async discard(): Promise<void> {
    await fse.remove(this.target.root);
  }
}

interface Journal {
  tag: string;
  /** Output paths whose temporary file replaces them. */
  renames: string[];
  /** Output paths to delete. */
  removes: string[];
  /** Files outside the output (the build's own state) to move into place with the patch. */
  moves: [string, string][];
}

/**
 * An incremental build: changed files are written beside their old versions
 * under temporary names, then a journal lists the renames and deletions, and
 * the renames run. A build stopped before the journal is written changed
 * nothing; one stopped after it is completed by the next build.
 */
export class Patch {
  private constructor(
    readonly outDir: string,
    private readonly stateDir: string,
    readonly target: WriteTarget,
    private readonly outId: string,
  ) {}

  static async open(outDir: string, stateDir: string): Promise<Patch> {
    const resolved = path.resolve(outDir);
    await recover(resolved);
    await recoverPatch(resolved, stateDir);
    const tag = `${process.pid}-${Date.now().toString(36)}`;
    await mkdir(stateDir, { recursive: true });
    await writeFileAtomic(path.join(stateDir, 'pending'), tag);
    return new Patch(resolved, stateDir, { root: resolved, mode: 'patch', tag }, outputId(resolved));
  }

  /**
   * Fails when the output was removed while the patch was made (`rm -rf dist`), or replaced: the files the
   * patch wrote since may have made its folder again, which holds them alone, not the output it patches.
   */
  checkOutput(): void {
    if (folderId(this.outDir) !== this.outId) throw outputReplaced(this.outDir);
  }

  async commit(staged: string[], removes: string[], moves: [string, string][]): Promise<void> {
    const journal: Journal = { tag: this.target.tag, renames: staged, removes, moves };
    await writeFileAtomic(path.join(this.stateDir, 'journal.json'), JSON.stringify(journal));
    await applyJournal(this.outDir, journal);
    await rm(path.join(this.stateDir, 'journal.json'), { force: true });
    await rm(path.join(this.stateDir, 'pending'), { force: true });
  }

  /** Removes every temporary file of this patch, including those of batches that were still running when it failed. */
  async discard(): Promise<void> {
    await recoverPatch(this.outDir, this.stateDir);
  }
}

async function applyJournal(outDir: string, journal: Journal): Promise<void> {
  for (const rel of journal.renames) {
    const temp = path.join(outDir, tempName(rel, journal.tag));
    if (existsSync(temp)) await rename(temp, path.join(outDir, rel));
  }
  for (const rel of journal.removes) await removeFile(outDir, rel);
  for (const [from, to] of journal.moves) if (existsSync(from)) await rename(from, to);
}

/** Removes a file, and the folders that removal emptied, as a clean build would not have them. */
async function removeFile(outDir: string, rel: string): Promise<void> {
  await rm(path.join(outDir, rel), { force: true });
  for (let dir = path.dirname(rel); dir !== '.'; dir = path.dirname(dir)) {
    try {
      await rmdir(path.join(outDir, dir));
    } catch {
      break;
    }
  }
}

/**
 * What an interrupted patch left, before the state is read: the patch finished if its journal was written (the
 * state on disk may still be the one before it), or else its temporary files removed, as a build with nothing to
 * write never opens a patch that would. True when a journal was applied: the output then changed.
 */
export async function finishPatch(outDir: string, stateDir: string): Promise<boolean> {
  const journal = existsSync(path.join(stateDir, 'journal.json'));
  if (!journal && !existsSync(path.join(stateDir, 'pending'))) return false;
  await recoverPatch(path.resolve(outDir), stateDir);
  return journal;
}

/** Finishes a patch whose journal was written, or removes the temporary files of one that never got that far. */
export async function recoverPatch(outDir: string, stateDir: string): Promise<void> {
  const journalFile = path.join(stateDir, 'journal.json');
  if (existsSync(journalFile)) {
    await applyJournal(outDir, JSON.parse(await readFile(journalFile, 'utf8')) as Journal);
    await rm(journalFile, { force: true });
  }
  const pendingFile = path.join(stateDir, 'pending');
  if (existsSync(pendingFile)) {
    const tag = (await readFile(pendingFile, 'utf8')).trim();
    if (tag && existsSync(outDir)) {
      // Not in a mount point's lost+found, which is root's alone (mode 0700): reading it would fail this and every later build.
      for (const temp of await fg(`**/.*.vc-${fg.escapePath(tag)}`, { cwd: outDir, dot: true, onlyFiles: true, ignore: notTheBuildsGlobs(outDir) })) await removeFile(outDir, temp);
    }
    await rm(pendingFile, { force: true });
  }
}
