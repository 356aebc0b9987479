import { spawn } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTENT_LOCK, checkContent, Locked, lockContent } from '../src/locks.ts';
import { startOf } from '../src/processes.ts';
import { DEMO_CONTENT, fingerprint, runCommand, tempDir, TEMPLATES } from './helpers.ts';

const holders: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const holder of holders.splice(0)) holder.kill();
});

/** A live process other than this one, as another import would be. */
function otherProcess(): number {
  const holder = spawn('sleep', ['60']);
  holders.push(holder);
  return holder.pid!;
}

async function demoCopy() {
  const root = await tempDir('vc-locks-');
  const content = path.join(root, 'content');
  await cp(DEMO_CONTENT, content, { recursive: true });
  const build = () => runCommand('build', ['--content', content, '--out', path.join(root, 'dist'), '--templates', TEMPLATES, '--cache', path.join(root, 'cache')]);
  return { root, content, lock: path.join(content, CONTENT_LOCK), build };
}

describe('the content lock', () => {
  it('is held by an import while it writes: a build waits for it, and tells of one that stopped part way', async () => {
    const { root, content, lock, build } = await demoCopy();
    expect(checkContent(content)).toBeUndefined();
    expect(build().status).toBe(0);
    const built = await fingerprint(path.join(root, 'dist'));
    const pid = otherProcess();
    await writeFile(lock, `${pid} ${startOf(pid)}`);
    expect(() => checkContent(content)).toThrow(new Locked(pid, 'import', content));
    await expect(lockContent(content)).rejects.toThrow(`another import (process ${pid}) is writing ${content}; wait for it to finish`);
    expect(build()).toMatchObject({ status: 1, stderr: expect.stringContaining(`another import (process ${pid}) is writing ${content}; wait for it to finish`) });

    // The process that held it died without letting go (killed, or it failed on a full disk): half a catalogue.
    await writeFile(lock, `${pid} 1`);
    const stopped = build();
    expect(stopped.status).toBe(1);
    expect(stopped.stderr).toContain(`${lock}:1:1 an import into this folder stopped before it had written every file, so it holds part of the catalogue: run the same import again to finish it, or remove this file to build the content as it is`);
    const checked = runCommand('check', ['--content', content, '--templates', TEMPLATES]);
    expect([checked.status, checked.stderr.split('\n')[0]]).toEqual([1, stopped.stderr.split('\n')[0]]);
    expect(checked.stderr).toMatch(/\ncheck failed: 1 error in 1 of \d+ files\n$/);
    expect(await fingerprint(path.join(root, 'dist'))).toEqual(built);
    await rm(lock);
    expect(build()).toMatchObject({ status: 0, stdout: expect.stringContaining('unchanged') });
  });

  it('is taken over by an import from one that stopped, and let go of', async () => {
    const content = await tempDir('vc-locks-');
    await writeFile(path.join(content, CONTENT_LOCK), `${otherProcess()} 1`);
    const unlock = await lockContent(content);
    expect(await readFile(path.join(content, CONTENT_LOCK), 'utf8')).toBe(`${process.pid} ${startOf(process.pid)}`);
    await unlock();
    expect(checkContent(content)).toBeUndefined();
  });
});
