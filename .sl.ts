import { loadContent } from './src/load.ts';
import slugify from '@sindresorhus/slugify';
import { termSlug } from './src/collections.ts';
const loaded = await loadContent(process.argv[2]!, {});
const names = new Set<string>();
for (const t of loaded.catalogue.talks) { for (const s of t.speakers) names.add(s); for (const s of t.tags) names.add(s); names.add(t.language); }
const s = performance.now();
for (const n of names) termSlug(n);
console.log(names.size, 'names', (performance.now() - s).toFixed(0), 'ms');
