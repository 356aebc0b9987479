// The benchmark: the pyvideo import and a synthetic catalogue five times its
// size, each imported or generated, then built cold, with nothing changed, and
// with one talk changed. Every measured step runs in a child process of its
// own, so wall time includes start-up and peak RSS is that step's alone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { formatCount, OptionError } from './cli.ts';
import { descendants, peakRss } from './processes.ts';
import type { SearchFigures } from './bench-search.ts';
import { REDIRECTS_DIR } from './listing.ts';
import { COMPILED, commandArgs, PROJECT_ROOT } from './program.ts';

export interface StepResult {
  ok: boolean;
  /** Wall time of the child process, start-up included. */
  ms: number;
  /** Peak resident set of the child process (all its threads), in bytes. */
  rss: number;
  /** The largest peak resident set among the processes the child started (Pagefind's), in bytes; 0 if none ran or /proc cannot tell. */
  helperRss?: number;
  written?: number;
  outputs?: number;
  bytes?: number;
  talks?: number;
  /** The dev server's edit loop: from saving a title to the pages rebuilt, and to the search index following them. */
  pagesMs?: number;
  searchMs?: number;
  /** The pages' build alone, without the watcher's and the debounce's wait before it. */
  pagesBuildMs?: number;
  /** The dev server's builds after each of DEV_EDITS saves of a duration that follow the title's (the edit loop, warm). */
  editBuildsMs?: number[];
}

/** Saves of a duration the dev server builds after the title's: the loop of one edit after another. */
const DEV_EDITS = 5;

export type Step =
  | { kind: 'import'; source: string; content: string }
  | { kind: 'build'; content: string; out: string; cache: string; compress?: boolean }
  | { kind: 'dev'; content: string; out: string; cache: string; file: string };

/**
 * Runs one step in this process and prints its result as JSON: the child side of `measure`. Each
 * step imports what it runs, as the commands do: a no-op build's time is then the command's, not
 * that of loading the importer, the dev server and Chromium's driver besides.
 */
export async function runStep(step: Step): Promise<void> {
  let result: Omit<StepResult, 'ms' | 'rss'>;
  if (step.kind === 'import') {
    const { importPyvideo } = await import('./importer.ts');
    const report = await importPyvideo({ source: step.source, content: step.content });
    result = { ok: report.ok, talks: report.talks, written: report.written };
  } else if (step.kind === 'dev') {
    result = await editWhileServing(step);
  } else {
    const { build } = await import('./build.ts');
    const built = await build({ content: step.content, out: step.out, templates: path.join(PROJECT_ROOT, 'templates'), cache: step.cache, compress: step.compress });
    result = built.ok ? { ok: true, talks: built.summary.talks, written: built.summary.written, outputs: built.summary.outputs } : { ok: false };
  }
  process.stdout.write(`${JSON.stringify({ ...result, rss: ownPeakRss() })}\n`);
}

/**
 * This process's peak RSS. Read from /proc where there is one: getrusage's maxRSS keeps, across
 * fork and exec, the RSS the parent had when it started the process (here the benchmark's own,
 * hundreds of MB once it has held a catalogue's figures), so a small step read as that.
 */
const ownPeakRss = () => peakRss(process.pid) || process.resourceUsage().maxRSS * 1024;

type TalkFields = { title: string; duration: number | null };

/** Rewrites a talk file (JSON, as the import writes it) with `change` made to its fields. */
async function editTalk(file: string, change: (talk: TalkFields) => TalkFields): Promise<void> {
  const talk = JSON.parse(await readFile(file, 'utf8')) as TalkFields;
  await writeFile(file, JSON.stringify(change(talk), null, 2));
}

/** Starts the dev server on a built catalogue, retitles `file`, and times the two builds that follow; then the build after each of DEV_EDITS duration saves. */
async function editWhileServing(step: Extract<Step, { kind: 'dev' }>): Promise<Omit<StepResult, 'ms' | 'rss'>> {
  let saved = 0;
  const times: number[] = [];
  const builds: number[] = [];
  let ok = true;
  let edits = 0;
  const { startDev } = await import('./dev.ts');
  const dev = await startDev({
    content: step.content,
    out: step.out,
    cache: step.cache,
    templates: path.join(PROJECT_ROOT, 'templates'),
    host: '127.0.0.1',
    port: 0,
    log: (result) => {
      ok &&= result.ok;
      if (saved) times.push(performance.now() - saved);
      if (saved && result.ok) builds.push(result.summary.ms);
    },
  });
  try {
    saved = performance.now();
    await editTalk(step.file, (talk) => ({ ...talk, title: `${talk.title} (edited while serving)` }));
    // The watcher's first event: idle() counts from there.
    while (times.length === 0) await new Promise((r) => setTimeout(r, 10));
    await dev.idle();
    for (let n = 1; n <= DEV_EDITS; n++) {
      await editTalk(step.file, (talk) => ({ ...talk, duration: (talk.duration ?? 0) + 1 }));
      while (builds.length < 2 + n && ok) await new Promise((r) => setTimeout(r, 10));
      await dev.idle();
      edits = n;
    }
  } finally {
    await dev.close();
  }
  // The title's pages and search index, then one build per duration saved.
  const done = ok && times.length === 2 + edits && edits === DEV_EDITS;
  return { ok: done, pagesMs: times[0], searchMs: times[1], pagesBuildMs: builds[0], editBuildsMs: builds.slice(2) };
}

/**
 * Runs one step in a child process. The child reports its own peak RSS (its
 * threads included); the processes it starts (Pagefind's) are watched from
 * here, where the event loop is free: a peak is a high-water mark, so reading
 * it every 100 ms while such a process lives finds it.
 */
const measure = (step: Step) => measureProcess(step.kind, commandArgs('bench', '--step', JSON.stringify(step)));

/** Runs `node args` (which prints its result as a JSON line) and measures it: see measure. */
async function measureProcess(name: string, args: string[]): Promise<StepResult> {
  // The last step's writes are flushed first: the disk writing back a cold build's 600 MB would be counted against the next step.
  spawnSync('sync');
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = `${stderr}${chunk}`.slice(-2000)));
  let helperRss = 0;
  const watch = setInterval(() => {
    for (const pid of descendants(child.pid!)) helperRss = Math.max(helperRss, peakRss(pid));
  }, 100);
  const status = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve)).finally(() => clearInterval(watch));
  const ms = performance.now() - started;
  const line = stdout.trim().split('\n').pop() ?? '';
  if (status !== 0 || !line.startsWith('{')) throw new Error(`benchmark step failed (${name}): ${stderr}`);
  return { ...(JSON.parse(line) as Omit<StepResult, 'ms'>), ms, helperRss };
}

async function dirSize(dir: string, pattern = '**/*'): Promise<{ files: number; bytes: number }> {
  const entries = await fg(pattern, { cwd: dir, onlyFiles: true, stats: true });
  return { files: entries.length, bytes: entries.reduce((n, e) => n + (e.stats?.size ?? 0), 0) };
}

/** Five copies of an imported catalogue: each copy's events, slugs and ids are new. */
async function synthesise(from: string, to: string, copies: number): Promise<number> {
  const files = await fg('*/videos/*.json', { cwd: from });
  const categories = await fg('*/category.json', { cwd: from });
  let highest = 0;
  const talks = new Map<string, Record<string, unknown>>();
  for (const f of files) {
    const talk = JSON.parse(await readFile(path.join(from, f), 'utf8')) as Record<string, unknown>;
    talks.set(f, talk);
    highest = Math.max(highest, talk.id as number);
  }
  // The site's redirects lead to speakers' pages, which every copy has.
  await cp(path.join(from, REDIRECTS_DIR), path.join(to, REDIRECTS_DIR), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  let count = 0;
  for (let copy = 0; copy < copies; copy++) {
    const suffix = copy === 0 ? '' : `-copy-${copy}`;
    for (const c of categories) {
      const [event] = c.split('/') as [string];
      await mkdir(path.join(to, `${event}${suffix}`, 'videos'), { recursive: true });
      const category = JSON.parse(await readFile(path.join(from, c), 'utf8')) as { title: string; aliases?: string[] };
      // Old addresses stay with the first copy, as its talks' do: two events cannot have one.
      await writeFile(path.join(to, `${event}${suffix}`, 'category.json'), JSON.stringify({ ...category, title: `${category.title}${copy ? ` (copy ${copy})` : ''}`, aliases: copy ? [] : (category.aliases ?? []) }));
    }
    for (const [f, talk] of talks) {
      const [event, , file] = f.split('/') as [string, string, string];
      const slug = file.replace(/\.json$/, '');
      const copied = { ...talk, id: (talk.id as number) + copy * highest, aliases: copy ? [] : talk.aliases };
      await writeFile(path.join(to, `${event}${suffix}`, 'videos', `${slug}${suffix}.json`), JSON.stringify(copied));
      count++;
    }
  }
  return count;
}

export interface CatalogueFigures {
  name: string;
  talks: number;
  import?: StepResult;
  cold: StepResult;
  noop: StepResult;
  /** A talk's title changed: its pages, the lists it is on and the search index. */
  oneTalk: StepResult;
  /** A talk's duration changed: its API record and the pages that show it; search holds no duration. */
  oneField: StepResult;
  /** `npm run dev` with the catalogue built: a title saved, until the pages and then the search index are rebuilt. */
  dev: StepResult;
  /** A cold build with the .br/.gz copies (--compress), for servers that send files as they are. */
  compressed: StepResult & { files: number; bytes: number };
  output: { files: number; bytes: number };
  /** The issue's yardstick on the same machine (see bench-baseline.mjs): for the import only, which the issue measured it on. */
  baseline?: StepResult;
  /** Pages only (HTML), the part comparable with other generators' output. */
  pages: { files: number; bytes: number };
  search?: SearchFigures[];
}

/** The yardstick the issue's reference table starts with, run on `content` into a folder of its own and then removed. */
async function baselineOf(content: string, out: string): Promise<StepResult> {
  await rm(out, { recursive: true, force: true });
  const result = await measureProcess('baseline', [path.join(PROJECT_ROOT, 'src', 'bench-baseline.mjs'), content, out]);
  await rm(out, { recursive: true, force: true });
  return result;
}

/** Measures one catalogue: cold build, no-op build, one-talk build; and, for the import, the yardstick. */
async function benchCatalogue(name: string, content: string, outputs: string, imported?: StepResult): Promise<CatalogueFigures> {
  const out = path.join(outputs, `${name}-dist`);
  const cache = path.join(outputs, `${name}-cache`);
  await rm(out, { recursive: true, force: true });
  await rm(cache, { recursive: true, force: true });
  const baseline = imported ? await baselineOf(content, path.join(outputs, `${name}-baseline`)) : undefined;
  const cold = await measure({ kind: 'build', content, out, cache });
  const noop = await measure({ kind: 'build', content, out, cache });
  const [first] = (await fg('*/videos/*.json', { cwd: content })).sort();
  const file = path.join(content, first!);
  await editTalk(file, (talk) => ({ ...talk, title: `${talk.title} (edited)` }));
  const oneTalk = await measure({ kind: 'build', content, out, cache });
  await editTalk(file, (talk) => ({ ...talk, duration: (talk.duration ?? 0) + 60 }));
  const oneField = await measure({ kind: 'build', content, out, cache });
  const dev = await measure({ kind: 'dev', content, out, cache, file });
  const copiesOut = path.join(outputs, `${name}-compressed-dist`);
  const copiesCache = path.join(outputs, `${name}-compressed-cache`);
  const compressed = { ...(await measure({ kind: 'build', content, out: copiesOut, cache: copiesCache, compress: true })), ...(await dirSize(copiesOut)) };
  await rm(copiesOut, { recursive: true, force: true });
  await rm(copiesCache, { recursive: true, force: true });
  return { name, talks: cold.talks ?? 0, import: imported, cold, noop, oneTalk, oneField, dev, compressed, baseline, output: await dirSize(out), pages: await dirSize(out, '**/*.html') };
}

export interface BenchOptions {
  snapshot: string;
  work: string;
  /** Where the builds write (default: the work folder), e.g. a tmpfs to take the disk out of the figures. */
  outputs?: string;
  synthetic: boolean;
  log: (line: string) => void;
}

/** Marks a work folder the benchmark made: it empties no other. */
const WORK_MARK = '.video-catalogue-bench';

/**
 * Empties the work folder and unpacks the snapshot into it; the pyvideo/data folder. A folder the
 * benchmark did not make is refused unless empty, and so is one that holds the working folder.
 */
export async function unpackSnapshot(snapshot: string, work: string, log: (line: string) => void): Promise<string> {
  if (!statSync(snapshot, { throwIfNoEntry: false })?.isFile()) throw new OptionError(`--snapshot ${snapshot}: no such file`);
  const dir = path.resolve(work);
  if (!path.relative(dir, process.cwd()).startsWith('..')) throw new OptionError(`--work ${work} holds the working folder, which the benchmark would empty: name a scratch folder of its own`);
  if (existsSync(dir) && !existsSync(path.join(dir, WORK_MARK)) && readdirSync(dir).length > 0) {
    throw new OptionError(`--work ${work} holds files the benchmark did not write, and it empties its work folder: name a new or empty folder`);
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, WORK_MARK), '');
  log(`unpacking ${snapshot}`);
  const unpacked = spawnSync('tar', ['xzf', snapshot, '-C', dir]);
  if (unpacked.status !== 0) throw new Error(`cannot unpack ${snapshot}: ${unpacked.stderr}`);
  return path.join(dir, (await readdir(dir)).find((d) => existsSync(path.join(dir, d, 'NO_PUBLISH.json'))) ?? 'pyvideo-data');
}

export async function runBench(options: BenchOptions): Promise<CatalogueFigures[]> {
  const { work, log } = options;
  // Each step starts as `npm run` does (scripts/run.mjs), which chooses as this process was chosen: compiled, or through tsx's loader.
  log(COMPILED ? 'steps run the code compiled into lib/' : 'steps run the sources through tsx (lib/ is not current: npm run compile), each starting about 0.3 s later');
  const source = await unpackSnapshot(options.snapshot, work, log);
  if (options.outputs) for (const name of ['pyvideo', 'synthetic-5x']) for (const kind of ['dist', 'cache']) await rm(path.join(options.outputs, `${name}-${kind}`), { recursive: true, force: true });
  const content = path.join(work, 'pyvideo-content');
  log('importing');
  const imported = await measure({ kind: 'import', source, content });
  const figures: CatalogueFigures[] = [];
  log('building the import');
  const outputs = options.outputs ?? work;
  await mkdir(outputs, { recursive: true });
  const pyvideo = await benchCatalogue('pyvideo', content, outputs, imported);
  log('searching the import in headless Chromium');
  pyvideo.search = await searchOf(path.join(outputs, 'pyvideo-dist'));
  if (!pyvideo.search) log('no /usr/bin/chromium: search not measured');
  figures.push(pyvideo);
  if (options.synthetic) {
    const synthetic = path.join(work, 'synthetic-content');
    log('generating the synthetic catalogue (5×)');
    await synthesise(content, synthetic, 5);
    log('building the synthetic catalogue');
    const figuresOf = await benchCatalogue('synthetic-5x', synthetic, outputs);
    // Its search index is in shards (see SEARCH_SHARD_SIZE), which the search page searches together.
    log('searching the synthetic catalogue in headless Chromium');
    figuresOf.search = await searchOf(path.join(outputs, 'synthetic-5x-dist'));
    figures.push(figuresOf);
  }
  return figures;
}

/** Two searches as a visitor makes them (see benchSearch); none without Chromium. */
async function searchOf(dir: string): Promise<SearchFigures[] | undefined> {
  const { benchSearch } = await import('./bench-search.ts');
  const searches = [await benchSearch(dir, 'django', 'asyncio'), await benchSearch(dir, 'Raymond Hettinger', 'descriptors')];
  return searches.every((s) => s !== undefined) ? searches : undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const millis = (ms: number) => `${Math.round(ms)} ms`;
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

/** Times as their median and range: "0.18 s (0.15–0.24)". */
function spread(ms: number[]): string {
  if (ms.length === 0) return '–';
  const sorted = [...ms].sort((a, b) => a - b);
  const short = (v: number) => (v / 1000).toFixed(2);
  return `${seconds(sorted[Math.floor(sorted.length / 2)]!)} (${short(sorted[0]!)}–${short(sorted.at(-1)!)})`;
}

/**
 * The issue's figure for its raw script (21,715 talks), on the machine its targets were set on: shown
 * beside ours, not divided by it, as that script is not ours (its 300 MB suggest it held every file at
 * once; ours holds one at a time and writes a smaller page).
 */
const ISSUE_BASELINE = '2.40 s, 300 MB';

/** The CLI builds of a catalogue, whose peaks the table gives. */
const builds = (f: CatalogueFigures) => [f.cold, f.noop, f.oneTalk, f.oneField, f.compressed];

export function formatTable(figures: CatalogueFigures[]): string {
  const header = ['catalogue', 'talks', 'import', 'cold build', 'no-op build', 'one title changed', 'one duration changed', 'dev server, title saved: pages (their build) / search', `dev server, then a duration saved ${DEV_EDITS} times: build, median (range)`, 'talks/s (cold)', 'peak RSS', 'Pagefind peak RSS', 'output files', 'output MiB', 'of which pages MiB', 'cold build, --compress', 'its files', 'its MiB'];
  const rows = [
    header,
    header.map((_, i) => (i === 0 ? '---' : '---:')),
    ...figures.map((f) => [
      f.name,
      formatCount(f.talks),
      f.import ? seconds(f.import.ms) : '–',
      seconds(f.cold.ms),
      seconds(f.noop.ms),
      seconds(f.oneTalk.ms),
      seconds(f.oneField.ms),
      `${seconds(f.dev.pagesMs ?? NaN)} (${seconds(f.dev.pagesBuildMs ?? NaN)}) / ${seconds(f.dev.searchMs ?? NaN)}`,
      spread(f.dev.editBuildsMs ?? []),
      formatCount(Math.round(f.talks / (f.cold.ms / 1000))),
      mb(Math.max(...builds(f).map((step) => step.rss))),
      mb(Math.max(...builds(f).map((step) => step.helperRss ?? 0))),
      formatCount(f.output.files),
      (f.output.bytes / 1024 / 1024).toFixed(0),
      (f.pages.bytes / 1024 / 1024).toFixed(0),
      seconds(f.compressed.ms),
      formatCount(f.compressed.files),
      (f.compressed.bytes / 1024 / 1024).toFixed(0),
    ]),
  ];
  const table = (r: string[][]) => r.map((row) => `| ${row.join(' | ')} |`).join('\n');
  const tables = [table(rows)];
  const measured = figures.filter((f) => f.baseline);
  if (measured.length > 0) {
    tables.push(
      table([
        ['yardstick: raw Node script, one thread, no Markdown, one JSON + one HTML page per talk', 'talks', 'wall', 'peak RSS', 'the issue’s raw script, on its machine'],
        ['---', '---:', '---:', '---:', '---:'],
        ...measured.map((f) => {
          const b = f.baseline!;
          return [f.name, formatCount(b.talks ?? 0), seconds(b.ms), mb(b.rss), ISSUE_BASELINE];
        }),
      ]),
    );
  }
  const searches = figures.flatMap((f) => (f.search ?? []).map((s) => ({ name: f.name, ...s })));
  if (searches.length > 0) {
    tables.push(
      table([
        ['search (headless Chromium)', 'query', 'first result, cold page', 'bytes for it', 'per keystroke (median)', 'per keystroke (max)'],
        ['---', '---', '---:', '---:', '---:', '---:'],
        ...searches.map((s) => [s.name, s.query, millis(s.firstResultMs), `${Math.round(s.firstQueryBytes / 1024)} KiB`, millis(s.keystrokeMs.median), millis(s.keystrokeMs.max)]),
      ]),
    );
  }
  return tables.join('\n\n');
}
