// The benchmark's yardstick, after the first row of the reference
// table: a raw Node script, one thread, no Markdown, no checks, that writes one
// JSON record and one HTML page per live talk by string concatenation. Run as
// plain JavaScript, without the TypeScript loader, as such a script would be.
// It is the floor of that work on the machine at hand: reading the talk files
// and writing two files each, beside which the builds' figures can be read.
//
// Usage: node src/bench-baseline.mjs <content> <out>
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [content, out] = process.argv.slice(2);
const escape = (text) => String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

mkdirSync(path.join(out, 'api', 'v2', 'video'), { recursive: true });
let talks = 0;
for (const event of readdirSync(content).sort()) {
  const videos = path.join(content, event, 'videos');
  let files;
  try {
    files = readdirSync(videos).filter((name) => name.endsWith('.json'));
  } catch {
    continue;
  }
  for (const name of files) {
    const talk = JSON.parse(readFileSync(path.join(videos, name), 'utf8'));
    if (talk.state !== 1) continue;
    const slug = name.slice(0, -'.json'.length);
    writeFileSync(path.join(out, 'api', 'v2', 'video', String(talk.id)), JSON.stringify(talk));
    mkdirSync(path.join(out, event, slug), { recursive: true });
    const page =
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' +
      escape(talk.title) +
      '</title></head><body><h1>' +
      escape(talk.title) +
      '</h1><p>' +
      talk.speakers.map(escape).join(', ') +
      '</p><p>' +
      escape(talk.recorded) +
      '</p><div>' +
      escape(talk.description) +
      '</div>' +
      (talk.source_url ? '<a href="' + escape(talk.source_url) + '">Watch</a>' : '') +
      '</body></html>';
    writeFileSync(path.join(out, event, slug, 'index.html'), page);
    talks++;
  }
}
// Its peak resident set, from /proc as the benchmark's steps report theirs (getrusage's would count the benchmark's own).
let hwm = null;
try {
  hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
} catch {
  // Not Linux: getrusage's figure, then.
}
process.stdout.write(`${JSON.stringify({ ok: true, talks, rss: hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024 })}\n`);
