// The edit loop: build, serve, watch content and templates, rebuild
// incrementally, and tell open pages to reload (server-sent events). A failed
// build keeps the last good output served and shows its errors on the page.
// Pages come first: a changed shard of the search index (Pagefind indexes it
// again whole, which takes seconds on a large catalogue) follows in a build of
// its own, which a newer change stops.
import { existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import chokidar from 'chokidar';
import { build, SAVE_AFTER, saveState, type BuildMemory, type BuildOptions, type BuildResult } from './build.ts';
import { WatchedListing } from './listing.ts';
import { startServer, type RunningServer } from './server.ts';
import { OutputLocked } from './state.ts';
import { TemplateError } from './template-errors.ts';

export const DEV_EVENTS = '/__dev/events';
export const DEV_CLIENT = '/__dev/client.js';
/** How soon a build refused because another process was writing the output is tried again. */
const LOCKED_RETRY = 500;
/** How often the content and templates folders are checked for being another folder than the one watched, and the output for being there. */
const FOLLOW_EVERY = 500;

// Loaded from our own origin, so the pages' Content-Security-Policy allows it.
const CLIENT = `(() => {
  const source = new EventSource(${JSON.stringify(DEV_EVENTS)});
  let box;
  source.addEventListener('reload', () => location.reload());
  source.addEventListener('search', () => location.pathname === '/search/' && location.reload());
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
}

export interface DevServer extends RunningServer {
  /** Resolves when no build is running or waiting. */
  idle(): Promise<void>;
}

export async function startDev(options: DevOptions): Promise<DevServer> {
  const clients = new Set<ServerResponse>();
  let problems: string[] = [];
  /** Whether the output holds a build: known by its API's folder, as a build may make the output's folder for the files it writes. */
  const hasOutput = () => existsSync(path.join(options.out, 'api', 'v2'));
  /** Whether the output holds a build to show: the folder's from before, or this server's. */
  let built = hasOutput();
  const send = (event: string, data: unknown) => {
    for (const client of clients) client.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  let running: Promise<void> | undefined;
  let again = false;
  let waiting = false;
  /** Stops the search index's build when a newer change comes. */
  let searching: AbortController | undefined;
  /** Stops whatever build runs when the server closes: the output stays as the last build left it. */
  const closing = new AbortController();
  const { host: _host, port: _port, log: _log, clean: _clean, ...rest } = options;
  /** --clean: the first build that succeeds ignores what earlier ones left; those after it build on it. */
  let clean = options.clean ?? false;
  // The build state is written once the builds have settled: an edit's build need not wait for it.
  const listing = new WatchedListing(options.content);
  const memory: BuildMemory = { listing, saveLater: true };
  let saving: NodeJS.Timeout | undefined;
  /**
   * A build refused as another process held the output (`npm run build`, or `serve` writing through
   * the API) is tried again shortly, as no save may come to set it off: the edit would wait for the next.
   */
  let retry: NodeJS.Timeout | undefined;
  let locked = false;
  const buildOptions = { ...rest, memory };
  /** True when the search index is left for the next build. */
  const rebuild = async (deferSearch: boolean, signal?: AbortSignal): Promise<boolean> => {
    const result: DevResult = await build({ ...buildOptions, clean, deferSearch, signal }).catch((err: unknown) => {
      locked ||= err instanceof OutputLocked;
      // Counted as the build counts them, and said to be the templates': a line may say that more are not listed.
      if (err instanceof TemplateError) return { ok: false as const, errors: err.problems, templates: err.count };
      return { ok: false as const, errors: String(err instanceof Error ? err.message : err).split('\n') };
    });
    if (signal?.aborted) return false;
    // Files that changed while it ran can fail a build (a talk saved under it, a file renamed away): the build
    // that follows for them has the last word, and the page is not shown an error that is already gone.
    if (!result.ok && (again || waiting)) return false;
    options.log(result);
    if (result.ok) {
      clean = false;
      built = true;
      problems = [];
      send(deferSearch ? 'reload' : 'search', null);
      return !!result.summary.searchPending;
    }
    problems = result.errors.map(String);
    send('problems', { errors: problems, built });
    return false;
  };
  /** Runs builds one at a time; changes during a build cause one more build after it. */
  const schedule = () => {
    waiting = false;
    if (running) {
      again = true;
      searching?.abort();
      return;
    }
    clearTimeout(saving);
    clearTimeout(retry);
    running = (async () => {
      do {
        again = false;
        locked = false;
        if ((await rebuild(true, closing.signal)) && !again) {
          searching = new AbortController();
          await rebuild(false, searching.signal);
          searching = undefined;
        }
      } while (again && !closing.signal.aborted);
      running = undefined;
      if (closing.signal.aborted) return;
      if (locked) {
        waiting = true;
        retry = setTimeout(schedule, LOCKED_RETRY);
      } else saving = setTimeout(save, SAVE_AFTER);
    })();
  };
  /** Runs as a build would: a change meanwhile waits for it. */
  const save = () => {
    if (running) return;
    running = (async () => {
      await saveState(memory).catch((err: unknown) => process.stderr.write(`dev: could not save the build state: ${String(err)}\n`));
      running = undefined;
      if (again) schedule();
    })();
  };

  const routes = (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    if (pathname !== DEV_CLIENT && pathname !== DEV_EVENTS) return false;
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
      res.end();
    } else if (pathname === DEV_CLIENT) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(CLIENT)) });
      res.end(head ? undefined : CLIENT);
    } else {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      // A HEAD learns what a GET would open; no stream is kept for it.
      if (head) res.end();
      else {
        res.write(': connected\n\n');
        if (problems.length > 0) res.write(`event: problems\ndata: ${JSON.stringify({ errors: problems, built })}\n\n`);
        clients.add(res);
        req.on('close', () => clients.delete(res));
      }
    }
    return true;
  };
  // `</body>` may be left out of HTML, and a layout of one's own may leave it out: the script then ends the page, in its body all the same.
  const html = (page: string) => {
    const end = page.search(/<\/body>/i);
    const script = `<script src="${DEV_CLIENT}"></script>`;
    return end < 0 ? page + script : page.slice(0, end) + script + page.slice(end);
  };
  // Listening first: a port in use fails it before it builds into an output another server may be serving.
  const server = await startServer({ dir: options.out, host: options.host, port: options.port, html, routes, revalidate: true, quiet: true });
  schedule();
  await running;

  let timer: NodeJS.Timeout | undefined;
  const contentDir = path.resolve(options.content);
  const seen = (event: string, changed: string) => {
    const name = path.relative(contentDir, path.resolve(changed)).split(path.sep).join('/');
    // A folder added or removed: the next build lists the content afresh.
    if (!name.startsWith('../')) listing.saw(event === 'addDir' || event === 'unlinkDir' ? undefined : name);
    clearTimeout(timer);
    waiting = true;
    // Editors save in bursts (temp file, rename, chmod): wait for the burst to end.
    timer = setTimeout(schedule, 80);
  };
  // Not `atomic`: it holds a removal back 100 ms in case the file comes back, so a renamed talk's old name would
  // still be listed when the build starts; the wait below gathers an editor's remove-and-write just as well.
  const folders = [options.content, options.templates];
  const watch = () => chokidar.watch(folders, { ignoreInitial: true, atomic: false }).on('all', seen);
  // The inode alone may be the removed folder's, given again to the next folder made; the two were not born together.
  const folderIds = () =>
    folders
      .map((dir) => {
        const stats = statSync(dir, { throwIfNoEntry: false });
        return stats ? `${stats.ino}@${stats.birthtimeMs}` : '-';
      })
      .join(' ');
  let watchedIds = folderIds();
  let watcher = watch();
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  // The watcher follows the folders it was given, not their names: one removed and made again, or another put in
  // its place (a git checkout, a copy restored, a swap by rename), would go unwatched, every save after it unseen.
  // An output removed (`rm -rf dist`) is built again whole, rather than answer 404 until the next save.
  let outThere = built;
  const follow = setInterval(() => {
    const ids = folderIds();
    const moved = ids !== watchedIds;
    const there = hasOutput();
    const gone = outThere && !there;
    outThere = there;
    if (moved) {
      watchedIds = ids;
      void watcher.close();
      watcher = watch();
    }
    if (moved || gone) seen('addDir', contentDir);
  }, FOLLOW_EVERY).unref();

  return {
    ...server,
    async idle() {
      while (running || waiting) await (running ?? new Promise((r) => setTimeout(r, 50)));
    },
    async close() {
      closing.abort();
      searching?.abort();
      clearTimeout(timer);
      clearTimeout(saving);
      clearTimeout(retry);
      clearInterval(follow);
      await watcher.close();
      for (const client of clients) client.end();
      await running;
      await saveState(memory);
      await memory.search?.close();
      await server.close();
    },
  };
}
