// The edit loop: build, serve, watch content and templates, rebuild
// incrementally, and tell open pages to reload (server-sent events). A failed
// build keeps the last good output served and shows its errors on the page.
// Pages come first: a changed shard of the search index (Pagefind indexes it
// again whole, which takes seconds on a large catalogue) follows in a build of
// its own, which a newer change stops.
import { existsSync, lstatSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { basePathOf } from './base-path.ts';
import { build, DEFAULT_BASE_URL, SAVE_AFTER, saveState, type BuildMemory, type BuildOptions, type BuildResult } from './build.ts';
import { isHidden, isListed, WatchedListing } from './listing.ts';
import { folderId } from './output.ts';
import { startServer, type RunningServer } from './server.ts';
import { Locked } from './locks.ts';
import { TemplateError } from './template-errors.ts';
import { isThemeFile } from './theme.ts';

export const DEV_EVENTS = '/__dev/events';
export const DEV_CLIENT = '/__dev/client.js';
/** How soon a build refused because another process was writing the output is tried again. */
const LOCKED_RETRY = 500;
/** How often the content and templates folders are checked for being another folder than the one watched, and the output for being there. */
const FOLLOW_EVERY = 500;
/** The watcher's events for a file, rather than a folder. */
const FILE_EVENTS = new Set(['add', 'change', 'unlink']);

// Loaded from our own origin, so the pages' Content-Security-Policy allows it; its events are under the site's base path, as it is.
const clientScript = (basePath: string) => `(() => {
  const source = new EventSource(${JSON.stringify(`${basePath}${DEV_EVENTS}`)});
  let box;
  source.addEventListener('reload', () => location.reload());
  // The page the search index serves, at whichever of its addresses (/search/index.html): its script holds the old index.
  source.addEventListener('search', () => document.querySelector('[data-indexes]') && location.reload());
  source.addEventListener('problems', (event) => {
    const { errors, built } = JSON.parse(event.data);
    if (!box) {
      box = document.createElement('div');
      box.setAttribute('role', 'alert');
      box.style.cssText = 'position:fixed;inset:auto 0 0 0;max-height:50vh;overflow:auto;margin:0;padding:1rem;background:#3b0d0c;color:#fff;font:14px/1.4 monospace;white-space:pre-wrap;z-index:2147483647';
      document.body.append(box);
    }
    box.textContent = (built ? 'Build failed; the last good build is shown.' : 'Build failed; nothing is built yet: fix these and save.') + '\\n\\n' + errors.join('\\n');
  });
})();
`;

/**
 * A build's result as the dev server reports it: the build's own, or the lines of what it threw,
 * each an error; with `templates` when they are the templates' problems (TemplateError), how many
 * errors they are.
 */
export type DevResult = BuildResult | { ok: false; errors: string[] } | { ok: false; errors: string[]; templates: number };

export interface DevOptions extends Omit<BuildOptions, 'progress'> {
  host: string;
  port: number;
  /** Where build results are reported (the terminal). */
  log: (result: DevResult) => void;
  /** Stops the builds, the first one too (Ctrl+C): startDev then returns without waiting for the watcher, for close() to end the rest. */
  signal?: AbortSignal;
}

export interface DevServer extends RunningServer {
  /** Resolves when no build is running or waiting. */
  idle(): Promise<void>;
  /** The signal (options.signal) stopped the first build: it wrote nothing, and the output is as it was before. */
  firstStopped: boolean;
}

/** Listens, builds, then watches the content and the templates to build again; close() stops the build that runs and saves the build state. */
export async function startDev(options: DevOptions): Promise<DevServer> {
  const basePath = basePathOf(options.baseUrl ?? DEFAULT_BASE_URL);
  const pages = new OpenPages(options.out, clientScript(basePath));
  const builds = new Builds(options, pages);
  // Listening first: a port in use fails it before it builds into an output another server may be serving.
  const server = await startServer({ dir: options.out, basePath, host: options.host, port: options.port, html: (page) => withClient(page, basePath), routes: (req, res, pathname) => pages.route(req, res, pathname), revalidate: true, quiet: true });
  builds.schedule();
  await builds.running;
  const watch = new FolderWatch(options, builds);
  if (!options.signal?.aborted) await watch.ready();
  watch.follow(pages.built);
  return {
    ...server,
    idle: () => builds.idle(),
    firstStopped: builds.firstStopped,
    async close() {
      builds.stop();
      await watch.close();
      pages.end();
      await builds.close();
      await server.close();
    },
  };
}

/** Whether the output holds a build: known by its API's folder, as a build may make the output's folder for the files it writes. */
function hasOutput(out: string): boolean {
  return existsSync(path.join(out, 'api', 'v2'));
}

// `</body>` may be left out of HTML, and a layout of one's own may leave it out: the script then ends the page, in its body all the same.
// The script is under the site's base path, as its pages are.
function withClient(page: string, basePath: string): string {
  const end = page.search(/<\/body>/i);
  const script = `<script src="${basePath}${DEV_CLIENT}"></script>`;
  return end < 0 ? page + script : page.slice(0, end) + script + page.slice(end);
}

/** A server-sent event as it is written to a page's stream. */
function eventText(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What a build threw, as the dev server reports it: one error a line. */
function thrown(err: unknown): DevResult {
  // Counted as the build counts them, and said to be the templates': a line may say that more are not listed.
  if (err instanceof TemplateError) return { ok: false, errors: err.problems, templates: err.count };
  return { ok: false, errors: String(err instanceof Error ? err.message : err).split('\n') };
}

/**
 * The pages open in browsers, each on an event stream (DEV_EVENTS) that its script (DEV_CLIENT) reads: told to
 * reload when a build succeeds, shown its errors when it fails, and on connecting those of the last build.
 */
class OpenPages {
  private readonly clients = new Set<ServerResponse>();
  /** The errors of the last build, when it failed. */
  private problems: string[] = [];
  /** Whether the output holds a build to show: the folder's from before, or this server's. */
  built: boolean;

  /** `client` is the script's text (DEV_CLIENT). */
  constructor(
    out: string,
    private readonly client: string,
  ) {
    this.built = hasOutput(out);
  }

  /** Answers the dev server's own paths; false for any other, which the server answers from the output. */
  route(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    if (pathname !== DEV_CLIENT && pathname !== DEV_EVENTS) return false;
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
      res.end();
    } else if (pathname === DEV_CLIENT) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(this.client)) });
      res.end(head ? undefined : this.client);
    } else {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      // A HEAD learns what a GET would open; no stream is kept for it.
      if (head) res.end();
      else this.connect(req, res);
    }
    return true;
  }

  /** Keeps a page's event stream open until the page goes, showing it the last build's errors at once. */
  private connect(req: IncomingMessage, res: ServerResponse): void {
    res.write(': connected\n\n');
    if (this.problems.length > 0) res.write(eventText('problems', { errors: this.problems, built: this.built }));
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  /** A build succeeded: every page reloads, or only the search page (`search`) after the search index's own build. */
  succeeded(event: 'reload' | 'search'): void {
    this.built = true;
    this.problems = [];
    this.send(event, null);
  }

  /** A build failed: the pages show its errors. */
  failed(errors: readonly unknown[]): void {
    this.problems = errors.map(String);
    this.send('problems', { errors: this.problems, built: this.built });
  }

  private send(event: string, data: unknown): void {
    for (const client of this.clients) client.write(eventText(event, data));
  }

  /** Ends the pages' streams. */
  end(): void {
    for (const client of this.clients) client.end();
  }
}

/**
 * The builds, one at a time: a change during a build causes one more after it, and stops the search index's
 * build. Each build's result goes to the terminal (options.log) and the open pages; once the builds have
 * settled, the build state is saved.
 */
class Builds {
  /** The content's listing, kept by the watcher's events. */
  readonly listing: WatchedListing;
  private readonly memory: BuildMemory;
  private readonly buildOptions: Omit<BuildOptions, 'clean' | 'progress'>;
  /** --clean: the first build that succeeds ignores what earlier ones left; those after it build on it. */
  private clean: boolean;
  /** The builds running (or the state's save, which runs as a build would), until they have settled. */
  running: Promise<void> | undefined;
  /** A change came during the build that runs: one more follows it. */
  private again = false;
  /** A build is to start once a burst of writes has ended, or once the output is free. */
  private waiting = false;
  /** Stops the search index's build when a newer change comes. */
  private searching: AbortController | undefined;
  /** Stops whatever build runs when the server closes: the output stays as the last build left it. */
  private readonly closing = new AbortController();
  /** Starts the build once an editor's burst of writes has ended. */
  private burst: NodeJS.Timeout | undefined;
  /** Saves the build state SAVE_AFTER the builds have settled. */
  private saving: NodeJS.Timeout | undefined;
  /**
   * A build refused as another process held the output (`npm run build`, or `serve` writing through
   * the API) is tried again shortly, as no save may come to set it off: the edit would wait for the next.
   */
  private retry: NodeJS.Timeout | undefined;
  /** A build was refused: another process held the output. */
  private locked = false;
  /** What the last refusal said, which the builds tried again while the same process holds the lock do not say again. */
  private lockTold: string | undefined;
  /** A build's result has been told: the first build is over. */
  private told = false;
  /** The server closed during the first build, which stopped before it had put anything in place. */
  firstStopped = false;

  constructor(
    private readonly options: DevOptions,
    private readonly pages: OpenPages,
  ) {
    const { host: _host, port: _port, log: _log, clean: _clean, signal, ...rest } = options;
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    this.clean = options.clean ?? false;
    this.listing = new WatchedListing(options.content);
    // The build state is written once the builds have settled: an edit's build need not wait for it.
    this.memory = { listing: this.listing, saveLater: true };
    this.buildOptions = { ...rest, memory: this.memory };
  }

  /** Runs builds one at a time; changes during a build cause one more build after it. */
  schedule(): void {
    this.waiting = false;
    if (this.running) {
      this.again = true;
      this.searching?.abort();
      return;
    }
    clearTimeout(this.saving);
    clearTimeout(this.retry);
    this.running = this.buildUntilSettled();
  }

  /** Builds the pages, then the search index if they left it, again while changes come; then saves the state, or tries again when the output was locked. */
  private async buildUntilSettled(): Promise<void> {
    do {
      this.again = false;
      this.locked = false;
      if ((await this.rebuild(true, this.closing.signal)) && !this.again) {
        this.searching = new AbortController();
        await this.rebuild(false, this.searching.signal);
        this.searching = undefined;
      }
    } while (this.again && !this.closing.signal.aborted);
    this.running = undefined;
    if (this.closing.signal.aborted) return;
    if (this.locked) {
      this.waiting = true;
      this.retry = setTimeout(() => this.schedule(), LOCKED_RETRY);
    } else this.saving = setTimeout(() => this.save(), SAVE_AFTER);
  }

  /** One build, its result told to the terminal and the pages. True when the search index is left for the next build. */
  private async rebuild(deferSearch: boolean, signal: AbortSignal): Promise<boolean> {
    const result: DevResult = await build({ ...this.buildOptions, clean: this.clean, deferSearch, signal }).catch((err: unknown) => {
      this.locked ||= err instanceof Locked;
      return thrown(err);
    });
    if (this.closing.signal.aborted) return this.closed(result);
    if (signal.aborted) return false;
    // Files that changed while it ran can fail a build (a talk saved under it, a file renamed away): the build
    // that follows for them has the last word, and the page is not shown an error that is already gone.
    if (!result.ok && (this.again || this.waiting)) return false;
    const told = this.locked && !result.ok ? String(result.errors[0]) : undefined;
    if (told !== undefined && told === this.lockTold) return false;
    this.lockTold = told;
    this.tell(result);
    if (!result.ok) {
      this.pages.failed(result.errors);
      return false;
    }
    this.clean = false;
    this.pages.succeeded(deferSearch ? 'reload' : 'search');
    return !!result.summary.searchPending;
  }

  private tell(result: DevResult): void {
    this.told = true;
    this.options.log(result);
  }

  /**
   * A build that ended once the server was closing: one that finished all the same (it was putting its output in place,
   * which a build finishes) is told, as it changed the output; the first build, stopped short, left nothing to tell.
   */
  private closed(result: DevResult): false {
    if (result.ok) this.tell(result);
    else this.firstStopped ||= !this.told;
    return false;
  }

  /** Saves the build state, running as a build would: a change meanwhile waits for it. */
  private save(): void {
    if (this.running) return;
    this.running = (async () => {
      await saveState(this.memory).catch((err: unknown) => process.stderr.write(`dev: could not save the build state: ${String(err)}\n`));
      this.running = undefined;
      if (this.again) this.schedule();
    })();
  }

  /** A file or folder changed: a build follows once the burst of writes it is part of has ended. */
  changed(): void {
    clearTimeout(this.burst);
    this.waiting = true;
    // Editors save in bursts (temp file, rename, chmod): wait for the burst to end.
    this.burst = setTimeout(() => this.schedule(), 80);
  }

  /**
   * The output no longer holds a build (`rm -rf dist`, or `rm -rf dist/*`, which leaves the folder itself): the next
   * build writes it whole, as --clean does. Only a folder made again is another output to a build; an emptied one it
   * would trust to hold what it last wrote, write nothing into, and fail its next edit on a file it no longer finds.
   */
  outputGone(): void {
    this.clean = true;
  }

  /** Resolves when no build is running or waiting. */
  async idle(): Promise<void> {
    while (this.running || this.waiting) await (this.running ?? new Promise((r) => setTimeout(r, 50)));
  }

  /** Stops the build that runs, and those waiting. */
  stop(): void {
    this.closing.abort();
    this.searching?.abort();
    clearTimeout(this.burst);
    clearTimeout(this.saving);
    clearTimeout(this.retry);
  }

  /** Once the build stopped has ended: saves the state, and closes the search thread. */
  async close(): Promise<void> {
    await this.running;
    await saveState(this.memory);
    await this.memory.search?.close();
  }
}

/**
 * The watch on content/ and templates/: a change seen in content/ is noted in the builds' listing of it, and any
 * change sets off a build.
 */
class FolderWatch {
  private readonly folders: string[];
  private readonly contentDir: string;
  private readonly templatesDir: string;
  private watchedIds: string;
  private watcher: FSWatcher;
  /** Whether the output held a build when last looked at. */
  private outThere = false;
  private following: NodeJS.Timeout | undefined;
  /** What the watcher could not follow (see failed): it does not see them go, so look() does. */
  private readonly unfollowed = new Set<string>();

  constructor(
    private readonly options: DevOptions,
    private readonly builds: Builds,
  ) {
    this.contentDir = path.resolve(options.content);
    this.templatesDir = path.resolve(options.templates);
    this.folders = [options.content, options.templates];
    this.watchedIds = this.folderIds();
    this.watcher = this.watch();
  }

  // Not `atomic`: it holds a removal back 100 ms in case the file comes back, so a renamed talk's old name would
  // still be listed when the build starts; the wait for the burst to end (Builds.changed) gathers an editor's
  // remove-and-write just as well.
  private watch(): FSWatcher {
    return chokidar
      .watch(this.folders, { ignoreInitial: true, atomic: false, ignored: (at) => this.unread(at, false) })
      .on('all', (event, changed) => this.seen(event, changed))
      .on('error', (err) => this.failed(err as NodeJS.ErrnoException));
  }

  /**
   * What the watcher cannot follow: a link that leads to itself, a folder it may not read, the system's limit of watches
   * reached (ENOSPC). Said in the terminal, as saves there go unseen, and built, for the build to show what is wrong there;
   * unheard, the watcher's error ended the server.
   */
  private failed(err: NodeJS.ErrnoException): void {
    process.stderr.write(`dev: ${err.message}; saves there are not seen\n`);
    if (err.path) this.unfollowed.add(err.path);
    this.seen('addDir', this.contentDir);
  }

  /** Resolves once the watcher has looked at the folders. */
  ready(): Promise<void> {
    return new Promise<void>((resolve) => this.watcher.once('ready', () => resolve()));
  }

  /** An event of the watcher's: a file or folder in content/ or templates/ added, changed or removed. */
  private seen(event: string, changed: string): void {
    if (this.unread(changed, FILE_EVENTS.has(event))) return;
    const name = path.relative(this.contentDir, path.resolve(changed)).split(path.sep).join('/');
    // A folder added or removed: the next build lists the content afresh.
    if (!name.startsWith('../')) this.builds.listing.saw(event === 'addDir' || event === 'unlinkDir' ? undefined : name);
    this.builds.changed();
  }

  /**
   * Whether no build reads `at` (a file's path, or a folder's): what the walks pass over (an editor's swap file or lock
   * link, a git repository's `.git`), or a file of neither folder's (an editor's autosave, `#talk.yaml#`). Left unread,
   * as they are written while a file is open (vim's swap file every few seconds of typing) or by git at each command,
   * they built and reloaded every open page; the watcher does not look into such folders either.
   */
  private unread(at: string, file: boolean): boolean {
    // The templates first, the more particular where they are inside the content folder.
    for (const [dir, reads] of [[this.templatesDir, isThemeFile], [this.contentDir, isListed]] as const) {
      const name = path.relative(dir, path.resolve(at)).split(path.sep).join('/');
      if (name === '' || name === '..' || name.startsWith('../')) continue;
      return isHidden(name) || (file && !reads(name));
    }
    return false;
  }

  private folderIds(): string {
    return this.folders.map((dir) => folderId(dir) ?? '-').join(' ');
  }

  /**
   * Looks at the folders and the output every FOLLOW_EVERY from now on; `outThere`: whether the output holds a build now.
   * The watcher follows the folders it was given, not their names: one removed and made again, or another put in
   * its place (a git checkout, a copy restored, a swap by rename), would go unwatched, every save after it unseen.
   * An output removed (`rm -rf dist`) is built again whole, rather than answer 404 until the next save.
   */
  follow(outThere: boolean): void {
    this.outThere = outThere;
    this.following = setInterval(() => this.look(), FOLLOW_EVERY).unref();
  }

  /** Watches the folders afresh when they are others than the ones watched, and builds again then, or when the output was removed. */
  private look(): void {
    const ids = this.folderIds();
    const moved = ids !== this.watchedIds;
    const there = hasOutput(this.options.out);
    const gone = this.outThere && !there;
    this.outThere = there;
    if (moved) {
      this.watchedIds = ids;
      void this.watcher.close();
      this.watcher = this.watch();
    }
    if (gone) this.builds.outputGone();
    // Gone, the error its build showed is gone too: the build that says so is set off here.
    const cleared = [...this.unfollowed].filter((at) => !lstatSync(at, { throwIfNoEntry: false }));
    for (const at of cleared) this.unfollowed.delete(at);
    if (moved || gone || cleared.length > 0) this.seen('addDir', this.contentDir);
  }

  async close(): Promise<void> {
    clearInterval(this.following);
    await this.watcher.close();
  }
}
