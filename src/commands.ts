// The commands behind the npm scripts: their options, and what each does
// with them. The files in scripts/ only parse argv and call these.
import path from 'node:path';
import { build, DEFAULT_BASE_URL, loadTheme, type BuildResult } from './build.ts';
import { startDev } from './dev.ts';
import { formatMiB, formatSeconds } from './cli.ts';
import { importPyvideo } from './importer.ts';
import { isLive, loadContent } from './load.ts';
import { terminalProgress } from './progress.ts';
import { SiteRenderer } from './render.ts';
import { startServer, type RunningServer } from './server.ts';

const contentOptions = {
  content: { type: 'string', value: 'DIR', description: 'content folder to read', default: 'content' },
  out: { type: 'string', value: 'DIR', description: 'output folder, replaced as a whole when the build succeeds', default: 'dist' },
  templates: { type: 'string', value: 'DIR', description: 'templates folder (eta templates and assets/)', default: 'templates' },
} as const;

const siteOptions = {
  'base-url': { type: 'string', value: 'URL', description: 'absolute URL the site is served at, for canonical links, feeds and sitemaps', default: DEFAULT_BASE_URL },
} as const;

const listenOptions = {
  port: { type: 'string', value: 'N', description: 'port to listen on; 0 picks a free one', default: process.env.PORT ?? '8080' },
  host: { type: 'string', value: 'H', description: 'address to listen on', default: '127.0.0.1' },
} as const;

const incrementalOptions = {
  cache: { type: 'string', value: 'DIR', description: 'where builds remember what they wrote, for incremental builds', default: '.cache' },
  clean: { type: 'boolean', description: 'ignore the cache and write every file' },
} as const;

export const buildCommand = {
  name: 'build',
  summary:
    'Validate every content file, then write the API records and the site into the output folder.\nOn any content error nothing is written and the previous output stays as it was.\nLater builds rewrite only the files whose content, template or code changed.',
  options: { ...contentOptions, ...siteOptions, ...incrementalOptions },
  notes: 'Exit code: 0 on success, 1 on content errors or a failure, 2 for a bad option.',
};

export const checkCommand = {
  name: 'check',
  summary: 'Validate every content file and compile the templates, reporting every problem, one per line as file:line:col.\nWrites nothing (--out is accepted so build and check share their options).',
  options: contentOptions,
  notes: 'Exit code: 0 when everything is valid, 1 when any file has a problem, 2 for a bad option.',
};

export const serveCommand = {
  name: 'serve',
  summary: 'Serve a built output folder with the API headers of the contract (GET, HEAD, OPTIONS; PUT and PATCH answer 401).',
  options: { dir: { type: 'string', value: 'DIR', description: 'folder to serve', default: 'dist' }, ...listenOptions },
} as const;

export const startCommand = {
  name: 'start',
  summary: 'Build the catalogue, then serve the output folder.',
  options: { ...contentOptions, ...siteOptions, ...incrementalOptions, ...listenOptions },
};

type BuildValues = { content: string; out: string; templates: string };

export async function runBuild(values: BuildValues & { cache: string; clean?: boolean; 'base-url': string }): Promise<number> {
  const baseUrl = checkBaseUrl(values['base-url']);
  return reportBuild(await build({ ...values, baseUrl, progress: terminalProgress() }), values);
}

/** An absolute http(s) URL without query or fragment; a trailing slash is dropped. */
export function checkBaseUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) throw new Error(`--base-url must be an absolute http or https URL such as https://talks.example.org, got "${text}"`);
  return text.replace(/\/+$/, '');
}

/** Prints a build's errors, or its one-line summary; returns the exit code. */
function reportBuild(result: BuildResult, values: BuildValues): number {
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(`${error}\n`);
    const n = result.errors.length;
    process.stderr.write(`build failed: ${n} ${n === 1 ? 'error' : 'errors'} in ${values.content}; ${values.out} left as it was\n`);
    return 1;
  }
  const s = result.summary;
  const changes = s.incremental ? `${s.written} written, ${s.unchanged} unchanged, ${s.removed} removed` : `${s.written} written (full build)`;
  process.stdout.write(
    `built ${s.talks} talks (${s.drafts} drafts not published) from ${s.events} events into ${path.normalize(values.out)}: ${s.outputs} files, ${changes}, ${formatMiB(s.bytes)} in ${formatSeconds(s.ms)}\n`,
  );
  return 0;
}

export async function runCheck(values: BuildValues): Promise<number> {
  const started = performance.now();
  const { catalogue, errors, files } = await loadContent(values.content);
  for (const error of errors) process.stderr.write(`${error}\n`);
  if (errors.length > 0) {
    process.stderr.write(`check failed: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'} in ${files} files\n`);
    return 1;
  }
  new SiteRenderer((await loadTheme(values.templates)).templates, { baseUrl: DEFAULT_BASE_URL });
  const live = catalogue.talks.filter(isLive).length;
  process.stdout.write(
    `checked ${files} files: ${catalogue.events.length} events, ${live} live talks, ${catalogue.talks.length - live} drafts, no problems (${formatSeconds(performance.now() - started)})\n`,
  );
  return 0;
}

export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`--port must be a number from 0 to 65535, got "${text}"`);
  return port;
}

/** Starts the server, prints its URL, and stops it cleanly on SIGINT or SIGTERM. */
export async function runServer(values: { dir: string; host: string; port: string }): Promise<RunningServer> {
  const running = await startServer({ dir: values.dir, host: values.host, port: parsePort(values.port) });
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Printed last: whoever waits for the URL may signal the server as soon as they see it.
  process.stdout.write(`serving ${values.dir} at ${running.url} (Ctrl+C to stop)\n`);
  return running;
}

export const importCommand = {
  name: 'import',
  args: 'pyvideo <path-to-pyvideo-data>',
  summary:
    'Import a checkout (or unpacked snapshot) of pyvideo/data into the content folder.\nIds are kept forever: talks already imported keep their id, slug and dates; new talks get new ids above the highest ever given.\nNothing is written when any record cannot be converted; files whose bytes would not change are not touched.',
  options: { content: { type: 'string', value: 'DIR', description: 'content folder to write', default: 'content' } },
  notes: 'Exit code: 0 on success, 1 when a record cannot be converted (nothing written), 2 for bad arguments.',
} as const;

export async function runImport(values: { content: string; _: string[] }): Promise<number> {
  const [kind, source, ...rest] = values._;
  if (kind !== 'pyvideo' || !source || rest.length > 0) {
    process.stderr.write('import: expected "pyvideo <path-to-pyvideo-data>"; run "npm run import -- --help"\n');
    return 2;
  }
  const started = performance.now();
  const report = await importPyvideo({ source, content: values.content });
  for (const error of report.errors) process.stderr.write(`${path.join(source, error.file)}: ${error.reason}\n`);
  if (!report.ok) {
    process.stderr.write(`import failed: ${report.errors.length} ${report.errors.length === 1 ? 'record' : 'records'} could not be converted; nothing was written\n`);
    return 1;
  }
  const notes = [...report.notes].sort(([a], [b]) => (a < b ? -1 : 1));
  if (notes.length > 0) {
    process.stdout.write('what the import repaired or moved (count, first example):\n');
    for (const [kind, { count, example }] of notes) process.stdout.write(`  ${String(count).padStart(6)}  ${kind}  (${example})\n`);
  }
  process.stdout.write(
    `imported ${report.events} events, ${report.talks} talks (${report.drafts} drafts) into ${values.content}: ${report.keptIds} kept ids, ${report.newIds} new ids, ${report.changed} changed, ${report.removed} removed; ${report.written} files written, ${report.unchanged} unchanged in ${formatSeconds(performance.now() - started)}\n`,
  );
  return 0;
}

export const devCommand = {
  name: 'dev',
  summary:
    'Build, serve, and rebuild incrementally whenever a file under the content or templates folder changes; open pages reload by themselves.\nA content error is shown in the terminal and on the page, and the last good build stays served.',
  options: { ...contentOptions, ...siteOptions, ...incrementalOptions, ...listenOptions },
} as const;

export async function runDev(values: BuildValues & { cache: string; host: string; port: string; 'base-url': string }): Promise<void> {
  const dev = await startDev({
    baseUrl: checkBaseUrl(values['base-url']),
    content: values.content,
    out: values.out,
    templates: values.templates,
    cache: values.cache,
    host: values.host,
    port: parsePort(values.port),
    log: (result) => reportBuild(result, values),
  });
  const stop = () => void dev.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.write(`dev server at ${dev.url}, watching ${values.content} and ${values.templates} (Ctrl+C to stop)\n`);
}
