import { loadContent } from './src/load.ts';
const t = performance.now();
const r = await loadContent('/tmp/pvc');
console.log(r.catalogue.talks.length, (performance.now() - t).toFixed(0), 'ms', (process.memoryUsage().rss / 1e6).toFixed(0), 'MB');
