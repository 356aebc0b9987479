// End to end: the real commands as a user runs them, and the real server they start.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { RECORD_FILE } from '../src/headers.ts';
import { API_FIELDS } from '../src/record.ts';
import { BAD_FIXTURES, DEMO_CONTENT, fingerprint, ROOT, runCommand, startCommand, tempDir } from './helpers.ts';
import { raw } from './http.ts';

const cli = (script: string, args: string[], cwd = ROOT) => runCommand(script, args, { cwd });

/** Build options that keep the incremental cache in a temporary folder, not the checkout's. */
const buildArgs = (out: string) => ['--content', DEMO_CONTENT, '--out', out, '--cache', path.join(path.dirname(out), 'cache')];

/** Starts a long-running command and resolves with its URL once it prints one. */
function startCli(script: string, args: string[]) {
  const child = startCommand(script, args);
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
      if (m) resolve(m[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exited, output: () => output };
}

/** Starts a build, sends it SIGINT once `writing` finds it writing, and resolves with its exit code and what it said on stderr. */
async function interruptedBuild(args: string[], writing: () => Promise<boolean>) {
  const child = startCommand('build', args);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  while (!(await writing())) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGINT');
  return { code: await exited, stderr };
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  'string|null': (v) => v === null || typeof v === 'string',
  'int|null': (v) => v === null || Number.isInteger(v),
  int: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  strings: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'),
};
const CONTRACT_TYPES: Record<string, string> = Object.fromEntries(
  API_FIELDS.map((f) => [
    f,
    f === 'speakers' || f === 'tags'
      ? 'strings'
      : f === 'id' || f === 'state'
        ? 'int'
        : f === 'duration' || f.endsWith('_length')
          ? 'int|null'
          : f.endsWith('_download_only')
            ? 'boolean'
            : /^video_.*_url$/.test(f) || f === 'recorded'
              ? 'string|null'
              : 'string',
  ]),
);

describe('commands', () => {
  it.each(['build', 'check', 'serve', 'start', 'dev', 'import', 'token', 'bench'])('%s --help explains the command and exits 0', (script) => {
    const result = cli(script, ['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: npm run ${script} -- (\\S.* )?\\[options\\]`));
    expect(result.stdout).toContain('--help');
  });

  it('start --help gives the exit codes of its build, and serve --help says which options count only with --tokens', () => {
    expect(cli('start', ['--help']).stdout).toContain('130 or 143 when stopped by SIGINT or SIGTERM during the build');
    expect(cli('serve', ['--help']).stdout).toContain('--content, --templates, --cache, --compress, --search-shard and the host --base-url names count only with --tokens');
  });

  it.each(['serve', 'start', 'dev'])('%s --help says that --port defaults to $PORT, as the README does', (script) => {
    const help = (port?: string) => {
      const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
      if (port === undefined) delete env.PORT;
      else env.PORT = port;
      return runCommand(script, ['--help'], { env }).stdout;
    };
    expect(help()).toMatch(/--port N +port to listen on \(\$PORT when set\); 0 picks a free one \(default: 8080\)/);
    expect(help('9123')).toContain('(default: 9123)');
  });

  it('import: a missing source, or one that is not pyvideo/data, is a clear error that removes nothing; bad arguments exit 2', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const before = await fingerprint(content);
    const missing = cli('import', ['pyvideo', '/no/such/folder', '--content', content]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('import: /no/such/folder: no such folder; nothing was written\n');
    // An empty folder would otherwise be a snapshot without events: every talk imported before removed.
    await mkdir(path.join(root, 'empty'));
    const empty = cli('import', ['pyvideo', path.join(root, 'empty'), '--content', content]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('empty: no <event>/category.json in it: not a checkout of pyvideo/data; nothing was written');
    expect(await fingerprint(content)).toEqual(before);
    expect(cli('import', ['youtube', 'x']).status).toBe(2);
  });

  it('build, check, dev: a missing content or templates folder, or an output folder a build must not replace, exit 2 before any work', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const foreign = path.join(root, 'site');
    await mkdir(foreign);
    await writeFile(path.join(foreign, 'README.md'), 'mine');
    const before = { content: await fingerprint(content), foreign: await fingerprint(foreign) };
    const refused = (script: string, args: string[], message: string) => {
      const result = cli(script, script === 'check' ? args : [...args, '--cache', path.join(root, 'cache')], root);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    };
    refused('build', ['--content', 'contnet', '--out', 'dist'], 'build: --content contnet: no such folder');
    refused('check', ['--content', 'contnet'], 'check: --content contnet: no such folder');
    refused('build', ['--templates', 'nope', '--out', 'dist'], 'build: --templates nope: no such folder');
    refused('build', ['--out', 'content', '--templates', path.join(ROOT, 'templates')], '--out content is inside the content folder (--content content)');
    refused('dev', ['--out', '.', '--templates', path.join(ROOT, 'templates'), '--port', '0'], '--out . holds the content folder (--content content)');
    refused('build', ['--out', 'site', '--templates', path.join(ROOT, 'templates')], '--out site holds files that no build wrote (README.md, …)');
    refused('start', ['--out', 'dist', '--templates', path.join(ROOT, 'templates'), '--port', 'abc'], '--port must be a number');
    refused('serve', ['--dir', 'dist', '--port', '0'], 'serve: --dir dist: no such folder');
    refused('serve', ['--dir', '.', '--port', '0'], 'serve: --dir . holds no build (it has no api/v2/): name the folder npm run build wrote, such as dist');
    refused('build', ['--out', 'site/README.md', '--templates', path.join(ROOT, 'templates')], '--out site/README.md: is a file, not a folder');
    refused('check', ['--content', 'site/README.md'], '--content site/README.md: is a file, not a folder');
    const cacheFile = cli('build', ['--out', 'dist', '--templates', path.join(ROOT, 'templates'), '--cache', 'site/README.md'], root);
    expect([cacheFile.status, cacheFile.stderr]).toEqual([2, expect.stringContaining('--cache site/README.md: is a file, not a folder')]);
    const cacheInContent = cli('build', ['--out', 'dist', '--templates', path.join(ROOT, 'templates'), '--cache', 'content/.cache'], root);
    expect([cacheInContent.status, cacheInContent.stderr]).toEqual([2, expect.stringContaining('--cache content/.cache is inside the content folder (--content content)')]);
    for (const cache of ['dist', 'dist/.cache']) {
      const inside = cli('build', ['--out', 'dist', '--templates', path.join(ROOT, 'templates'), '--cache', cache], root);
      expect([inside.status, inside.stderr]).toEqual([2, expect.stringContaining(`--out dist holds the cache folder (--cache ${cache})`)]);
    }
    expect({ content: await fingerprint(content), foreign: await fingerprint(foreign) }).toEqual(before);
    // start checked its port before it built anything.
    expect(fg.sync('*', { cwd: root, onlyDirectories: true }).sort()).toEqual(['content', 'site']);
  });

  it('build, check, dev, start: --content naming the templates folder, which holds no talks, exits 2 before any work rather than emptying the site', async () => {
    const root = await tempDir();
    await cp(path.join(ROOT, 'templates'), path.join(root, 'templates'), { recursive: true });
    const out = path.join(root, 'dist');
    const built = cli('build', ['--content', DEMO_CONTENT, '--templates', 'templates', '--out', out, '--cache', path.join(root, 'cache')], root);
    expect(built.status, built.stderr).toBe(0);
    const before = await fingerprint(root);
    const writes = ['--out', out, '--cache', path.join(root, 'cache')];
    const serves = [...writes, '--port', '0'];
    for (const [script, content, args] of [['build', 'templates', writes], ['check', 'templates', []], ['dev', 'templates/assets', serves], ['start', 'templates', serves]] as const) {
      const result = cli(script, ['--content', content, '--templates', 'templates', ...args], root);
      expect([result.status, result.stderr.split('\n')[0]], script).toEqual([2, `${script}: --content ${content} is ${content === 'templates' ? 'the' : 'inside the'} templates folder (--templates templates), which holds no talks: name the content folder, such as content`]);
    }
    expect(await fingerprint(root)).toEqual(before);
  });

  it("build, check: --content naming an event's folder, or its videos folder, exits 2 and names the catalogue's folder, rather than call every file misplaced", async () => {
    const root = await tempDir();
    await cp(DEMO_CONTENT, path.join(root, 'content'), { recursive: true });
    const before = await fingerprint(root);
    const templates = path.join(ROOT, 'templates');
    const event = path.join('content', 'tidewater-python-2024');
    for (const content of [event, path.join(event, 'videos')]) {
      for (const script of ['build', 'check']) {
        const result = cli(script, ['--content', content, '--templates', templates, ...(script === 'build' ? ['--out', 'dist', '--cache', 'cache'] : [])], root);
        expect([result.status, result.stderr.split('\n')[0]], `${script} ${content}`).toEqual([
          2,
          `${script}: --content ${content} is ${content === event ? 'an' : 'in an'} event's folder (${event}/category.yaml), not the catalogue's: name the folder that holds the events' folders, such as content`,
        ]);
      }
    }
    expect(await fingerprint(root)).toEqual(before);
  });

  it('npm run check --content x, without "--": the option npm took for itself is named, with exit code 2, not its value as an unexpected argument or the option left out without a word', () => {
    const valued = spawnSync('npm', ['run', '--silent', 'check', '--content', 'nowhere'], { cwd: ROOT, encoding: 'utf8' });
    const took = 'check: npm took --content for itself, as it came before "--": give the options after it, as in npm run check -- --content DIR';
    expect([valued.status, valued.stderr.split('\n')[0]]).toEqual([2, took]);
    const flag = spawnSync('npm', ['run', '--silent', 'check', '--content', '--', '--content', DEMO_CONTENT], { cwd: ROOT, encoding: 'utf8' });
    expect([flag.status, flag.stderr.split('\n')[0]]).toEqual([2, took]);
    const given = spawnSync('npm', ['run', '--silent', 'check', '--', '--content', DEMO_CONTENT], { cwd: ROOT, encoding: 'utf8' });
    expect([given.status, given.stderr]).toEqual([0, '']);
  });

  it('rejects an unknown option, or a value its option cannot take, with exit code 2', () => {
    const result = cli('build', ['--contnet', 'x']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('build: unknown option --contnet; did you mean --content?');
    // A command that takes arguments is not told how to pass one that starts with a dash: none does.
    const token = cli('token', ['--bogus']);
    expect([token.status, token.stderr]).toEqual([2, 'token: unknown option --bogus\nRun "npm run token -- --help" for the options.\n']);
    const url = cli('build', ['--base-url', 'talks.example.org']);
    expect(url.status).toBe(2);
    expect(url.stderr).toBe('build: --base-url must be an absolute http or https URL such as https://talks.example.org, got "talks.example.org"\nRun "npm run build -- --help" for the options.\n');
    const folder = cli('build', ['--base-url', 'https://example.org/my catalogue/']);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain('--base-url\'s path must be folder names of letters, digits and -._~, not starting with a dot (https://user.github.io/talks), got "/my%20catalogue/"');
    const file = cli('build', ['--base-url', 'https://user.github.io/talks/index.html']);
    expect([file.status, file.stderr.split('\n')[0]]).toEqual([2, 'build: --base-url must name the folder the site is served from, not a file in it ("index.html"): give https://user.github.io/talks, got "https://user.github.io/talks/index.html"']);
    expect(cli('serve', ['--port', '70000']).status).toBe(2);
    // Each of Node's reasons, in the commands' words; a command's arguments too.
    const said = (name: string, args: string[]) => {
      const { status, stderr } = cli(name, args);
      return [status, stderr.split('\n')[0]];
    };
    expect(said('serve', ['--port'])).toEqual([2, 'serve: --port needs a value: --port N']);
    expect(said('serve', ['--port', '--quiet'])).toEqual([2, 'serve: --port needs a value: --port N']);
    expect(said('build', ['--clean=yes'])).toEqual([2, 'build: --clean takes no value: give it alone to turn it on']);
    // The option another command names so: serve names its folder --dir, start serves its --out.
    expect(said('serve', ['--out', 'dist'])).toEqual([2, 'serve: unknown option --out; did you mean --dir?']);
    expect(said('start', ['--dir', 'dist'])).toEqual([2, 'start: unknown option --dir; did you mean --out?']);
    expect(said('build', ['--help=yes'])).toEqual([2, 'build: --help takes no value: give it alone to turn it on']);
    // An empty path (`--tokens "$TOKENS"` with TOKENS unset) names no file: a server without writes, a build without its cache.
    expect(said('serve', ['--tokens', '', '--port', '0'])).toEqual([2, 'serve: --tokens needs a value: --tokens FILE']);
    expect(said('build', ['--cache='])).toEqual([2, 'build: --cache needs a value: --cache DIR']);
    expect(said('build', ['extra'])).toEqual([2, 'build: unexpected argument "extra": this command takes options only']);
    expect(said('token', ['frob'])).toEqual([2, 'token: expected "add NAME", "remove NAME" or "list"']);
    expect(said('import', ['pyvideo'])).toEqual([2, 'import: expected "pyvideo <path-to-pyvideo-data>"']);
    // A mistyped word of a command's arguments is told as a mistyped option is: with the one meant.
    expect(said('token', ['lst'])).toEqual([2, 'token: expected "add NAME", "remove NAME" or "list"; did you mean "list"?']);
    expect(said('token', ['ad', 'editor'])).toEqual([2, 'token: expected "add NAME", "remove NAME" or "list"; did you mean "add"?']);
    expect(said('import', ['pyvido', DEMO_CONTENT])).toEqual([2, 'import: expected "pyvideo <path-to-pyvideo-data>"; did you mean "pyvideo"?']);
    expect(cli('check', ['-h'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: npm run check -- \[options\]/) });
  });

  it('ends its output, not its work, when the reader of its stdout has gone (npm run check | head -0)', async () => {
    const child = startCommand('check', ['--content', DEMO_CONTENT]);
    // Closed before the command writes a line: its every write to stdout fails (EPIPE).
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(child, 'exit');
    expect([code, stderr]).toEqual([0, '']);
  });

  it('token: adds, lists and removes tokens; a missing file or an unknown name is an error', async () => {
    const tokens = path.join(await tempDir(), 'tokens.txt');
    const missing = cli('token', ['list', '--tokens', tokens]);
    expect([missing.status, missing.stderr]).toEqual([1, expect.stringContaining(`token: ${tokens}: no such file`)]);
    // A mistyped file has no token of the name either, which would pass for a token already removed.
    const removedFromNone = cli('token', ['remove', 'editor', '--tokens', tokens]);
    expect([removedFromNone.status, removedFromNone.stderr]).toEqual([1, expect.stringContaining(`token: ${tokens}: no such file`)]);
    expect(cli('token', ['--help']).stdout).toContain('1 when the name is taken, unknown or not usable, or the tokens file is not there (list, remove) or not a tokens file');
    const added = cli('token', ['add', 'editor', '--tokens', tokens]);
    expect([added.status, added.stdout]).toEqual([0, expect.stringMatching(/^\S{20,}\n$/)]);
    expect(cli('token', ['list', '--tokens', tokens]).stdout).toBe('editor\n');
    const unknown = cli('token', ['remove', 'carol', '--tokens', tokens]);
    expect([unknown.status, unknown.stderr]).toEqual([1, `token: ${tokens} has no token named "carol"\n`]);
    // A name as typed may hold what a terminal acts on (an escape sequence sets its title): shown as escapes, as content errors show them.
    const hostile = cli('token', ['remove', 'carol\x1b]0;owned\x07', '--tokens', tokens]);
    expect([hostile.status, hostile.stderr]).toEqual([1, `token: ${tokens} has no token named "carol\\x1b]0;owned\\x07"\n`]);
    expect(cli('token', ['add', 'carol\x1b]0;owned\x07', '--tokens', tokens]).stderr).toBe('token: "carol\\x1b]0;owned\\x07" is not a usable token name: use letters, digits, ".", "_", "@" or "-" (at most 64)\n');
    const removed = cli('token', ['remove', 'editor', '--tokens', tokens]);
    expect([removed.status, removed.stderr]).toEqual([0, `removed token "editor" from ${tokens}; restart a server running with it to refuse the token\n`]);
    const empty = cli('token', ['list', '--tokens', tokens]);
    expect([empty.stdout, empty.stderr]).toEqual(['', `${tokens} holds no tokens; add one with "npm run token -- add NAME"\n`]);
    // A folder, or a file in a folder that is not there, is a mistyped option: said so, not as an error of a read or of a temporary file.
    const folder = path.dirname(tokens);
    const said = (name: string, args: string[]) => {
      const { status, stderr } = cli(name, args);
      return [status, stderr.split('\n')[0]];
    };
    expect(said('token', ['add', 'editor', '--tokens', folder])).toEqual([2, `token: --tokens ${folder}: is a folder, not a file; name the tokens file, such as tokens.txt`]);
    expect(said('token', ['list', '--tokens', folder])).toEqual([2, `token: --tokens ${folder}: is a folder, not a file; name the tokens file, such as tokens.txt`]);
    expect(said('serve', ['--tokens', folder, '--port', '0'])).toEqual([2, `serve: --tokens ${folder}: is a folder, not a file; name the tokens file, such as tokens.txt`]);
    const nowhere = path.join(folder, 'nowhere', 'tokens.txt');
    expect(said('token', ['add', 'editor', '--tokens', nowhere])).toEqual([2, `token: --tokens ${nowhere}: ${path.dirname(nowhere)}: no such folder`]);
  });

  it('check: the demo catalogue is valid', () => {
    const result = cli('check', ['--content', DEMO_CONTENT]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^checked \d+ files: \d+ events, \d+ live talks, \d+ drafts, 1 page, no problems/);
  });

  it("check: the site's own pages are checked too, every problem at its line and column", async () => {
    const cwd = path.join(BAD_FIXTURES, 'pages');
    const result = cli('check', ['--templates', path.join(ROOT, 'templates')], cwd);
    expect(result.status).toBe(1);
    const expected = (await readFile(path.join(cwd, 'expected.txt'), 'utf8')).trimEnd().split('\n');
    expect(result.stderr.trimEnd().split('\n')).toEqual([...expected, `check failed: ${expected.length} errors in 15 of 17 files`]);
  });

  it('npm run check from a subfolder reads the paths typed from there, as the shell means them; its defaults stay the package\'s', async () => {
    const typed = spawnSync('npm', ['run', '--silent', 'check', '--', '--content', '.', '--templates', '../templates'], { cwd: DEMO_CONTENT, encoding: 'utf8' });
    expect([typed.status, typed.stderr]).toEqual([0, '']);
    expect(typed.stdout).toMatch(/^checked \d+ files: /);
    const defaults = spawnSync('npm', ['run', '--silent', 'check'], { cwd: path.join(ROOT, 'templates'), encoding: 'utf8' });
    expect([defaults.status, defaults.stderr]).toEqual([0, '']);
    const missing = spawnSync('npm', ['run', '--silent', 'check', '--', '--content', 'nowhere'], { cwd: DEMO_CONTENT, encoding: 'utf8' });
    expect([missing.status, missing.stderr.split('\n')[0]]).toEqual([2, `check: --content ${path.relative(ROOT, path.join(DEMO_CONTENT, 'nowhere'))}: no such folder`]);
    const absolute = spawnSync('npm', ['run', '--silent', 'check', '--', '--content', '/nowhere/at/all'], { cwd: DEMO_CONTENT, encoding: 'utf8' });
    expect(absolute.stderr.split('\n')[0]).toBe('check: --content /nowhere/at/all: no such folder');
    // Typed outside the package (npm --prefix), a path is named whole, as the content's files are: not ../../tmp/….
    const outside = await tempDir();
    const away = spawnSync('npm', ['--prefix', ROOT, 'run', '--silent', 'check', '--', '--content', 'nowhere'], { cwd: outside, encoding: 'utf8' });
    expect([away.status, away.stderr.split('\n')[0]]).toEqual([2, `check: --content ${path.join(outside, 'nowhere')}: no such folder`]);
  });

  it('check: every problem of a bad catalogue, one per line, exit code 1, nothing written', async () => {
    const cwd = path.join(BAD_FIXTURES, 'field-errors');
    const before = await fingerprint(cwd);
    const result = cli('check', ['--templates', path.join(ROOT, 'templates')], cwd);
    expect(result.status).toBe(1);
    const expected = (await readFile(path.join(cwd, 'expected.txt'), 'utf8')).trimEnd().split('\n');
    expect(result.stderr.trimEnd().split('\n')).toEqual([...expected, `check failed: ${expected.length} errors in 2 of 3 files`]);
    expect(await fingerprint(cwd)).toEqual(before);
  });

  it('check and build: a template error is counted with the content errors, and alone names only the templates', async () => {
    const templates = path.join(await tempDir(), 'templates');
    await cp(path.join(ROOT, 'templates'), templates, { recursive: true });
    await writeFile(path.join(templates, 'talk.eta'), '<%= it.talk.title %>\n<% if ( { %>\n');
    const bad = cli('check', ['--templates', templates], path.join(BAD_FIXTURES, 'field-errors'));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${path.join(templates, 'talk.eta')}:2:`);
    expect(bad.stderr.trimEnd().split('\n').at(-1)).toBe('check failed: 15 errors in 2 of 3 files and the templates');
    const good = cli('check', ['--content', DEMO_CONTENT, '--templates', templates]);
    expect([good.status, good.stderr.trimEnd().split('\n').at(-1)]).toEqual([1, 'check failed: 1 error in the templates']);
    // A build says as much: it stops at the content's errors, and names the templates' too.
    const out = path.join(await tempDir(), 'dist');
    const built = cli('build', ['--templates', templates, '--out', out, '--cache', path.join(path.dirname(out), 'cache')], path.join(BAD_FIXTURES, 'field-errors'));
    expect(built.status).toBe(1);
    expect(built.stderr).toContain(`${path.join(templates, 'talk.eta')}:2:`);
    expect(built.stderr.trimEnd().split('\n').at(-1)).toBe('build failed: 15 errors in content and the templates; nothing written');
  });

  it("check and build: every template's problem, one a line, and the content's errors with them", async () => {
    const templates = path.join(await tempDir(), 'templates');
    await cp(path.join(ROOT, 'templates'), templates, { recursive: true });
    await writeFile(path.join(templates, 'talk.eta'), '<% if ( { %>\n');
    await writeFile(path.join(templates, 'page.eta'), '<p>\n<%= it.title ) %>\n');
    await writeFile(path.join(templates, 'layout.eta'), `${await readFile(path.join(ROOT, 'templates', 'layout.eta'), 'utf8')}<link rel="stylesheet" href="/assets/styles.css">\n`);
    const check = cli('check', ['--content', DEMO_CONTENT, '--templates', templates]);
    const lines = check.stderr.trimEnd().split('\n');
    expect(lines.map((line) => line.replace(templates, 'T'))).toEqual([
      expect.stringMatching(/^T\/layout\.eta:\d+:30: \/assets\/styles\.css is not a file of /),
      expect.stringMatching(/^T\/page\.eta:2:\d+: syntax error/),
      expect.stringMatching(/^T\/talk\.eta:1(:\d+)?: syntax error/),
      'check failed: 3 errors in the templates',
    ]);
    // A build stops at the templates, and still names the content's errors with them.
    const out = path.join(await tempDir(), 'dist');
    const built = cli('build', ['--templates', templates, '--out', out, '--cache', path.join(path.dirname(out), 'cache')], path.join(BAD_FIXTURES, 'field-errors'));
    expect(built.status).toBe(1);
    expect(built.stderr).toContain('many-problems.yaml:3:1 speakrs: unknown field');
    expect(built.stderr).toContain('/assets/styles.css is not a file of');
    expect(built.stderr.trimEnd().split('\n').at(-1)).toBe('build failed: 17 errors in content and the templates; nothing written');
    // On content without errors, the build names them as check does, each line a file's.
    const alone = cli('build', ['--templates', templates, ...buildArgs(out)]);
    expect([alone.status, alone.stderr.trimEnd().split('\n')]).toEqual([1, [...lines.slice(0, -1), 'build failed: 3 errors in the templates; nothing written']]);
  });

  it('build: writes the catalogue and ends with a one-line summary', async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = cli('build', buildArgs(out));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^built \d+ talks \(\d+ drafts not published\) from \d+ events into .+: \d+ files, \d+ written \(full build\), [\d.]+ MiB in [\d.]+ s\n$/);
    const records = (await fg('api/v2/video/*', { cwd: out })).filter((p) => RECORD_FILE.test(p));
    expect(records.length).toBeGreaterThanOrEqual(40);
    for (const rel of records) {
      const record = JSON.parse(await readFile(path.join(out, rel), 'utf8'));
      expect(Object.keys(record)).toEqual([...API_FIELDS]);
      for (const [field, type] of Object.entries(CONTRACT_TYPES)) expect(TYPES[type]!(record[field]), `${rel} ${field}`).toBe(true);
      expect(record.id).toBe(Number(path.basename(rel)));
      expect(record.state).toBe(1);
      expect(record.slug).toMatch(/^[a-z0-9-]+$/);
      expect(record.added).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(record.updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
      if (record.recorded !== null) expect(record.recorded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const fmt of ['ogv', 'mp4', 'webm', 'flv']) {
        if (!record[`video_${fmt}_url`]) {
          expect(record[`video_${fmt}_length`]).toBeNull();
          expect(record[`video_${fmt}_download_only`]).toBe(false);
        }
      }
    }
  });

  it('build --compress: the same site with .br and .gz copies beside its pages, sitemaps and assets (not its feeds, as its --help says)', async () => {
    const dir = await tempDir();
    const plain = path.join(dir, 'plain', 'dist');
    const full = path.join(dir, 'full', 'dist');
    expect(cli('build', buildArgs(plain)).status).toBe(0);
    expect(cli('build', [...buildArgs(full), '--compress']).status).toBe(0);
    const plainFiles = (await fg('**/*', { cwd: plain })).sort();
    const fullFiles = (await fg('**/*', { cwd: full })).sort();
    expect(plainFiles.filter((f) => /\.(br|gz)$/.test(f))).toEqual([]);
    expect(fullFiles.filter((f) => /\.(br|gz)$/.test(f)).length).toBeGreaterThan(50);
    expect(plainFiles).toEqual(fullFiles.filter((f) => !/\.(br|gz)$/.test(f)));
    for (const copied of ['index.html', 'talks/index.html', 'sitemap.xml', 'assets/style.css']) expect(fullFiles).toEqual(expect.arrayContaining([`${copied}.br`, `${copied}.gz`]));
    expect(fullFiles.filter((f) => /feed\.(atom|rss|json)\.(br|gz)$/.test(f))).toEqual([]);
    const help = cli('build', ['--help']).stdout;
    expect(help).toContain('copies of pages, sitemaps and assets (not feeds)');
  });

  it('build --search-shard: the search index in shards of that many talks, which the search page lists newest first', async () => {
    const out = path.join(await tempDir(), 'dist');
    const result = cli('build', [...buildArgs(out), '--search-shard', '10']);
    expect(result.status).toBe(0);
    const talks = Number(/^built (\d+) talks/.exec(result.stdout)?.[1]);
    const shards = Math.ceil(talks / 10);
    expect(shards).toBeGreaterThan(1);
    // Beside the talks' shards, the index of the site's pages.
    expect((await fg('pagefind/*/pagefind-entry.json', { cwd: out })).sort()).toEqual([...Array.from({ length: shards }, (_, n) => `pagefind/${n}/pagefind-entry.json`), 'pagefind/pages/pagefind-entry.json'].sort());
    const page = await readFile(path.join(out, 'search/index.html'), 'utf8');
    expect(/data-indexes="([^"]+)"/.exec(page)?.[1]).toBe(Array.from({ length: shards }, (_, i) => `/pagefind/${shards - 1 - i}/`).join(' '));
    expect(/data-pages="([^"]+)"/.exec(page)?.[1]).toBe('/pagefind/pages/');
    const bad = cli('build', [...buildArgs(out), '--search-shard', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--search-shard must be a whole number from 1, got "0"');
  });

  it('build: a bad catalogue fails with exit code 1 and leaves the output as it was', async () => {
    const out = path.join(await tempDir(), 'dist');
    expect(cli('build', buildArgs(out)).status).toBe(0);
    const before = await fingerprint(out);
    const result = cli('build', ['--content', path.join(BAD_FIXTURES, 'duplicate-ids', 'content'), '--out', out, '--cache', path.join(path.dirname(out), 'cache')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/second\.yaml:4:5 id: 1 is already used by .*first\.yaml:1:5/);
    expect(result.stderr).toMatch(/build failed: 1 error in .*; .* left as it was/);
    expect(await fingerprint(out)).toEqual(before);
  });

  it('build: SIGINT stops it after the files in flight, leaves the output as it was and no file of its own in it, and exits 130', async () => {
    const root = await tempDir();
    const content = path.join(root, 'content');
    const templates = path.join(root, 'templates');
    await cp(DEMO_CONTENT, content, { recursive: true });
    await cp(path.join(ROOT, 'templates'), templates, { recursive: true });
    // Enough talks that a layout change takes the build a while.
    const talk = await readFile(path.join(content, 'tidewater-python-2024', 'videos', 'asyncio-in-production-lessons.yaml'), 'utf8');
    for (let id = 5000; id < 7000; id++) await writeFile(path.join(content, 'tidewater-python-2024', 'videos', `copy-${id}.yaml`), talk.replace(/^id: \d+$/m, `id: ${id}`).replace(/^(slug|aliases):.*\n(?:  - .*\n)*/gm, ''));
    const out = path.join(root, 'dist');
    const args = ['--content', content, '--templates', templates, '--out', out, '--cache', path.join(root, 'cache')];
    expect(cli('build', args).stderr).toBe('');
    const before = await fingerprint(out);
    await writeFile(path.join(templates, 'layout.eta'), (await readFile(path.join(templates, 'layout.eta'), 'utf8')).replace('</footer>', '<p>changed</p></footer>'));
    // Stopped once it writes: its new files wait under hidden names beside the old ones.
    const { code, stderr } = await interruptedBuild(args, async () => (await fg('**/.*.vc-*', { cwd: out, dot: true })).length > 0);
    expect(code).toBe(130);
    expect(stderr).toContain('build: stopped by SIGINT');
    expect(await fingerprint(out)).toEqual(before);
    expect(await fg('**/.*.vc-*', { cwd: out, dot: true })).toEqual([]);
  }, 120_000);

  it('build: SIGINT during a first build says that nothing was written, as a failed first build says it, not that an output that never was is left as it was', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    // Stopped once it writes, into its staging folder beside the output.
    const { code, stderr } = await interruptedBuild(buildArgs(out), async () => (await fg('.dist.staging-*/**', { cwd: root, dot: true })).length > 0);
    expect(code).toBe(130);
    expect(stderr).toBe('build: stopped by SIGINT; nothing written\n');
    expect(fg.sync('*', { cwd: root, dot: true, onlyDirectories: true })).toEqual(['cache']);
  }, 60_000);
});

describe('serve and start', () => {
  it('serve: prints its URL, serves the contract, and stops cleanly on SIGTERM', async () => {
    const out = path.join(await tempDir(), 'dist');
    expect(cli('build', buildArgs(out)).status).toBe(0);
    const server = startCli('serve', ['--dir', out, '--port', '0']);
    const url = await server.url;
    const res = await raw(url, 'GET', '/api/v2/video/1/');
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ vary: 'Accept', 'content-type': 'text/html; charset=utf-8', allow: 'GET, PUT, PATCH, HEAD, OPTIONS' });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('build: a SIGINT as it puts the output in place, which it then finishes, is said, and the build exits 0', async () => {
    const out = path.join(await tempDir(), 'dist');
    const child = startCommand('build', buildArgs(out), { node: ['--import', path.join(ROOT, 'test', 'fixtures', 'crash-at.mjs')], env: { ...process.env, CRASH_AT: 'state', CRASH_SIGNAL: 'SIGINT' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    expect({ code, stderr }).toEqual({ code: 0, stderr: `build: SIGINT came as ${out} was being put in place: the build was finished, not left half done\n` });
    expect(existsSync(path.join(out, 'api', 'v2', 'video', '1'))).toBe(true);
  });

  it('start: a SIGINT as its build puts the output in place, which the build then finishes, stops it before it serves, with 130', async () => {
    const out = path.join(await tempDir(), 'dist');
    const child = startCommand('start', [...buildArgs(out), '--port', '0', '--quiet'], {
      node: ['--import', path.join(ROOT, 'test', 'fixtures', 'crash-at.mjs')],
      env: { ...process.env, CRASH_AT: 'state', CRASH_SIGNAL: 'SIGINT' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('serving ')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    expect({ code, stdout, stderr }).toEqual({ code: 130, stdout: expect.stringMatching(/^built \d+ talks [^\n]*\n$/), stderr: `start: stopped by SIGINT as the build put ${out} in place, which it finished; not serving\n` });
  });

  it('serve: SIGINT stops it too', async () => {
    const out = path.join(await tempDir(), 'dist');
    expect(cli('build', buildArgs(out)).status).toBe(0);
    const server = startCli('serve', ['--dir', out, '--port', '0']);
    await server.url;
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('start: builds the demo catalogue, then serves it', async () => {
    const out = path.join(await tempDir(), 'dist');
    const server = startCli('start', [...(buildArgs(out)), '--port', '0']);
    const url = await server.url;
    expect(server.output()).toMatch(/^built \d+ talks/);
    const home = await raw(url, 'GET', '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('<h1>Recorded talks</h1>');
    // Its links name the port it got, so that the API's next page is on this server.
    expect(home.text).toContain(`<link rel="canonical" href="${url}">`);
    const next = JSON.parse((await raw(url, 'GET', '/api/v2/video/')).text).next;
    expect((await raw(url, 'GET', new URL(next).pathname + new URL(next).search)).status).toBe(200);
    expect(next.startsWith(url)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('start: with a folder in --base-url, builds the site for it and serves it under it, as its host would', async () => {
    const out = path.join(await tempDir(), 'dist');
    const server = startCli('start', [...buildArgs(out), '--port', '0', '--base-url', 'https://user.github.io/talks/']);
    const origin = new URL(await server.url).origin;
    expect(server.output()).toMatch(/serving .* at http:\/\/127\.0\.0\.1:\d+\/talks\/ \(Ctrl\+C to stop\)/);
    const home = await raw(origin, 'GET', '/talks/');
    expect(home.text).toContain('<link rel="canonical" href="https://user.github.io/talks/">');
    expect(home.text).toContain('<link rel="stylesheet" href="/talks/assets/style.css">');
    expect((await raw(origin, 'GET', '/')).headers.location).toBe('/talks/');
    const record = await raw(origin, 'GET', '/talks/api/v2/video/12', { accept: 'application/json' });
    expect([record.status, record.headers.allow, JSON.parse(record.text).id]).toEqual([200, 'GET, PUT, PATCH, HEAD, OPTIONS', 12]);
    // Read-only without --tokens, as at a root.
    expect((await raw(origin, 'PATCH', '/talks/api/v2/video/12', { 'content-type': 'application/json' }, '{}')).status).toBe(401);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('serve: without --base-url, serves a build for a folder of its host under that folder, read from the build, and says so', async () => {
    const out = path.join(await tempDir(), 'dist');
    expect(cli('build', [...buildArgs(out), '--base-url', 'https://user.github.io/talks']).status).toBe(0);
    const server = startCli('serve', ['--dir', out, '--port', '0', '--quiet']);
    const origin = new URL(await server.url).origin;
    expect(server.output()).toMatch(/^serving .* at http:\/\/127\.0\.0\.1:\d+\/talks\/, the folder of its host it was built for \(https:\/\/user\.github\.io\/talks\) \(Ctrl\+C to stop\)\n$/);
    const home = await raw(origin, 'GET', '/talks/');
    expect(home.text).toContain('<link rel="stylesheet" href="/talks/assets/style.css">');
    expect((await raw(origin, 'GET', '/talks/assets/style.css')).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // A --base-url given still wins, but one for another folder than the build's is said to break its pages.
    const rooted = startCli('serve', ['--dir', out, '--port', '0', '--quiet', '--base-url', 'http://127.0.0.1:8080']);
    const root = new URL(await rooted.url).origin;
    // Said on stderr before the URL on stdout, which may be read first.
    await expect.poll(() => rooted.output()).toContain(
      `serve: ${out} was built for https://user.github.io/talks, whose addresses are under /talks/, not under / as --base-url says: its pages' styles, scripts and links answer 404 here; give the build's --base-url, or none\n`,
    );
    expect(rooted.output()).toMatch(/serving .* at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl\+C to stop\)\n$/);
    expect((await raw(root, 'GET', '/assets/style.css')).status).toBe(200);
    rooted.child.kill('SIGTERM');
    expect(await rooted.exited).toBe(0);
  });

  it('serve --tokens: without --base-url, keeps the folder of its host the build was made for, where it rebuilt the site for the root', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const content = path.join(root, 'content');
    await cp(DEMO_CONTENT, content, { recursive: true });
    const cache = path.join(root, 'cache');
    expect(cli('build', ['--content', content, '--out', out, '--cache', cache, '--base-url', 'https://user.github.io/talks']).status).toBe(0);
    const tokens = path.join(root, 'tokens.txt');
    expect(cli('token', ['add', 'editor', '--tokens', tokens]).status).toBe(0);
    const server = startCli('serve', ['--dir', out, '--content', content, '--cache', cache, '--tokens', tokens, '--port', '0', '--quiet']);
    const origin = new URL(await server.url).origin;
    expect(server.output()).toMatch(/serving .* at http:\/\/127\.0\.0\.1:\d+\/talks\/, the folder of its host it was built for \(https:\/\/user\.github\.io\/talks\) \(Ctrl\+C to stop\)\n$/);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toContain('<link rel="canonical" href="https://user.github.io/talks/">');
    expect((await raw(origin, 'GET', '/talks/assets/style.css')).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('serve, start: a port that is taken is a clear error, before start builds', async () => {
    const out = path.join(await tempDir(), 'dist');
    expect(cli('build', buildArgs(out)).status).toBe(0);
    const first = startCli('serve', ['--dir', out, '--port', '0']);
    const port = new URL(await first.url).port;
    const second = cli('serve', ['--dir', out, '--port', port]);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`is already in use (by another server, or one of ours still running); stop it, or pick another port with --port N`);
    // start finds it out before its build writes the port into the site's links.
    const before = await fingerprint(out);
    const start = cli('start', [...buildArgs(out), '--port', port]);
    expect([start.status, start.stdout]).toEqual([1, '']);
    expect(start.stderr).toContain(`127.0.0.1:${port} is already in use`);
    expect(await fingerprint(out)).toEqual(before);
    first.child.kill('SIGTERM');
    await first.exited;
  });

  it('start: a tokens file that is missing, holds no token or is inside --out is refused before it builds, as serve refuses it', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const empty = path.join(root, 'empty.txt');
    await writeFile(empty, '# no tokens yet\n');
    const refused = (tokens: string) => cli('start', [...buildArgs(out), '--port', '0', '--tokens', tokens]);
    const missing = refused(path.join(root, 'nope.txt'));
    expect([missing.status, missing.stdout, missing.stderr]).toEqual([1, '', expect.stringContaining('nope.txt: no such file; make one with npm run token -- add NAME')]);
    const none = refused(empty);
    expect([none.status, none.stdout, none.stderr]).toEqual([1, '', expect.stringContaining('empty.txt holds no token; add one with npm run token -- add NAME')]);
    const inside = refused(path.join(out, 'tokens.txt'));
    expect([inside.status, inside.stdout, inside.stderr]).toEqual([2, '', expect.stringContaining(`--tokens ${path.join(out, 'tokens.txt')} is inside the served folder (--dir ${out}); keep it outside`)]);
    expect(fg.sync('*', { cwd: root, onlyDirectories: true })).toEqual([]);
  });
});
