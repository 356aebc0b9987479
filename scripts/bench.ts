import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { OptionError, parseCommand, run } from '../src/cli.ts';
import { formatTable, runBench, runStep } from '../src/bench.ts';

const values = parseCommand({
  name: 'bench',
  summary:
    'Benchmark the import and the builds of the pyvideo/data snapshot and of a synthetic catalogue five times its size.\nEach step runs in a process of its own; prints a Markdown table and writes the figures as JSON.',
  options: {
    snapshot: { type: 'string', value: 'FILE', description: 'the pyvideo/data snapshot', default: path.join('..', 'shared', 'data', 'pyvideo-data.tar.gz') },
    work: { type: 'string', value: 'DIR', description: 'scratch folder, emptied first', default: path.join(tmpdir(), 'video-catalogue-bench') },
    outputs: { type: 'string', value: 'DIR', description: 'where the builds write (default: the work folder); e.g. /dev/shm to leave the disk out' },
    json: { type: 'string', value: 'FILE', description: 'where to write the figures', default: 'bench-results.json' },
    quick: { type: 'boolean', description: 'skip the synthetic 5× catalogue' },
    serve: {
      type: 'boolean',
      description: 'benchmark the server instead: random reads of API records from ours and from nginx on the built import (autocannon, 64 connections); adds the figures to the JSON',
    },
    dir: { type: 'string', value: 'DIR', description: 'with --serve: a built folder to serve instead of building the import', with: 'serve' },
    seconds: { type: 'string', value: 'N', description: 'with --serve: seconds of load per server', default: '10', with: 'serve' },
    step: { type: 'string', value: 'JSON', description: 'internal: run one measured step' },
  },
  notes: 'Exit code: 0 when every step ran, 1 when one failed (its error is printed), 2 for a bad option.',
});

const machine = { cores: availableParallelism(), node: process.version };

run('bench', async () => {
  if (values.step) return runStep(JSON.parse(values.step));
  if (values.serve) return benchServer();
  const figures = await runBench({ snapshot: values.snapshot, work: values.work, outputs: values.outputs, synthetic: !values.quick, log: (line) => process.stderr.write(`bench: ${line}\n`) });
  // The server's figures of an earlier `--serve` run stay beside the new build figures.
  const { serve } = await previousFigures();
  await writeFile(values.json, `${JSON.stringify({ measured: new Date().toISOString(), machine, figures, ...(serve ? { serve } : {}) }, null, 2)}\n`);
  process.stdout.write(`${formatTable(figures)}\n\nfigures written to ${values.json}\n`);
});

async function previousFigures(): Promise<Record<string, unknown>> {
  return readFile(values.json, 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}));
}

async function benchServer(): Promise<void> {
  const { benchServe, buildImport, formatServeTable } = await import('../src/bench-serve.ts');
  const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
  const load = { connections: 64, seconds: Number(values.seconds) };
  if (!Number.isInteger(load.seconds) || load.seconds < 1) throw new OptionError(`--seconds must be a whole number from 1, got "${values.seconds}"`);
  const dir = values.dir ?? (await buildImport(values.snapshot, path.join(values.work, 'serve'), log));
  const figures = await benchServe({ dir, ...load, log });
  // Beside the build figures of an earlier run, if there are any.
  const previous = await previousFigures();
  await writeFile(values.json, `${JSON.stringify({ ...previous, serve: { measured: new Date().toISOString(), machine, ...load, figures } }, null, 2)}\n`);
  process.stdout.write(`${formatServeTable(figures, load)}\n\nfigures written to ${values.json}\n`);
}
