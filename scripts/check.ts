import { loadTheme } from '../src/build.ts';
import { buildOptions, formatSeconds, parseCommand, run } from '../src/cli.ts';
import { isLive, loadContent } from '../src/load.ts';
import { SiteRenderer } from '../src/render.ts';

const spec = {
  name: 'check',
  summary: 'Validate every content file and compile the templates, reporting every problem, one per line as file:line:col.\nWrites nothing (--out is accepted so build and check share their options).',
  options: buildOptions,
  notes: 'Exit code: 0 when everything is valid, 1 when any file has a problem, 2 for a bad option.',
};

const values = parseCommand(spec);
run('check', async () => {
  const started = performance.now();
  const { catalogue, errors, files } = await loadContent(values.content);
  for (const error of errors) process.stderr.write(`${error}\n`);
  if (errors.length > 0) {
    process.stderr.write(`check failed: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'} in ${files} files\n`);
    return 1;
  }
  new SiteRenderer((await loadTheme(values.templates)).templates);
  const live = catalogue.talks.filter(isLive).length;
  process.stdout.write(
    `checked ${files} files: ${catalogue.events.length} events, ${live} live talks, ${catalogue.talks.length - live} drafts, no problems (${formatSeconds(performance.now() - started)})\n`,
  );
  return 0;
});
