// The launcher (scripts/run.mjs) that the npm scripts start, and the compiled code it runs
// (scripts/compile.mjs, lib/), in a copy of the project so that the checkout's lib/ is left alone.
import { spawn, spawnSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { once } from 'node:events';
import { access, appendFile, cp, mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { describe, expect, it } from 'vitest';
import { compiledIsCurrent, sourceDigest, STAMP, swapIn } from '../scripts/compiled.mjs';
import { contentHashes, DEMO_CONTENT, ROOT, tempDir } from './helpers.ts';

const node = (args: string[], cwd = ROOT) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });

/**
 * A copy of the project's code and settings, its templates linked, without lib/; its packages linked, or, with `tsc`,
 * all but TypeScript, whose compiler is that script (null: TypeScript not installed, as after npm ci --omit=dev).
 */
async function projectCopy(tsc?: string | null): Promise<string> {
  const root = await tempDir('vc-project-');
  for (const name of ['src', 'scripts']) await cp(path.join(ROOT, name), path.join(root, name), { recursive: true });
  for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.lib.json']) await cp(path.join(ROOT, name), path.join(root, name));
  await symlink(path.join(ROOT, 'templates'), path.join(root, 'templates'));
  const modules = path.join(root, 'node_modules');
  if (tsc === undefined) {
    await symlink(path.join(ROOT, 'node_modules'), modules);
    return root;
  }
  await mkdir(modules);
  for (const name of await readdir(path.join(ROOT, 'node_modules'))) if (name !== 'typescript') await symlink(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  if (tsc !== null) {
    await mkdir(path.join(modules, 'typescript', 'bin'), { recursive: true });
    await writeFile(path.join(modules, 'typescript', 'package.json'), '{ "name": "typescript" }\n');
    await writeFile(path.join(modules, 'typescript', 'bin', 'tsc'), tsc);
  }
  return root;
}

/** A compiler that finds an error. */
const FAILING_TSC = "process.stdout.write('src/errors.ts(2,24): error TS1109: Expression expected.\\n');\nprocess.exitCode = 2;\n";

/** A compiler that writes its first file, then works on until it is stopped. */
const SLOW_TSC = `const fs = require('node:fs');
const path = require('node:path');
const out = path.resolve(process.argv[process.argv.indexOf('--outDir') + 1]);
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'started'), '');
setTimeout(() => {}, 20_000);
`;

/** The compiles' temporary folders in `root`. */
const temps = async (root: string) => (await readdir(root)).filter((name) => name.startsWith('.lib-'));

/** A compiler (tsc -p CONFIG --outDir OUT) that compiles src/cli.ts beside CONFIG as it reads it while an edit of the project's is saved, then undone. */
const EDITING_TSC = `const fs = require('node:fs');
const path = require('node:path');
const option = (name) => path.resolve(process.argv[process.argv.indexOf(name) + 1]);
const edited = path.resolve(__dirname, '../../../src/cli.ts');
const saved = fs.readFileSync(edited);
fs.writeFileSync(edited, saved + '// saved while compiling\\n');
fs.mkdirSync(path.join(option('--outDir'), 'src'), { recursive: true });
fs.copyFileSync(path.join(path.dirname(option('-p')), 'src', 'cli.ts'), path.join(option('--outDir'), 'src', 'cli.js'));
fs.writeFileSync(edited, saved);
`;

/** The demo with an event of `count` more talks: enough for the search index's thread and the render threads. */
async function largeContent(count: number): Promise<string> {
  const content = await tempDir('vc-content-');
  await cp(DEMO_CONTENT, content, { recursive: true });
  const event = path.join(content, 'bulk-conf-2026');
  await mkdir(path.join(event, 'videos'), { recursive: true });
  await writeFile(path.join(event, 'category.json'), JSON.stringify({ title: 'Bulk Conf 2026', start_date: '2026-05-01', end_date: '2026-05-02' }));
  for (let n = 0; n < count; n++) {
    const talk = { id: 100_000 + n, title: `Talk number ${n} about ${['parsers', 'queues', 'caches'][n % 3]}`, speakers: [`Speaker ${n % 97}`], tags: [`topic-${n % 13}`], language: 'English', summary: `The ${n}th talk.`, recorded: '2026-05-01', added: '2026-05-10T10:00:00', updated: '2026-05-10T10:00:00', duration: 1200 + n };
    await writeFile(path.join(event, 'videos', `talk-${n}.json`), JSON.stringify(talk, null, 2));
  }
  return content;
}

describe('compiledIsCurrent', () => {
  it('holds while lib/ was stamped with the sources as they are: their bytes, not their times', async () => {
    const root = await tempDir();
    await mkdir(path.join(root, 'src', 'sub'), { recursive: true });
    await mkdir(path.join(root, 'scripts'));
    await mkdir(path.join(root, 'lib'));
    await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(root, 'scripts', 'b.ts'), 'import "../src/a.ts";\n');
    await writeFile(path.join(root, 'src', 'notes.md'), 'not a source\n');
    for (const name of ['tsconfig.json', 'tsconfig.lib.json']) await writeFile(path.join(root, name), '{}\n');
    expect(compiledIsCurrent(root)).toBe(false);
    await writeFile(path.join(root, 'lib', STAMP), sourceDigest(root));
    expect(compiledIsCurrent(root)).toBe(true);
    await utimes(path.join(root, 'src', 'a.ts'), new Date(), new Date(2000, 0, 1));
    await writeFile(path.join(root, 'src', 'notes.md'), 'changed\n');
    expect(compiledIsCurrent(root)).toBe(true);
    for (const [file, edit] of [
      ['src/a.ts', 'export const a = 2;\n'],
      ['scripts/b.ts', 'import "../src/a.ts"; // edited\n'],
      ['tsconfig.lib.json', '{ "compilerOptions": {} }\n'],
      ['src/c.ts', 'export {};\n'],
      ['src/sub/d.ts', 'export {};\n'],
    ] as const) {
      const before = await readFile(path.join(root, file), 'utf8').catch(() => undefined);
      await writeFile(path.join(root, file), edit);
      expect(compiledIsCurrent(root), file).toBe(false);
      await writeFile(path.join(root, 'lib', STAMP), sourceDigest(root));
      expect(compiledIsCurrent(root), file).toBe(true);
      if (before !== undefined) await writeFile(path.join(root, file), before);
      await writeFile(path.join(root, 'lib', STAMP), sourceDigest(root));
    }
  });
});

describe('.gitignore', () => {
  it("leaves out the compiled code and compile's temporary folders at the project's root, and no other folder named lib", async () => {
    const repo = await tempDir();
    expect(spawnSync('git', ['init', '-q'], { cwd: repo }).status).toBe(0);
    await cp(path.join(ROOT, '.gitignore'), path.join(repo, '.gitignore'));
    const ignored = (file: string) => spawnSync('git', ['check-ignore', '-q', file], { cwd: repo }).status === 0;
    expect(ignored('lib/src/build.js')).toBe(true);
    expect(ignored('.lib-1234/src/build.js')).toBe(true);
    expect(ignored('templates/assets/lib/player.js')).toBe(false);
    expect(ignored('content/lib/videos/talk.json')).toBe(false);
  });
});

describe('scripts/compile.mjs', () => {
  it('refuses an option, with exit code 2, and compiles nothing', async () => {
    const root = await projectCopy();
    const run = node([path.join(root, 'scripts', 'compile.mjs'), '--watch'], root);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--watch');
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('stamps lib/ with the digest of the bytes it compiled: an edit saved and undone meanwhile is neither compiled nor stamped', async () => {
    const root = await projectCopy(EDITING_TSC);
    const compile = node([path.join(root, 'scripts', 'compile.mjs')], root);
    expect(compile.status, compile.stderr).toBe(0);
    expect(compiledIsCurrent(root)).toBe(true);
    expect(await readFile(path.join(root, 'lib', 'src', 'cli.js'), 'utf8')).toBe(await readFile(path.join(root, 'src', 'cli.ts'), 'utf8'));
    expect(await temps(root)).toEqual([]);
  });

  it('keeps lib/ as it was when a source does not compile, and says so', async () => {
    const root = await projectCopy();
    await mkdir(path.join(root, 'lib'));
    await writeFile(path.join(root, 'lib', STAMP), 'earlier');
    await appendFile(path.join(root, 'src', 'errors.ts'), '\nexport const broken = ;\n');
    const compile = node([path.join(root, 'scripts', 'compile.mjs')], root);
    expect(compile.status).toBe(1);
    // Named as in the project, not in the compile's copy of it.
    expect(compile.stdout).toMatch(/^src\/errors\.ts\(/m);
    expect(compile.stderr).toBe("compile: TypeScript's errors are above; lib/ is left as it was, and the npm scripts run the sources through tsx while it is not compiled from them\n");
    expect(await readFile(path.join(root, 'lib', STAMP), 'utf8')).toBe('earlier');
    expect(await temps(root)).toEqual([]);
  }, 60_000);

  it.each([
    ['TypeScript is not installed', null],
    ["TypeScript's errors are above", FAILING_TSC],
  ])('%s: leaves lib/ as it was and exits 1, but 0 as npm install runs it (prepare), which goes on', async (reason, tsc) => {
    const root = await projectCopy(tsc);
    await mkdir(path.join(root, 'lib'));
    await writeFile(path.join(root, 'lib', STAMP), 'earlier');
    const compile = node([path.join(root, 'scripts', 'compile.mjs')], root);
    expect(compile.status).toBe(1);
    expect(compile.stderr).toMatch(new RegExp(`^compile: ${reason}.*; lib/ is left as it was, and the npm scripts run the sources through tsx while it is not compiled from them\n$`));
    // As npm runs a script: its command line, in a shell, in the project's folder.
    const { prepare } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).scripts;
    const install = spawnSync('sh', ['-c', prepare], { cwd: root, encoding: 'utf8' });
    expect(install.status).toBe(0);
    expect(install.stderr).toContain(`compile: ${reason}`);
    expect(install.stderr).toContain('(npm install goes on: the commands run without it, only slower to start)');
    expect(await readFile(path.join(root, 'lib', STAMP), 'utf8')).toBe('earlier');
    expect(await temps(root)).toEqual([]);
  });
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('stopped by %s, stops the compiler, removes its temporary folder, leaves lib/ as it was and exits %i', async (signal, status) => {
    const root = await projectCopy(SLOW_TSC);
    await mkdir(path.join(root, 'lib'));
    await writeFile(path.join(root, 'lib', STAMP), 'earlier');
    const compile = spawn(process.execPath, [path.join(root, 'scripts', 'compile.mjs')], { cwd: root, stdio: 'ignore' });
    const started = path.join(root, `.lib-${compile.pid}`, 'lib', 'started');
    for (let wait = 0; await access(started).then(() => false, () => true); wait++) {
      expect(wait, 'the compiler never started').toBeLessThan(200);
      await sleep(50);
    }
    compile.kill(signal);
    expect(await once(compile, 'exit')).toEqual([status, null]);
    expect(await temps(root)).toEqual([]);
    expect(await readFile(path.join(root, 'lib', STAMP), 'utf8')).toBe('earlier');
  });

  it('removes the temporary folders of compiles killed at once (SIGKILL), not those of a compile at work', async () => {
    const root = await projectCopy(null);
    const dead = spawnSync('true').pid;
    for (const name of [`.lib-${dead}`, `.lib-${dead}-old`, `.lib-${process.pid}`]) await mkdir(path.join(root, name, 'src'), { recursive: true });
    node([path.join(root, 'scripts', 'compile.mjs')], root);
    expect(await temps(root)).toEqual([`.lib-${process.pid}`]);
  });
});

describe('swapIn', () => {
  it("keeps the lib/ of the compile that ends last when another compile's lands between its two renames, and fails neither", async () => {
    const root = await tempDir('vc-swap-');
    const stamped = async (dir: string, stamp: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, STAMP), stamp);
    };
    const stampOf = (dir: string) => readFile(path.join(dir, STAMP), 'utf8');
    await stamped(path.join(root, 'lib'), 'earlier');
    await stamped(path.join(root, '.lib-1', 'lib'), 'first');
    await stamped(path.join(root, '.lib-2', 'lib'), 'second');
    // The second compile moves lib/ aside; the first one's swap comes before the second puts its own in place.
    let landed = false;
    swapIn(path.join(root, '.lib-2', 'lib'), path.join(root, '.lib-2'), root, (from, to) => {
      if (!landed && to === path.join(root, 'lib')) {
        landed = true;
        swapIn(path.join(root, '.lib-1', 'lib'), path.join(root, '.lib-1'), root);
      }
      renameSync(from, to);
    });
    expect(landed).toBe(true);
    expect(await stampOf(path.join(root, 'lib'))).toBe('second');
    expect(await stampOf(path.join(root, '.lib-2', 'old-0'))).toBe('earlier');
    expect(await stampOf(path.join(root, '.lib-2', 'old-1'))).toBe('first');
    expect((await readdir(root)).sort()).toEqual(['.lib-1', '.lib-2', 'lib']);
  });
});

describe('scripts/run.mjs', () => {
  it('refuses a command that is not one of the npm scripts, with exit code 2', () => {
    for (const args of [[], ['nosuch'], ['../scripts/build'], ['compiled']]) {
      const run = node([path.join(ROOT, 'scripts', 'run.mjs'), ...args]);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Usage: node scripts/run.mjs <command>');
    }
  });

  it('gives the command its own options', () => {
    const help = node([path.join(ROOT, 'scripts', 'run.mjs'), 'build', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run build -- \[options\]/);
    const bad = node([path.join(ROOT, 'scripts', 'run.mjs'), 'check', '--no-such-option']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--no-such-option');
  });

  it('runs lib/ compiled by scripts/compile.mjs while it is current, the sources once one changes; both build the same site', async () => {
    const root = await projectCopy();
    // A command that fails in Node's code called from its fifth line, the second once its interface is compiled away.
    await writeFile(path.join(root, 'scripts', 'fail.ts'), "interface Failure {\n  size: unknown;\n}\nconst failure: Failure = { size: 'none' };\nBuffer.alloc(failure.size as number);\n");
    const compile = node([path.join(root, 'scripts', 'compile.mjs')], root);
    expect(compile.status, compile.stderr).toBe(0);
    expect(compiledIsCurrent(root)).toBe(true);
    expect(await readFile(path.join(root, 'lib', STAMP), 'utf8')).toBe(sourceDigest(root));
    // Its stack trace names the line of its source, through lib/'s source maps, as run through tsx; headed as Node heads it.
    const failed = node([path.join(root, 'scripts', 'run.mjs'), 'fail'], root);
    expect(failed.stderr).toContain('TypeError [ERR_INVALID_ARG_TYPE]: The "size" argument must be of type number.');
    expect(failed.stderr).toContain(`\n    at ${pathToFileURL(path.join(root, 'scripts', 'fail.ts')).href}:5:8\n`);
    // So do a render thread's, which it formats itself before they reach the main thread as text.
    const threads = new Piscina({ filename: pathToFileURL(path.join(root, 'lib', 'src', 'render-worker.js')).href });
    const thrown = await threads.run({ templatesKey: '', templates: {}, site: {} }).catch((err: Error) => err);
    await threads.destroy();
    expect(thrown.stack).toContain(`\n    at new SiteRenderer (${pathToFileURL(path.join(root, 'src', 'render.ts')).href}:`);
    expect(thrown.stack).not.toContain('/lib/');
    // The sources say when they run: lib/ was compiled before this line. So does lib/, whose stamp is of the sources alone.
    await appendFile(path.join(root, 'src', 'cli.ts'), "\nprocess.stderr.write('run from the sources\\n');\n");
    await appendFile(path.join(root, 'lib', 'src', 'cli.js'), "\nprocess.stderr.write('run from lib\\n');\n");
    const content = await largeContent(2100);
    const work = await tempDir();
    const buildIn = (from: string, name: string) => node([path.join(from, 'scripts', 'run.mjs'), 'build', '--content', content, '--out', path.join(work, name), '--cache', path.join(work, `${name}-cache`)], from);
    const sources = buildIn(root, 'sources');
    expect(sources.status, sources.stderr).toBe(0);
    expect(sources.stderr).toContain('run from the sources');
    expect(sources.stderr).not.toContain('run from lib');
    // Put back as compiled: lib/ is current again, and the search index's thread and the render threads run from it.
    await writeFile(path.join(root, 'src', 'cli.ts'), await readFile(path.join(ROOT, 'src', 'cli.ts')));
    expect(compiledIsCurrent(root)).toBe(true);
    const compiled = buildIn(root, 'compiled');
    expect(compiled.status, compiled.stderr).toBe(0);
    expect(compiled.stderr).not.toContain('run from the sources');
    expect(compiled.stderr).toContain('run from lib');
    expect(compiled.stdout).toMatch(/built 2,142 talks/);
    expect(await contentHashes(path.join(work, 'compiled'))).toEqual(await contentHashes(path.join(work, 'sources')));
  }, 180_000);
});
