import { Worker } from 'node:worker_threads';
const w = new Worker(`import { tsImport } from 'tsx/esm/api'; process.argv[2] = '/dev/shm/vc/content'; await tsImport('/work/main/.harness.ts', 'file:///work/main/');`, { eval: true, argv: ['/dev/shm/vc/content'] });
w.on('exit', () => console.log('worker exit'));
