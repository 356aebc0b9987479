// Progress on long work: a count redrawn on a terminal, nothing when piped.
// A count without a total: a build plans its work as it goes (see planParts).
export interface Progress {
  start(label: string): void;
  tick(): void;
  done(): void;
}

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, env = process.env): Progress | undefined {
  // A dumb terminal (Emacs's shell, an editor's output pane) shows the escape that clears the line as text; a CI
  // service that runs its jobs in a terminal (Buildkite, Travis) keeps every redraw in its log.
  if (!stream.isTTY || env.TERM === 'dumb' || (env.CI !== undefined && env.CI !== 'false')) return undefined;
  let label = '';
  let count = 0;
  let last = 0;
  const draw = () => stream.write(`\r\x1b[K${label} ${count}`);
  return {
    start(l) {
      label = l;
      count = 0;
      last = 0;
    },
    tick() {
      count++;
      const now = Date.now();
      if (now - last > 100) {
        last = now;
        draw();
      }
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}
