// The search index's thread run from the sources: a thread starts without a
// TypeScript loader, whatever started the main thread (tsx, vitest), so this
// entry registers one and runs the real one (see threadEntry in program.ts).
import { tsImport } from 'tsx/esm/api';

await tsImport('./search-worker.ts', import.meta.url);
