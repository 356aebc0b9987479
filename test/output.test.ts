import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recover, Staging } from '../src/output.ts';
import { tempDir } from './helpers.ts';

describe('Staging', () => {
  it('writes into a hidden staging folder and swaps it in whole', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    await writeFile(path.join(out, 'old.txt'), 'old');
    const staging = await Staging.open(out);
    await staging.write('a/b/c.txt', 'new');
    await staging.write('d.bin', new Uint8Array([1, 2, 3]));
    await staging.flush();
    expect(await readFile(path.join(out, 'old.txt'), 'utf8')).toBe('old');
    expect(existsSync(path.join(out, 'a'))).toBe(false);
    await staging.commit();
    expect(await readFile(path.join(out, 'a/b/c.txt'), 'utf8')).toBe('new');
    expect(existsSync(path.join(out, 'old.txt'))).toBe(false);
    expect(staging.files).toBe(2);
    expect(staging.bytes).toBe(6);
    expect(await readdir(root)).toEqual(['dist']);
  });

  it('leaves the output alone when discarded', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    await writeFile(path.join(out, 'keep.txt'), 'keep');
    const staging = await Staging.open(out);
    await staging.write('x.txt', 'x');
    await staging.discard();
    expect(await readdir(root)).toEqual(['dist']);
    expect(await readdir(out)).toEqual(['keep.txt']);
  });

  it('creates the output folder on the first build', async () => {
    const root = await tempDir();
    const staging = await Staging.open(path.join(root, 'nested', 'dist'));
    await staging.write('index.html', 'hi');
    await staging.commit();
    expect(await readFile(path.join(root, 'nested', 'dist', 'index.html'), 'utf8')).toBe('hi');
  });
});

describe('recover', () => {
  it('puts back an output folder a killed build had moved aside, and clears dead staging folders', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const deadPid = 2 ** 22 + 17;
    await mkdir(path.join(root, `.dist.old-${deadPid}-x`));
    await writeFile(path.join(root, `.dist.old-${deadPid}-x`, 'index.html'), 'previous');
    await mkdir(path.join(root, `.dist.staging-${deadPid}-y`));
    await recover(out);
    expect(await readdir(root)).toEqual(['dist']);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toBe('previous');
  });

  it('keeps the staging folder of a build that is still running', async () => {
    const root = await tempDir();
    const live = path.join(root, `.dist.staging-${process.pid}-z`);
    await mkdir(live);
    await recover(path.join(root, 'dist'));
    expect(existsSync(live)).toBe(true);
    await rename(live, path.join(root, 'gone'));
  });
});
