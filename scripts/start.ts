import { buildOptions, parseCommand, run, serveOptions } from '../src/cli.ts';
import { runBuild } from './build.ts';
import { runServer } from './serve.ts';

const values = parseCommand({
  name: 'start',
  summary: 'Build the catalogue, then serve the output folder.',
  options: { ...buildOptions, ...serveOptions },
});

run('start', async () => {
  const code = await runBuild(values);
  if (code !== 0) return code;
  await runServer({ dir: values.out, host: values.host, port: values.port });
});
