// The commands behind the npm scripts: their options, and what each does
// with them. The files in scripts/ only parse argv and call these. Each
// command imports the modules it runs when it runs: a command starts without
// loading every other one's (a build that finds nothing to do takes a third less time).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { basePathOf } from './base-path.ts';
import { build, DEFAULT_BASE_URL, type BuildResult } from './build.ts';
import { argumentsError, authority, counted, formatCount, formatMiB, formatSeconds, OptionError, typedPath } from './cli.ts';
import { ContentError, visible } from './errors.ts';
import { TEXT_EXTENSIONS } from './headers.ts';
import { checkContent } from './locks.ts';
import { CATEGORY_FILE } from './listing.ts';
import { notTheBuilds } from './output.ts';
import { contains, realPath } from './paths.ts';
import { terminalProgress } from './progress.ts';
import type { RunningServer } from './server.ts';
import { SEARCH_SHARD_SIZE } from './search-shards.ts';
import { TemplateError } from './template-errors.ts';
import { loadTheme, ThemeError, type Templates } from './theme.ts';
import type { TokenEntry } from './tokens.ts';
import type { RecordWriter } from './writes.ts';

const contentOptions = {
  content: { type: 'string', value: 'DIR', description: 'content folder to read', default: 'content' },
  out: { type: 'string', value: 'DIR', description: 'output folder; a build that fails leaves it as it was', default: 'dist' },
  templates: { type: 'string', value: 'DIR', description: 'templates folder (eta templates and assets/)', default: 'templates' },
} as const;

const siteOptions = {
  'base-url': { type: 'string', value: 'URL', description: "absolute URL the site is served at, for canonical links, feeds and sitemaps: a host's root, or a folder of it (https://user.github.io/talks), which every link of the site is then under", default: DEFAULT_BASE_URL },
  compress: { type: 'boolean', description: "also write .br/.gz copies of pages, sitemaps and assets (not feeds), for servers that send files as they are (nginx's gzip_static, Caddy's precompressed); our server and most hosts compress as they send" },
  'search-shard': {
    type: 'string',
    value: 'N',
    description: 'talks per shard of the search index: Pagefind holds a shard in memory while it indexes it (about 45 KB a talk), and the search page loads a copy of Pagefind per shard',
    default: String(SEARCH_SHARD_SIZE),
  },
} as const;

/**
 * `start` and `dev` build the site they serve: its links (canonical, feeds, the API lists' next and
 * previous) name the address they listen at, unless --base-url names another.
 */
const servedSiteOptions = {
  ...siteOptions,
  'base-url': { type: 'string', value: 'URL', description: "absolute URL the site is served at, for canonical links, feeds and sitemaps: a host's root, or a folder of it, which the site is then served under (default: the address it listens at)" },
} as const;

const listenOptions = {
  port: { type: 'string', value: 'N', description: 'port to listen on ($PORT when set); 0 picks a free one', default: process.env.PORT || '8080' },
  host: { type: 'string', value: 'H', description: 'address to listen on', default: '127.0.0.1' },
} as const;

/** What `serve` and `start` take beyond where to listen. */
const serverOptions = {
  'max-connections': { type: 'string', value: 'N', description: 'connections open at once; more are closed as soon as they open (said on stderr, once a minute at most)', default: '1024' },
  quiet: { type: 'boolean', description: 'no access log (otherwise one line per request on stdout)' },
  tokens: { type: 'string', value: 'FILE', description: 'tokens file (npm run token -- add NAME): PUT and PATCH with one of its tokens write to the content folder and rebuild; without it the server is read-only' },
} as const;

/** How the server stops, for the help of the commands that run it. */
const stopNotes =
  'On SIGINT or SIGTERM the server stops accepting connections, lets the requests in flight finish (those still running after 10 s are cut off, but a write whose body has come is always finished), closes idle connections and exits 0. A second signal stops it at once.';

const incrementalOptions = {
  cache: { type: 'string', value: 'DIR', description: 'where builds remember what they wrote, for incremental builds', default: '.cache' },
  clean: { type: 'boolean', description: 'ignore the cache and write every file' },
} as const;

export const buildCommand = {
  name: 'build',
  summary:
    'Validate every content file, then write the API records and the site into the output folder.\nOn any content error nothing is written and the previous output stays as it was.\nLater builds rewrite only the files whose content, template or code changed.',
  options: { ...contentOptions, ...siteOptions, ...incrementalOptions },
  notes: 'On SIGINT or SIGTERM the build stops after the files in flight and leaves the output as it was (unless it was already putting the new one in place, which it then finishes, and says so).\nExit code: 0 on success, 1 on content errors or a failure, 2 for a bad option, 130 or 143 when stopped by SIGINT or SIGTERM.',
};

export const checkCommand = {
  name: 'check',
  summary: 'Validate every content file and compile the templates, reporting every problem, one per line as file:line:col.\nWrites nothing.',
  options: {
    ...contentOptions,
    out: { ...contentOptions.out, description: 'not written: accepted so that check takes the options of build' },
    'base-url': { ...siteOptions['base-url'], description: "the build's: the templates are checked for the folder of its host it names (https://user.github.io/talks), where an address written from the host's root is a problem" },
  },
  notes: 'Exit code: 0 when everything is valid, 1 when any file has a problem, 2 for a bad option.',
};

export const serveCommand = {
  name: 'serve',
  summary:
    'Serve a built output folder with the API headers of the contract.\nWith --tokens, PUT and PATCH on /api/v2/video/<id> change the talk\'s file in the content folder and rebuild the output before they answer; without it they answer 401.',
  options: {
    dir: { type: 'string', value: 'DIR', description: 'folder to serve', default: 'dist' },
    ...listenOptions,
    ...serverOptions,
    // Where writes go, and how the folder is rebuilt after one.
    content: contentOptions.content,
    templates: contentOptions.templates,
    cache: incrementalOptions.cache,
    ...siteOptions,
    'base-url': {
      type: 'string',
      value: 'URL',
      description: `the build's: a folder of its host it names (https://user.github.io/talks) is served under that folder, as on its host (default: the build's in --dir, read from the robots.txt it wrote; ${DEFAULT_BASE_URL} for a folder without one)`,
    },
  },
  otherwise: { out: 'dir' },
  notes: `--content, --templates, --cache, --compress, --search-shard and the host --base-url names count only with --tokens, for the build after each write: give them as to npm run build, or it rewrites every page that differs as it starts.\nThe folder --base-url names (https://user.github.io/talks) counts without --tokens too: the site is served under it, as on its host. Without --base-url, a build for a folder is served (and rebuilt, with --tokens) for the folder it was made for, which the start-up line names.\n${stopNotes}\nExit code: 0 once stopped so, 1 when it cannot start (a port in use, say), 2 for a bad option.`,
} as const;

export const startCommand = {
  name: 'start',
  summary: 'Build the catalogue, then serve the output folder.',
  options: { ...contentOptions, ...servedSiteOptions, ...incrementalOptions, ...listenOptions, ...serverOptions },
  otherwise: { dir: 'out' },
  notes: `A signal during the build stops it as it stops npm run build, and nothing is served (even when the build was already putting the output in place, which it then finishes). ${stopNotes}\nExit code: 0 once stopped so, 1 on content errors (nothing is served) or when it cannot start, 2 for a bad option, 130 or 143 when stopped by SIGINT or SIGTERM during the build.`,
};

type BuildValues = { content: string; out: string; templates: string; cache?: string };

/** Builds, then serves what it built (see startCommand). */
export async function runStart(given: BuildRunValues & ServerValues & { tokens?: string }): Promise<number | void> {
  // A bad listening option or tokens file fails before the build, not after it.
  await checkServer(given);
  const values = await servedAt(given);
  // Start's own: a signal that came as the build put the output in place, which the build then finishes, must still keep it from serving.
  const stop = stopSignals();
  const code = await runBuild(values, stop).finally(stop.off);
  if (code !== 0) return code;
  const signalled = stop.by();
  if (signalled) {
    process.stderr.write(`start: stopped by ${signalled} as the build put ${values.out} in place, which it finished; not serving\n`);
    return exitCodeOf(signalled);
  }
  await runServer({ ...values, dir: values.out });
}

const isFolder = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
/** Why `dir` cannot be read as a folder: missing, or a file. */
const notAFolder = (dir: string) => (existsSync(dir) ? 'is a file, not a folder' : 'no such folder');

/** Whether `inner` is `outer` or lies within it, as the file system resolves them (through symbolic links too). */
const within = (inner: string, outer: string) => contains(realPath(outer), realPath(inner));

/**
 * The event that `dir` is the folder of, or the videos folder of, by its category file: a content folder named
 * a level or two too deep (`cd content/pycon-2024 && npm run check -- --content .`), whose every file would be
 * called misplaced.
 */
function eventFolderOf(dir: string): { folder: string; category: string } | undefined {
  for (const folder of path.basename(path.resolve(dir)) === 'videos' ? [dir, path.join(dir, '..')] : [dir]) {
    const category = namesIn(folder).find((name) => CATEGORY_FILE.test(name));
    if (category) return { folder, category };
  }
  return undefined;
}

/** The names in a folder; none where it cannot be read, which the loader reports with its fix (chmod). */
function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/**
 * The folders a command reads, and the one it writes, checked before any work: a mistyped content
 * folder must not pass for an empty catalogue (whose build would empty the site), and a build
 * replaces its output folder whole, so it must not hold the content, the templates, the working
 * folder, the build's cache, or files that no build wrote.
 */
function checkFolders(values: BuildValues, output?: '--out' | '--dir'): void {
  for (const [option, dir] of [['content', values.content], ['templates', values.templates]] as const) {
    if (!isFolder(dir)) throw new OptionError(`--${option} ${dir}: ${notAFolder(dir)}`);
  }
  const event = eventFolderOf(values.content);
  if (event) {
    const how = event.folder === values.content ? 'an' : 'in an';
    throw new OptionError(`--content ${values.content} is ${how} event's folder (${path.join(event.folder, event.category)}), not the catalogue's: name the folder that holds the events' folders, such as ${path.join(event.folder, '..')}`);
  }
  // Its templates and assets are no content files: read as content, it would pass for an empty catalogue too.
  if (within(values.content, values.templates)) {
    const how = within(values.templates, values.content) ? 'the' : 'inside the';
    throw new OptionError(`--content ${values.content} is ${how} templates folder (--templates ${values.templates}), which holds no talks: name the content folder, such as content`);
  }
  if (!output) return;
  const named = `${output} ${values.out}`;
  const out = values.out;
  for (const [option, dir] of [[output, values.out], ['--cache', values.cache]] as const) {
    if (dir !== undefined && existsSync(dir) && !isFolder(dir)) throw new OptionError(`${option} ${dir}: ${notAFolder(dir)}; name a folder for the build to write`);
  }
  const read = [[`the content folder (--content ${values.content})`, values.content], [`the templates folder (--templates ${values.templates})`, values.templates]] as const;
  for (const [what, dir] of read) {
    const how = within(out, dir) ? 'is inside' : within(dir, out) ? 'holds' : undefined;
    if (how) throw new OptionError(`${named} ${how} ${what}: the build replaces its output folder whole; write it elsewhere`);
    // Builds would read the state's files as content or templates (in a hidden folder, the dev server's watcher would see every save of it).
    if (values.cache !== undefined && within(values.cache, dir)) {
      throw new OptionError(`--cache ${values.cache} is inside ${what}, which builds read and the dev server watches; keep the cache outside it, as the default .cache is`);
    }
  }
  if (within(process.cwd(), out)) throw new OptionError(`${named} holds the working folder: the build replaces its output folder whole; name a folder of its own, such as dist`);
  // The state would be published with the site, and swapped away with the old output under the build that reads it.
  if (values.cache !== undefined && within(values.cache, out)) {
    throw new OptionError(`${named} holds the cache folder (--cache ${values.cache}): the build replaces its output folder whole, and the site would publish the build's state; keep the cache outside it, as the default .cache is`);
  }
  // An output folder an earlier build wrote has the API's records; one without them is someone else's.
  if (isFolder(out) && !isFolder(path.join(out, 'api', 'v2'))) {
    const others = notTheBuilds(out);
    const first = readdirSync(out).filter((name) => !others.includes(name)).sort()[0];
    if (first !== undefined) throw new OptionError(`${named} holds files that no build wrote (${first}, …) and a build replaces its output folder whole: name a new or empty folder, or remove this one first`);
  }
}

type SiteValues = { 'base-url': string; compress?: boolean; 'search-shard': string };

/** The site options as the build takes them; every command that builds passes the same, so its builds agree. */
function siteSettings(values: SiteValues): { baseUrl: string; compress: boolean; searchShardSize: number } {
  return { baseUrl: checkBaseUrl(values['base-url']), compress: values.compress ?? false, searchShardSize: parseCount('search-shard', values['search-shard']) };
}

const FREE_SPACE = 'free some space there and build again';
const MAY_NOT_WRITE = "the build's user may not write there: let it (chown the folder to it, or chmod u+w), or build to a folder of its own (--out, --cache)";

/** What to do when the disk refuses a write, by its error: full (or the user's quota on it), mounted read-only, or not the build's user's to write. */
const DISK_FIXES: Record<string, string> = {
  ENOSPC: FREE_SPACE,
  EDQUOT: FREE_SPACE,
  EROFS: 'that file system is mounted read-only: build to a folder on one the build may write (--out, --cache), or mount it read-write',
  EACCES: MAY_NOT_WRITE,
  EPERM: MAY_NOT_WRITE,
};

type BuildRunValues = BuildValues & SiteValues & { cache: string; clean?: boolean };

/**
 * Builds as `npm run build` does. `caller` is the stop signals of a caller that must know of a signal that came as
 * the output was put in place, which the build then finishes: `start` must not go on to serve.
 */
export async function runBuild(values: BuildRunValues, caller?: StopSignals): Promise<number> {
  checkFolders(values, '--out');
  const site = siteSettings(values);
  const stop = caller ?? stopSignals();
  try {
    const result = await build({ content: values.content, out: values.out, templates: values.templates, cache: values.cache, clean: values.clean, ...site, progress: terminalProgress(), signal: stop.signal });
    // A build with content errors stops before it compiles the templates: their problem is said too, as check says it.
    const templates = result.ok ? undefined : await templateProblems(values.templates, site.baseUrl);
    const code = reportBuild(result, values, templates);
    // Said as the import says it: the signal was taken, and the build finished rather than leave the output half in place.
    const late = caller ? undefined : stop.by();
    if (result.ok && late) process.stderr.write(`build: ${late} came as ${values.out} was being put in place: the build was finished, not left half done\n`);
    return code;
  } catch (err) {
    const signalled = stop.by();
    if (!signalled) {
      // Templates that cannot be used stop the build: they are named as check names them, one a line, and so are those that failed on pages.
      const templates = err instanceof TemplateError ? err : await templateProblems(values.templates, site.baseUrl);
      if (templates.count > 0) return reportBuild({ ok: false, errors: [] }, values, templates);
      // A write to a file already open names no file ("ENOSPC: no space left on device, write"): where, and what to do.
      const fix = DISK_FIXES[(err as NodeJS.ErrnoException).code!];
      if (fix) throw new Error(`${(err as Error).message} (writing ${values.out} or the cache ${values.cache}): ${fix}`);
      throw err;
    }
    process.stderr.write(`build: stopped by ${signalled}; ${leftAsItWas(values.out)}\n`);
    return exitCodeOf(signalled);
  } finally {
    if (!caller) stop.off();
  }
}

/** What a build that stopped short did to its output: none before the first build's. */
const leftAsItWas = (out: string) => (existsSync(out) ? `${out} left as it was` : 'nothing written');

/** The exit code of a command that a signal stopped, as shells report it. */
const exitCodeOf = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 130 : 143);

/** A signal that the first SIGINT or SIGTERM aborts (see onStopSignal), and which of the two it was. */
type StopSignals = { signal: AbortSignal; by: () => NodeJS.Signals | undefined; off: () => void };

function stopSignals(): StopSignals {
  const stop = new AbortController();
  let by: NodeJS.Signals | undefined;
  const off = onStopSignal((signal) => {
    by = signal;
    stop.abort();
  });
  return { signal: stop.signal, by: () => by, off };
}

/**
 * Calls `stop` on the first SIGINT or SIGTERM; a second signal of either kind ends the process at
 * once (130 or 143, as shells report them). Returns what takes the handlers away again.
 */
function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(exitCodeOf(signal));
    stopping = true;
    stop(signal);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
  return () => {
    process.off('SIGINT', handle);
    process.off('SIGTERM', handle);
  };
}

/**
 * A base path's segments: letters, digits and `-._~`, which a URL writes as they are, so that the path the pages
 * write is the one the server reads (decoded) and the one a host's configuration names; not first a dot, as the
 * server sends nothing from a hidden folder.
 */
const BASE_PATH = /^(?:\/[\w~-][\w.~-]*)*\/?$/;

/**
 * A last folder name that is a file's: a page's (`index.html`, copied from the address bar) or one the site writes
 * beside its pages (`feed.atom`, `sitemap.xml`). Taken as a folder, every address of the site would be under it.
 */
const FILE_NAME = new RegExp(`\\.(?:html?|${TEXT_EXTENSIONS.join('|')})$`, 'i');

/**
 * An absolute http(s) URL without query or fragment: a host's root, or a folder of it (https://user.github.io/talks,
 * a GitHub Pages project site) whose path is the site's base path (base-path.ts). A trailing slash is dropped.
 */
export function checkBaseUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) throw new OptionError(`--base-url must be an absolute http or https URL such as https://talks.example.org, got "${text}"`);
  if (url.search || url.hash) throw new OptionError(`--base-url must be the root of a host or a folder of it, without a query or fragment (https://talks.example.org, https://user.github.io/talks), got "${text}"`);
  if (!BASE_PATH.test(url.pathname)) {
    throw new OptionError(`--base-url's path must be folder names of letters, digits and -._~, not starting with a dot (https://user.github.io/talks), got "${url.pathname}"`);
  }
  const folder = url.pathname.replace(/\/$/, '');
  const name = folder.slice(folder.lastIndexOf('/') + 1);
  if (FILE_NAME.test(name)) {
    throw new OptionError(`--base-url must name the folder the site is served from, not a file in it ("${name}"): give ${url.origin}${folder.slice(0, -name.length - 1)}, got "${text}"`);
  }
  // As URL reads it (a trailing "?" or "#" gone, a host in punycode), without the slash: links are written after it.
  return `${url.origin}${folder}`;
}

/**
 * Where `start` or `dev` will listen, and the base URL of the site it builds: --base-url if given,
 * else that address. Port 0 is resolved to a free port first, so that the links can name it.
 */
export async function servedAt<V extends SiteValues & { host: string; port: string }>(values: V): Promise<V> {
  const port = await listenablePort(listenHost(values.host), parsePort(values.port));
  const host = values.host === '0.0.0.0' ? '127.0.0.1' : values.host === '::' ? '::1' : values.host;
  return { ...values, port: String(port), 'base-url': values['base-url'] ?? `http://${authority(host, port)}` };
}

/** --host as given; Node listens on every address of the machine for an empty one: `--host "$HOST"` with HOST unset would publish the server. */
function listenHost(host: string): string {
  if (host.trim() === '') throw new OptionError(`--host must name an address (127.0.0.1, ::1, or 0.0.0.0 for every address), got "${host}"`);
  return host;
}

/**
 * The port the server is to listen on, tried now, before a build writes its address into the site: a free
 * one for 0, or `port`, which fails as the server would if it is taken or not allowed. Another process may
 * take it before the server does, which listening then reports.
 */
async function listenablePort(host: string, port: number): Promise<number> {
  const [{ createServer }, { listenError }] = await Promise.all([import('node:net'), import('./server.ts')]);
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, host, resolve));
  } catch (err) {
    throw listenError(err as NodeJS.ErrnoException, host, port);
  }
  const { port: listened } = probe.address() as import('node:net').AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return listened;
}

/** The templates' problems as the commands report them: their lines, and how many errors they are (see TemplateError). */
type TemplateProblems = Pick<TemplateError, 'problems' | 'count'>;

/** Prints a build's errors (and `templates`, the templates' problems, one a line), or its one-line summary; returns the exit code. */
function reportBuild(result: BuildResult | { ok: false; errors: string[] }, values: BuildValues, templates: TemplateProblems = { problems: [], count: 0 }): number {
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(`${error}\n`);
    for (const problem of templates.problems) process.stderr.write(`${problem}\n`);
    // The dev server reports a build that threw here too: not the content's fault, nor the templates' unless it says so.
    const wrong = [...(result.errors.length > 0 ? [values.content] : []), ...(templates.count > 0 ? ['the templates'] : [])];
    const where = result.errors.every((e) => e instanceof ContentError) ? ` in ${wrong.join(' and ')}` : '';
    const count = result.errors.length + templates.count;
    process.stderr.write(`build failed: ${counted(count, 'error')}${where}; ${leftAsItWas(values.out)}\n`);
    return 1;
  }
  const s = result.summary;
  if (s.missing) process.stderr.write(`${path.join(values.out, s.missing)}, which the last build wrote, was gone: built again without what the last build remembered\n`);
  const changes = s.incremental ? `${formatCount(s.written)} written, ${formatCount(s.unchanged)} unchanged, ${formatCount(s.removed)} removed` : `${formatCount(s.written)} written (full build)`;
  process.stdout.write(
    `built ${counted(s.talks, 'talk')} (${counted(s.drafts, 'draft')} not published) from ${counted(s.events, 'event')} into ${path.normalize(values.out)}: ${counted(s.outputs, 'file')}, ${changes}, ${formatMiB(s.bytes)} in ${formatSeconds(s.ms)}${s.searchPending ? '; the search index follows' : ''}\n`,
  );
  return 0;
}

/**
 * What is wrong with the templates in `folder` for a site served at `baseUrl` (checked), as the build would say it, one
 * problem a line: the folder's and each template's that does not compile, by file and position.
 */
async function templateProblems(folder: string, baseUrl: string): Promise<TemplateError> {
  const [{ SiteRenderer }, { DEFAULT_SITE_NAME }, { byPosition }] = await Promise.all([import('./render.ts'), import('./schema.ts'), import('./template-errors.ts')]);
  const lines = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n');
  let templates: Templates;
  let written: Templates | undefined;
  let problems: string[] = [];
  try {
    ({ templates, written } = await loadTheme(folder, basePathOf(baseUrl)));
  } catch (err) {
    if (!(err instanceof ThemeError)) return new TemplateError(lines(err));
    ({ problems, templates } = err);
  }
  try {
    new SiteRenderer(templates, { baseUrl, nav: [], name: DEFAULT_SITE_NAME }, folder, written);
    return new TemplateError(byPosition(problems));
  } catch (err) {
    return new TemplateError(byPosition([...problems, ...lines(err)]));
  }
}

export async function runCheck(values: BuildValues & Partial<Pick<SiteValues, 'base-url'>>): Promise<number> {
  checkFolders(values);
  const baseUrl = checkBaseUrl(values['base-url'] ?? DEFAULT_BASE_URL);
  const started = performance.now();
  const [{ isLive, loadContent, locator }, { targetProblems }, { indexCatalogue }] = await Promise.all([
    import('./load.ts'),
    import('./redirects.ts'),
    import('./catalogue-index.ts'),
  ]);
  // Half a catalogue, which an import that stopped part way left, is told alone, as the build tells it.
  const unfinished = checkContent(values.content);
  const loaded = await loadContent(values.content);
  const { catalogue, files } = loaded;
  // Where redirects lead is checked against the pages of a catalogue without errors, as the build checks it.
  const errors = unfinished ? [unfinished] : loaded.errors.length > 0 ? loaded.errors : targetProblems(catalogue, () => indexCatalogue(catalogue.talks), locator(values.content));
  // The templates are compiled whatever the content holds: every problem in one run.
  const problems: unknown[] = [...errors, ...(await templateProblems(values.templates, baseUrl)).problems];
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  if (problems.length > 0) {
    const wrong = new Set(errors.map((e) => e.file)).size;
    const inFiles = wrong > 0 ? `${formatCount(wrong)} of ${counted(files, 'file')}` : '';
    const where = problems.length > errors.length ? (inFiles ? `${inFiles} and the templates` : 'the templates') : inFiles;
    process.stderr.write(`check failed: ${counted(problems.length, 'error')} in ${where}\n`);
    return 1;
  }
  const live = catalogue.talks.filter(isLive).length;
  process.stdout.write(
    `checked ${counted(files, 'file')}: ${counted(catalogue.events.length, 'event')}, ${counted(live, 'live talk')}, ${counted(catalogue.talks.length - live, 'draft')}, ${counted(catalogue.pages.length, 'page')}, no problems (${formatSeconds(performance.now() - started)})\n`,
  );
  return 0;
}

function parsePort(text: string): number {
  const port = Number(text);
  // The default comes from $PORT: a bad one is named as such, not as an option nobody gave.
  const named = process.argv.some((arg) => arg === '--port' || arg.startsWith('--port=')) ? '--port' : '$PORT';
  if (!/^\d+$/.test(text) || port > 65535) throw new OptionError(`${named} must be a number from 0 to 65535, got "${text}"`);
  return port;
}

function parseCount(option: string, text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new OptionError(`--${option} must be a whole number from 1, got "${text}"`);
  return Number(text);
}

type ServerValues = { host: string; port: string; quiet?: boolean; 'max-connections': string };

/** The listening options as the server takes them; `start` checks them before it builds. */
export function serverSettings(values: ServerValues): { host: string; port: number; quiet?: boolean; maxConnections: number } {
  return { host: listenHost(values.host), port: parsePort(values.port), quiet: values.quiet, maxConnections: parseCount('max-connections', values['max-connections']) };
}

/** Starts the server, prints its URL, and drains it on SIGINT or SIGTERM (see stopNotes). */
export async function runServer(
  values: ServerValues & {
    dir: string;
    tokens?: string;
    content: string;
    templates: string;
    cache: string;
  } & Omit<SiteValues, 'base-url'> &
    Partial<Pick<SiteValues, 'base-url'>>,
): Promise<RunningServer> {
  const settings = serverSettings(values);
  // With --tokens the folder is built if need be; without, there must be one to serve.
  if (!values.tokens && !isFolder(values.dir)) {
    const what = existsSync(values.dir) ? `${notAFolder(values.dir)}; name the folder npm run build wrote, such as dist` : 'no such folder; build one with npm run build';
    throw new OptionError(`--dir ${values.dir}: ${what}`);
  }
  // Served whole: the project's folder (--dir .) would give away its tokens file and its content's drafts.
  if (!values.tokens && !isFolder(path.join(values.dir, 'api', 'v2'))) {
    throw new OptionError(`--dir ${values.dir} holds no build (it has no api/v2/): name the folder npm run build wrote, such as dist`);
  }
  // Read before a writer builds the folder again, for the build's base URL unless another is given.
  const built = await builtBaseUrl(values.dir);
  const given = values['base-url'];
  const baseUrl = checkBaseUrl(given ?? built ?? DEFAULT_BASE_URL);
  const writer = values.tokens ? await openWriter({ ...values, 'base-url': baseUrl, tokens: values.tokens }) : undefined;
  const basePath = basePathOf(baseUrl);
  const builtPath = built === undefined ? basePath : basePathOf(built);
  if (!writer && builtPath !== basePath) {
    process.stderr.write(`serve: ${values.dir} was built for ${built}, whose addresses are under ${builtPath}/, not under ${basePath}/ as --base-url says: its pages' styles, scripts and links answer 404 here; give the build's --base-url, or none\n`);
  }
  outliveOutput();
  const { startServer } = await import('./server.ts');
  const running = await startServer({ writes: writer, dir: values.dir, basePath, ...settings });
  reportDrops(running, settings.maxConnections);
  onStopSignal(() => {
    const closed = running.close();
    // Said once the port is closed: whoever reads it may rely on new connections being refused.
    process.stdout.write('stopping: no new connections; finishing the requests in flight\n');
    // The state the last write left is saved before the process ends: the next build would otherwise load everything again.
    void closed.then(() => writer?.settled()).then(() => process.exit(0));
  });
  // Printed last: whoever waits for the URL may signal the server as soon as they see it.
  const folder = given === undefined && basePath ? `, the folder of its host it was built for (${built})` : '';
  process.stdout.write(`serving ${values.dir} at ${running.url}${folder} (Ctrl+C to stop)\n`);
  return running;
}

/**
 * The base URL the build in `dir` was made for, as its robots.txt says (see robotsBaseUrl), so that `serve` serves a
 * build for a folder of its host under it, as Vite's preview applies the config's `base`; undefined without one.
 */
async function builtBaseUrl(dir: string): Promise<string | undefined> {
  const { robotsBaseUrl } = await import('./sitemap.ts');
  const robots = await readFile(path.join(dir, 'robots.txt'), 'utf8').catch(() => undefined);
  return robots === undefined ? undefined : robotsBaseUrl(robots);
}

/**
 * Connections refused at --max-connections are closed as they open, which the access log never sees: said on
 * stderr as it starts, then each minute it goes on, with how many (a flood of them must not flood the log).
 */
function reportDrops(running: RunningServer, limit: number): void {
  let more = 0;
  let minute: NodeJS.Timeout | undefined;
  const endMinute = () => {
    minute = undefined;
    if (more === 0) return;
    process.stderr.write(`refused ${counted(more, 'more connection')} in the last minute (--max-connections ${limit})\n`);
    more = 0;
    minute = setTimeout(endMinute, 60_000).unref();
  };
  running.server.on('drop', () => {
    if (minute) return void more++;
    process.stderr.write(`refusing connections: ${limit} open already (--max-connections ${limit})\n`);
    minute = setTimeout(endMinute, 60_000).unref();
  });
}

/** A reader of the server's output that goes away (`npm run serve | head -1`, a log collector that died) ends the access log (see run), which is said once. */
function outliveOutput(): void {
  let told = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (!told) process.stderr.write(`stdout failed (${err.code}); serving on without the access log\n`);
    told = true;
  });
}

export const importCommand = {
  name: 'import',
  args: 'pyvideo <path-to-pyvideo-data>',
  summary:
    'Import a checkout (or unpacked snapshot) of pyvideo/data into the content folder.\nIds are kept forever: talks already imported keep their id, slug and dates; new talks get new ids above the highest ever given.\nNothing is written when any record cannot be converted; files whose bytes would not change are not touched.',
  options: { content: { type: 'string', value: 'DIR', description: 'content folder to write', default: 'content' } },
  notes:
    'SIGINT (Ctrl+C) or SIGTERM stops it before it writes; once it writes, it finishes (a second signal ends it at once).\nExit code: 0 on success, 1 when a record cannot be converted (nothing written), 2 for bad arguments or a source folder that is not a checkout of pyvideo/data, 130 or 143 when stopped by SIGINT or SIGTERM (nothing written).',
} as const;

export async function runImport(values: { content: string; _: string[] }): Promise<number> {
  const [kind, typed, ...rest] = values._;
  const source = typed && typedPath(typed, importCommand.name);
  if (kind !== 'pyvideo' || !source || rest.length > 0) throw argumentsError('"pyvideo <path-to-pyvideo-data>"', kind, ['pyvideo']);
  // Said before the snapshot is read, not after, as a content folder that went missing.
  if (existsSync(values.content) && !isFolder(values.content)) throw new OptionError(`--content ${values.content}: ${notAFolder(values.content)}`);
  const started = performance.now();
  const { importPyvideo } = await import('./importer.ts');
  const stop = stopSignals();
  const report = await importPyvideo({ source, content: values.content, progress: terminalProgress(), signal: stop.signal }).finally(stop.off);
  const signalled = stop.by();
  if (report.stopped && signalled) {
    process.stderr.write(`import: stopped by ${signalled}; nothing was written\n`);
    return exitCodeOf(signalled);
  }
  if (report.unusable) {
    process.stderr.write(`import: ${source}: ${report.unusable}; nothing was written\n`);
    return 2;
  }
  for (const error of report.errors) process.stderr.write(`${path.isAbsolute(error.file) ? error.file : path.join(source, error.file)}: ${error.reason}\n`);
  if (!report.ok) {
    process.stderr.write(`import failed: ${counted(report.errors.length, 'record')} could not be converted; nothing was written\n`);
    return 1;
  }
  const notes = [...report.notes].sort(([a], [b]) => (a < b ? -1 : 1));
  if (notes.length > 0) {
    process.stdout.write('what the import repaired or moved (count, first example):\n');
    for (const [kind, { count, example }] of notes) process.stdout.write(`  ${String(count).padStart(6)}  ${kind}  (${example})\n`);
  }
  process.stdout.write(
    `imported ${counted(report.events, 'event')}, ${counted(report.talks, 'talk')} (${counted(report.drafts, 'draft')}) into ${values.content}: ${counted(report.keptIds, 'kept id')}, ${counted(report.newIds, 'new id')}, ${formatCount(report.changed)} changed, ${formatCount(report.removed)} removed; ${counted(report.written, 'file')} written, ${formatCount(report.unchanged)} unchanged in ${formatSeconds(performance.now() - started)}\n`,
  );
  if (signalled) process.stderr.write(`import: ${signalled} came while the files were being written: the import was finished, not left half written (a second signal ends it at once)\n`);
  return 0;
}

export const devCommand = {
  name: 'dev',
  summary:
    'Build, serve, and rebuild incrementally whenever a file under the content or templates folder changes; open pages reload by themselves.\nA content error is shown in the terminal and on the page, and the last good build stays served.',
  options: { ...contentOptions, ...servedSiteOptions, ...incrementalOptions, ...listenOptions },
  notes:
    'With --clean, its first build ignores the cache and writes every file; those after it write what changed.\nA signal during its first build stops it as it stops npm run build, which it says.\nExit code: 0 once stopped by SIGINT or SIGTERM (content errors do not stop it), 130 or 143 when stopped so during its first build, 1 when it cannot start, 2 for a bad option.',
} as const;

export async function runDev(given: BuildValues & SiteValues & { cache: string; clean?: boolean; host: string; port: string }): Promise<void> {
  checkFolders(given, '--out');
  const values = await servedAt(given);
  const { startDev } = await import('./dev.ts');
  // From the start: a Ctrl+C during the first build (seconds on a large catalogue) stops it as it stops the builds after it.
  const stop = stopSignals();
  const dev = await startDev({
    ...siteSettings(values),
    content: values.content,
    out: values.out,
    templates: values.templates,
    cache: values.cache,
    clean: values.clean,
    host: values.host,
    port: parsePort(values.port),
    // The templates' problems are said to be theirs, as a build's are.
    log: (result) => ('templates' in result ? reportBuild({ ok: false, errors: [] }, values, { problems: result.errors, count: result.templates }) : reportBuild(result, values)),
    signal: stop.signal,
  });
  const close = (code = 0) => void dev.close().then(() => process.exit(code));
  // Said as a build stopped so says it: a dev server gone without a word leaves it unknown whether the output was built.
  if (dev.firstStopped) {
    const signalled = stop.by()!;
    process.stderr.write(`dev: stopped by ${signalled} during the first build; ${leftAsItWas(values.out)}\n`);
    return close(exitCodeOf(signalled));
  }
  if (stop.signal.aborted) return close();
  stop.signal.addEventListener('abort', () => close(), { once: true });
  process.stdout.write(`dev server at ${dev.url}, watching ${values.content} and ${values.templates} (Ctrl+C to stop)\n`);
}

/** A tokens file named as a folder, or in a folder that is not there, is a mistyped option: said so, not as a failed read or write of it. */
function checkTokensPath(tokens: string): void {
  if (isFolder(tokens)) throw new OptionError(`--tokens ${tokens}: is a folder, not a file; name the tokens file, such as ${DEFAULT_TOKENS}`);
  const folder = path.dirname(tokens);
  if (!isFolder(folder)) throw new OptionError(`--tokens ${tokens}: ${folder}: ${notAFolder(folder)}`);
}

/** A tokens file that is not there is a mistyped name, not a file without tokens. */
function mustExist(tokens: string): void {
  if (!existsSync(tokens)) throw new Error(`${tokens}: no such file; make one with npm run token -- add NAME --tokens ${tokens}`);
}

/** The tokens the server takes writes with: refuses a tokens file it would serve, or one with no token in it. */
async function serverTokens(tokens: string, dir: string): Promise<TokenEntry[]> {
  if (within(tokens, dir)) throw new OptionError(`--tokens ${tokens} is inside the served folder (--dir ${dir}); keep it outside`);
  checkTokensPath(tokens);
  mustExist(tokens);
  const { readTokens } = await import('./tokens.ts');
  const entries = await readTokens(tokens);
  if (entries.length === 0) throw new Error(`${tokens} holds no token; add one with npm run token -- add NAME --tokens ${tokens}`);
  return entries;
}

/** What `start` checks before it builds, so that its build is not wasted: the server's options and tokens file. */
export async function checkServer(values: ServerValues & { tokens?: string; out: string }): Promise<void> {
  serverSettings(values);
  if (values.tokens) await serverTokens(values.tokens, values.out);
}

/** The write side of the server. */
async function openWriter(values: { dir: string; tokens: string; content: string; templates: string; cache: string } & SiteValues): Promise<RecordWriter> {
  const tokens = await serverTokens(values.tokens, values.dir);
  // A write rebuilds the served folder from the content folder.
  checkFolders({ content: values.content, templates: values.templates, out: values.dir, cache: values.cache }, '--dir');
  const { RecordWriter } = await import('./writes.ts');
  return RecordWriter.open({ content: values.content, out: values.dir, templates: values.templates, cache: values.cache, ...siteSettings(values), tokens });
}

const DEFAULT_TOKENS = 'tokens.txt';

export const tokenCommand = {
  name: 'token',
  args: 'add NAME | remove NAME | list',
  summary:
    'Manage the API tokens that `serve --tokens FILE` accepts for PUT and PATCH.\n`add NAME` prints a new random token once: only its SHA-256 is stored, so keep it somewhere safe.\nKeep the file outside the folder you serve.',
  options: { tokens: { type: 'string', value: 'FILE', description: 'tokens file', default: DEFAULT_TOKENS } },
  notes: 'Clients send the token as `Authorization: Token <token>`.\nExit code: 0 on success, 1 when the name is taken, unknown or not usable, or the tokens file is not there (list, remove) or not a tokens file, 2 for bad arguments.',
} as const;

export async function runToken(values: { tokens: string; _: string[] }): Promise<number> {
  const [action, name, ...rest] = values._;
  const usage = () => argumentsError('"add NAME", "remove NAME" or "list"', action, ['add', 'remove', 'list']);
  if (rest.length > 0) throw usage();
  checkTokensPath(values.tokens);
  const { addToken, readTokens, removeToken } = await import('./tokens.ts');
  if (action === 'list' && name === undefined) {
    mustExist(values.tokens);
    const entries = await readTokens(values.tokens);
    for (const entry of entries) process.stdout.write(`${entry.name}\n`);
    if (entries.length === 0) process.stderr.write(`${values.tokens} holds no tokens; add one with "npm run token -- add NAME"\n`);
    return 0;
  }
  if (name === undefined) throw usage();
  if (action === 'add') {
    const token = await addToken(values.tokens, name);
    process.stderr.write(`added token "${name}" to ${values.tokens}; it is shown this once:\n`);
    process.stdout.write(`${token}\n`);
    return 0;
  }
  if (action === 'remove') {
    // A mistyped file has no token of that name either: not said so, as if the token were gone.
    mustExist(values.tokens);
    if (await removeToken(values.tokens, name)) {
      // The server reads the file when it starts: one running still takes the token.
      process.stderr.write(`removed token "${name}" from ${values.tokens}; restart a server running with it to refuse the token\n`);
      return 0;
    }
    process.stderr.write(`token: ${values.tokens} has no token named "${visible(name)}"\n`);
    return 1;
  }
  throw usage();
}
