import { spawn, spawnSync } from 'node:child_process';
import { mkdir, open, readdir, readFile, rename, symlink, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { LoadCache } from '../src/load.ts';
import { folderId } from '../src/output.ts';
import { ownTag, startOf } from '../src/processes.ts';
import { lockState, ManifestPatch, readState, stateDirFor, writeStateNext, type BuildState } from '../src/state.ts';
import { tempDir } from './helpers.ts';

describe('the state file', () => {
  it('reads back as it was written, in pieces, and is trusted only for its code and its output folder', async () => {
    const dir = await tempDir('vc-state-');
    const out = path.join(dir, 'dist');
    await mkdir(path.join(out, 'video'), { recursive: true });
    await writeFile(path.join(out, 'index.html'), '');
    const manifest = new Map(Array.from({ length: 45_001 }, (_, i) => [`video/${i}/index.html`, `key-${i}`] as [string, string]));
    manifest.set('index.html', 'key-home');
    const load: LoadCache = new Map([['event/videos/talk.yaml', { stat: '1:2:3', rev: 'r', value: { title: 'An event' } as never }]]);
    const state: BuildState = { code: 'c0de', outId: folderId(out)!, manifest, load, search: new Map([['origin', 'key']]) };
    const stateDir = path.join(dir, 'state');
    const [next, file] = await writeStateNext(stateDir, state);
    await rename(next, file);
    const read = readState(stateDir, 'c0de', out);
    expect(read).toEqual(state);
    expect([...read!.manifest.keys()]).toEqual([...manifest.keys()]);
    expect(readState(stateDir, 'other', out)).toBeUndefined();
    expect(readState(stateDir, 'c0de', dir)).toBeUndefined();
    // Nor once the folder lacks a name at its top that the manifest's files are under, or are.
    for (const top of ['video', 'index.html']) {
      await rename(path.join(out, top), path.join(dir, top));
      expect(readState(stateDir, 'c0de', out)).toBeUndefined();
      await rename(path.join(dir, top), path.join(out, top));
    }
    // A file cut short is not trusted, within a piece or after one.
    const bytes = await readFile(file);
    await truncate(file, bytes.length - 10);
    expect(readState(stateDir, 'c0de', out)).toBeUndefined();
    const ends: number[] = [];
    for (let at = 0; at < bytes.length; at += 4 + bytes.readUInt32LE(at)) ends.push(at + 4 + bytes.readUInt32LE(at));
    expect(ends.length).toBeGreaterThan(3);
    await writeFile(file, bytes.subarray(0, ends.at(-2)));
    expect(readState(stateDir, 'c0de', out)).toBeUndefined();
    await writeFile(file, bytes);
    expect(readState(stateDir, 'c0de', out)).toEqual(state);
  });

  it("is locked by a live holder, and taken over from a dead one whose pid another process has since (a container's, after a restart)", async () => {
    const stateDir = path.join(await tempDir('vc-state-'), 'state');
    const unlock = await lockState(stateDir);
    expect(await readFile(path.join(stateDir, 'lock'), 'utf8')).toBe(`${process.pid} ${startOf(process.pid)}`);
    await unlock();
    const other = spawn('sleep', ['30']);
    try {
      await writeFile(path.join(stateDir, 'lock'), `${other.pid} ${startOf(other.pid!)}`);
      await expect(lockState(stateDir)).rejects.toThrow(`process ${other.pid}`);
      // The holder started at another time than the process that has its pid now.
      await writeFile(path.join(stateDir, 'lock'), `${other.pid} 1`);
      await (await lockState(stateDir))();
    } finally {
      other.kill();
    }
  });

  it('leaves no lock file, nor the file open, when it cannot write the lock (a full disk)', async () => {
    const stateDir = path.join(await tempDir('vc-state-'), 'state');
    await mkdir(stateDir);
    const probe = await open(path.join(stateDir, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const full = vi.spyOn(handles, 'writeFile').mockRejectedValueOnce(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    try {
      await expect(lockState(stateDir)).rejects.toThrow('ENOSPC');
    } finally {
      full.mockRestore();
    }
    expect(await readdir(stateDir)).toEqual(['probe']);
  });

  it('is one folder for one output, whichever path names it', async () => {
    const dir = await tempDir('vc-state-');
    const out = path.join(dir, 'dist');
    await mkdir(out);
    await symlink(out, path.join(dir, 'link'));
    const cache = path.join(dir, 'cache');
    expect(stateDirFor(cache, path.join(dir, 'link'))).toBe(stateDirFor(cache, out));
    expect(stateDirFor(cache, path.join(dir, 'link', '..', 'dist'))).toBe(stateDirFor(cache, out));
    expect(stateDirFor(cache, path.join(dir, 'other'))).not.toBe(stateDirFor(cache, out));
  });

  it('clears the temporary state files of processes killed while they wrote one, not those of a live one', async () => {
    const dir = await tempDir('vc-state-');
    const out = path.join(dir, 'dist');
    await mkdir(out);
    const stateDir = path.join(dir, 'state');
    await mkdir(stateDir);
    const dead = spawnSync('true').pid;
    // A pid alone, as older versions named them; this process's tag; and this pid as a process that started at another time had it.
    const left = [`.state-c0de.v8.next.tmp-${dead}-abc`, `.state-c0de.v8.next.tmp-${process.pid}-def`, `.state-c0de.v8.next.tmp-${ownTag()}-ghi`];
    const reused = startOf(process.pid) ? [`.state-c0de.v8.next.tmp-${process.pid}_${Number(startOf(process.pid)) + 1}-jkl`] : [];
    for (const name of [...left, ...reused]) await writeFile(path.join(stateDir, name), 'partial');
    const state: BuildState = { code: 'c0de', outId: folderId(out)!, manifest: new Map(), load: new Map(), search: new Map() };
    await writeStateNext(stateDir, state);
    expect((await readdir(stateDir)).filter((name) => name.includes('.tmp-')).sort()).toEqual([left[1], left[2]].sort());
  });

  it("keeps the manifest's files by part, in pieces, when the parts hold as many as the manifest", async () => {
    const dir = await tempDir('vc-state-');
    const out = path.join(dir, 'dist');
    await mkdir(path.join(out, 'video'), { recursive: true });
    const entries = Array.from({ length: 45_001 }, (_, i) => [`video/${i}/index.html`, `key-${i}`] as [string, string]);
    const manifest = new Map(entries);
    const files = entries.map(([file]) => file);
    // Parts in another order than the manifest's, one of them over a piece's edge.
    const parts = new Map([
      ['event\0b', { signature: 'sig-b', files: files.slice(10, 30_000) }],
      ['site', { signature: undefined, files: files.slice(30_000) }],
      ['event\0a', { signature: 'sig-a', files: files.slice(0, 10) }],
    ]);
    const state: BuildState = { code: 'c0de', outId: folderId(out)!, manifest, load: new Map(), search: new Map(), parts };
    const stateDir = path.join(dir, 'state');
    const write = async (written: BuildState) => {
      const [next, file] = await writeStateNext(stateDir, written);
      await rename(next, file);
      return readState(stateDir, 'c0de', out);
    };
    const read = await write(state);
    expect(read).toEqual(state);
    expect(read!.manifest.get('video/20/index.html')).toBe('key-20');
    // Parts that miss an entry of the manifest, or hold one twice, are left out, and the manifest is whole.
    const missing = new Map(parts);
    missing.delete('event\0a');
    expect(await write({ ...state, parts: missing })).toEqual({ ...state, parts: undefined });
    const twice = new Map(parts).set('event\0a', { signature: 'sig-a', files: files.slice(0, 11) });
    expect(await write({ ...state, parts: twice })).toEqual({ ...state, parts: undefined });
    // A file the manifest lacks has no key to be written with.
    const stranger = new Map(parts).set('event\0a', { signature: 'sig-a', files: [...files.slice(0, 9), 'video/none/index.html'] });
    expect(await write({ ...state, parts: stranger })).toEqual({ ...state, parts: undefined });
    // One held twice where another is missing would lose a file of the manifest: the state is not trusted.
    const swapped = new Map(parts).set('event\0a', { signature: 'sig-a', files: [...files.slice(0, 9), files[10]!] });
    expect(await write({ ...state, parts: swapped })).toBeUndefined();
  });
});

describe('ManifestPatch', () => {
  const manifest = () =>
    new Map([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);

  it('changes the manifest in place, knows the keys it had and the files it took out for good', () => {
    const patch = new ManifestPatch(manifest());
    patch.delete('a');
    patch.delete('b');
    patch.set('b', '2*');
    patch.set('d', '4');
    expect([...patch.manifest]).toEqual([
      ['c', '3'],
      ['b', '2*'],
      ['d', '4'],
    ]);
    expect(['a', 'b', 'c', 'd'].map((file) => patch.before(file))).toEqual(['1', '2', '3', undefined]);
    expect(patch.removed()).toEqual(['a']);
  });

  it('puts the manifest back as it found it', () => {
    const patch = new ManifestPatch(manifest());
    patch.set('a', '1*');
    patch.delete('b');
    patch.set('d', '4');
    patch.delete('d');
    patch.undo();
    expect(new Map(patch.manifest)).toEqual(manifest());
    expect(patch.removed()).toEqual([]);
  });
});
