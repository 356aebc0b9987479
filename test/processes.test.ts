// What /proc tells of processes: the benchmark reads the processes a step starts
// (Pagefind's), and the search index watches Pagefind's.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { childrenNamed, descendants, peakRss, running, sameStart, startOf } from '../src/processes.ts';

describe('processes', () => {
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

  it('tells a process that runs from one that has exited, and finds children by program', async () => {
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    expect(running(child.pid!)).toBe(true);
    expect(childrenNamed(process.pid, ['sleep'])).toContain(child.pid);
    // When each started: the same every time it is asked, a number, none once it has gone.
    const started = startOf(child.pid!);
    expect(started).toMatch(/^\d+$/);
    expect(startOf(child.pid!)).toBe(started);
    child.kill();
    await once(child, 'exit');
    expect(running(child.pid!)).toBe(false);
    expect(startOf(child.pid!)).toBeUndefined();
  });

  it("takes a process that runs for the one that started at a time when its own start is the same, or hidden (another user's, /proc mounted hidepid=2)", () => {
    expect(sameStart('1234', '1234')).toBe(true);
    expect(sameStart('5678', '1234')).toBe(false);
    expect(sameStart(undefined, '1234')).toBe(true);
    // Named without a start (by an older version, or where /proc did not tell): its pid alone.
    expect(sameStart('5678', undefined)).toBe(true);
  });
});
