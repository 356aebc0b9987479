import { parseCommand, run } from '../src/cli.ts';
import { checkCommand, runCheck } from '../src/commands.ts';

const values = parseCommand(checkCommand);
run('check', () => runCheck(values));
