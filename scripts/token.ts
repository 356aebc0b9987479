import { parseCommand, run } from '../src/cli.ts';
import { runToken, tokenCommand } from '../src/commands.ts';

const values = parseCommand(tokenCommand);
run('token', () => runToken(values));
