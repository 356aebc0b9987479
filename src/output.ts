// Writing the output folder. A build writes into a staging folder beside it
// and swaps it in at the end, so the output is always either the previous
// build or the new one, never half of each, whenever the build stops.
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import fse from 'fs-extra';

const MAX_INFLIGHT = 64;

/** Writes a file so that readers see the old bytes or the new ones, never a part: temp file, fsync, rename. */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

function siblings(outDir: string) {
  const parent = path.dirname(outDir);
  const base = path.basename(outDir);
  return { parent, staging: `.${base}.staging-`, old: `.${base}.old-` };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Undoes what an interrupted build left: puts back an output folder that was
 * moved aside but not replaced, and removes staging folders of dead builds.
 */
export async function recover(outDir: string): Promise<void> {
  const { parent, staging, old } = siblings(outDir);
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  const pidOf = (name: string, prefix: string) => Number(name.slice(prefix.length).split('-')[0]);
  const olds = entries.filter((e) => e.startsWith(old) && !isAlive(pidOf(e, old))).sort();
  if (!existsSync(outDir) && olds.length > 0) await rename(path.join(parent, olds.pop()!), outDir);
  for (const name of olds) await fse.remove(path.join(parent, name));
  for (const name of entries.filter((e) => e.startsWith(staging) && !isAlive(pidOf(e, staging)))) {
    await fse.remove(path.join(parent, name));
  }
}

export class Staging {
  private readonly dirs = new Set<string>();
  private readonly inflight = new Set<Promise<void>>();
  files = 0;
  bytes = 0;

  private constructor(
    readonly outDir: string,
    readonly dir: string,
  ) {}

  static async open(outDir: string): Promise<Staging> {
    const resolved = path.resolve(outDir);
    await recover(resolved);
    const { parent, staging } = siblings(resolved);
    await mkdir(parent, { recursive: true });
    const dir = path.join(parent, `${staging}${process.pid}-${Date.now().toString(36)}`);
    await mkdir(dir);
    return new Staging(resolved, dir);
  }

  /** Queues a file write; at most MAX_INFLIGHT run at once. */
  async write(relPath: string, body: string | Uint8Array): Promise<void> {
    while (this.inflight.size >= MAX_INFLIGHT) await Promise.race(this.inflight);
    const task = this.writeNow(relPath, body).finally(() => this.inflight.delete(task));
    this.inflight.add(task);
    this.files++;
    this.bytes += typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  }

  private async writeNow(relPath: string, body: string | Uint8Array): Promise<void> {
    const file = path.join(this.dir, relPath);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.dirs.add(dir);
    }
    await writeFile(file, body);
  }

  /** Waits for every queued write; the first failure rejects. */
  async flush(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all(this.inflight);
  }

  /** Swaps the staging folder in as the output folder. */
  async commit(): Promise<void> {
    await this.flush();
    const { parent, old } = siblings(this.outDir);
    const aside = path.join(parent, `${old}${process.pid}-${Date.now().toString(36)}`);
    const hadOutput = existsSync(this.outDir);
    if (hadOutput) await rename(this.outDir, aside);
    await rename(this.dir, this.outDir);
    if (hadOutput) await fse.remove(aside);
  }

  async discard(): Promise<void> {
    await Promise.allSettled(this.inflight);
    await fse.remove(this.dir);
  }
}
