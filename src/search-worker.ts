// The search index's thread (see SearchThread in search.ts). It builds the
// shards of one message at a time, until it is terminated; a `stop` message
// stops those being built.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { received, writeIndexes } from './search.ts';
import { mapStackTraces } from './stack-traces.ts';

type Message = { stop: true } | { records: MessagePort; shards: Parameters<typeof writeIndexes>[1] };

mapStackTraces();

let current: AbortController | undefined;
parentPort!.on('message', async (message: Message) => {
  if ('stop' in message) {
    current?.abort();
    return;
  }
  current = new AbortController();
  try {
    parentPort!.postMessage({ files: await writeIndexes(received(message.records), message.shards, current.signal) });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  } finally {
    message.records.close();
    current = undefined;
  }
});
