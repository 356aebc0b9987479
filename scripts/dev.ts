import { parseCommand, run } from '../src/cli.ts';
import { devCommand, runDev } from '../src/commands.ts';

const values = parseCommand(devCommand);
run('dev', () => runDev(values));
