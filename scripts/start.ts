import { parseCommand, run } from '../src/cli.ts';
import { runBuild, runServer, startCommand } from '../src/commands.ts';

const values = parseCommand(startCommand);
run('start', async () => {
  const code = await runBuild(values);
  if (code !== 0) return code;
  await runServer({ ...values, dir: values.out });
});
