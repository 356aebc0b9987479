// The build: content folder → validated catalogue → output folder (API
// records, pages, assets). The first build, or one with --clean, writes a
// staging folder and swaps it in; later builds compare each output's key with
// the previous build's and patch only what changed.
import { createHash, hash as digest } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import fg from 'fast-glob';
import fse from 'fs-extra';
import { Piscina } from 'piscina';
import type { ContentError } from './errors.ts';
import { contentSignature, countStale, listContent, type WatchedListing } from './listing.ts';
import type { Catalogue, LoadBasis, ReadTalks } from './load.ts';
import { FileWriter, finishPatch, notTheBuildsGlobs, Patch, scratchFolder, Staging, swappable, type WriteTarget } from './output.ts';
import { realPath } from './paths.ts';
import { PROJECT_ROOT, threadEntry } from './program.ts';
import { COMPRESSED_KINDS, filesOf, kindOf } from './headers.ts';
import type { Fingerprints, OutputSpec, PageJob, Part, PlanMemo, TalkJob } from './plan.ts';
import type { Progress } from './progress.ts';
import type { BatchResult } from './render-talks.ts';
import { SEARCH_DIR, SEARCH_SHARD_SIZE, shardOf } from './search-shards.ts';
import type { SearchThread } from './search.ts';
import type { WorkerTask } from './render-worker.ts';
import type { SiteInfo, SiteRenderer } from './render.ts';
import { forgetState, forgetUnchanged, hasState, lockState, ManifestPatch, markUnsaved, readState, readUnchanged, stateDirFor, stateStamp, writeStateNext, writeUnchanged, type BuildState, type PartFiles, type Totals } from './state.ts';
import { RenderFailures, TemplateError } from './template-errors.ts';
import { loadTheme, TEMPLATE_NAMES, templatesUsed, ThemeError, type Theme } from './theme.ts';

/**
 * The modules that load, plan, render and index, imported once a build has something to do: a build
 * that finds nothing changed is done before they would have loaded (a quarter of a second).
 */
const work = async () => {
  const [load, pages, plan, redirects, renderTalks, render, search] = await Promise.all([
    import('./load.ts'),
    import('./pages.ts'),
    import('./plan.ts'),
    import('./redirects.ts'),
    import('./render-talks.ts'),
    import('./render.ts'),
    import('./search.ts'),
  ]);
  return { ...load, ...pages, ...plan, ...redirects, ...renderTalks, ...render, ...search };
};
type Work = Awaited<ReturnType<typeof work>>;

export interface BuildOptions {
  content: string;
  out: string;
  templates: string;
  /** Cache folder for incremental builds; without it every build is a full one. */
  cache?: string;
  /** Ignore what previous builds left and write everything. */
  clean?: boolean;
  /** Absolute URL the site is served at, for canonical links, feeds and sitemaps; default http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Also write .br and .gz copies of pages, sitemaps and assets (not feeds: see planParts), for servers that send files as they are (nginx's gzip_static, Caddy's precompressed); servers that compress as they send (ours, most hosts) need none. */
  compress?: boolean;
  /** Talks per shard of the search index (see SEARCH_SHARD_SIZE): fewer hold Pagefind's memory down, more save the browser requests. */
  searchShardSize?: number;
  /** Worker threads for talk pages; default: one per core. */
  workers?: number;
  /** What a long-running caller (the dev server) keeps between builds. */
  memory?: BuildMemory;
  /**
   * Publish pages before the search index: its changed shards are left as
   * they are (the summary says `searchPending`) for the next build without
   * this to replace; only a new shard is built. The dev server's edit loop,
   * where Pagefind indexing a shard again would otherwise hold back every
   * title edit by seconds.
   */
  deferSearch?: boolean;
  /** Stops the build, leaving the output as it was, if it comes before the output changes; a render in progress stops after its batches in flight. */
  signal?: AbortSignal;
  /** The caller holds the state folder's lock (lockState), for longer than the build: around a change it takes back if the build fails. */
  locked?: boolean;
  progress?: Progress;
}

/** Kept between builds: the state saves a read of it, the plan's parts replanning them, the search thread a start (and see SearchThread); close it when done. */
export interface BuildMemory {
  state?: BuildState;
  plan?: PlanMemo;
  search?: SearchThread;
  /** Given by a caller that watches the content folder: builds take their listing from it. */
  listing?: WatchedListing;
  /** The last load's basis: a build after an edit of a few talk files reads and checks those alone. */
  loaded?: LoadBasis;
  /**
   * Set by a caller that writes the state itself when it is idle (saveState),
   * so that its builds do not wait for it: each build then removes the state
   * it would have replaced before it changes the output, and leaves its own here.
   */
  saveLater?: boolean;
  /** What saveState writes besides `state`. */
  unsaved?: { stateDir: string; out: string; input: string | undefined; totals: Totals };
  /**
   * What the state's manifest was made from: the plan by part (see SitePlan.parts), the assets
   * and the search index's files. The next build patches that manifest, comparing only the
   * parts it planned anew, instead of making it whole.
   */
  written?: { manifest: Map<string, string>; parts: Part[]; assets: OutputSpec[]; search: string[] };
  /** The state folder's stamp (see stateStamp) as this memory's last build or saveState left it. */
  stamp?: string;
}

export interface BuildSummary {
  events: number;
  talks: number;
  drafts: number;
  /** Files in the output. */
  outputs: number;
  written: number;
  unchanged: number;
  removed: number;
  bytes: number;
  incremental: boolean;
  /** The search index still holds the previous build's records (see BuildOptions.deferSearch). */
  searchPending?: boolean;
  ms: number;
}

/** The catalogue is there unless nothing changed since the last build, which then skips loading it. */
export type BuildResult = { ok: true; summary: BuildSummary; catalogue?: Catalogue } | { ok: false; errors: ContentError[] };

/** Below this many files to render, starting worker threads costs more than it saves. */
const WORKER_THRESHOLD = 400;
/** From this many talks, Pagefind is fed from a thread of its own while the main thread plans (see SearchThread). */
const SEARCH_THREAD_FROM = 2000;
/**
 * Files to read before reading them in worker threads pays for starting the threads: measured on
 * two cores, the pyvideo import (22,255 files) loads in 1.5 s on the main thread and in 2.7 s with
 * two threads started for it; five times as many files in 9.5 s and 8.4 s.
 */
const LOAD_PARALLEL_FROM = 50_000;
/**
 * Live talks from which rendering beside Pagefind moves from the main thread to a worker thread.
 * The main thread's heap holds the catalogue and the manifest, and V8 lets the garbage of
 * rendering grow it in proportion: at 108,565 talks the build peaked at 2.1 GB rendering there
 * and at 1.65 GB in a thread, whose heap is kept small, for 3% more time (measured when the
 * main thread held the whole plan as well; with the plan made a part at a time, 1.93 GB against
 * 1.55 GB); on the pyvideo import (21,713) the thread's start-up and the jobs' copying cost
 * 12–16% and saved 30–80 MB. Counted in the catalogue, not in what changed: a build plans its
 * outputs as it renders them.
 */
const RENDER_IN_THREAD_FROM = 50_000;
/**
 * Has V8 collect once its heap has grown by half of what the last collection left, rather than
 * by a factor of its own (up to four times): for a build that reads so many files that
 * LOAD_PARALLEL_FROM reads them in threads, whose garbage would otherwise grow the heap far
 * past what is live. At 108,565 talks the cold build peaked at 1.18–1.33 GB instead of
 * 1.50–1.56 GB, in the same 50–53 s. Not for the builds that follow an edit, where it costs
 * time: at 108,565 talks a duration edit peaked at 0.91 GB instead of 1.24 GB, but took 7–15%
 * longer; on the pyvideo import it would save the cold build 150 MB for 3–10% more time. The
 * setting is the process's: a caller that builds again (BuildMemory) is left without it, as
 * its builds after an edit took three times as long with it.
 */
const holdHeapDown = () => setFlagsFromString('--heap-growing-percent=50');
const BATCH = 200;
/** Pages are smaller than talks (no file to read): more of them per batch. */
const PAGE_BATCH = 400;
/**
 * Failed pages after which a build takes no more batches to render. Each failure costs a second
 * render with the templates compiled for debugging, so a template line that fails on every talk
 * page of a 100,000-talk catalogue would take minutes to say the same line 100,000 times; by a
 * thousand failures the common ones have all shown themselves many times over. Stopping once
 * every template used has failed would stop no sooner on that catalogue, and too soon where one
 * template fails at two lines on different talks. What a failure rarer than that hides is found
 * by the build after the ones named are fixed, which the report says.
 */
const FAILED_PAGES_ENOUGH = 1000;

const hash = (data: string | Uint8Array) => digest('sha1', data, 'base64url').slice(0, 10);

/**
 * A fingerprint of this program's own source and of the versions of the packages it runs with
 * (the lockfile), so that a changed generator, or a Markdown renderer or slugger updated under
 * it, rebuilds everything it makes.
 */
async function fingerprintCode(): Promise<string> {
  // The sources' digest that stamps lib/ (scripts/compiled.mjs), compiled or not: lib/ is run only while it was compiled
  // from them as they are, and a build whose code moves from one to the other is the same program. It is not compiled
  // into lib/, so it is read from the project's scripts/.
  const compiled: typeof import('../scripts/compiled.mjs') = await import(pathToFileURL(path.join(PROJECT_ROOT, 'scripts', 'compiled.mjs')).href);
  const lockfile = await readFile(path.join(PROJECT_ROOT, 'package-lock.json')).catch(() => '');
  return createHash('sha1').update(compiled.sourceDigest(PROJECT_ROOT)).update(lockfile).digest('base64url').slice(0, 10);
}

/** Once per process: the code a process runs does not change under it. */
let codeFingerprint: Promise<string> | undefined;

function fingerprints(theme: Theme, code: string, site: SiteInfo): Fingerprints {
  // Every template may show the navigation (it.site.nav): a page that joins, leaves or moves in it rebuilds every page, and a page's other edits only its own.
  const nav = JSON.stringify(site.nav);
  const templates: Record<string, string> = {};
  for (const name of TEMPLATE_NAMES) templates[name] = hash(`${nav}\n${templatesUsed(theme.templates, name).map((n) => `${n}\n${theme.templates[n]}`).join('\n')}`);
  return { code, templates };
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** Worker threads for a build, started on first use: small builds never pay for them. */
class Workers {
  private pool: Piscina | undefined;

  constructor(readonly threads: number) {}

  /**
   * Starts the threads now (`count` of them, if none run yet), so that their start-up overlaps the main
   * thread's own work; or `atFirst` of them, and the others once more tasks wait than they can take.
   */
  start(count = this.threads, atFirst = count): Piscina {
    this.pool ??= new Piscina({
      filename: threadEntry('render-worker').href,
      minThreads: atFirst,
      maxThreads: count,
      // A thread started on demand stays until the build closes the pool: one stopped when idle for a moment would be started again.
      idleTimeout: Infinity,
      // Workers keep nothing between batches: a small heap makes them collect garbage early instead of growing.
      resourceLimits: { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 32 },
    });
    return this.pool;
  }

  run<R>(task: unknown, name?: string): Promise<R> {
    return this.start().run(task, name ? { name } : undefined) as Promise<R>;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/**
 * Renders the jobs in batches, on this thread (yielding to its event loop
 * between batches, so that a server or watcher in the same process keeps
 * answering) and, when there are many, in worker threads. While Pagefind
 * builds the search index it has a core of its own: this thread renders
 * alone (a worker thread does, for very many talks: see RENDER_IN_THREAD_FROM),
 * and threads join it for what is left once the index is written. Two
 * render threads beside Pagefind made a cold build of the pyvideo import
 * slower, 24.6 s against 20.5 s on this thread alone (see the README's benchmarks).
 */
async function renderJobs(
  w: Work,
  tasks: Iterator<Task>,
  /** Whether there are so few outputs to render that threads would not pay. */
  few: boolean,
  /** Whether to render in a thread rather than on this one beside Pagefind (see RENDER_IN_THREAD_FROM). */
  threadBeside: boolean,
  theme: Theme,
  renderer: SiteRenderer,
  target: WriteTarget,
  contentDir: string,
  workers: Workers,
  indexing: Promise<unknown> | undefined,
  /**
   * Aborted when the build fails: no more tasks are taken. Taking one plans and compares its
   * parts, which enters their keys in the manifest, and the build puts that back as it was.
   */
  halt: AbortSignal,
  progress?: Progress,
): Promise<BatchResult[]> {
  progress?.start('outputs rendered:');
  try {
    const templatesKey = hash(JSON.stringify(theme.templates));
    const here = async (slice: Task) => {
      await new Promise((resolve) => setImmediate(resolve));
      return w.renderBatch(renderer, target, contentDir, slice.jobs, slice.pages);
    };
    const inThread = (slice: Task) =>
      workers.run<BatchResult>({ templatesKey, templates: theme.templates, templatesFolder: theme.folder, site: renderer.site, target, contentDir, ...slice } satisfies WorkerTask);
    // A few batches in flight at a time, each planned when a thread is ready for it: queueing them all would hold every job in memory at once.
    const results: BatchResult[] = [];
    let ended = false;
    /** A batch failed otherwise than on the templates: the other feeders take no more, and the build fails once theirs are written. */
    let failed = false;
    /** The templates' failures on pages, wherever they were rendered: the build fails with all of them once every batch taken is done. */
    const failures = new RenderFailures();
    let taken = 0;
    /** Whether pages were left unrendered once enough had failed: one more part is planned to know. */
    let unrendered: boolean | undefined;
    const stopped = () => failed || halt.aborted || failures.pages >= FAILED_PAGES_ENOUGH;
    const take = (): Task | undefined => {
      if (ended) return undefined;
      if (stopped()) {
        if (!failed && !halt.aborted) unrendered ??= !tasks.next().done;
        return undefined;
      }
      const next = tasks.next();
      if (next.done) ended = true;
      return next.done ? undefined : next.value;
    };
    const feed = async (run: typeof inThread) => {
      try {
        for (let slice = take(); slice; slice = take()) {
          const batch = taken++;
          const result = await run(slice);
          failures.add(batch, result.failures);
          results.push(result);
          for (const job of slice.jobs) for (let n = 0; n < job.outputs.length; n++) progress?.tick();
          for (let n = 0; n < slice.pages.length; n++) progress?.tick();
        }
      } catch (err) {
        failed = true;
        throw err;
      }
    };
    const threads = (count: number) => allDone(Array.from({ length: count * 2 }, () => feed(inThread)));
    if (few || workers.threads < 2) await feed(here);
    else if (!indexing) await threads(workers.threads);
    else {
      // Threads that loaded the content would hold their heaps while Pagefind has their core.
      await workers.close();
      // Fed a batch at a time, one thread renders beside Pagefind; the others start when more batches are in flight, once the index is written.
      if (threadBeside) workers.start(workers.threads, 1);
      const join = async () => {
        const indexed = await indexing.then(
          () => true,
          () => false,
        );
        if (!indexed || ended || stopped()) return;
        workers.start(workers.threads - 1);
        await threads(workers.threads - 1);
      };
      await allDone([feed(threadBeside ? inThread : here), join()]);
    }
    const failure = failures.error(unrendered ?? !ended);
    if (failure) throw failure;
    return results;
  } finally {
    progress?.done();
  }
}

/**
 * Starts building the search index's shards that changed since the last
 * build, unless `defer` leaves them for later. `kept` lists the files of the
 * last build's shards that stay, with their keys: those unchanged, or with
 * `defer` all of them (then `pending` says whether any is stale). Pagefind
 * runs in a process of its own: started now, it indexes while the main
 * thread plans the pages.
 */
async function startSearchIndex(
  w: Work,
  catalogue: Catalogue,
  code: string,
  shardSize: number,
  previous: BuildState | undefined,
  out: string,
  thread: () => SearchThread,
  defer: boolean,
  memo: PlanMemo | undefined,
  /** The last build's index files, if known; else they are picked out of its manifest. */
  known: string[] | undefined,
  signal?: AbortSignal,
) {
  const { shards, keys: recordKeys, records: recordsOf } = w.planSearch(catalogue, code, previous?.search, memo, shardSize);
  // The index's files are named by Pagefind: they are known once it has run, unless the last build's are still good.
  // Picked out of the manifest without copying it whole: it lists every file of the site.
  const before = new Map<string, [string, string][]>();
  const enter = (file: string, key: string) => {
    const dir = shardOf(file);
    const files = before.get(dir);
    if (files) files.push([file, key]);
    else before.set(dir, [[file, key]]);
  };
  if (known) for (const file of known) enter(file, previous!.manifest.get(file)!);
  else if (previous) for (const [file, key] of previous.manifest) if (file.startsWith(`${SEARCH_DIR}/`)) enter(file, key);
  const stale = shards.filter((shard) => !before.get(shard.dir)?.every(([, key]) => key === shard.key));
  const keys = new Map(shards.map((shard) => [shard.dir, shard.key]));
  const gone = [...before.keys()].some((dir) => !keys.has(dir));
  // Deferred, the last build's files all stay, under their old keys, which the next build sees as stale; only
  // a shard that is new is built now, as the search page published at once lists it.
  const deferred = defer && before.size > 0;
  const building = deferred ? stale.filter((shard) => !before.has(shard.dir)) : stale;
  const kept = deferred ? [...before.values()].flat() : shards.filter((shard) => !stale.includes(shard)).flatMap((shard) => before.get(shard.dir)!);
  const pending = deferred && (building.length < stale.length || gone);
  if (building.length === 0) return { keys, recordKeys, kept, pending };
  const dir = await scratchFolder(out, 'search');
  const input = building.map((shard) => ({ records: recordsOf(shard), dir: path.join(dir, shard.dir) }));
  const records = building.reduce((n, shard) => n + shard.talks.length + shard.pages.length, 0);
  // The files of each shard, as paths in the output.
  const indexing = w
    .buildSearchIndex(input, records >= SEARCH_THREAD_FROM ? thread() : undefined, signal)
    .then((files) => building.flatMap((shard, i) => files[i]!.map((file) => `${shard.dir}/${file}`)));
  // Not kept here once handed over (the thread gets a copy): at 100,000 talks the records weigh hundreds of MB.
  return { keys, recordKeys, kept, pending, dir, indexing };
}

/** Jobs to render together, on this thread or in a worker thread. */
type Task = { jobs: TalkJob[]; pages: PageJob[] };

/** What the state keeps the assets' and the search index's files under, beside the plan's parts (see BuildState.parts). */
const ASSETS_PART = '\0assets';
const SEARCH_PART = '\0search';

/**
 * The plan against the last build's manifest: this build's manifest, and the
 * outputs not in place with their keys, in batches to render (`tasks`). The
 * parts are compared as the tasks are taken, so the manifest is whole once
 * they are all taken; pages of the record list are set aside in
 * `recordLists`, to be written after every record. Given what the last build
 * wrote (BuildMemory.written) and most of the plan as it was, that manifest
 * is patched: only the parts planned anew are compared, and the files of the
 * parts this plan no longer has are taken out. So it is, given the last
 * build's files by part (`byPart`, see BuildState.parts), when the plan kept
 * the parts it signed the same: the files of the parts planned anew that are
 * not made again are taken out at the end. Otherwise it is made whole.
 */
function diffPlan<A extends OutputSpec>(
  parts: Iterable<Part>,
  assets: A[],
  previous: BuildState | undefined,
  written: BuildMemory['written'],
  /** The last build's search index files that this build keeps. */
  kept: [string, string][],
  /** Whether to gather the files by part, for the state to keep. */
  byPart: boolean,
) {
  // A memo gives a part the plan did not change again, the same object.
  let patch: ManifestPatch | undefined;
  let dropped: Part[] = [];
  if (written) {
    const all = (parts = [...parts]);
    const before = new Set(written.parts);
    const now = new Set(all);
    const fresh = all.filter((p) => !before.has(p));
    if (fresh.length < all.length / 2) {
      patch = new ManifestPatch(written.manifest);
      parts = fresh;
      dropped = written.parts.filter((p) => !now.has(p));
    }
  }
  const last = !patch && byPart ? previous?.parts : undefined;
  if (last) patch = new ManifestPatch(previous!.manifest);
  /** With `last`: the files this build entered, and the parts it kept. */
  const entered = new Set<string>();
  const keptParts = new Set<string>();
  const manifest = patch?.manifest ?? new Map<string, string>();
  const was = patch ? (file: string) => patch.before(file) : (file: string) => previous?.manifest.get(file);
  const enter = !patch
    ? (file: string, key: string) => void manifest.set(file, key)
    : last
      ? (file: string, key: string) => {
          patch.set(file, key);
          entered.add(file);
        }
      : (file: string, key: string) => patch.set(file, key);
  /** This plan's files by part, when gathered. */
  const groups = byPart ? new Map<string, PartFiles>() : undefined;
  /**
   * Files of the last build's manifest entered in a manifest made whole: when that is all of them, no
   * file is to be removed, and none need be looked for (156,000 look-ups on the pyvideo import).
   */
  let again = 0;
  /**
   * Enters an output's files in the manifest (and in `into`); true when one of them is not in place with its key
   * (an output whose compressed copies the last build did not write, as it ran without them, is written again).
   */
  const enterChanged = (o: OutputSpec, into?: string[]) => {
    let moved = false;
    for (const file of filesOf(o)) {
      const before = was(file);
      if (before !== o.key) moved = true;
      const size = manifest.size;
      enter(file, o.key);
      into?.push(file);
      if (before !== undefined && manifest.size > size) again++;
    }
    return moved;
  };
  if (!patch) {
    for (const [file, key] of kept) manifest.set(file, key);
    again += kept.length;
  } else if (!last) {
    for (const o of [...dropped.flatMap((p) => [...p.talks.flatMap((job) => job.outputs), ...p.pages]), ...written!.assets]) for (const file of filesOf(o)) patch.delete(file);
    const keeps = new Set(kept.map(([file]) => file));
    for (const file of written!.search) if (!keeps.has(file)) patch.delete(file);
  }
  const recordLists: Extract<PageJob, { kind: 'video-list' }>[] = [];
  function* tasks(): Generator<Task> {
    let jobs: TalkJob[] = [];
    let pages: PageJob[] = [];
    for (const p of parts) {
      if (p.kept) {
        keptParts.add(p.name);
        groups!.set(p.name, last!.get(p.name)!);
        continue;
      }
      const files = groups && [];
      groups?.set(p.name, { signature: p.signature, files: files! });
      for (const job of p.talks) {
        // The jobs themselves stay as planned: a memo of the plan shares them with the next build.
        const outputs = job.outputs.filter((o) => enterChanged(o, files));
        if (outputs.length > 0) jobs.push({ ...job, outputs });
        if (jobs.length === BATCH) {
          yield { jobs, pages: [] };
          jobs = [];
        }
      }
      for (const page of p.pages) {
        if (!enterChanged(page, files)) continue;
        if (page.kind === 'video-list') recordLists.push(page);
        else pages.push(page);
        if (pages.length === PAGE_BATCH) {
          yield { jobs: [], pages };
          pages = [];
        }
      }
    }
    if (jobs.length > 0) yield { jobs, pages: [] };
    if (pages.length > 0) yield { jobs: [], pages };
  }
  const assetFiles: string[] = [];
  const changedAssets = assets.filter((asset) => enterChanged(asset, assetFiles));
  groups?.set(ASSETS_PART, { files: assetFiles });
  /**
   * With `last`, once every file is entered: takes out the last build's files of the parts this
   * plan did not keep (planned anew, or no longer there) that it did not make again.
   */
  const takeOut = () => {
    const keeps = new Set(kept.map(([file]) => file));
    for (const [name, { files }] of last!) {
      if (keptParts.has(name)) continue;
      for (const file of files) if (!entered.has(file) && !(name === SEARCH_PART && keeps.has(file))) patch!.delete(file);
    }
  };
  /** The last build's files (`listed` in the output, without a state) that this one does not make, once every file is entered. */
  const removable = (listed: string[] | undefined): string[] => {
    if (last) takeOut();
    if (patch) return patch.removed();
    if (previous && again === previous.manifest.size) return [];
    const gone: string[] = [];
    for (const p of listed ?? previous!.manifest.keys()) if (!manifest.has(p)) gone.push(p);
    return gone.sort();
  };
  return { manifest, patch, enter, removable, groups, tasks: tasks(), recordLists, assets: changedAssets };
}

/**
 * Whether what `memory` holds of the output is still its own: false, and it forgets it, when a build
 * in another process (`npm run build`, `serve` writing through the API) left its state since this
 * memory's last build or save. The output is then that build's: files it wrote would be taken for
 * this memory's and left as they are, and this memory's state saved over that build's would say so
 * on disk too. The next build starts from the state that build left. Asked with the lock held.
 */
function stillOwn(memory: BuildMemory, stateDir: string): boolean {
  if (stateStamp(stateDir) === memory.stamp) return true;
  memory.state = memory.written = memory.loaded = memory.unsaved = undefined;
  return false;
}

/** How long a caller that saves its state later (the dev server, the server's writes) waits after its last build: a burst of edits or writes saves it once. */
export const SAVE_AFTER = 1000;

/** Writes the state a caller's builds left for later (BuildMemory.saveLater), if the output is still the one it describes. */
export async function saveState(memory: BuildMemory): Promise<void> {
  const { state, unsaved } = memory;
  if (!state || !unsaved) return;
  // Kept until the lock is held: a save refused while another process builds is still to be made.
  const unlock = await lockState(unsaved.stateDir);
  memory.unsaved = undefined;
  try {
    if (!stillOwn(memory, unsaved.stateDir) || !existsSync(unsaved.out) || statSync(unsaved.out).ino !== state.outIno) return;
    const parts = memory.written?.manifest === state.manifest ? partsOf(memory.written) : undefined;
    await rename(...(await writeStateNext(unsaved.stateDir, { ...state, parts })));
    await writeUnchanged(unsaved.stateDir, unsaved.input, state.outIno, unsaved.totals);
    memory.stamp = stateStamp(unsaved.stateDir);
  } finally {
    await unlock();
  }
}

/**
 * The manifest's files by part (see BuildState.parts) as the builds of a caller that keeps
 * its memory left it: worked out when its state is saved, not by every build, so that a build
 * in a process of its own after a dev session keeps the parts that did not change.
 */
function partsOf(written: NonNullable<BuildMemory['written']>): Map<string, PartFiles> {
  const filesOfAll = (outputs: OutputSpec[]) => outputs.flatMap(filesOf);
  const parts = new Map<string, PartFiles>();
  for (const p of written.parts) parts.set(p.name, { signature: p.signature, files: filesOfAll([...p.talks.flatMap((job) => job.outputs), ...p.pages]) });
  parts.set(ASSETS_PART, { files: filesOfAll(written.assets) });
  parts.set(SEARCH_PART, { files: written.search });
  return parts;
}

/**
 * Waits for every one of `work`, then fails with the first failure, if any. Unlike Promise.all, it
 * does not fail while others still run: the renderers in flight when one fails are still writing
 * files into the output, which the build puts back as it was only once they are done.
 */
async function allDone(work: Promise<unknown>[]): Promise<void> {
  const failure = (await Promise.allSettled(work)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}

/** The items of `first`, then those `rest` has left. */
function* chain<T>(first: T[], rest: Iterator<T>): Generator<T> {
  yield* first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

/** Phase timings on stderr when VC_TIMINGS is set: for finding where a build spends its time. */
function timer() {
  const on = !!process.env.VC_TIMINGS;
  let last = performance.now();
  return (phase: string) => {
    if (!on) return;
    const now = performance.now();
    const { rss, heapUsed, heapTotal } = process.memoryUsage();
    process.stderr.write(`  ${phase}: ${(now - last).toFixed(0)} ms (rss ${Math.round(rss / 1e6)} MB, heap ${Math.round(heapUsed / 1e6)} MB of ${Math.round(heapTotal / 1e6)} MB)\n`);
    last = now;
  };
}

export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const mark = timer();
  // The folder a symbolic link leads to: its staging and scratch folders go beside it, on its file system (a
  // rename from beside the link failed across file systems), and a full build swaps it, not the link.
  const out = realPath(options.out);
  const stateDir = options.cache ? stateDirFor(options.cache, out) : undefined;
  const unlock = stateDir && !options.locked ? await lockState(stateDir) : undefined;
  const workers = new Workers(options.workers ?? availableParallelism());
  /** The search index being built, if any: its folder is removed however the build ends. */
  let search: Awaited<ReturnType<typeof startSearchIndex>> | undefined;
  let ownThread: SearchThread | undefined;
  /** The last build's manifest as this one changes it, when it patches it: put back if the build fails. */
  let patch: ManifestPatch | undefined;
  try {
    // A patch an interrupted build left is finished before the state is read: the state on disk may still be the
    // one before it, which would take the patched files for the older ones; so may the no-op record.
    if (stateDir && (await finishPatch(out, stateDir))) {
      await forgetUnchanged(stateDir);
      if (options.memory) options.memory.state = options.memory.written = options.memory.loaded = undefined;
    }
    if (options.memory && stateDir) stillOwn(options.memory, stateDir);
    const code = await (codeFingerprint ??= fingerprintCode());
    const entries = options.memory?.listing ? await options.memory.listing.current() : await listContent(options.content);
    mark(`list content (${entries.length} files)`);
    let theme: Theme;
    try {
      theme = await loadTheme(options.templates);
    } catch (err) {
      // A theme that cannot be used does not hide the content's errors: those are the build's answer, and the command names the templates' with them, as check does.
      const { errors } = await (await work()).loadContent(options.content, { entries });
      if (errors.length > 0) return { ok: false, errors };
      // Nor does the folder's problem hide a template that does not compile: both are named, as check names them.
      if (err instanceof ThemeError) {
        const { byPosition, loadTemplates, newEta } = await import('./template-errors.ts');
        throw new TemplateError(byPosition([...err.problems, ...loadTemplates(newEta(), err.templates, options.templates)]));
      }
      throw err;
    }
    // A build with no state to go on reads everything: start the threads now, while the main thread gets ready.
    const cold = !stateDir || options.clean || (!options.memory?.state && !hasState(stateDir));
    if (cold && workers.threads > 1 && entries.length >= LOAD_PARALLEL_FROM) workers.start();
    const compress = options.compress ?? false;
    const assetKeys = theme.assets.map((a) => ({ ...a, key: hash(a.bytes), compress: compress && COMPRESSED_KINDS.has(kindOf(a.path)) && /\.(css|js|svg)$/.test(a.path) }));
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const shardSize = options.searchShardSize ?? SEARCH_SHARD_SIZE;
    const input = hash(`${code}\n${baseUrl}\n${compress}\n${shardSize}\n${hash(JSON.stringify(theme.templates))}\n${assetKeys.map((a) => `${a.path}:${a.key}`).join('\n')}\n${contentSignature(entries)}`);
    // A caller that keeps memory between builds loads and plans once even when nothing changed: its next build starts from them.
    const warm = !options.memory || options.memory.state !== undefined;
    if (stateDir && !options.clean && warm) {
      const same = readUnchanged(stateDir, input, out);
      if (same) {
        mark('nothing changed');
        return { ok: true, summary: { ...same, written: 0, unchanged: same.outputs, removed: 0, bytes: 0, incremental: true, ms: performance.now() - started } };
      }
    }
    const w = await work();
    mark('theme and modules');
    const searchThread = () => (options.memory ? (options.memory.search ??= new w.SearchThread()) : (ownThread ??= new w.SearchThread()));
    const remembered = options.memory?.state;
    const inMemory = remembered && remembered.code === code && existsSync(out) && statSync(out).ino === remembered.outIno ? remembered : undefined;
    const previous = stateDir && !options.clean ? (inMemory ?? readState(stateDir, code, out)) : undefined;
    if (countStale(entries, previous?.load) >= LOAD_PARALLEL_FROM) {
      if (workers.threads > 1) workers.start();
      if (!options.memory) holdHeapDown();
    }
    mark('state');
    const contentDir = path.resolve(options.content);
    const loaded = await w.loadContent(options.content, {
      entries,
      cache: previous?.load,
      parallel: workers.threads > 1 ? (task) => workers.run<ReturnType<ReadTalks>>(task, 'readTalks') : undefined,
      parallelFrom: LOAD_PARALLEL_FROM,
      remember: options.memory !== undefined,
      basis: options.memory?.loaded,
    });
    if (options.memory) options.memory.loaded = loaded.basis;
    mark(`load (${loaded.read} files read)`);
    if (loaded.errors.length > 0) return { ok: false, errors: loaded.errors };
    const { catalogue } = loaded;
    const memo = options.memory ? (options.memory.plan ??= new w.PlanMemo()) : undefined;
    const unreachable = w.targetProblems(catalogue, () => w.indexOf(catalogue, memo), w.locator(options.content));
    if (unreachable.length > 0) return { ok: false, errors: unreachable };
    const site: SiteInfo = { baseUrl, nav: w.navOf(catalogue.pages), name: catalogue.site.name, editUrl: catalogue.site.edit_url };
    // Compiled now, so a template error fails the build before anything is written.
    const renderer = new w.SiteRenderer(theme.templates, site, theme.folder);
    // Pages show the site's settings (its name on every one), as feeds do: new settings are a new site.
    const prints = fingerprints(theme, `${code}${hash(`${site.baseUrl}\n${JSON.stringify(catalogue.site)}`)}`, site);
    const written = previous && options.memory?.written?.manifest === previous.manifest ? options.memory.written : undefined;
    // Not the index: it holds the talks' and pages' own text and paths from the root, none of the site's settings.
    search = await startSearchIndex(w, catalogue, code, shardSize, previous, out, searchThread, options.deferSearch ?? false, memo, written?.search ?? previous?.parts?.get(SEARCH_PART)?.files, options.signal);
    const { indexing, dir: searchDir, keys: searchKeys } = search;
    // Awaited once the output is open; a failure before that is the build's error, not an unhandled rejection.
    indexing?.catch(() => undefined);
    mark('plan search');
    // A caller that builds again keeps the plan's parts, to plan only what an edit changed; a build
    // on its own plans each part when it is ready to render it, and lets it go once rendered.
    // A build on its own that keeps a state plans again only the parts whose files changed (see BuildState.parts).
    const byPart = !memo && stateDir !== undefined;
    const memoParts = memo && w.planSite(catalogue, prints, compress, memo, shardSize).parts;
    const parts = memoParts ?? w.planParts(catalogue, prints, compress, undefined, shardSize, byPart ? (previous?.parts ?? new Map()) : undefined);
    const diff = diffPlan(parts, assetKeys, previous, written, search.kept, byPart);
    patch = diff.patch;
    const { manifest, enter, tasks, recordLists, assets } = diff;
    const searchFiles = search.kept.map(([file]) => file);
    // Planned up to the first WORKER_THRESHOLD outputs to render: fewer are rendered on this thread, and none is a build with nothing to do.
    const ahead: Task[] = [];
    let outputsAhead = 0;
    let allPlanned = false;
    while (outputsAhead < WORKER_THRESHOLD && !allPlanned) {
      const next = tasks.next();
      if (next.done) allPlanned = true;
      else {
        ahead.push(next.value);
        outputsAhead += next.value.jobs.length + next.value.pages.length;
      }
    }
    mark(allPlanned ? 'plan and compare' : 'plan and compare (first parts)');
    // Without a usable state, an existing output is still patched rather than replaced: files
    // whose bytes come out the same are not rewritten, and files no longer made are removed.
    // So is one that cannot be replaced, with --clean too: a mount point of its own.
    const patching = stateDir !== undefined && existsSync(out) && (!options.clean || !swappable(out));
    const listed = previous ? undefined : patching ? await fg('**/*', { cwd: out, onlyFiles: true, dot: false, ignore: notTheBuildsGlobs(out) }) : [];
    // Removals are known once the search index has been built (if it needs to be), see below.
    const removable = () => diff.removable(listed);

    mark('list output');
    const live = catalogue.talks.filter(w.isLive).length;
    const summary: BuildSummary = {
      events: catalogue.events.length,
      talks: live,
      drafts: catalogue.talks.length - live,
      outputs: 0,
      written: 0,
      unchanged: 0,
      removed: 0,
      bytes: 0,
      incremental: patching,
      searchPending: search.pending,
      ms: 0,
    };
    // A build that left the search index behind is not the last word on this content.
    const settled = search.pending ? undefined : input;
    const stateOf = (outIno: number): BuildState => ({ code, outIno, manifest, load: loaded.cache, search: search!.recordKeys, parts: diff.groups?.set(SEARCH_PART, { files: searchFiles }) });
    /** Where the caller saves the state later (BuildMemory.saveLater), if it does. */
    const deferredStateDir = options.memory?.saveLater ? stateDir : undefined;
    /** Keeps the state for a caller that builds again, once the output it describes is in place; writes the no-op record unless the caller saves later. */
    const remember = async () => {
      const outIno = statSync(out).ino;
      if (options.memory) {
        options.memory.state = stateOf(outIno);
        options.memory.written = { manifest, parts: memoParts!, assets: assetKeys, search: searchFiles };
        memo!.keep();
      }
      if (deferredStateDir) {
        // Nothing to save when the build read its state from the disk and found nothing changed (a server's first build).
        const onDisk = previous !== inMemory && loaded.read === 0 && settled !== undefined && readUnchanged(deferredStateDir, settled, out) !== undefined;
        if (!onDisk) options.memory!.unsaved = { stateDir: deferredStateDir, out, input: settled, totals: summary };
      } else if (stateDir) await writeUnchanged(stateDir, settled, outIno, summary);
    };

    if (previous && !indexing && allPlanned && ahead.length === 0 && recordLists.length === 0 && assets.length === 0 && removable().length === 0) {
      // Nothing to write; remember new file stats so the next build need not read them again.
      if (loaded.read > 0 && stateDir && !deferredStateDir) {
        await rename(...(await writeStateNext(stateDir, stateOf(previous.outIno))));
      }
      summary.outputs = summary.unchanged = manifest.size;
      await remember();
      summary.ms = performance.now() - started;
      return { ok: true, summary, catalogue };
    }

    // With only the search index to write (the dev server's build that follows its pages), the output is opened
    // once Pagefind is done: a newer change that stops it meanwhile has no patch to put back, which looks through
    // every file of the output for its temporary files (2 s on the pyvideo import, before the change's own build).
    if (indexing && allPlanned && ahead.length === 0 && recordLists.length === 0 && assets.length === 0) await indexing;
    options.signal?.throwIfAborted();
    const output = patching ? await Patch.open(out, stateDir) : await Staging.open(out);
    /** Stops the rendering, and with it the planning, when the build fails or is stopped (see renderJobs). */
    const halt = new AbortController();
    const stop = () => halt.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    const writer = new FileWriter(output.target);
    const staged: string[] = [];
    /** The assets, then the search index's files once Pagefind has written them. */
    const writeRest = async () => {
      for (const asset of assets) writer.write(asset.path, asset.bytes, asset.compress);
      const names = (await indexing) ?? [];
      // A thread of the build's own is done: its heap goes now, not with the build.
      await ownThread?.close();
      // A build that failed meanwhile puts the output back as it was: nothing more goes into it.
      if (halt.signal.aborted) return;
      for (const file of names) {
        writer.move(file, path.join(searchDir!, file));
        enter(file, searchKeys.get(shardOf(file))!);
      }
      searchFiles.push(...names);
    };
    const rendering = renderJobs(w, chain(ahead, tasks), allPlanned, live >= RENDER_IN_THREAD_FROM, theme, renderer, output.target, contentDir, workers, indexing, halt.signal, options.progress);
    const rest = writeRest();
    try {
      const [results] = await Promise.all([rendering, rest]);
      // After the talks: made from the record files they write.
      results.push(w.writeRecordLists(output.target, site.baseUrl, recordLists));
      const removes = removable();
      summary.removed = removes.length;
      summary.outputs = manifest.size;
      mark('render and write');
      for (const r of [...results, writer]) {
        summary.written += r.files;
        summary.bytes += r.bytes;
        summary.unchanged += r.unchanged;
        staged.push(...r.staged);
      }
      summary.unchanged += manifest.size - summary.written - summary.unchanged;
      options.signal?.throwIfAborted();
      // The state on disk describes the output as it is: gone before the output changes, it is saved again later.
      if (deferredStateDir) {
        options.memory!.unsaved = undefined;
        await forgetState(deferredStateDir);
        await markUnsaved(deferredStateDir);
      }
      const writeState = stateDir && !deferredStateDir;
      if (output instanceof Patch) {
        output.checkOutput();
        const move = writeState ? [await writeStateNext(stateDir, stateOf(statSync(out).ino))] : [];
        await output.commit(staged, removes, move);
      } else {
        const move = writeState ? await writeStateNext(stateDir, stateOf(statSync(output.target.root).ino)) : undefined;
        await output.commit();
        if (move) await rename(...move);
      }
    } catch (err) {
      halt.abort();
      // Whichever failed, the other stops at its next step and is waited for: nothing is written once the output is put back.
      await Promise.allSettled([rendering, rest]);
      await output.discard();
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
    await remember();
    mark('commit');
    summary.ms = performance.now() - started;
    return { ok: true, summary, catalogue };
  } catch (err) {
    patch?.undo();
    options.memory?.plan?.undo();
    throw err;
  } finally {
    await workers.close();
    if (search?.dir) {
      // A failed build may stop while Pagefind still writes there.
      await search.indexing?.catch(() => undefined);
      await fse.remove(search.dir);
    }
    await ownThread?.close();
    // Whatever this build left there, its memory describes: another process's build would come after.
    if (options.memory && stateDir) options.memory.stamp = stateStamp(stateDir);
    await unlock?.();
  }
}
