import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileWriter, folderId, Patch, recover, recoverPatch, removeKilledTemps, scratchFolder, Staging, tempName, writeFileAtomic } from '../src/output.ts';
import { ownTag, startOf } from '../src/processes.ts';
import { tempDir } from './helpers.ts';

describe('Staging', () => {
  it('writes into a hidden staging folder and swaps it in whole', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    await writeFile(path.join(out, 'old.txt'), 'old');
    const staging = await Staging.open(out);
    const writer = new FileWriter(staging.target);
    writer.write('a/b/c.txt', 'new');
    writer.write('d.bin', new Uint8Array([1, 2, 3]));
    expect(await readFile(path.join(out, 'old.txt'), 'utf8')).toBe('old');
    expect(existsSync(path.join(out, 'a'))).toBe(false);
    await staging.commit();
    expect(await readFile(path.join(out, 'a/b/c.txt'), 'utf8')).toBe('new');
    expect(existsSync(path.join(out, 'old.txt'))).toBe(false);
    expect([writer.files, writer.bytes]).toEqual([2, 6]);
    expect(await readdir(root)).toEqual(['dist']);
  });

  it('leaves the output alone when discarded', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    await writeFile(path.join(out, 'keep.txt'), 'keep');
    const staging = await Staging.open(out);
    new FileWriter(staging.target).write('x.txt', 'x');
    await staging.discard();
    expect(await readdir(root)).toEqual(['dist']);
    expect(await readdir(out)).toEqual(['keep.txt']);
  });

  it('moves in files another program wrote, into their folders', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const scratch = await scratchFolder(out, 'search');
    await mkdir(path.join(scratch, 'index'));
    await writeFile(path.join(scratch, 'index', 'a.pf_index'), 'chunk');
    const staging = await Staging.open(out);
    const writer = new FileWriter(staging.target);
    writer.move('pagefind/index/a.pf_index', path.join(scratch, 'index', 'a.pf_index'));
    await staging.commit();
    expect(await readFile(path.join(out, 'pagefind/index/a.pf_index'), 'utf8')).toBe('chunk');
    expect(await readdir(path.join(scratch, 'index'))).toEqual([]);
    expect([writer.files, writer.bytes]).toEqual([1, 5]);
  });

  it("keeps the output folder's permissions and group, which a web server may read the site by, and gives what it writes the group", async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    await mkdir(out);
    // As root, a group of no one's (what www-data is to a build's user); else this user's own.
    const gid = process.getuid!() === 0 ? 4242 : process.getgid!();
    await chown(out, -1, gid);
    await chmod(out, 0o2750);
    const scratch = await scratchFolder(out, 'search');
    await writeFile(path.join(scratch, 'a.pf_index'), 'chunk');
    const staging = await Staging.open(out);
    const writer = new FileWriter(staging.target);
    writer.write('video/1/index.html', 'hi');
    writer.move('pagefind/a.pf_index', path.join(scratch, 'a.pf_index'));
    await staging.commit();
    const modes = await Promise.all(['.', 'video', 'video/1/index.html', 'pagefind/a.pf_index'].map(async (rel) => [rel, (await stat(path.join(out, rel))).gid]));
    expect([(await stat(out)).mode & 0o7777, ...modes]).toEqual([0o2750, ['.', gid], ['video', gid], ['video/1/index.html', gid], ['pagefind/a.pf_index', gid]]);
  });

  it('creates the output folder on the first build', async () => {
    const root = await tempDir();
    const staging = await Staging.open(path.join(root, 'nested', 'dist'));
    new FileWriter(staging.target).write('index.html', 'hi');
    await staging.commit();
    expect(await readFile(path.join(root, 'nested', 'dist', 'index.html'), 'utf8')).toBe('hi');
  });
});

describe('writeFileAtomic', () => {
  it('leaves the file as it was, and no temporary file, when its write fails (a full disk)', async () => {
    const root = await tempDir();
    const file = path.join(root, 'state.v8');
    await writeFile(file, 'old');
    function* pieces() {
      yield new Uint8Array(4096);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    await expect(writeFileAtomic(file, pieces())).rejects.toThrow('ENOSPC');
    expect(await readdir(root)).toEqual(['state.v8']);
    expect(await readFile(file, 'utf8')).toBe('old');
  });
});

describe('removeKilledTemps', () => {
  it("removes the temporary files a writer killed while it wrote left, and keeps a live writer's and every other file", async () => {
    const root = await tempDir();
    const deadPid = 2 ** 22 + 17;
    const kept = ['talk.yaml', `.talk.yaml.tmp-${ownTag()}-live`, '.talk.yaml.swp', '.notes.tmp-abc', 'x.tmp-1-2'];
    for (const name of [...kept, `.talk.yaml.tmp-${deadPid}-k9x`, `.other.json.tmp-${deadPid}_123-a1`]) await writeFile(path.join(root, name), '');
    await removeKilledTemps(root);
    expect((await readdir(root)).sort()).toEqual(kept.sort());
    // A folder that is not there has none.
    await removeKilledTemps(path.join(root, 'gone'));
  });
});

describe('folderId', () => {
  it("tells a folder from one made at its path after it was removed, though the file system often gives the new one the old one's inode", async () => {
    const root = await tempDir();
    let reused = 0;
    // A few times over: whether ext4 gives the freed inode back varies from one folder to the next.
    for (let n = 0; n < 50; n++) {
      const dir = path.join(root, String(n));
      await mkdir(dir);
      const [before, ino] = [folderId(dir), (await stat(dir)).ino];
      expect(folderId(dir)).toBe(before);
      await rm(dir, { recursive: true });
      expect(folderId(dir)).toBeUndefined();
      await mkdir(dir);
      if ((await stat(dir)).ino === ino) reused++;
      expect(folderId(dir), `made again ${n}, ${reused} with the old inode so far`).not.toBe(before);
    }
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
    const scratch = await scratchFolder(path.join(root, 'dist'), 'search');
    await recover(path.join(root, 'dist'));
    expect([existsSync(live), existsSync(scratch)]).toEqual([true, true]);
    await rename(live, path.join(root, 'gone'));
  });

  it.runIf(startOf(process.pid))('tells a build that still runs from a live process given the pid of a dead one, whose folders are recovered', async () => {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const alive = path.join(root, `.dist.staging-${process.pid}_${startOf(process.pid)}-z`);
    await mkdir(alive);
    // Made by a build that was this pid but started at another time.
    const reused = `${process.pid}_${Number(startOf(process.pid)) - 1}`;
    await mkdir(path.join(root, `.dist.old-${reused}-x`));
    await writeFile(path.join(root, `.dist.old-${reused}-x`, 'index.html'), 'previous');
    await mkdir(path.join(root, `.dist.staging-${reused}-y-search`));
    await recover(out);
    expect((await readdir(root)).sort()).toEqual([path.basename(alive), 'dist']);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toBe('previous');
    await rename(alive, path.join(root, 'gone'));
  });
});

describe('Patch', () => {
  async function setUp() {
    const root = await tempDir();
    const out = path.join(root, 'dist');
    const state = path.join(root, 'state');
    await mkdir(path.join(out, 'a'), { recursive: true });
    await writeFile(path.join(out, 'same.txt'), 'same');
    await writeFile(path.join(out, 'changed.txt'), 'before');
    await writeFile(path.join(out, 'a', 'gone.txt'), 'gone');
    return { root, out, state };
  }

  it('leaves equal files alone, writes changed ones beside the old, and swaps them on commit', async () => {
    const { out, state } = await setUp();
    const patch = await Patch.open(out, state);
    const writer = new FileWriter(patch.target);
    writer.write('same.txt', 'same');
    writer.write('changed.txt', 'after');
    writer.write('new/file.txt', 'new');
    expect(writer.unchanged).toBe(1);
    expect(writer.staged).toEqual(['changed.txt', 'new/file.txt']);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('before');
    expect(existsSync(path.join(out, tempName('changed.txt', patch.target.tag)))).toBe(true);
    await patch.commit(writer.staged, ['a/gone.txt'], []);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('after');
    expect(await readFile(path.join(out, 'new/file.txt'), 'utf8')).toBe('new');
    expect(existsSync(path.join(out, 'a'))).toBe(false);
    expect((await readdir(out, { recursive: true })).sort()).toEqual(['changed.txt', 'new', 'new/file.txt', 'same.txt']);
    expect(await readdir(state)).toEqual([]);
  });

  it('a patch stopped before its journal changed nothing: the next build removes its temporary files', async () => {
    const { out, state } = await setUp();
    const patch = await Patch.open(out, state);
    new FileWriter(patch.target).write('changed.txt', 'after');
    await recoverPatch(out, state);
    expect((await readdir(out)).sort()).toEqual(['a', 'changed.txt', 'same.txt']);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('before');
  });

  it('a discarded patch leaves no temporary file, even from writers it was not told about', async () => {
    const { out, state } = await setUp();
    const patch = await Patch.open(out, state);
    new FileWriter(patch.target).write('changed.txt', 'after');
    new FileWriter(patch.target).write('new/file.txt', 'new');
    await patch.discard();
    expect((await readdir(out, { recursive: true })).sort()).toEqual(['a', 'a/gone.txt', 'changed.txt', 'same.txt']);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('before');
    expect(await readdir(state)).toEqual([]);
  });

  it('moves in files another program wrote: an equal one stays out, a changed or new one is staged like a write', async () => {
    const { root, out, state } = await setUp();
    const scratch = await scratchFolder(out, 'search');
    expect(path.dirname(scratch)).toBe(root);
    for (const [name, body] of [['same.txt', 'same'], ['changed.txt', 'after'], ['new.txt', 'new']] as const) await writeFile(path.join(scratch, name), body);
    const patch = await Patch.open(out, state);
    const writer = new FileWriter(patch.target);
    for (const name of ['same.txt', 'changed.txt', 'new.txt']) writer.move(name, path.join(scratch, name));
    expect([writer.unchanged, writer.files, writer.bytes]).toEqual([1, 2, 8]);
    expect(writer.staged).toEqual(['changed.txt', 'new.txt']);
    expect(await readdir(scratch)).toEqual(['same.txt']);
    await patch.commit(writer.staged, [], []);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('after');
    expect(await readFile(path.join(out, 'new.txt'), 'utf8')).toBe('new');
  });

  it('a patch clears the scratch folders of dead builds beside the output, not those of running ones', async () => {
    const { root, out, state } = await setUp();
    const dead = path.join(root, `.dist.staging-${2 ** 22 + 17}-x-search`);
    await mkdir(dead);
    const live = await scratchFolder(out, 'search');
    await Patch.open(out, state);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it('a patch stopped after its journal is completed by the next build', async () => {
    const { out, state } = await setUp();
    const patch = await Patch.open(out, state);
    const writer = new FileWriter(patch.target);
    writer.write('changed.txt', 'after');
    await writeFile(path.join(state, 'journal.json'), JSON.stringify({ tag: patch.target.tag, renames: writer.staged, removes: ['a/gone.txt'], moves: [] }));
    await recoverPatch(out, state);
    expect(await readFile(path.join(out, 'changed.txt'), 'utf8')).toBe('after');
    expect(existsSync(path.join(out, 'a'))).toBe(false);
  });
});
