import { build } from '/work/main/src/build.ts';
const t = performance.now();
const r = await build({ content: '/tmp/pvc', out: '/tmp/pvd', templates: '/work/main/templates', cache: '/tmp/pvcache' });
console.log((performance.now() - t).toFixed(0), r.ok && r.summary.written);
