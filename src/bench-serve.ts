// The server benchmark: random reads of API records from our server and from
// nginx (the configuration the build writes, 1 worker, open_file_cache) on the
// same built folder, one server after the other. Each server runs in a process
// of its own and autocannon generates the load from this one, so on two cores
// the server measured and the load generator each have one.
import { spawn, spawnSync } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { unpackSnapshot } from './bench.ts';
import { build } from './build.ts';
import { formatCount } from './cli.ts';
import { recordFile } from './headers.ts';
import { importPyvideo } from './importer.ts';
import { NGINX, startNginx } from './web-servers.ts';
import { commandArgs, PROJECT_ROOT } from './program.ts';


export interface ServeFigures {
  server: string;
  /** Mean over the run's one-second samples. */
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number };
  requests: number;
  /** Answers other than 2xx, connection errors and timeouts: none is expected. */
  failures: number;
  /** CPU time the server's processes (all their threads) spent per request: what it costs, whatever the load generator left it. */
  cpuMicrosPerRequest: number;
  /** This server's requests per second over nginx's. */
  ofNginx: number;
  /** nginx's CPU per request over this server's. */
  ofNginxPerCpu: number;
}

/** Unpacks the pyvideo/data snapshot into `work`, imports it and builds it (none of it measured); returns the output folder. */
export async function buildImport(snapshot: string, work: string, log: (line: string) => void): Promise<string> {
  const source = await unpackSnapshot(snapshot, work, log);
  const content = path.join(work, 'content');
  const out = path.join(work, 'dist');
  log('importing');
  const imported = await importPyvideo({ source, content });
  if (!imported.ok) throw new Error(`the import failed: ${imported.errors.map((e) => `${e.file}: ${e.reason}`).join('; ')}`);
  log('building');
  const built = await build({ content, out, templates: path.join(PROJECT_ROOT, 'templates') });
  if (!built.ok) throw new Error(`the build failed: ${built.errors.join('; ')}`);
  return out;
}

export interface ServeBenchOptions {
  /** A built output folder. */
  dir: string;
  seconds: number;
  connections: number;
  log: (line: string) => void;
}

/**
 * The processes listening on `port` (nginx's master and worker hold the socket, our server alone):
 * the listening socket's inode from /proc/net/tcp, then every process with a descriptor on it.
 */
async function listeners(port: number): Promise<number[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const table = await readFile('/proc/net/tcp', 'utf8');
  const inode = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((cols) => cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A')?.[9];
  if (!inode) throw new Error(`nothing listens on port ${port}`);
  const pids: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `socket:[${inode}]`) {
        pids.push(Number(pid));
        break;
      }
    }
  }
  return pids;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** User and system CPU seconds of the processes so far (/proc/<pid>/stat, fields 14 and 15). */
async function cpuSeconds(pids: number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / CLOCK_TICKS;
}

interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Our server as a user runs it, without the access log (nginx's is off too). */
async function startOurs(dir: string): Promise<Running> {
  const child = spawn(process.execPath, commandArgs('serve', '--dir', dir, '--port', '0', '--quiet'), { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const m = /(http:\/\/[^\s]+\/)/.exec(output);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Requests each connection cycles through, drawn at random: enough that together they cover the catalogue. */
const PER_CONNECTION = 2048;

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(options, (err, result) => (err ? reject(err) : resolve(result))));
}

/** Asks for every record once, in order. */
function warmUp(url: string, ids: readonly string[], connections: number): Promise<autocannon.Result> {
  let i = 0;
  return run({ url, connections, amount: ids.length, requests: [{ setupRequest: (request) => ({ ...request, path: `/${recordFile(ids[i++ % ids.length]!)}` }) }] });
}

/**
 * Random reads for `seconds`. Each connection gets its own random list of requests, built
 * once: a request built per call (autocannon's setupRequest) costs the load generator more
 * CPU than nginx spends answering it, and the figure would measure autocannon.
 */
function randomReads(url: string, ids: readonly string[], connections: number, seconds: number): Promise<autocannon.Result> {
  const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
  return run({
    url,
    connections,
    duration: seconds,
    setupClient: (client) => client.setRequests(Array.from({ length: PER_CONNECTION }, () => ({ method: 'GET', path: `/${recordFile(pick())}` }))),
  });
}

function nginxVersion(): string {
  const out = spawnSync(NGINX, ['-v'], { encoding: 'utf8' });
  return /nginx\/(\S+)/.exec(`${out.stderr}${out.stdout}`)?.[1] ?? '?';
}

export async function benchServe(options: ServeBenchOptions): Promise<ServeFigures[]> {
  const { dir, log } = options;
  const ids = (await readdir(path.join(dir, 'api', 'v2', 'video'))).filter((name) => /^[1-9][0-9]*$/.test(name));
  if (ids.length === 0) throw new Error(`${dir} holds no API records: build a catalogue into it first`);
  const servers = [
    { name: `nginx ${nginxVersion()} (1 worker, open_file_cache)`, start: () => startNginx({ root: dir }) },
    { name: 'video-catalogue serve', start: () => startOurs(path.resolve(dir)) },
  ];
  const measured: Omit<ServeFigures, 'ofNginx' | 'ofNginxPerCpu'>[] = [];
  for (const server of servers) {
    const running = await server.start();
    try {
      // Every record once, so both servers start warm (page cache, open_file_cache, our body cache).
      log(`${server.name}: warming up with ${ids.length} records`);
      await warmUp(running.url, ids, options.connections);
      log(`${server.name}: ${options.seconds} s of random reads, ${options.connections} connections`);
      const pids = await listeners(Number(new URL(running.url).port));
      const cpuBefore = await cpuSeconds(pids);
      const result = await randomReads(running.url, ids, options.connections, options.seconds);
      const cpu = (await cpuSeconds(pids)) - cpuBefore;
      measured.push({
        server: server.name,
        requestsPerSecond: result.requests.average,
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
        requests: result.requests.total,
        failures: result.non2xx + result.errors + result.timeouts,
        cpuMicrosPerRequest: (cpu * 1e6) / result.requests.total,
      });
    } finally {
      await running.stop();
    }
  }
  const nginx = measured[0]!;
  return measured.map((m) => ({ ...m, ofNginx: m.requestsPerSecond / nginx.requestsPerSecond, ofNginxPerCpu: nginx.cpuMicrosPerRequest / m.cpuMicrosPerRequest }));
}

export function formatServeTable(figures: ServeFigures[], records: { connections: number; seconds: number }): string {
  const rows = [
    [`random API record reads (${records.connections} connections, ${records.seconds} s)`, 'requests/s', 'latency p50', 'latency p99', 'CPU per request', 'of nginx (requests/s)', 'of nginx (per CPU)', 'failed'],
    ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    ...figures.map((f) => [
      f.server,
      formatCount(Math.round(f.requestsPerSecond)),
      `${f.latencyMs.p50} ms`,
      `${f.latencyMs.p99} ms`,
      `${Math.round(f.cpuMicrosPerRequest)} µs`,
      `${Math.round(f.ofNginx * 100)}%`,
      `${Math.round(f.ofNginxPerCpu * 100)}%`,
      formatCount(f.failures),
    ]),
  ];
  return rows.map((row) => `| ${row.join(' | ')} |`).join('\n');
}
