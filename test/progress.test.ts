import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalProgress } from '../src/progress.ts';

/** A stream that passes for a terminal, or not, and keeps what is written to it. */
function terminal(isTTY: boolean): NodeJS.WriteStream & { written: string } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.written += chunk.toString();
      done();
    },
  }) as Writable & { written: string; isTTY: boolean };
  stream.written = '';
  stream.isTTY = isTTY;
  return stream as unknown as NodeJS.WriteStream & { written: string };
}

describe('terminalProgress', () => {
  it('redraws its count in place on a terminal, and clears its line when done', async () => {
    const stream = terminal(true);
    const progress = terminalProgress(stream, { TERM: 'xterm-256color' })!;
    progress.start('outputs rendered:');
    progress.tick();
    progress.done();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.written).toBe('\r\x1b[Koutputs rendered: 1\r\x1b[K');
  });

  it('shows nothing in a pipe, nor on a dumb terminal, which would show its escapes as text', () => {
    expect(terminalProgress(terminal(false), { TERM: 'xterm-256color' })).toBeUndefined();
    expect(terminalProgress(terminal(true), { TERM: 'dumb' })).toBeUndefined();
  });

  it('shows nothing in a CI job run in a terminal, whose log would keep every redraw', () => {
    expect(terminalProgress(terminal(true), { TERM: 'xterm-256color', CI: 'true' })).toBeUndefined();
    expect(terminalProgress(terminal(true), { TERM: 'xterm-256color', CI: 'false' })).toBeDefined();
  });
});
