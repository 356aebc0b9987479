import { parseCommand, run, serveOptions } from '../src/cli.ts';
import { startServer, type RunningServer } from '../src/server.ts';

export const spec = {
  name: 'serve',
  summary: 'Serve a built output folder with the API headers of the contract (GET, HEAD, OPTIONS; PUT and PATCH answer 401).',
  options: {
    dir: { type: 'string', value: 'DIR', description: 'folder to serve', default: 'dist' },
    ...serveOptions,
  },
} as const;

export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`--port must be a number from 0 to 65535, got "${text}"`);
  return port;
}

/** Starts the server, prints its URL, and stops it cleanly on SIGINT or SIGTERM. */
export async function runServer(values: { dir: string; host: string; port: string }): Promise<RunningServer> {
  const running = await startServer({ dir: values.dir, host: values.host, port: parsePort(values.port) });
  process.stdout.write(`serving ${values.dir} at ${running.url} (Ctrl+C to stop)\n`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return running;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const values = parseCommand(spec);
  run('serve', async () => {
    await runServer(values);
  });
}
