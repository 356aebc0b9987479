import { parseCommand, run } from '../src/cli.ts';
import { runBuild, runServer, servedAt, serverSettings, startCommand } from '../src/commands.ts';

const given = parseCommand(startCommand);
run('start', async () => {
  // A bad listening option fails before the build, not after it.
  serverSettings(given);
  const values = await servedAt(given);
  const code = await runBuild(values);
  if (code !== 0) return code;
  await runServer({ ...values, dir: values.out });
});
