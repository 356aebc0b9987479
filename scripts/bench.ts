import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCommand, run } from '../src/cli.ts';
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
    step: { type: 'string', value: 'JSON', description: 'internal: run one measured step' },
  },
});

run('bench', async () => {
  if (values.step) return runStep(JSON.parse(values.step));
  const figures = await runBench({ snapshot: values.snapshot, work: values.work, outputs: values.outputs, synthetic: !values.quick, log: (line) => process.stderr.write(`bench: ${line}\n`) });
  await writeFile(values.json, `${JSON.stringify({ measured: new Date().toISOString(), machine: { cores: (await import('node:os')).availableParallelism(), node: process.version }, figures }, null, 2)}\n`);
  process.stdout.write(`${formatTable(figures)}\n\nfigures written to ${values.json}\n`);
});
