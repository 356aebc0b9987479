// The search index's thread (see buildSearchIndex): like the render workers, it
// starts without a TypeScript loader, so this entry registers one.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { writeIndex } = await tsImport('./search.ts', import.meta.url);
parentPort.postMessage(await writeIndex(workerData.records, workerData.dir));
