// The benchmark's reading of the processes a step starts (Pagefind's), which
// a step's own peak RSS does not count.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { descendants, peakRss } from '../src/bench.ts';

describe('bench', () => {
  it('finds the processes a process started, and theirs, with the peak RSS each has reached', async () => {
    // A child that starts a grandchild, which fills 200 MB and says so.
    const grandchild = `const b = Buffer.alloc(200 * 1024 * 1024, 1); console.log(b[0]); setTimeout(() => {}, 5000);`;
    const child = spawn(process.execPath, ['-e', `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'inherit'] }); setTimeout(() => {}, 5000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let found: number[] = [];
    try {
      await once(child.stdout, 'data');
      found = descendants(child.pid!);
      expect(found).toHaveLength(1);
      expect(descendants(process.pid)).toEqual(expect.arrayContaining([child.pid, found[0]]));
      expect(peakRss(found[0]!)).toBeGreaterThan(200 * 1024 * 1024);
      expect(peakRss(child.pid!)).toBeLessThan(200 * 1024 * 1024);
    } finally {
      for (const pid of found) process.kill(pid);
      child.kill();
    }
    await once(child, 'exit');
    expect(peakRss(child.pid!)).toBe(0);
  });
});
