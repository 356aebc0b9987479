import { parseCommand, run } from '../src/cli.ts';
import { buildCommand, runBuild } from '../src/commands.ts';

const values = parseCommand(buildCommand);
run('build', () => runBuild(values));
