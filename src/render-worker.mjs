// Worker threads start without a TypeScript loader, whatever started the main
// thread (tsx, vitest): this entry registers one and loads the real worker.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./render-worker.ts', import.meta.url);
export default worker.default;
export const readTalks = worker.readTalks;
