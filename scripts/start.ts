import { parseCommand, run } from '../src/cli.ts';
import { checkServer, runBuild, runServer, servedAt, startCommand } from '../src/commands.ts';

const given = parseCommand(startCommand);
run('start', async () => {
  // A bad listening option or tokens file fails before the build, not after it.
  await checkServer(given);
  const values = await servedAt(given);
  const code = await runBuild(values);
  if (code !== 0) return code;
  await runServer({ ...values, dir: values.out });
});
