import { parseCommand, run } from '../src/cli.ts';
import { runStart, startCommand } from '../src/commands.ts';

const given = parseCommand(startCommand);
run('start', () => runStart(given));
