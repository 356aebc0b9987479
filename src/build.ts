// The build: content folder → validated catalogue → output folder (API
// records, pages, assets). A build into a folder not there yet, without a
// cache, or with --clean writes a staging folder and swaps it in; any other
// (and a --clean one into a mount point, which cannot be swapped: see
// BuildRun.plan) patches the output in place, writing only the files whose key
// moved since the last build (without its state, those whose bytes differ) and
// removing those it no longer makes.
import { createHash, hash as digest } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import fg from 'fast-glob';
import fse from 'fs-extra';
import { basePathOf } from './base-path.ts';
import type { ContentError } from './errors.ts';
import { checkContent } from './locks.ts';
import { contentSignature, countStale, listContent, type ContentEntry, type WatchedListing } from './listing.ts';
import type { Catalogue, LoadBasis, ReadTalks } from './load.ts';
import { FileWriter, finishPatch, folderId, notTheBuildsGlobs, outputId, outputReplaced, Patch, scratchFolder, Staging, swappable, type WriteTarget } from './output.ts';
import { contains, realPath } from './paths.ts';
import { PROJECT_ROOT } from './program.ts';
import { COMPRESSED_KINDS, filesOf, kindOf } from './headers.ts';
import type { Fingerprints, OutputSpec, PageJob, Part, PlanMemo, TalkJob } from './plan.ts';
import type { Progress } from './progress.ts';
import type { BatchResult } from './render-talks.ts';
import { PAGES_INDEX, SEARCH_DIR, SEARCH_SHARD_SIZE, shardOf } from './search-shards.ts';
import type { SearchThread } from './search.ts';
import type { WorkerTask } from './render-worker.ts';
import type { SiteInfo, SiteRenderer } from './render.ts';
import { forgetState, forgetUnchanged, hasState, lockState, ManifestPatch, markUnsaved, readState, readUnchanged, stateDirFor, stateStamp, writeStateNext, writeUnchanged, type BuildState, type PartFiles, type Totals } from './state.ts';
import { RenderFailures, TemplateError } from './template-errors.ts';
import { loadTheme, TEMPLATE_NAMES, templatesUsed, ThemeError, type Theme } from './theme.ts';
import { Workers } from './workers.ts';

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
  /** Also write .br and .gz copies of pages, sitemaps and assets (not feeds: see Planner.feeds in plan.ts), for servers that send files as they are (nginx's gzip_static, Caddy's precompressed); servers that compress as they send (ours, most hosts) need none. */
  compress?: boolean;
  /** Talks per shard of the search index (see SEARCH_SHARD_SIZE): fewer hold Pagefind's memory down, more save the browser requests. */
  searchShardSize?: number;
  /** Worker threads, for rendering (talks' files and other pages) and for reading very many talk files (LOAD_PARALLEL_FROM); default: one per core. */
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

/** What a build did, beside the counts a no-op build reports (Totals). */
export interface BuildSummary extends Totals {
  written: number;
  unchanged: number;
  removed: number;
  bytes: number;
  incremental: boolean;
  /** The search index still holds the previous build's records (see BuildOptions.deferSearch). */
  searchPending?: boolean;
  /** A file the last build wrote that was gone from the output (see build): the build wrote the output whole. */
  missing?: string;
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

/**
 * One build's rendering (see renderJobs): the tasks it takes, a batch at a time for each of its
 * feeders, what the batches gave, and whether it stops.
 */
class Rendering {
  private readonly results: BatchResult[] = [];
  /** Every task is taken. */
  private ended = false;
  /** A batch failed otherwise than on the templates: the other feeders take no more, and the build fails once theirs are written. */
  private failed = false;
  /** The templates' failures on pages, wherever they were rendered: the build fails with all of them once every batch taken is done. */
  private readonly failures = new RenderFailures();
  private taken = 0;
  /** Whether pages were left unrendered once enough had failed: one more part is planned to know. */
  private unrendered: boolean | undefined;
  private readonly templatesKey: string;

  constructor(
    private readonly w: Work,
    private readonly tasks: Iterator<Task>,
    private readonly theme: Theme,
    private readonly renderer: SiteRenderer,
    private readonly target: WriteTarget,
    private readonly contentDir: string,
    private readonly workers: Workers,
    private readonly halt: AbortSignal,
    private readonly progress: Progress | undefined,
  ) {
    this.templatesKey = hash(JSON.stringify(theme.templates));
  }

  /** Renders a batch on this thread, once its event loop has had a turn. */
  readonly here = async (slice: Task): Promise<BatchResult> => {
    await new Promise((resolve) => setImmediate(resolve));
    return this.w.renderBatch(this.renderer, this.target, this.contentDir, slice.jobs, slice.pages);
  };

  /** Renders a batch in a worker thread. */
  readonly inThread = (slice: Task): Promise<BatchResult> => {
    const { theme, renderer, target, contentDir } = this;
    return this.workers.run<BatchResult>({ templatesKey: this.templatesKey, templates: theme.templates, templatesFolder: theme.folder, writtenTemplates: theme.written, site: renderer.site, target, contentDir, ...slice } satisfies WorkerTask);
  };

  private stopped(): boolean {
    return this.failed || this.halt.aborted || this.failures.pages >= FAILED_PAGES_ENOUGH;
  }

  /** The next task, unless the rendering stopped or every task is taken. */
  private take(): Task | undefined {
    if (this.ended) return undefined;
    if (this.stopped()) {
      if (!this.failed && !this.halt.aborted) this.unrendered ??= !this.tasks.next().done;
      return undefined;
    }
    const next = this.tasks.next();
    if (next.done) this.ended = true;
    return next.done ? undefined : next.value;
  }

  /** Renders with `run` the tasks it takes, one at a time, until there are none or the rendering stops. */
  async feed(run: (slice: Task) => Promise<BatchResult>): Promise<void> {
    const { progress } = this;
    // A few batches in flight at a time, each planned when a thread is ready for it: queueing them all would hold every job in memory at once.
    try {
      for (let slice = this.take(); slice; slice = this.take()) {
        const batch = this.taken++;
        const result = await run(slice);
        this.failures.add(batch, result.failures);
        this.results.push(result);
        for (const job of slice.jobs) for (let n = 0; n < job.outputs.length; n++) progress?.tick();
        for (let n = 0; n < slice.pages.length; n++) progress?.tick();
      }
    } catch (err) {
      this.failed = true;
      throw err;
    }
  }

  /** Renders in `count` worker threads, two feeders for each. */
  threads(count: number): Promise<void> {
    return allDone(Array.from({ length: count * 2 }, () => this.feed(this.inThread)));
  }

  /** On one thread while Pagefind has a core of its own, joined by the others once the index is written. */
  async besidePagefind(indexing: Promise<unknown>, threadBeside: boolean): Promise<void> {
    const { workers } = this;
    // Threads that loaded the content would hold their heaps while Pagefind has their core.
    await workers.close();
    // Fed a batch at a time, one thread renders beside Pagefind; the others start when more batches are in flight, once the index is written.
    if (threadBeside) workers.start(workers.threads, 1);
    await allDone([this.feed(threadBeside ? this.inThread : this.here), this.joinOnceIndexed(indexing)]);
  }

  /** The threads but the one beside Pagefind join the rendering once the index is written, if it is still going on. */
  private async joinOnceIndexed(indexing: Promise<unknown>): Promise<void> {
    const indexed = await indexing.then(
      () => true,
      () => false,
    );
    if (!indexed || this.ended || this.stopped()) return;
    this.workers.start(this.workers.threads - 1);
    await this.threads(this.workers.threads - 1);
  }

  /** What the batches gave, once every one taken is done; the templates' failures, if any page failed. */
  outcome(): BatchResult[] {
    const failure = this.failures.error(this.unrendered ?? !this.ended);
    if (failure) throw failure;
    return this.results;
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
 * slower, 24.6 s against 20.5 s on this thread alone (see docs/performance.md).
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
    const rendering = new Rendering(w, tasks, theme, renderer, target, contentDir, workers, halt, progress);
    if (few || workers.threads < 2) await rendering.feed(rendering.here);
    else if (!indexing) await rendering.threads(workers.threads);
    else await rendering.besidePagefind(indexing, threadBeside);
    return rendering.outcome();
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
  // a shard that is new is built now, as the search page published at once lists it. A talks' shard new or gone
  // moves talks from shard to shard: the shards left as they were would then list some twice, and lose others,
  // until the next build, so the index is built now, as a build that does not defer builds it.
  const reshaped = [...shards.map((shard) => shard.dir).filter((dir) => !before.has(dir)), ...[...before.keys()].filter((dir) => !keys.has(dir))].some((dir) => dir !== PAGES_INDEX);
  const deferred = defer && before.size > 0 && !reshaped;
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

/** What the memory keeps of the last build's output (see BuildMemory.written). */
type Written = NonNullable<BuildMemory['written']>;

/**
 * The plan compared with the last build's manifest (see diffPlan): this build's manifest as its outputs'
 * files are entered, the outputs not in place with their keys, and what the last build made that this
 * one does not.
 */
class PlanDiff<A extends OutputSpec> {
  readonly manifest: Map<string, string>;
  /** This plan's files by part, when gathered. */
  readonly groups: Map<string, PartFiles> | undefined;
  /** Pages of the record list, set aside to be written after every record. */
  readonly recordLists: Extract<PageJob, { kind: 'video-list' }>[] = [];
  /** The assets not in place with their keys. */
  readonly assets: A[];
  /** The parts' outputs not in place with their keys, in batches to render: the manifest is whole once they are all taken. */
  readonly tasks: Generator<Task>;
  /** With `last`: the files this build entered, and the parts it kept. */
  private readonly entered = new Set<string>();
  private readonly keptParts = new Set<string>();
  /**
   * Files of the last build's manifest entered in a manifest made whole: when that is all of them, no
   * file is to be removed, and none need be looked for (156,000 look-ups on the pyvideo import).
   */
  private again = 0;
  /** The files removable() found: a build with nothing to write asks before it finishes its writes. */
  private gone: string[] | undefined;

  constructor(
    parts: Iterable<Part>,
    assets: A[],
    private readonly previous: BuildState | undefined,
    private readonly kept: [string, string][],
    byPart: boolean,
    /** The last build's manifest as this build changes it, unless the manifest is made whole. */
    readonly patch?: ManifestPatch,
    /** The last build's files by part, when this build patches their manifest (see diffPlan). */
    private readonly last?: Map<string, PartFiles>,
  ) {
    this.manifest = patch?.manifest ?? new Map<string, string>();
    this.groups = byPart ? new Map<string, PartFiles>() : undefined;
    if (!patch) {
      for (const [file, key] of kept) this.manifest.set(file, key);
      this.again += kept.length;
    }
    this.assets = this.changedAssets(assets);
    this.tasks = this.batches(parts);
  }

  /** Enters a file in the manifest: an output's as it is compared, a search index file's once Pagefind has named it. */
  enter(file: string, key: string): void {
    if (!this.patch) this.manifest.set(file, key);
    else {
      this.patch.set(file, key);
      if (this.last) this.entered.add(file);
    }
  }

  /**
   * Enters an output's files in the manifest (and in `into`); true when one of them is not in place with its key
   * (an output whose compressed copies the last build did not write, as it ran without them, is written again).
   */
  private enterChanged(o: OutputSpec, into?: string[]): boolean {
    const { manifest, patch, previous } = this;
    let moved = false;
    for (const file of filesOf(o)) {
      const before = patch ? patch.before(file) : previous?.manifest.get(file);
      if (before !== o.key) moved = true;
      const size = manifest.size;
      this.enter(file, o.key);
      into?.push(file);
      if (before !== undefined && manifest.size > size) this.again++;
    }
    return moved;
  }

  private changedAssets(assets: A[]): A[] {
    const files: string[] = [];
    const changed = assets.filter((asset) => this.enterChanged(asset, files));
    this.groups?.set(ASSETS_PART, { files });
    return changed;
  }

  /** Compares each part as the batches reach it. */
  private *batches(parts: Iterable<Part>): Generator<Task> {
    let jobs: TalkJob[] = [];
    let pages: PageJob[] = [];
    for (const p of parts) {
      if (p.kept) {
        this.keptParts.add(p.name);
        this.groups!.set(p.name, this.last!.get(p.name)!);
        continue;
      }
      const files = this.groups && [];
      this.groups?.set(p.name, { signature: p.signature, files: files! });
      for (const job of p.talks) {
        // The jobs themselves stay as planned: a memo of the plan shares them with the next build.
        const outputs = job.outputs.filter((o) => this.enterChanged(o, files));
        if (outputs.length > 0) jobs.push({ ...job, outputs });
        if (jobs.length === BATCH) {
          yield { jobs, pages: [] };
          jobs = [];
        }
      }
      for (const page of p.pages) {
        if (!this.enterChanged(page, files)) continue;
        if (page.kind === 'video-list') this.recordLists.push(page);
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

  /** The last build's files (`listed` in the output, without a state) that this one does not make, once every file is entered. */
  removable(listed: string[] | undefined): string[] {
    return (this.gone ??= this.notMadeAgain(listed));
  }

  private notMadeAgain(listed: string[] | undefined): string[] {
    const { patch, previous, manifest } = this;
    if (this.last) this.takeOut(this.last);
    if (patch) return patch.removed();
    if (previous && this.again === previous.manifest.size) return [];
    const gone: string[] = [];
    for (const p of listed ?? previous!.manifest.keys()) if (!manifest.has(p)) gone.push(p);
    return gone.sort();
  }

  /**
   * Once every file is entered: takes out the last build's files of the parts this plan did not keep (planned
   * anew, or no longer there) that it did not make again.
   */
  private takeOut(last: Map<string, PartFiles>): void {
    const keeps = new Set(this.kept.map(([file]) => file));
    for (const [name, { files }] of last) {
      if (this.keptParts.has(name)) continue;
      for (const file of files) if (!this.entered.has(file) && !(name === SEARCH_PART && keeps.has(file))) this.patch!.delete(file);
    }
  }
}

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
): PlanDiff<A> {
  if (written) {
    const all = [...parts];
    const since = changedSince(written, all);
    if (since) {
      const patch = new ManifestPatch(written.manifest);
      takeOutDropped(patch, since.dropped, written, kept);
      return new PlanDiff(since.fresh, assets, previous, kept, byPart, patch);
    }
    parts = all;
  }
  const last = byPart ? previous?.parts : undefined;
  return new PlanDiff(parts, assets, previous, kept, byPart, last && new ManifestPatch(previous!.manifest), last);
}

/**
 * The parts of `all` planned anew since the build `written` describes, and those it had that `all` has not;
 * none when half of `all` or more is new, which is then compared whole.
 */
function changedSince(written: Written, all: Part[]): { fresh: Part[]; dropped: Part[] } | undefined {
  // A memo gives a part the plan did not change again, the same object.
  const before = new Set(written.parts);
  const fresh = all.filter((p) => !before.has(p));
  if (fresh.length >= all.length / 2) return undefined;
  const now = new Set(all);
  return { fresh, dropped: written.parts.filter((p) => !now.has(p)) };
}

/** A part's outputs: its talks' and its pages. */
const outputsOf = (p: Part): OutputSpec[] => [...p.talks.flatMap((job) => job.outputs), ...p.pages];

/**
 * Takes out of the manifest `written` describes the files of the `dropped` parts, and of the assets and the search
 * index but those `kept`: what this build enters again is compared with the key the patch kept (ManifestPatch.before),
 * and what it does not is removed.
 */
function takeOutDropped(patch: ManifestPatch, dropped: Part[], written: Written, kept: [string, string][]): void {
  for (const o of [...dropped.flatMap(outputsOf), ...written.assets]) for (const file of filesOf(o)) patch.delete(file);
  const keeps = new Set(kept.map(([file]) => file));
  for (const file of written.search) if (!keeps.has(file)) patch.delete(file);
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
    if (!stillOwn(memory, unsaved.stateDir) || folderId(unsaved.out) !== state.outId) return;
    const parts = memory.written?.manifest === state.manifest ? partsOf(memory.written) : undefined;
    await rename(...(await writeStateNext(unsaved.stateDir, { ...state, parts })));
    await writeUnchanged(unsaved.stateDir, unsaved.input, state.outId, unsaved.totals, state.manifest.keys());
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
function partsOf(written: Written): Map<string, PartFiles> {
  const filesOfAll = (outputs: OutputSpec[]) => outputs.flatMap(filesOf);
  const parts = new Map<string, PartFiles>();
  for (const p of written.parts) parts.set(p.name, { signature: p.signature, files: filesOfAll(outputsOf(p)) });
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

/** A build that stops at its content's errors, which are its answer. */
type Failure = Extract<BuildResult, { ok: false }>;

/** A theme's asset with its key, and whether it is written with compressed copies. */
type Asset = Theme['assets'][number] & { key: string; compress: boolean };

/** What a build is made from that is known before any content is read. */
interface Inputs {
  ok: true;
  code: string;
  entries: ContentEntry[];
  theme: Theme;
  compress: boolean;
  /** The theme's assets, each with its key. */
  assetKeys: Asset[];
  baseUrl: string;
  shardSize: number;
  /** All of it in one key (see readUnchanged): when it is the last build's, nothing changed. */
  signature: string;
}

type Loaded = Awaited<ReturnType<Work['loadContent']>>;

/** The site's settings and templates, ready to render the catalogue with. */
interface Site {
  ok: true;
  info: SiteInfo;
  renderer: SiteRenderer;
  prints: Fingerprints;
  memo: PlanMemo | undefined;
}

type SearchIndex = Awaited<ReturnType<typeof startSearchIndex>>;

/** The site planned and compared with the last build's manifest, before the output is opened. */
interface Plan {
  diff: PlanDiff<Asset>;
  /** The plan's parts, when a caller that builds again keeps them (see BuildMemory.written). */
  memoParts: Part[] | undefined;
  /** The first tasks, taken to tell a build with little or nothing to render (see takeAhead). */
  ahead: Task[];
  allPlanned: boolean;
  /** The search index's files in the output: those kept, then those written. */
  searchFiles: string[];
  /** The output is patched in place rather than replaced by a staging folder: only where there is a state folder. */
  patching: boolean;
  /** The output's files, looked for when there is no state to say what they are. */
  listed: string[] | undefined;
}

/** The theme, or the content's errors when the theme cannot be used. */
async function themeFor(options: BuildOptions, entries: ContentEntry[]): Promise<{ ok: true; theme: Theme } | Failure> {
  try {
    return { ok: true, theme: await loadTheme(options.templates, basePathOf(options.baseUrl ?? DEFAULT_BASE_URL)) };
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
}

/** Takes the tasks up to the first WORKER_THRESHOLD outputs to render: fewer are rendered on this thread, and none is a build with nothing to do. */
function takeAhead(tasks: Iterator<Task>): { ahead: Task[]; allPlanned: boolean } {
  const ahead: Task[] = [];
  let outputsAhead = 0;
  while (outputsAhead < WORKER_THRESHOLD) {
    const next = tasks.next();
    if (next.done) return { ahead, allPlanned: true };
    ahead.push(next.value);
    outputsAhead += next.value.jobs.length + next.value.pages.length;
  }
  return { ahead, allPlanned: false };
}

/**
 * One build, from its lock to its commit: what its phases share, and what is removed however it ends
 * (close). buildOnce() runs the phases in order, each returning what the next ones need, up to the plan of
 * the site; the phases that write the output are Writing's.
 */
class BuildRun {
  readonly started = performance.now();
  /** Ends a phase of the timings VC_TIMINGS prints. */
  readonly mark = timer();
  /**
   * The folder a symbolic link leads to: its staging and scratch folders go beside it, on its file system (a
   * rename from beside the link failed across file systems), and a full build swaps it, not the link.
   */
  readonly out: string;
  readonly stateDir: string | undefined;
  readonly workers: Workers;
  /** The search index being built, if any: its folder is removed however the build ends. */
  search: SearchIndex | undefined;
  /** Pagefind's thread, when the build started one and has no memory to keep it in. */
  ownThread: SearchThread | undefined;
  /** The last build's manifest as this one changes it, when it patches it: put back if the build fails. */
  patch: ManifestPatch | undefined;

  /** The output folder as the build found it (folderId), if it was there. */
  private readonly outId: string | undefined;

  constructor(readonly options: BuildOptions) {
    this.out = realPath(options.out);
    this.stateDir = options.cache ? stateDirFor(options.cache, this.out) : undefined;
    this.workers = new Workers(options.workers ?? availableParallelism());
    this.outId = folderId(this.out);
  }

  /**
   * What a build that failed to find a file of its output failed of, when the output folder was removed or replaced
   * under it (`rm -rf dist` while the dev server builds): that, rather than the file it then missed.
   */
  failure(err: unknown): unknown {
    if (this.outId === undefined || missedIn(this.out, err) === undefined) return err;
    return folderId(this.out) === this.outId ? err : outputReplaced(this.out);
  }

  /** Finishes what an interrupted build left, and forgets a memory another process's build made stale (see stillOwn). */
  async takeOver(): Promise<void> {
    const { options, stateDir } = this;
    if (!stateDir) return;
    // A patch an interrupted build left is finished before the state is read: the state on disk may still be the
    // one before it, which would take the patched files for the older ones; so may the no-op record.
    if (await finishPatch(this.out, stateDir)) {
      await forgetUnchanged(stateDir);
      if (options.memory) options.memory.state = options.memory.written = options.memory.loaded = undefined;
    }
    if (options.memory) stillOwn(options.memory, stateDir);
  }

  /** The code's fingerprint, the content's listing, the theme and the options, and their signature. */
  async readInputs(): Promise<Inputs | Failure> {
    const { options, stateDir, workers } = this;
    const unfinished = this.contentFailure();
    if (unfinished) return unfinished;
    const code = await (codeFingerprint ??= fingerprintCode());
    const entries = options.memory?.listing ? await options.memory.listing.current() : await listContent(options.content);
    this.mark(`list content (${entries.length} files)`);
    const themed = await themeFor(options, entries);
    if (!themed.ok) return themed;
    const { theme } = themed;
    // A build with no state to go on reads everything: start the threads now, while the main thread gets ready.
    const cold = !stateDir || options.clean || (!options.memory?.state && !hasState(stateDir));
    if (cold && workers.threads > 1 && entries.length >= LOAD_PARALLEL_FROM) workers.start();
    const compress = options.compress ?? false;
    const assetKeys = theme.assets.map((a) => ({ ...a, key: hash(a.bytes), compress: compress && COMPRESSED_KINDS.has(kindOf(a.path)) && /\.(css|js|svg)$/.test(a.path) }));
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const shardSize = options.searchShardSize ?? SEARCH_SHARD_SIZE;
    const signature = hash(`${code}\n${baseUrl}\n${compress}\n${shardSize}\n${hash(JSON.stringify(theme.templates))}\n${assetKeys.map((a) => `${a.path}:${a.key}`).join('\n')}\n${contentSignature(entries)}`);
    return { ok: true, code, entries, theme, compress, assetKeys, baseUrl, shardSize, signature };
  }

  /**
   * Why the content cannot be built, when an import stopped part way through writing it; throws while one writes it,
   * which would have half a catalogue built (the build waits for it, as for another build).
   */
  contentFailure(): Failure | undefined {
    const unfinished = checkContent(this.options.content);
    return unfinished && { ok: false, errors: [unfinished] };
  }

  /** The answer of a build that has nothing to do, from the last build's no-op record: neither its state nor the content is read. */
  unchanged({ signature }: Inputs): BuildResult | undefined {
    const { options, stateDir } = this;
    // A caller that keeps memory between builds loads and plans once even when nothing changed: its next build starts from them.
    const warm = !options.memory || options.memory.state !== undefined;
    if (!stateDir || options.clean || !warm) return undefined;
    const same = readUnchanged(stateDir, signature, this.out);
    if (!same) return undefined;
    this.mark('nothing changed');
    return { ok: true, summary: { ...same, written: 0, unchanged: same.outputs, removed: 0, bytes: 0, incremental: true, ms: performance.now() - this.started } };
  }

  /**
   * The last build's state (`previous`): the memory's while it describes the output, else the one on disk; none
   * with --clean. When it leaves LOAD_PARALLEL_FROM files or more to read, their threads start now (see holdHeapDown).
   */
  readPrevious({ code, entries }: Inputs): { previous: BuildState | undefined; inMemory: BuildState | undefined } {
    const { options, stateDir, out, workers } = this;
    const remembered = options.memory?.state;
    const inMemory = remembered && remembered.code === code && folderId(out) === remembered.outId ? remembered : undefined;
    const previous = stateDir && !options.clean ? (inMemory ?? readState(stateDir, code, out)) : undefined;
    if (countStale(entries, previous?.load) >= LOAD_PARALLEL_FROM) {
      if (workers.threads > 1) workers.start();
      if (!options.memory) holdHeapDown();
    }
    this.mark('state');
    return { previous, inMemory };
  }

  /** Reads and checks the content files that changed since `previous`; the others come from its cache. */
  async load(w: Work, { entries }: Inputs, previous: BuildState | undefined): Promise<Loaded> {
    const { options, workers } = this;
    const loaded = await w.loadContent(options.content, {
      entries,
      cache: previous?.load,
      parallel: workers.threads > 1 ? (task) => workers.run<ReturnType<ReadTalks>>(task, 'readTalks') : undefined,
      parallelFrom: LOAD_PARALLEL_FROM,
      remember: options.memory !== undefined,
      basis: options.memory?.loaded,
    });
    if (options.memory) options.memory.loaded = loaded.basis;
    this.mark(`load (${loaded.read} files read)`);
    return loaded;
  }

  /** The site's settings and renderer, once every link of the content leads somewhere. */
  prepareSite(w: Work, { code, theme, baseUrl }: Inputs, catalogue: Catalogue): Site | Failure {
    const { options } = this;
    const memo = options.memory ? (options.memory.plan ??= new w.PlanMemo()) : undefined;
    const unreachable = w.targetProblems(catalogue, () => w.indexOf(catalogue, memo), w.locator(options.content));
    if (unreachable.length > 0) return { ok: false, errors: unreachable };
    const info: SiteInfo = { baseUrl, nav: w.navOf(catalogue.pages), name: catalogue.site.name, editUrl: catalogue.site.edit_url };
    // Compiled now, so a template error fails the build before anything is written.
    const renderer = new w.SiteRenderer(theme.templates, info, theme.folder, theme.written);
    // Pages show the site's settings (its name on every one), as feeds do: new settings are a new site.
    const prints = fingerprints(theme, `${code}${hash(`${info.baseUrl}\n${JSON.stringify(catalogue.site)}`)}`, info);
    return { ok: true, info, renderer, prints, memo };
  }

  /** What the last build wrote, as the memory keeps it, while it is what `previous` describes. */
  writtenBefore(previous: BuildState | undefined): BuildMemory['written'] {
    return previous && this.options.memory?.written?.manifest === previous.manifest ? this.options.memory.written : undefined;
  }

  /** Starts Pagefind on the search records that changed (see startSearchIndex): it indexes while the site is planned. */
  async startSearch(w: Work, { code, shardSize }: Inputs, catalogue: Catalogue, previous: BuildState | undefined, written: BuildMemory['written'], { memo }: Site): Promise<SearchIndex> {
    const { options } = this;
    const searchThread = () => (options.memory ? (options.memory.search ??= new w.SearchThread()) : (this.ownThread ??= new w.SearchThread()));
    const known = written?.search ?? previous?.parts?.get(SEARCH_PART)?.files;
    // Not the index: it holds the talks' and pages' own text and paths from the root, none of the site's settings.
    const search = await startSearchIndex(w, catalogue, code, shardSize, previous, this.out, searchThread, options.deferSearch ?? false, memo, known, options.signal);
    this.search = search;
    // Awaited once the output is open; a failure before that is the build's error, not an unhandled rejection.
    search.indexing?.catch(() => undefined);
    this.mark('plan search');
    return search;
  }

  /** Plans the site against the last build's manifest, as far as tells how much there is to render, and finds how to open the output. */
  async plan(w: Work, { compress, shardSize, assetKeys }: Inputs, catalogue: Catalogue, previous: BuildState | undefined, written: BuildMemory['written'], { prints, memo }: Site, search: SearchIndex): Promise<Plan> {
    const { options, stateDir, out } = this;
    // A caller that builds again keeps the plan's parts, to plan only what an edit changed; a build
    // on its own plans each part when it is ready to render it, and lets it go once rendered.
    // A build on its own that keeps a state plans again only the parts whose files changed (see BuildState.parts).
    const byPart = !memo && stateDir !== undefined;
    const memoParts = memo && w.planSite(catalogue, prints, compress, memo, shardSize).parts;
    const parts = memoParts ?? w.planParts(catalogue, prints, compress, undefined, shardSize, byPart ? (previous?.parts ?? new Map()) : undefined);
    const diff = diffPlan(parts, assetKeys, previous, written, search.kept, byPart);
    this.patch = diff.patch;
    const searchFiles = search.kept.map(([file]) => file);
    const { ahead, allPlanned } = takeAhead(diff.tasks);
    this.mark(allPlanned ? 'plan and compare' : 'plan and compare (first parts)');
    // Without a usable state, an existing output is still patched rather than replaced: files
    // whose bytes come out the same are not rewritten, and files no longer made are removed.
    // So is one that cannot be replaced, with --clean too: a mount point of its own.
    const patching = stateDir !== undefined && existsSync(out) && (!options.clean || !swappable(out));
    const listed = previous ? undefined : patching ? await fg('**/*', { cwd: out, onlyFiles: true, dot: false, ignore: notTheBuildsGlobs(out) }) : [];
    this.mark('list output');
    return { diff, memoParts, ahead, allPlanned, searchFiles, patching, listed };
  }

  /** Removes what the build leaves behind, however it ended. */
  async close(): Promise<void> {
    const { options, stateDir, search } = this;
    await this.workers.close();
    if (search?.dir) {
      // A failed build may stop while Pagefind still writes there.
      await search.indexing?.catch(() => undefined);
      await fse.remove(search.dir);
    }
    await this.ownThread?.close();
    // Whatever this build left there, its memory describes: another process's build would come after.
    if (options.memory && stateDir) options.memory.stamp = stateStamp(stateDir);
  }
}

/**
 * The end of a build with work to do, once its site is planned: it writes into the output what
 * changed (or, when nothing did, only the state), commits it, and leaves its state for the next.
 */
class Writing {
  private readonly summary: BuildSummary;
  private readonly live: number;
  /** The input signature its no-op record is given (see readUnchanged), if any. */
  private readonly settled: string | undefined;
  /** Where the caller saves the state later (BuildMemory.saveLater), if it does. */
  private readonly deferredStateDir: string | undefined;
  /** No page, record list or asset to write: at most the search index and removals. */
  private readonly noPages: boolean;

  constructor(
    private readonly run: BuildRun,
    private readonly w: Work,
    private readonly inputs: Inputs,
    private readonly previous: BuildState | undefined,
    private readonly inMemory: BuildState | undefined,
    private readonly loaded: Loaded,
    private readonly site: Site,
    private readonly search: SearchIndex,
    private readonly plan: Plan,
  ) {
    const { catalogue } = loaded;
    this.live = catalogue.talks.filter(w.isLive).length;
    this.summary = {
      events: catalogue.events.length,
      talks: this.live,
      drafts: catalogue.talks.length - this.live,
      outputs: 0,
      written: 0,
      unchanged: 0,
      removed: 0,
      bytes: 0,
      incremental: plan.patching,
      searchPending: search.pending,
      ms: 0,
    };
    // A build that left the search index behind is not the last word on this content.
    this.settled = search.pending ? undefined : inputs.signature;
    this.deferredStateDir = run.options.memory?.saveLater ? run.stateDir : undefined;
    const { allPlanned, ahead, diff } = plan;
    this.noPages = allPlanned && ahead.length === 0 && diff.recordLists.length === 0 && diff.assets.length === 0;
  }

  /** The last build's files that this one does not make: known once the search index has been built (if it needs to be). */
  private removable(): string[] {
    return this.plan.diff.removable(this.plan.listed);
  }

  /** Whether there is nothing to render, write or remove: the build saves at most its state. */
  nothingToWrite(): boolean {
    return this.previous !== undefined && !this.search.indexing && this.noPages && this.removable().length === 0;
  }

  /** The build's answer. */
  private done(): BuildResult {
    this.summary.ms = performance.now() - this.run.started;
    return { ok: true, summary: this.summary, catalogue: this.loaded.catalogue };
  }

  private stateOf(outId: string): BuildState {
    const { diff, searchFiles } = this.plan;
    return { code: this.inputs.code, outId, manifest: diff.manifest, load: this.loaded.cache, search: this.search.recordKeys, parts: diff.groups?.set(SEARCH_PART, { files: searchFiles }) };
  }

  /** Keeps the state for a caller that builds again, once the output it describes is in place; writes the no-op record unless the caller saves later. */
  private async remember(): Promise<void> {
    const { run, summary, settled, deferredStateDir } = this;
    const { options, stateDir, out } = run;
    const outId = outputId(out);
    if (options.memory) {
      options.memory.state = this.stateOf(outId);
      options.memory.written = { manifest: this.plan.diff.manifest, parts: this.plan.memoParts!, assets: this.inputs.assetKeys, search: this.plan.searchFiles };
      this.site.memo!.keep();
    }
    if (deferredStateDir) {
      // Nothing to save when the build read its state from the disk and found nothing changed (a server's first build).
      const onDisk = this.previous !== this.inMemory && this.loaded.read === 0 && settled !== undefined && readUnchanged(deferredStateDir, settled, out) !== undefined;
      if (!onDisk) options.memory!.unsaved = { stateDir: deferredStateDir, out, input: settled, totals: summary };
    } else if (stateDir) await writeUnchanged(stateDir, settled, outId, summary, this.plan.diff.manifest.keys());
  }

  /** Leaves the output as it is; saves new file stats, so the next build need not read them again. */
  async keep(): Promise<BuildResult> {
    const { stateDir } = this.run;
    if (this.loaded.read > 0 && stateDir && !this.deferredStateDir) {
      await rename(...(await writeStateNext(stateDir, this.stateOf(this.previous!.outId))));
    }
    this.summary.outputs = this.summary.unchanged = this.plan.diff.manifest.size;
    await this.remember();
    return this.done();
  }

  /** Renders and writes what changed into the output, opened as a Patch or a Staging folder, and commits it; or puts it back as it was. */
  async write(): Promise<BuildResult> {
    const { options } = this.run;
    const output = await this.open();
    /** Stops the rendering, and with it the planning, when the build fails or is stopped (see renderJobs). */
    const halt = new AbortController();
    const stop = () => halt.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    const writer = new FileWriter(output.target);
    const rendering = this.render(output.target, halt.signal);
    const rest = this.writeRest(writer, halt.signal);
    try {
      const [results] = await Promise.all([rendering, rest]);
      const { staged, removes } = this.finishWrites(output.target, results, writer);
      options.signal?.throwIfAborted();
      await this.commit(output, staged, removes);
    } catch (err) {
      halt.abort();
      // Whichever failed, the other stops at its next step and is waited for: nothing is written once the output is put back.
      await Promise.allSettled([rendering, rest]);
      await output.discard();
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
    await this.remember();
    this.run.mark('commit');
    return this.done();
  }

  private async open(): Promise<Patch | Staging> {
    const { options, out, stateDir } = this.run;
    // With only the search index to write (the dev server's build that follows its pages), the output is opened
    // once Pagefind is done: a newer change that stops it meanwhile has no patch to put back, which looks through
    // every file of the output for its temporary files (2 s on the pyvideo import, before the change's own build).
    if (this.search.indexing && this.noPages) await this.search.indexing;
    options.signal?.throwIfAborted();
    return this.plan.patching ? await Patch.open(out, stateDir!) : await Staging.open(out);
  }

  /** The talks' and pages' files, planned as they are rendered. */
  private render(target: WriteTarget, halt: AbortSignal): Promise<BatchResult[]> {
    const { run, plan, inputs } = this;
    const tasks = chain(plan.ahead, plan.diff.tasks);
    const contentDir = path.resolve(run.options.content);
    return renderJobs(this.w, tasks, plan.allPlanned, this.live >= RENDER_IN_THREAD_FROM, inputs.theme, this.site.renderer, target, contentDir, run.workers, this.search.indexing, halt, run.options.progress);
  }

  /** The assets, then the search index's files once Pagefind has written them. */
  private async writeRest(writer: FileWriter, halt: AbortSignal): Promise<void> {
    const { indexing, dir, keys } = this.search;
    for (const asset of this.plan.diff.assets) writer.write(asset.path, asset.bytes, asset.compress);
    const names = (await indexing) ?? [];
    // A thread of the build's own is done: its heap goes now, not with the build.
    await this.run.ownThread?.close();
    // A build that failed meanwhile puts the output back as it was: nothing more goes into it.
    if (halt.aborted) return;
    for (const file of names) {
      writer.move(file, path.join(dir!, file));
      this.plan.diff.enter(file, keys.get(shardOf(file))!);
    }
    this.plan.searchFiles.push(...names);
  }

  /** Writes the record lists and counts what was written: gives the files staged and those to remove. */
  private finishWrites(target: WriteTarget, results: BatchResult[], writer: FileWriter): { staged: string[]; removes: string[] } {
    const { summary } = this;
    const { manifest, recordLists } = this.plan.diff;
    // After the talks: made from the record files they write.
    results.push(this.w.writeRecordLists(target, this.site.info.baseUrl, recordLists));
    const removes = this.removable();
    summary.removed = removes.length;
    summary.outputs = manifest.size;
    this.run.mark('render and write');
    const staged: string[] = [];
    for (const r of [...results, writer]) {
      summary.written += r.files;
      summary.bytes += r.bytes;
      summary.unchanged += r.unchanged;
      staged.push(...r.staged);
    }
    summary.unchanged += manifest.size - summary.written - summary.unchanged;
    return { staged, removes };
  }

  /** Puts the output in place with the state that describes it. */
  private async commit(output: Patch | Staging, staged: string[], removes: string[]): Promise<void> {
    const { options, stateDir, out } = this.run;
    const { deferredStateDir } = this;
    // The state on disk describes the output as it is: gone before the output changes, it is saved again later.
    if (deferredStateDir) {
      options.memory!.unsaved = undefined;
      await forgetState(deferredStateDir);
      await markUnsaved(deferredStateDir);
    }
    const writeState = stateDir && !deferredStateDir;
    // So is the no-op record: one a build killed after its commit left would answer for the output it replaced, to a
    // build whose input is that one's again (an option or a template put back), which would then write nothing.
    if (writeState) await forgetUnchanged(stateDir);
    if (output instanceof Patch) {
      output.checkOutput();
      const move = writeState ? [await writeStateNext(stateDir, this.stateOf(outputId(out)))] : [];
      await output.commit(staged, removes, move);
    } else {
      const move = writeState ? await writeStateNext(stateDir, this.stateOf(outputId(output.target.root))) : undefined;
      await output.commit();
      if (move) await rename(...move);
    }
  }
}

/**
 * Builds the content into the output, holding the state folder's lock throughout. When nothing changed it answers
 * from the last build's no-op record, before the modules that do the work are loaded (see work()); otherwise it
 * loads, plans against the last build's state and writes what changed. A build that fails (or is stopped) leaves the
 * caller's memory as the last build that succeeded left it, and the output too when it fails before its commit.
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  try {
    return await buildOnce(options);
  } catch (err) {
    // A file of the last build's removed from the output by hand, deeper in than a state is checked (see readState),
    // which a build that patches the output reads (a record, for the lists): the output is written whole.
    const missing = options.clean ? undefined : missedIn(realPath(options.out), err);
    if (missing === undefined) throw err;
    const result = await buildOnce({ ...options, clean: true });
    if (result.ok) result.summary.missing = missing;
    return result;
  }
}

/** The path in the output folder `out` of the file whose absence `err` is, if it is one of the output's. */
function missedIn(out: string, err: unknown): string | undefined {
  const { code, path: missed } = (err ?? {}) as NodeJS.ErrnoException;
  return code === 'ENOENT' && missed !== undefined && contains(out, path.resolve(missed)) ? path.relative(out, path.resolve(missed)) : undefined;
}

/** One build, as build() describes it. */
async function buildOnce(options: BuildOptions): Promise<BuildResult> {
  const run = new BuildRun(options);
  const unlock = run.stateDir && !options.locked ? await lockState(run.stateDir) : undefined;
  try {
    await run.takeOver();
    const inputs = await run.readInputs();
    if (!inputs.ok) return inputs;
    const unchanged = run.unchanged(inputs);
    if (unchanged) return unchanged;
    const w = await work();
    run.mark('theme and modules');
    const { previous, inMemory } = run.readPrevious(inputs);
    const loaded = await run.load(w, inputs, previous);
    // An import that began writing while the content was read: what was read may be half of it.
    const unfinished = run.contentFailure();
    if (unfinished) return unfinished;
    if (loaded.errors.length > 0) return { ok: false, errors: loaded.errors };
    const site = run.prepareSite(w, inputs, loaded.catalogue);
    if (!site.ok) return site;
    const written = run.writtenBefore(previous);
    const search = await run.startSearch(w, inputs, loaded.catalogue, previous, written, site);
    const plan = await run.plan(w, inputs, loaded.catalogue, previous, written, site, search);
    const writing = new Writing(run, w, inputs, previous, inMemory, loaded, site, search, plan);
    return writing.nothingToWrite() ? await writing.keep() : await writing.write();
  } catch (err) {
    // A failed build leaves the memory of the last one that succeeded: the manifest it patched and the plans it made go back.
    run.patch?.undo();
    options.memory?.plan?.undo();
    throw run.failure(err);
  } finally {
    await run.close();
    await unlock?.();
  }
}
