import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TalkJob } from '../src/plan.ts';
import type { WorkerTask } from '../src/render-worker.ts';
import { DEFAULT_SITE_NAME } from '../src/schema.ts';
import { loadTheme } from '../src/theme.ts';
import { carrying, restored, Workers } from '../src/workers.ts';
import { TEMPLATES, tempDir } from './helpers.ts';

describe('Workers', () => {
  // runBuild tells a full or read-only disk by the code (and says what to do), and build() a file removed from the output by the code and path.
  it("gives the build a system error of a worker thread's task as its own thread would have thrown it: its code, path and message", async () => {
    const root = await tempDir();
    const notAFolder = path.join(root, 'dist');
    await writeFile(notAFolder, '');
    const { templates, folder } = await loadTheme(TEMPLATES);
    const job = { talk: { title: 'T' }, outputs: [{ kind: 'redirect', path: 'video/9/index.html', target: '/conf/t/' }] } as unknown as TalkJob;
    const task: WorkerTask = { templatesKey: 'k', templates, templatesFolder: folder, site: { baseUrl: 'https://talks.example.org', nav: [], name: DEFAULT_SITE_NAME }, target: { root: notAFolder, mode: 'fresh', tag: 't' }, contentDir: root, jobs: [job], pages: [] };
    const workers = new Workers(1);
    try {
      const failed = await workers.run(task).then(
        () => undefined,
        (err: unknown) => err,
      );
      const folderOfFile = path.join(notAFolder, 'video', '9');
      expect(failed).toBeInstanceOf(Error);
      expect(failed).toMatchObject({ code: 'ENOTDIR', syscall: 'mkdir', path: folderOfFile, message: `ENOTDIR: not a directory, mkdir '${folderOfFile}'` });
      expect((failed as Error).stack).toContain('render-talks.ts');
    } finally {
      await workers.close();
    }
  });

  it('gives the build an error of a task that is not a system error as piscina does: its message and stack', async () => {
    const workers = new Workers(1);
    try {
      const failed = await workers.run({ dir: '/', display: '/', names: null }, 'readTalks').then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toBe("Cannot read properties of null (reading 'map')");
      expect((failed as Error).stack).toContain('load.ts');
      expect(failed).not.toHaveProperty('code');
    } finally {
      await workers.close();
    }
  });
});

describe('carrying and restored', () => {
  it('take a system error across a clone between threads whole, and leave other errors and values as they are', () => {
    const system = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    let thrown: unknown;
    try {
      carrying(() => {
        throw system;
      })(undefined);
    } catch (err) {
      thrown = structuredClone(err);
    }
    const back = restored(thrown) as NodeJS.ErrnoException;
    expect(back).toBeInstanceOf(Error);
    expect(back).toMatchObject({ message: system.message, code: 'ENOSPC', errno: -28, syscall: 'write', stack: system.stack });
    expect(back).not.toHaveProperty('path');
    const plain = new TypeError('not a system error');
    expect(() =>
      carrying(() => {
        throw plain;
      })(undefined),
    ).toThrow(plain);
    expect(carrying((n: number) => n + 1)(1)).toBe(2);
    expect(restored(plain)).toBe(plain);
    expect(restored({ message: 'an object' })).toEqual({ message: 'an object' });
  });
});
