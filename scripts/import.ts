import { parseCommand, run } from '../src/cli.ts';
import { importCommand, runImport } from '../src/commands.ts';

const values = parseCommand(importCommand);
run('import', () => runImport(values));
