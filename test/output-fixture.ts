// A small hand-made output folder with one file of every kind the server
// tells apart, precompressed copies, host files and a hidden file, and a
// secret beside it that no request may ever read.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export const SECRET = 'TOP-SECRET-5f1d0c';
export const HIDDEN = 'HIDDEN-ENV-93ab';
export const HOST_CONFIG = 'HOST-CONFIG-7e21';

const record = (id: number) => `{"category": "PyCon", "id": ${id}, "title": "Talk ${id}", "description": "${'x'.repeat(id * 10)}"}`;
const page = (title: string) => `<!doctype html><html lang="en"><title>${title}</title><h1>${title}</h1>${'<p>filler text</p>'.repeat(40)}</html>`;

/** Relative path → bytes, as written by `writeOutput`. */
export const OUTPUT: Record<string, string> = {
  'api/v2/video/1': record(1),
  'api/v2/video/2': record(2),
  'api/v2/video/3': record(3),
  'api/v2/video/page.1': `{"count": 3, "next": "http://127.0.0.1:8080/api/v2/video/?page=2", "previous": null, "results": [${record(1)},${record(2)}]}`,
  'api/v2/video/page.2': `{"count": 3, "next": null, "previous": "http://127.0.0.1:8080/api/v2/video/", "results": [${record(3)}]}`,
  'api/v2/category/page.1': '{"count": 1, "next": null, "previous": null, "results": [{"title": "PyCon 2024", "slug": "pycon-2024"}]}',
  'api/v2/category/pycon-2024': '{"title": "PyCon 2024", "slug": "pycon-2024", "videos": []}',
  'api/v2/speaker/page.1': '{"count": 1, "next": null, "previous": null, "results": [{"id": 7, "name": "Ada", "slug": "ada"}]}',
  'index.html': page('Recorded talks'),
  '404.html': page('Page not found'),
  'video/1/talk-1/index.html': page('Talk 1'),
  'assets/style.css': `body { color: #222; }\n${'.x { margin: 0; }\n'.repeat(50)}`,
  'sitemap.xml': `<?xml version="1.0" encoding="UTF-8"?><urlset>${'<url><loc>http://127.0.0.1:8080/</loc></url>'.repeat(20)}</urlset>`,
  'pagefind/fragment/en_abc.pf_fragment': 'fragment bytes',
  'pagefind/pagefind.js': 'export const search = () => [];',
  'nginx.conf': `# ${HOST_CONFIG}\n`,
  _headers: `# ${HOST_CONFIG}\n`,
  '.env': HIDDEN,
};

/** The files that get .br and .gz copies (the compressed kinds), plus a record that must never be sent compressed. */
export const COMPRESSED = ['index.html', '404.html', 'video/1/talk-1/index.html', 'assets/style.css', 'sitemap.xml', 'api/v2/video/1'];

/** Without `copies`, the folder of a build without --compress: the server compresses as it sends. */
export async function writeOutput(dir: string, copies = true): Promise<void> {
  for (const [rel, text] of Object.entries(OUTPUT)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  for (const rel of copies ? COMPRESSED : []) {
    await writeFile(path.join(dir, `${rel}.br`), brotliCompressSync(OUTPUT[rel]!));
    await writeFile(path.join(dir, `${rel}.gz`), gzipSync(OUTPUT[rel]!));
  }
  await writeFile(path.join(path.dirname(dir), 'secret.txt'), SECRET);
}
