// Search measured as a visitor meets it: headless Chromium on a cold cache
// against our server, on a built catalogue. First result after a cold page
// load, the time per keystroke after that, and the bytes a first query costs.
import { existsSync } from 'node:fs';
import { startServer } from './server.ts';

export interface SearchFigures {
  query: string;
  /** From navigation to the first result on screen, cache empty. */
  firstResultMs: number;
  /** Bytes received for that first query: page, script, WebAssembly, index chunks, fragments. */
  firstQueryBytes: number;
  /** Per keystroke after the first result: from the input event to the new results on screen. */
  keystrokeMs: { median: number; max: number; count: number };
}

const CHROMIUM = '/usr/bin/chromium';

export async function benchSearch(dir: string, query: string, typed: string): Promise<SearchFigures | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  // A development dependency: the benchmark runs from a checkout.
  const { chromium } = await import('playwright-core');
  const server = await startServer({ dir, host: '127.0.0.1', port: 0, quiet: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const responses: Promise<number>[] = [];
    page.on('requestfinished', (request) => responses.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
    // The visitor's browser is running already; its cache is empty.
    await page.goto('about:blank');
    const started = performance.now();
    await page.goto(`${server.url}search/?q=${encodeURIComponent(query)}`);
    await page.locator('#results li').first().waitFor();
    const firstResultMs = performance.now() - started;
    const firstQueryBytes = (await Promise.all(responses)).reduce((a, b) => a + b, 0);

    // Each prefix of `typed` as the visitor would type it, timed inside the page.
    const times = await page.evaluate(async (word) => {
      const input = document.getElementById('q') as HTMLInputElement;
      const status = document.getElementById('search-status')!;
      const out: number[] = [];
      for (let i = 1; i <= word.length; i++) {
        const value = word.slice(0, i);
        const done = new Promise<void>((resolve) => {
          const observer = new MutationObserver(() => {
            if (status.dataset.query === new URLSearchParams({ q: value }).toString()) {
              observer.disconnect();
              resolve();
            }
          });
          observer.observe(status, { attributes: true, childList: true, characterData: true, subtree: true });
        });
        const t = performance.now();
        input.value = value;
        input.dispatchEvent(new Event('input'));
        await done;
        out.push(performance.now() - t);
      }
      return out;
    }, typed);
    const sorted = [...times].sort((a, b) => a - b);
    return { query, firstResultMs, firstQueryBytes, keystrokeMs: { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)!, count: times.length } };
  } finally {
    await browser.close();
    await server.close();
  }
}
