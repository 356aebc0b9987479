// The benchmark's work folder, its yardstick and its table.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTable, unpackSnapshot, type CatalogueFigures, type StepResult } from '../src/bench.ts';
import { ROOT, tempDir } from './helpers.ts';

describe('bench', () => {
  it('empties no folder it did not make, nor one that holds the working folder, and checks the snapshot first', async () => {
    const dir = await tempDir();
    const foreign = path.join(dir, 'notes');
    await mkdir(foreign);
    await writeFile(path.join(foreign, 'keep.txt'), 'mine');
    const snapshot = path.join(dir, 'snapshot.tar.gz');
    execFileSync('tar', ['czf', snapshot, '-C', foreign, 'keep.txt']);
    const log = () => undefined;
    await expect(unpackSnapshot(path.join(dir, 'missing.tar.gz'), path.join(dir, 'new'), log)).rejects.toThrow(/--snapshot .*: no such file/);
    await expect(unpackSnapshot(snapshot, foreign, log)).rejects.toThrow(/holds files the benchmark did not write/);
    await expect(unpackSnapshot(snapshot, path.dirname(ROOT), log)).rejects.toThrow(/holds the working folder/);
    expect(await readFile(path.join(foreign, 'keep.txt'), 'utf8')).toBe('mine');
    // A folder it made, it empties and fills again.
    const work = path.join(dir, 'work');
    await unpackSnapshot(snapshot, work, log);
    await writeFile(path.join(work, 'left-over'), '');
    await unpackSnapshot(snapshot, work, log);
    expect(existsSync(path.join(work, 'left-over'))).toBe(false);
    expect(await readFile(path.join(work, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('refuses --dir and --seconds without --serve, which only the server benchmark reads, before it runs anything', () => {
    // A snapshot that is not there stops the build benchmark at once, should the options be let through.
    const missing = path.join(ROOT, 'no-such-snapshot.tar.gz');
    for (const [option, value] of [['dir', 'dist'], ['seconds', '5']] as const) {
      const bench = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'run.mjs'), 'bench', '--snapshot', missing, `--${option}`, value], { encoding: 'utf8' });
      expect(bench.status, option).toBe(2);
      expect(bench.stderr, option).toBe(`bench: --${option} counts only with --serve: give --serve too, or leave --${option} out\nRun "npm run bench -- --help" for the options.\n`);
    }
  });

  it('runs the yardstick: one JSON record and one escaped HTML page per live talk, drafts left out', async () => {
    const dir = await tempDir('vc-baseline-');
    const videos = path.join(dir, 'content', 'pycon-2024', 'videos');
    await mkdir(videos, { recursive: true });
    const live = { id: 7, state: 1, title: 'Tags <script>alert(1)</script> & you', speakers: ['Ada'], recorded: '2024-05-01', description: 'Hi', source_url: 'https://example.org/v?a=1&b=2' };
    await writeFile(path.join(videos, 'tags.json'), JSON.stringify(live));
    await writeFile(path.join(videos, 'hidden.json'), JSON.stringify({ ...live, id: 8, state: 2 }));
    const out = path.join(dir, 'out');
    const printed = JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'src', 'bench-baseline.mjs'), path.join(dir, 'content'), out], { encoding: 'utf8' }));
    expect(printed).toMatchObject({ ok: true, talks: 1 });
    expect(printed.rss).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(path.join(out, 'api', 'v2', 'video', '7'), 'utf8'))).toEqual(live);
    const page = await readFile(path.join(out, 'pycon-2024', 'tags', 'index.html'), 'utf8');
    expect(page).toContain('<h1>Tags &#60;script&#62;alert(1)&#60;/script&#62; &#38; you</h1>');
    expect(page).toContain('href="https://example.org/v?a=1&#38;b=2"');
    await expect(readFile(path.join(out, 'api', 'v2', 'video', '8'))).rejects.toThrow(/ENOENT/);
  });

  it('shows the yardstick beside the issue’s figure, for the catalogues that ran it', () => {
    const step = (ms: number, rss = 100e6): StepResult => ({ ok: true, ms, rss, talks: 21_713 });
    const figures = (name: string, baseline?: StepResult): CatalogueFigures => ({
      name,
      talks: 21_713,
      cold: step(13_000),
      noop: step(600),
      oneTalk: step(8000),
      oneField: step(2400),
      dev: { ...step(0), pagesMs: 290, pagesBuildMs: 160, searchMs: 7000, editBuildsMs: [240, 150, 180, 170, 200] },
      compressed: { ...step(20_000), files: 10, bytes: 1e6 },
      output: { files: 10, bytes: 1e6 },
      pages: { files: 5, bytes: 5e5 },
      baseline,
    });
    const table = formatTable([figures('pyvideo', step(3000, 64e6)), figures('synthetic-5x')]);
    expect(table).toContain('| pyvideo | 21,713 | 3.00 s | 64 MB | 2.40 s, 300 MB |');
    expect(table.match(/yardstick/g)).toHaveLength(1);
    // The dev server's title save, then the median and range of its builds after each duration save.
    expect(table).toContain('| 0.29 s (0.16 s) / 7.00 s | 0.18 s (0.15–0.24) |');
    expect(formatTable([figures('synthetic-5x')])).not.toContain('yardstick');
  });
});
