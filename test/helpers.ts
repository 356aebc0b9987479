// Shared test fixtures: temporary folders, fingerprints of folder trees, the commands as npm runs them.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import sanitizeHtml from 'sanitize-html';
import { afterEach } from 'vitest';
import { renderMarkdown, renderMarkdownSanitised, type HeadingTop } from '../src/markdown.ts';
import { commandArgs } from '../src/program.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DEMO_CONTENT = path.join(ROOT, 'content');
export const TEMPLATES = path.join(ROOT, 'templates');
export const BAD_FIXTURES = path.join(ROOT, 'test', 'fixtures', 'bad');

const made: string[] = [];

/** A fresh temporary folder, removed after the current test. */
export async function tempDir(prefix = 'vc-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * A catalogue in `content` of `events` events of `perEvent` talks each, `Talk <id>` with ids from 1: enough
 * of them (from WORKER_THRESHOLD in src/build.ts, 400 outputs to render) and a build renders them in worker threads.
 */
export async function writeManyTalks(content: string, events: number, perEvent: number): Promise<void> {
  for (let event = 1; event <= events; event++) {
    const videos = path.join(content, `event-${event}`, 'videos');
    await mkdir(videos, { recursive: true });
    await writeFile(path.join(content, `event-${event}`, 'category.json'), JSON.stringify({ title: `Event ${event}` }));
    for (let n = 1; n <= perEvent; n++) {
      const id = (event - 1) * perEvent + n;
      const talk = { id, title: `Talk ${id}`, speakers: [`Speaker ${n % 37}`], tags: [`topic-${n % 11}`], description: 'About it.', recorded: `2024-0${(n % 9) + 1}-10`, added: '2025-01-01T00:00:00', updated: '2025-01-01T00:00:00.000' };
      await writeFile(path.join(videos, `talk-${id}.json`), JSON.stringify(talk));
    }
  }
}

/** Where a command runs: its folder (the project's), its environment in place of this process's, and Node's own options (`--import` a fixture). */
interface CommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  node?: string[];
}

/**
 * Node's arguments and options for `npm run <command> -- <args>` as npm starts it, without colours: scripts/run.mjs,
 * which runs lib/ where it is current (as in CI, after npm ci compiled it), else the sources through tsx, so that the
 * tests run what users run.
 */
const commandProcess = (command: string, args: string[], { cwd = ROOT, env = process.env, node = [] }: CommandOptions) =>
  [[...node, ...commandArgs(command, ...args)], { cwd, env: { FORCE_COLOR: '0', ...env } }] as const;

/** Runs a command as `npm run` does, and waits for it. */
export function runCommand(command: string, args: string[], options: CommandOptions = {}) {
  const [argv, spawnOptions] = commandProcess(command, args, options);
  return spawnSync(process.execPath, argv, { ...spawnOptions, encoding: 'utf8' });
}

/** Starts a command as `npm run` does. */
export function startCommand(command: string, args: string[], options: CommandOptions = {}) {
  return spawn(process.execPath, ...commandProcess(command, args, options));
}

/**
 * Every file below `dir`, with what `describe` says of it (given its absolute path). Read at once: a promise per
 * file takes several times the CPU, over thousands of files a test compares again and again (22,000 of an import).
 */
export async function describeFiles(dir: string, describe: (file: string) => string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await fg('**/*', { cwd: dir, dot: true, onlyFiles: true })).sort()) out[f] = describe(path.join(dir, f));
  return out;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file below `dir` with its bytes' hash, inode and mtime: equal fingerprints mean nothing was touched. */
export function fingerprint(dir: string): Promise<Record<string, string>> {
  return describeFiles(dir, (file) => {
    const s = statSync(file);
    return `${sha256(file)} ${s.ino} ${s.mtimeMs}`;
  });
}

/** Every file below `dir` with its bytes' hash only. */
export function contentHashes(dir: string): Promise<Record<string, string>> {
  return describeFiles(dir, sha256);
}

/** The cases of the bad content corpus: one folder each, with content/ and expected.txt. */
export const BAD_CASES = fg.sync('*', { cwd: BAD_FIXTURES, onlyDirectories: true }).sort();

/** The pyvideo/data snapshot beside the checkout, as CI provides it. */
export const PYVIDEO_SNAPSHOT = path.join(ROOT, '..', 'shared', 'data', 'pyvideo-data.tar.gz');

/** HTML as sanitize-html writes it, keeping every tag and attribute: equal for the same markup, whatever its quoting and entities. */
const canonicalHtml = (html: string) => sanitizeHtml(html, { allowedTags: false, allowedAttributes: false, allowVulnerableTags: true });

/** The sources renderMarkdown renders to other markup than sanitize-html makes of marked's output. */
export function unlikeSanitised(sources: string[], top?: HeadingTop): string[] {
  return sources.filter((source) => canonicalHtml(renderMarkdown(source, top)) !== canonicalHtml(renderMarkdownSanitised(source, top)));
}
