import { parseCommand, run } from '../src/cli.ts';
import { runServer, serveCommand } from '../src/commands.ts';

const values = parseCommand(serveCommand);
run('serve', async () => {
  await runServer(values);
});
