// Real web servers (nginx, Caddy) serving a built folder with the configuration
// the build writes (hosting.ts), for the tests and the benchmarks: a private
// configuration in a temporary folder, the server in the foreground as our
// child, on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { caddyConfig, nginxConfig } from './hosting.ts';

/** Debian's nginx package. */
export const NGINX = '/usr/sbin/nginx';
/** Debian's caddy package. */
export const CADDY = '/usr/bin/caddy';

export interface RunningHost {
  /** Ends with a slash, like our own server's. */
  url: string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (neither server can report the one it was given for port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function nginxMain(dir: string, { root, basePath }: HostOptions, port: number): string {
  const inDir = (name: string) => JSON.stringify(path.join(dir, name));
  return [
    // Workers would otherwise run as nobody, who cannot read a private temporary folder.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    'daemon off;',
    `pid ${inDir('nginx.pid')};`,
    `error_log ${inDir('error.log')} warn;`,
    'events {}',
    'http {',
    '    include /etc/nginx/mime.types;',
    '    default_type application/octet-stream;',
    '    open_file_cache max=10000 inactive=60s;',
    '    access_log off;',
    '    sendfile on;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `    ${t}_temp_path ${inDir(`${t}_temp`)};`),
    nginxConfig({ root, listen: `127.0.0.1:${port}`, basePath }),
    '}',
    '',
  ].join('\n');
}

/** Resolves once the server answers HTTP at `url`; rejects if it exits first or takes more than 10 s. */
async function answering(name: string, url: string, child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 10_000;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!gone && Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = request(url, { method: 'HEAD', timeout: 500 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (ok) return;
    await sleep(25);
  }
  throw new Error(gone ? `${name} exited with ${child.exitCode ?? child.signalCode}` : `${name} did not answer within 10 s`);
}

/** How to run one kind of server from a temporary folder. */
interface Launcher {
  name: string;
  program: string;
  /** The configuration file's name and text, to serve the site on 127.0.0.1:`port`. */
  config(dir: string, site: HostOptions, port: number): [name: string, text: string];
  args(dir: string, conf: string): string[];
  env?(dir: string): NodeJS.ProcessEnv;
  /** What it says when its port was taken meanwhile. */
  portTaken: RegExp;
}

const NGINX_LAUNCHER: Launcher = {
  name: 'nginx',
  program: NGINX,
  config: (dir, site, port) => ['nginx.conf', nginxMain(dir, site, port)],
  args: (dir, conf) => ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')],
  portTaken: /Address already in use/,
};

const CADDY_LAUNCHER: Launcher = {
  name: 'caddy',
  program: CADDY,
  // Plain HTTP on the loopback address, and no admin endpoint, which would take port 2019 for every copy.
  config: (_dir, { root, basePath }, port) => ['Caddyfile', `{\n\tadmin off\n\tauto_https off\n}\n\n${caddyConfig({ root, listen: `http://127.0.0.1:${port}`, basePath })}`],
  args: (_dir, conf) => ['run', '--config', conf, '--adapter', 'caddyfile'],
  // Caddy keeps its data (an autosaved configuration, certificates) under these: in the temporary folder, not the user's home.
  env: (dir) => ({ ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config') }),
  portTaken: /address already in use/,
};

/** What a host serves: a built folder (`root`), in the folder of its host it was built for (base-path.ts). */
interface HostOptions {
  root: string;
  basePath?: string;
}

/**
 * Starts the server on 127.0.0.1 serving `root` (a built folder, absolute or relative), under `basePath` if it
 * was built for a folder, with the generated configuration. stop() ends it and removes its temporary folder.
 */
async function startHost(launcher: Launcher, { root, port, basePath }: HostOptions & { port?: number }): Promise<RunningHost> {
  const { name } = launcher;
  const dir = await mkdtemp(path.join(tmpdir(), `vc-${name}-`));
  // Another process may take a port between our check and the server's bind: try a few.
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    const [confName, text] = launcher.config(dir, { root: path.resolve(root), basePath }, chosen);
    const conf = path.join(dir, confName);
    await writeFile(conf, text);
    // Its own process group, so stop() can end nginx's workers too if the master hangs.
    const child = spawn(launcher.program, launcher.args(dir, conf), { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: launcher.env?.(dir) });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    // If the test or benchmark dies without stopping us, the server must not outlive it.
    process.once('exit', killGroup);
    const url = `http://127.0.0.1:${chosen}/`;
    try {
      await spawned;
      await answering(name, url, child, exited);
    } catch (error) {
      // Without a pid nginx never started (not installed?), and there is nothing to end.
      if (child.pid !== undefined) {
        killGroup();
        await exited;
      }
      process.off('exit', killGroup);
      const log = `${stderr}${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`;
      if (port === undefined && attempt < 5 && launcher.portTaken.test(log)) continue;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log}`, { cause: error });
    }
    return {
      url,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(killGroup, 5000);
          await exited;
          clearTimeout(timer);
        }
        process.off('exit', killGroup);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}

export const startNginx = (options: HostOptions & { port?: number }) => startHost(NGINX_LAUNCHER, options);
export const startCaddy = (options: HostOptions & { port?: number }) => startHost(CADDY_LAUNCHER, options);
