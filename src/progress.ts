// Progress on long work: a line redrawn on a terminal, nothing when piped.
export interface Progress {
  start(label: string, total: number): void;
  tick(): void;
  done(): void;
}

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress | undefined {
  if (!stream.isTTY) return undefined;
  let label = '';
  let total = 0;
  let count = 0;
  let last = 0;
  const draw = () => stream.write(`\r\x1b[K${label} ${count}/${total} (${total ? Math.floor((count / total) * 100) : 100}%)`);
  return {
    start(l, t) {
      label = l;
      total = t;
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
