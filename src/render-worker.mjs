// The render threads' entry run from the sources: a thread starts without a
// TypeScript loader, whatever started the main thread (tsx, vitest), so this
// entry registers one and loads the real worker (see threadEntry in program.ts).
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./render-worker.ts', import.meta.url);
export default worker.default;
export const readTalks = worker.readTalks;
