// The search index's thread (see SearchThread): like the render workers, it
// starts without a TypeScript loader, so this entry registers one. It builds
// the shards of one message at a time, until it is terminated; a `stop`
// message stops those being built.
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { received, writeIndexes } = await tsImport('./search.ts', import.meta.url);
let current;
parentPort.on('message', async (message) => {
  if (message.stop) {
    current?.abort();
    return;
  }
  current = new AbortController();
  try {
    parentPort.postMessage({ files: await writeIndexes(received(message.records), message.shards, current.signal) });
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  } finally {
    message.records.close();
    current = undefined;
  }
});
