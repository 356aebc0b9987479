// What a build remembers for the next one, in a cache folder outside the
// output: the key of every output file (the manifest), the loaded content and
// the search records' keys. Its files are replaced atomically and only trusted
// for the output folder they were written for (its path, the same folder by
// folderId, and the names at its top still there: see TopNames); beside them,
// the lock of the build at work and the record of the last no-op build.
import { hash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { CachedFile, LoadCache } from './load.ts';
import { folderId, removeKilledTemps, writeFileAtomic } from './output.ts';
import { realPath } from './paths.ts';
import { Locked, takeLock } from './locks.ts';

export interface BuildState {
  /** Fingerprint of the code that wrote it: another version starts afresh. */
  code: string;
  /** The output folder it describes, as folderId tells it from another made later at its path. */
  outId: string;
  /** Output path → key of what it was made from. */
  manifest: Map<string, string>;
  load: LoadCache;
  /** The key of each live talk's search record, by the files it is made from (see planSearch). */
  search: Map<string, string>;
  /**
   * The manifest's entries by the part of the plan that made them (see Part), with the assets'
   * and the search index's as parts of their own: a build in a process of its own plans again
   * only the parts whose signature moved (see planParts' `known`). Kept only when they hold as
   * many entries as the manifest; builds that keep their memory (the dev server's) work it out
   * when they save the state (see saveState).
   */
  parts?: Map<string, PartFiles>;
}

export interface PartFiles {
  signature?: string;
  /** The part's files: their keys are the manifest's. */
  files: string[];
}

/**
 * A manifest changed in place, that can be put back as it was: a build that
 * patches the last build's manifest rather than making one whole (see
 * BuildMemory.written) leaves it as it found it when it fails.
 */
export class ManifestPatch {
  /** The key each file changed had before the patch (undefined: it was not there). */
  private readonly was = new Map<string, string | undefined>();

  constructor(readonly manifest: Map<string, string>) {}

  before(file: string): string | undefined {
    return this.was.has(file) ? this.was.get(file) : this.manifest.get(file);
  }

  set(file: string, key: string): void {
    this.keep(file);
    this.manifest.set(file, key);
  }

  delete(file: string): void {
    this.keep(file);
    this.manifest.delete(file);
  }

  /** Files the patch took out and did not put back, sorted. */
  removed(): string[] {
    const gone: string[] = [];
    for (const [file, was] of this.was) if (was !== undefined && !this.manifest.has(file)) gone.push(file);
    return gone.sort();
  }

  undo(): void {
    for (const [file, was] of this.was) {
      if (was === undefined) this.manifest.delete(file);
      else this.manifest.set(file, was);
    }
    this.was.clear();
  }

  private keep(file: string): void {
    if (!this.was.has(file)) this.was.set(file, this.manifest.get(file));
  }
}

/** Named by the code fingerprint, so a build of another version does not even read it. */
const stateFile = (code: string) => `state-${code}.v8`;
/** A state file of any version. */
const ANY_STATE_FILE = /^state-.*\.v8$/;

/**
 * The state folder for one output folder: builds of different outputs keep apart, and builds of one output
 * share it (and its lock) by whatever path they name it, through a symbolic link too: a state of its own per
 * name would take the files another name's build wrote for its own.
 */
export function stateDirFor(cacheRoot: string, outDir: string): string {
  const id = hash('sha1', realPath(outDir), 'hex').slice(0, 12);
  return path.join(cacheRoot, 'video-catalogue', id);
}

/**
 * The state file is a run of pieces, each a 4-byte length and a V8-serialised
 * value: first `code`, `outId` and the number of entries, then batches of
 * manifest, load and search entries. With `parts`, the manifest comes part by
 * part, and the parts follow it: their names, signatures and counts of files.
 * The manifest's and the search's pairs of strings are written flat, one after
 * the other: an array per pair cost a sixth more time to read, and the parts,
 * which kept those arrays, 80 MB at 108,565 talks.
 * It is written and read a piece at a time: at 100,000 talks the state is
 * 150 MB, and serialised whole it would be held twice over while the build
 * that writes it still holds its catalogue and manifest.
 */
type StatePiece =
  | { code: string; outId: string; entries: number }
  /** File, key, file, key, … */
  | { manifest: string[] }
  | { parts: [name: string, signature: string | undefined, files: number][] }
  | { load: [string, CachedFile][] }
  /** Origin, key, origin, key, … */
  | { search: string[] };

/** Entries per piece of the state file. */
const PIECE = 20_000;

function* statePieces(state: BuildState): Generator<Uint8Array> {
  const piece = (value: StatePiece) => {
    const bytes = v8.serialize(value);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  yield piece({ code: state.code, outId: state.outId, entries: state.manifest.size + state.load.size + state.search.size });
  function* batches(name: 'manifest' | 'parts' | 'load' | 'search', items: Iterable<unknown>, size = PIECE) {
    let batch: unknown[] = [];
    for (const item of items) {
      batch.push(item);
      if (batch.length === size) {
        yield piece({ [name]: batch } as StatePiece);
        batch = [];
      }
    }
    if (batch.length > 0) yield piece({ [name]: batch } as StatePiece);
  }
  /** The pairs of `keyOf` in the order of `keys`, flat. */
  function* flat(keys: Iterable<string>, keyOf: Map<string, string>) {
    for (const key of keys) {
      yield key;
      yield keyOf.get(key)!;
    }
  }
  const parts = state.parts && partsHoldManifest(state.parts, state.manifest) ? state.parts : undefined;
  yield* batches('manifest', flat(parts ? [...parts.values()].flatMap((part) => part.files) : state.manifest.keys(), state.manifest), 2 * PIECE);
  if (parts) yield* batches('parts', [...parts].map(([name, { signature, files }]) => [name, signature, files.length]));
  yield* batches('load', state.load);
  yield* batches('search', flat(state.search.keys(), state.search), 2 * PIECE);
}

/**
 * Whether the parts hold as many files as the manifest, each of them one of its files: one the
 * manifest lacks would be written without a key. One held twice where another is missing passes,
 * and the reader's count of entries then fails: the state is not trusted, as a bug's should not be.
 */
function partsHoldManifest(parts: Map<string, PartFiles>, manifest: Map<string, string>): boolean {
  let count = 0;
  for (const { files } of parts.values()) {
    for (const file of files) if (!manifest.has(file)) return false;
    count += files.length;
  }
  return count === manifest.size;
}

/** The pieces of a state file, each read from the disk when it is wanted. */
function* readPieces(file: string): Generator<StatePiece> {
  const fd = openSync(file, 'r');
  try {
    const length = Buffer.alloc(4);
    for (let at = 0; readSync(fd, length, 0, 4, at) === 4; ) {
      const bytes = Buffer.allocUnsafe(length.readUInt32LE());
      if (readSync(fd, bytes, 0, bytes.length, at + 4) !== bytes.length) throw new Error(`${file} is cut short`);
      at += 4 + bytes.length;
      yield v8.deserialize(bytes) as StatePiece;
    }
  } finally {
    closeSync(fd);
  }
}

export function readState(stateDir: string, code: string, outDir: string): BuildState | undefined {
  try {
    const pieces = readPieces(path.join(stateDir, stateFile(code)));
    const head = pieces.next().value;
    if (!head || !('code' in head) || head.code !== code || folderId(outDir) !== head.outId) {
      pieces.return(undefined);
      return undefined;
    }
    const state: BuildState = { code, outId: head.outId, manifest: new Map(), load: new Map(), search: new Map() };
    /** The manifest's files in the order written: by part, if the parts follow. */
    const files: string[] = [];
    const tops = new TopNames();
    const parts = new Map<string, PartFiles>();
    let at = 0;
    for (const piece of pieces) {
      if ('manifest' in piece) {
        const pairs = piece.manifest;
        for (let i = 0; i < pairs.length; i += 2) {
          state.manifest.set(pairs[i]!, pairs[i + 1]!);
          files.push(pairs[i]!);
          tops.add(pairs[i]!);
        }
      } else if ('parts' in piece) {
        for (const [name, signature, count] of piece.parts) parts.set(name, { signature, files: files.slice(at, (at += count)) });
      } else if ('load' in piece) for (const [name, entry] of piece.load) state.load.set(name, entry);
      else if ('search' in piece) {
        const pairs = piece.search;
        for (let i = 0; i < pairs.length; i += 2) state.search.set(pairs[i]!, pairs[i + 1]!);
      }
    }
    if (parts.size > 0 && at === files.length) state.parts = parts;
    // Renamed into place once whole, but a file that lacks pieces must not pass for a smaller state.
    return state.manifest.size + state.load.size + state.search.size === head.entries && holdsAll(outDir, tops.names) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the state under a temporary name; the build moves it into place when its output is in place. */
export async function writeStateNext(stateDir: string, state: BuildState): Promise<[string, string]> {
  await mkdir(stateDir, { recursive: true });
  // Another version's state, and the temporary file of a process killed while it wrote one.
  for (const name of await readdir(stateDir)) if (ANY_STATE_FILE.test(name) && name !== stateFile(state.code)) await rm(path.join(stateDir, name), { force: true });
  await removeKilledTemps(stateDir);
  const next = path.join(stateDir, `${stateFile(state.code)}.next`);
  await writeFileAtomic(next, statePieces(state));
  return [next, path.join(stateDir, stateFile(state.code))];
}

/** Removes the state and the no-op record (see writeUnchanged) before the output they describe changes. */
export async function forgetState(stateDir: string): Promise<void> {
  for (const name of await readdir(stateDir).catch(() => [])) if (ANY_STATE_FILE.test(name) || name === UNCHANGED_FILE) await rm(path.join(stateDir, name), { force: true });
}

/** Holds the state folder for one build at a time; a lock left by a dead process is taken over. */
export const lockState = (stateDir: string): Promise<() => Promise<void>> => takeLock(path.join(stateDir, 'lock'), (pid) => new Locked(pid, 'build', 'this output'));

/** What a no-op build reports: the counts of the build that is still in place. */
export interface Totals {
  events: number;
  /** Live talks. */
  talks: number;
  drafts: number;
  /** Files in the output. */
  outputs: number;
}

/**
 * A small record of the last build's input signature (code, templates, and the
 * stat of every content file) and its totals. When nothing of that changed and
 * the output folder is the one it wrote, a build has nothing to do, and can
 * say so without loading the state or the content.
 */
const UNCHANGED_FILE = 'unchanged.json';

/** Whether any build has left its state here. */
export function hasState(stateDir: string): boolean {
  try {
    return readdirSync(stateDir).some((name) => ANY_STATE_FILE.test(name));
  } catch {
    return false;
  }
}

/**
 * Left by a build whose caller saves its state later (BuildMemory.saveLater), in place of the state
 * and the no-op record it removes before it changes the output: a stamp of its own (see stateStamp),
 * so that another such caller (a second dev server, the server's writes) sees that a build came
 * between, as it sees a build that saves at once. No build takes it for a no-op.
 */
export async function markUnsaved(stateDir: string): Promise<void> {
  await writeFileAtomic(path.join(stateDir, UNCHANGED_FILE), JSON.stringify({ input: null, unsaved: true }));
}

/**
 * Which build last left its state here: every build rewrites its no-op record
 * (a new file), or marks the state unsaved (see markUnsaved), or removes it
 * before changing the output, so a caller that keeps its state in memory can
 * tell whether a build in another process came between.
 */
export function stateStamp(stateDir: string): string | undefined {
  try {
    const { ino, mtimeMs } = statSync(path.join(stateDir, UNCHANGED_FILE));
    return `${ino}:${mtimeMs}`;
  } catch {
    return undefined;
  }
}

export function readUnchanged(stateDir: string, input: string, outDir: string): Totals | undefined {
  try {
    const saved = JSON.parse(readFileSync(path.join(stateDir, UNCHANGED_FILE), 'utf8')) as Totals & { input: string; outId: string; tops: string[] };
    if (saved.input !== input || folderId(outDir) !== saved.outId || !holdsAll(outDir, saved.tops)) return undefined;
    return { events: saved.events, talks: saved.talks, drafts: saved.drafts, outputs: saved.outputs };
  } catch {
    return undefined;
  }
}

/** Drops the no-op record, which a patch an interrupted build left and the next finished no longer describes (see finishPatch). */
export const forgetUnchanged = (stateDir: string) => rm(path.join(stateDir, UNCHANGED_FILE), { force: true });

/** Without `input`, as after a build that left work for the next one (BuildOptions.deferSearch), no build counts as a no-op. */
export async function writeUnchanged(stateDir: string, input: string | undefined, outId: string, totals: Totals, files: Iterable<string>): Promise<void> {
  const { events, talks, drafts, outputs } = totals;
  const tops = new TopNames();
  for (const file of files) tops.add(file);
  await writeFileAtomic(path.join(stateDir, UNCHANGED_FILE), JSON.stringify({ input: input ?? null, outId, tops: [...tops.names], events, talks, drafts, outputs }));
}

/**
 * The names at the top of an output that its files are in (`video` of `video/12/a-talk/index.html`): a state is
 * trusted only while the output holds them all. The folder emptied by hand (`rm -rf dist/*`, which leaves it the
 * same folder) or a folder of it removed (`rm -rf dist/video`) was taken for the output the last build wrote, and a
 * build wrote nothing into it.
 */
class TopNames {
  readonly names = new Set<string>();
  private last = '';

  add(file: string): void {
    // Files come folder by folder: most share the last one's top.
    if (this.last !== '' && file.startsWith(this.last)) return;
    const slash = file.indexOf('/');
    this.last = slash === -1 ? '' : file.slice(0, slash + 1);
    this.names.add(slash === -1 ? file : file.slice(0, slash));
  }
}

/** Whether the folder `dir` holds every one of `names`. */
function holdsAll(dir: string, names: Iterable<string>): boolean {
  const held = new Set(readdirSync(dir));
  for (const name of names) if (!held.has(name)) return false;
  return true;
}
