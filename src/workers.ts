// The worker threads a build reads content and renders in (a piscina pool of
// render-worker's tasks), and the errors they throw, which reach the build as
// the same errors would on its own thread.
import { Piscina } from 'piscina';
import { threadEntry } from './program.ts';

/** Worker threads for a build, started on first use: small builds never pay for them. */
export class Workers {
  private pool: Piscina | undefined;

  constructor(readonly threads: number) {}

  /**
   * Starts the threads now (`count` of them, if none run yet), so that their start-up overlaps the main
   * thread's own work; or `atFirst` of them, and the others once more tasks wait than they can take.
   */
  start(count = this.threads, atFirst = count): Piscina {
    this.pool ??= new Piscina({
      filename: threadEntry('render-worker').href,
      minThreads: atFirst,
      maxThreads: count,
      // A thread started on demand stays until the build closes the pool: one stopped when idle for a moment would be started again.
      idleTimeout: Infinity,
      // Workers keep nothing between batches: a small heap makes them collect garbage early instead of growing.
      resourceLimits: { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 32 },
    });
    return this.pool;
  }

  run<R>(task: unknown, name?: string): Promise<R> {
    return (this.start().run(task, name ? { name } : undefined) as Promise<R>).catch((thrown: unknown) => {
      throw restored(thrown);
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/**
 * A system error's fields beside its message, by which the build tells what happened: a full disk, one mounted
 * read-only or not the build's user's to write (and what to do; see runBuild), a file removed from the output.
 */
const SYSTEM_FIELDS = ['code', 'errno', 'syscall', 'path', 'dest'] as const;

/** What carrying() throws in place of a system error: every field of it, as plain data. */
interface Carried {
  carried: true;
  message: string;
  stack?: string;
  fields: Partial<Record<(typeof SYSTEM_FIELDS)[number], unknown>>;
}

/**
 * A worker thread's task that throws its system errors as they can cross to the build's thread: an error cloned
 * between threads keeps its message and stack, not its other fields (`code`, `path`), and a plain object keeps them all.
 */
export const carrying =
  <A, R>(task: (arg: A) => R) =>
  (arg: A): R => {
    try {
      return task(arg);
    } catch (err) {
      if (!(err instanceof Error) || typeof (err as NodeJS.ErrnoException).code !== 'string') throw err;
      const fields = Object.fromEntries(SYSTEM_FIELDS.filter((field) => field in err).map((field) => [field, (err as unknown as Record<string, unknown>)[field]]));
      throw { carried: true, message: err.message, stack: err.stack, fields } satisfies Carried;
    }
  };

/** The error a task of carrying() threw, as it was thrown; anything else as it came. */
export function restored(thrown: unknown): unknown {
  if (thrown === null || typeof thrown !== 'object' || (thrown as Partial<Carried>).carried !== true) return thrown;
  const { message, stack, fields } = thrown as Carried;
  const err = Object.assign(new Error(message), fields);
  if (stack !== undefined) err.stack = stack;
  return err;
}
