import path from 'node:path';
import { build } from '../src/build.ts';
import { buildOptions, formatMiB, formatSeconds, parseCommand, run } from '../src/cli.ts';
import { terminalProgress } from '../src/progress.ts';

export const spec = {
  name: 'build',
  summary: 'Validate every content file, then write the API records and the site into the output folder.\nOn any content error nothing is written and the previous output stays as it was.',
  options: buildOptions,
};

export async function runBuild(values: { content: string; out: string; templates: string }): Promise<number> {
  const result = await build({ ...values, progress: terminalProgress() });
  if (!result.ok) {
    for (const error of result.errors) process.stderr.write(`${error}\n`);
    const n = result.errors.length;
    process.stderr.write(`build failed: ${n} ${n === 1 ? 'error' : 'errors'} in ${values.content}; ${values.out} left as it was\n`);
    return 1;
  }
  const s = result.summary;
  process.stdout.write(
    `built ${s.talks} talks (${s.drafts} drafts not published) from ${s.events} events into ${path.normalize(values.out)}: ${s.files} files, ${formatMiB(s.bytes)} in ${formatSeconds(s.ms)}\n`,
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const values = parseCommand(spec);
  run('build', () => runBuild(values));
}
