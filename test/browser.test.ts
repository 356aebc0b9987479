// The site in a real browser: headless Chromium against the real server, on
// the demo catalogue plus one talk made of hostile text. Every page type is
// checked with axe (WCAG 2.2 AA) at desktop and phone widths and photographed;
// search is driven from the keyboard; nothing a talk says may run as script.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { XMLValidator } from 'fast-xml-parser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeHTMLAttribute } from 'entities';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { buildSearchIndex, fragmentFiles } from '../src/search.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { DEMO_CONTENT, ROOT, TEMPLATES } from './helpers.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');
const HOSTILE_ID = 990;
const SHARD_SIZE = 6;

// Each field carries script in the form that field could smuggle it.
const HOSTILE_TALK = `title: "<script>alert('title')</script><img src=x onerror=alert('title-img')> Hostile talk"
speakers:
  - "<img src=x onerror=alert('speaker')>Mallory"
tags:
  - "<svg onload=alert('tag')>"
  - "</script><script>alert('tag-script')</script>"
summary: "</script><script>alert('summary')</script> and <b onmouseover=alert('hover')>bold</b>"
description: |
  [click me](javascript:alert('link'))

  <script>alert('description')</script>
  <img src=x onerror=alert('description-img')>
  <a href="javascript:alert('raw-link')">raw link</a>
embed: "<iframe src=\\"javascript:alert('embed')\\"></iframe><script>alert('embed-script')</script>"
recorded: "2024-05-18"
language: English
added: "2024-06-01T00:00:00"
updated: "2024-06-01T00:00:00"
`;

let dir: string;
let server: RunningServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  dir = await mkdtemp(path.join(tmpdir(), 'vc-browser-'));
  const content = path.join(dir, 'content');
  await cp(DEMO_CONTENT, content, { recursive: true });
  await writeFile(path.join(content, 'tidewater-python-2024', 'videos', 'hostile-talk.yaml'), `id: ${HOSTILE_ID}\n${HOSTILE_TALK}`);
  server = await serveBuilt(content, 'dist');
  base = server.url.replace(/\/$/, '');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  await mkdir(SHOTS, { recursive: true });
}, 60_000);

/** Builds `content` into the folder `name` of the test's own and serves it on an ephemeral port, under the folder `basePath` if given. */
async function serveBuilt(content: string, name: string, options: { searchShardSize?: number; baseUrl?: string } = {}, basePath?: string): Promise<RunningServer> {
  const result = await build({ content, out: path.join(dir, name), templates: TEMPLATES, ...options });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return startServer({ dir: path.join(dir, name), basePath, host: '127.0.0.1', port: 0, quiet: true });
}

/** One event of the demo catalogue (Kamogawa's) with a talk of the test's in `file`, built into the folder `name` and served. */
async function serveOneEventWith(name: string, file: string, talk: string): Promise<RunningServer> {
  const content = path.join(dir, name);
  await cp(path.join(DEMO_CONTENT, 'kamogawa-python-2025'), path.join(content, 'kamogawa-python-2025'), { recursive: true });
  await writeFile(path.join(content, 'kamogawa-python-2025', 'videos', file), talk);
  return serveBuilt(content, `${name}-dist`);
}

/** An event `slug` of the test's alone, its `category.yaml` and its talks (file name: YAML), built into the folder `name` and served. */
async function serveEvent(name: string, slug: string, category: string, talks: Record<string, string>): Promise<RunningServer> {
  const content = path.join(dir, name);
  await mkdir(path.join(content, slug, 'videos'), { recursive: true });
  await writeFile(path.join(content, slug, 'category.yaml'), category);
  for (const [file, talk] of Object.entries(talks)) await writeFile(path.join(content, slug, 'videos', file), talk);
  return serveBuilt(content, `${name}-dist`);
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A page that fails the test on any dialog, console error or warning (Chromium's of the markup too, as an
 * iframe's `allowfullscreen` beside its `allow`), or uncaught error.
 * Third-party requests (players, thumbnails) never leave the machine: they get an empty answer.
 */
async function openPage(width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  const page = await context.newPage();
  page.once('close', () => void context.close().catch(() => undefined));
  const problems: string[] = [];
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss().catch(() => undefined);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A request still in flight when its page closes cannot be answered any more: that is not a failure.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>player</title>' }).catch(() => undefined),
  );
  return { page, problems };
}

const PAGE_TYPES: [name: string, path: string][] = [
  ['home', '/'],
  ['talks', '/talks/'],
  ['events', '/events/'],
  ['event', '/events/tidewater-python-2024/'],
  ['talk', '/video/12/asyncio-in-production-lessons/'],
  ['talk-japanese', '/video/34/matplotlib-japanese-fonts/'],
  ['talk-player', '/video/3/building-accessible-django-forms/'],
  ['speakers', '/speakers/'],
  ['speaker', '/speaker/priya-raghunathan/'],
  ['tags', '/tags/'],
  ['tag', '/tag/asyncio/'],
  ['languages', '/languages/'],
  ['language', '/language/english/'],
  ['search', '/search/?q=python'],
  ['api', '/api/'],
  ['page', '/about/'],
  ['not-found', '/no/such/page/'],
];

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];

describe('every page type in Chromium', () => {
  for (const [name, sitePath] of PAGE_TYPES) {
    it(`${name}: renders, one h1, lang set, no axe violations at 1280 px in the light theme and 320 px (400% zoom) in the dark`, async () => {
      // Each theme's contrast is checked once: it does not change with the width.
      for (const [width, scheme] of [[1280, 'light'], [320, 'dark']] as const) {
        const { page, problems } = await openPage(width, scheme);
        const response = await page.goto(`${base}${sitePath}`);
        expect(response?.status()).toBe(name === 'not-found' ? 404 : 200);
        if (name === 'search') await page.locator('#results li').first().waitFor();
        if (name === 'api') await expect.poll(() => page.locator('#example').textContent()).toContain('HTTP 200');
        expect(await page.locator('h1').count()).toBe(1);
        expect(await page.getAttribute('html', 'lang')).toBe('en');
        // The skip link is the first thing the keyboard reaches, and it is visible when focused.
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
        // Shown over the header while focused, by design; axe looks at the page at rest.
        await page.evaluate(() => (document.activeElement as HTMLElement).blur());
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, 'no sideways scrolling').toBeLessThanOrEqual(width);
        const axe = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
        expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
        // The 404 page's own status shows in the console; nothing else may.
        expect(problems.filter((p) => !(name === 'not-found' && p.includes('status of 404')))).toEqual([]);
        await page.close();
      }
    });
  }

  it('pages work without JavaScript, and make no third-party requests outside the player', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.fulfill({ status: 204 }).catch(() => undefined));
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base)) outside.push(`${request.resourceType()} ${request.url()}`);
    });
    for (const sitePath of ['/', '/events/', '/speakers/', '/tag/asyncio/', '/search/', '/api/']) {
      await page.goto(`${base}${sitePath}`);
      expect(await page.locator('main a').count()).toBeGreaterThan(2);
    }
    expect(outside).toEqual([]);
    // On a talk page, only its player reaches out: the video file and its poster.
    await page.goto(`${base}/video/12/asyncio-in-production-lessons/`);
    const player = await page.locator('.player video').evaluate((v: HTMLVideoElement) => [v.poster, ...[...v.querySelectorAll('source')].map((s) => s.src)]);
    expect(outside.every((line) => player.includes(line.split(' ')[1]!)), outside.join('\n')).toBe(true);
    await context.close();
  });

  it('no page scrolls sideways at 320 px, even with words longer than the screen is wide or a list of many pages', async () => {
    const content = path.join(dir, 'long-words');
    await cp(DEMO_CONTENT, content, { recursive: true });
    // Enough talks for /talks/ to have pages before and after its third, with links to jump by.
    for (let n = 1; n <= 260; n++) {
      await writeFile(path.join(content, 'tidewater-python-2024', 'videos', `extra-${n}.yaml`), `id: ${1000 + n}\ntitle: "Extra talk ${n}"\nrecorded: "2024-05-18"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`);
    }
    const long = 'sqlalchemy.ext.declarative.declarative_base_metaclass_internals';
    // A site named by its address, and a link of the site's navigation as long a word, in the header of every page.
    await writeFile(path.join(content, '_site.yaml'), 'name: talks.pythonsoftwarefoundation.org\n');
    await writeFile(path.join(content, '_pages', 'accessibility.md'), '---\ntitle: Accessibility\nlinkTitle: Barrierefreiheitserklärungsrichtlinien\nnav: true\n---\nText.\n');
    await writeFile(
      path.join(content, 'tidewater-python-2024', 'videos', 'long-words.yaml'),
      `id: 991\ntitle: "Understanding ${long}"\nspeakers: [Wolfeschlegelsteinhausenbergerdorffvoralternwarengewissenhaftschaferswessenschafewarenwohlgepflegeundsorgfaltigkeitbeschutzenvonangreifendurchihrraubgierigfeinde]\ntags: [${long}]\nrelated_urls: ["https://example.org/${long}/${long}"]\nrecorded: "2024-05-18"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`,
    );
    const own = await serveBuilt(content, 'long-words-dist');
    const { page, problems } = await openPage(320);
    try {
      const talk = '/video/991/long-words/';
      for (const sitePath of ['/', '/talks/', '/talks/page/3/', '/events/tidewater-python-2024/', talk, '/tags/', `/tag/${long.replace(/[._]/g, '-')}/`, '/speakers/']) {
        expect((await page.goto(`${own.url}${sitePath.slice(1)}`))?.status(), sitePath).toBe(200);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), sitePath).toBeLessThanOrEqual(320);
      }
      // The list's pages: a jump to the last, the current marked, and nothing axe objects to.
      await page.goto(`${own.url}talks/page/3/`);
      expect(await page.locator('.page-numbers a').allTextContents()).toEqual(['1', '2', '3', '4', '5', '7']);
      expect(await page.locator('.page-numbers a[aria-current="page"]').textContent()).toBe('3');
      const axe = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
      expect(axe.violations.map((v) => v.id)).toEqual([]);
      // Its neighbours, whose links to it in their pager hold its long title.
      await page.goto(`${own.url}${talk.slice(1)}`);
      const neighbours = await page.locator('.pager a').evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
      expect(neighbours.length).toBeGreaterThan(0);
      for (const neighbour of neighbours) {
        await page.goto(`${own.url}${neighbour.slice(1)}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), neighbour).toBeLessThanOrEqual(320);
      }
      await page.goto(`${own.url}${talk.slice(1)}`);
      await page.locator('.details a[href^="/speaker/"]').click();
      // Measured once the speaker's page has its style sheet: before it, any long word overflows.
      await page.waitForURL(/\/speaker\//, { waitUntil: 'load' });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), 'speaker page').toBeLessThanOrEqual(320);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  // Its words broken anywhere, a wide table's went a letter or two a line at 320 px, rather than scroll.
  it('scrolls a wide table of a description in its own box at 320 px, from the keyboard too, its words whole, and leaves a narrow one as it was', async () => {
    const words = ['internationalisation', 'localisation', 'accessibility', 'performance', 'documentation', 'configuration', 'serialisation', 'authentication'];
    const row = (cells: string[]) => `  | ${cells.join(' | ')} |\n`;
    const description = `${row(words.map((_, i) => `Column ${i + 1}`))}${row(words.map(() => '---'))}${row(words)}\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n  \`\`\`\n  ${'x'.repeat(300)}\n  \`\`\`\n`;
    const talk = `id: 502\ntitle: Wide tables\ndescription: |\n${description}added: "2025-01-01T00:00:00"\nupdated: "2025-01-01T00:00:00"\n`;
    const own = await serveOneEventWith('wide-table', 'wide-tables.yaml', talk);
    const boxes = (page: Page) => page.locator('.prose [role=region]').evaluateAll((all) => all.map((box) => ({ name: box.getAttribute('aria-label'), scrolls: box.scrollWidth > box.clientWidth, left: box.scrollLeft })));
    try {
      const { page, problems } = await openPage(320);
      await page.goto(`${own.url}video/502/wide-tables/`);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(320);
      expect(await boxes(page)).toEqual([{ name: 'Table 1', scrolls: true, left: 0 }, { name: 'Table 2', scrolls: false, left: 0 }]);
      await page.locator('.prose td', { hasText: words[0]! }).evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        if (range.getClientRects().length !== 1) throw new Error(`"${td.textContent}" is broken over lines`);
      });
      // Tab reaches the box from the link before it (the talk's language), and the arrow keys scroll it.
      await page.locator('.meta a[href^="/language/"]').focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Table 1');
      await page.keyboard.press('ArrowRight');
      await expect.poll(async () => (await boxes(page))[0]!.left).toBeGreaterThan(0);
      const axe = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
      expect(axe.violations.map((v) => v.id)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
      const wide = await openPage(1280);
      await wide.page.goto(`${own.url}video/502/wide-tables/`);
      expect((await boxes(wide.page))[1]).toEqual({ name: 'Table 2', scrolls: false, left: 0 });
      expect(wide.problems).toEqual([]);
      await wide.page.close();
    } finally {
      await own.close();
    }
  });

  it("sets code, in a line and in a block, at one size a little under the text's, in a description and on the API page", async () => {
    const { page, problems } = await openPage(1280);
    const sizes = () => page.evaluate(() => {
      const px = (selector: string) => [...document.querySelectorAll(selector)].map((el) => parseFloat(getComputedStyle(el).fontSize));
      return { text: px('main p:not(.lead)')[0]!, code: [...new Set([...px('main p code'), ...px('main pre'), ...px('main pre code')])] };
    });
    for (const sitePath of ['/video/12/asyncio-in-production-lessons/', '/api/']) {
      await page.goto(`${base}${sitePath}`);
      // `monospace` named alone sets code at the browser's 13 px whatever the text's size (12.35 px in a description's block).
      expect(await sizes(), sitePath).toEqual({ text: 16, code: [14.4] });
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('old addresses redirect to the talk page', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/video/12/`);
    await page.waitForURL(`${base}/video/12/asyncio-in-production-lessons/`);
    expect(await page.locator('h1').textContent()).toContain('asyncio in Production');
    expect(problems).toEqual([]);
  });
});

describe("speakers' names and tags", () => {
  /** Whether the browser takes the element's language (its own `lang` or the one it inherits) as `tag`: what sets its glyphs and a screen reader's voice. */
  const isIn = (el: Element, lang: string) => el.matches(`:lang(${lang})`);

  it("are in the talk's language on its page and beside it in a list where written in its letters, and in the language of their letters in an index", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/video/6/type-hints-large-codebase/`);
    // The byline and the details, and the tag written in kana.
    for (const name of await page.locator('a[href^="/speaker/"]', { hasText: '山田 花子' }).all()) expect(await name.evaluate(isIn, 'ja')).toBe(true);
    expect(await page.locator('a[href^="/speaker/"]', { hasText: '山田 花子' }).count()).toBe(2);
    expect(await page.locator('.tags a', { hasText: '型ヒント' }).evaluate(isIn, 'ja')).toBe(true);
    expect(await page.locator('.tags a', { hasText: 'typing' }).evaluate(isIn, 'en')).toBe(true);
    await page.goto(`${base}/talks/`);
    const line = page.locator('.talk-list li', { hasText: 'FastAPI で作る京都観光案内 API' });
    expect(await line.locator('bdi', { hasText: '佐藤 健太' }).evaluate(isIn, 'ja')).toBe(true);
    expect(await line.locator('bdi', { hasText: 'Emily Carter' }).evaluate(isIn, 'en')).toBe(true);
    // In the index of every speaker, kana tell Japanese; Han letters alone do not tell it from Chinese, and are left to the browser.
    await page.goto(`${base}/speakers/`);
    expect(await page.locator('.term-list a', { hasText: '森田 あかり' }).evaluate(isIn, 'ja')).toBe(true);
    expect(await page.locator('.term-list a', { hasText: '山田 花子' }).evaluate(isIn, 'en')).toBe(true);
    // A speaker's page, all of whose talks are in Japanese, heads it in Japanese.
    await page.locator('.term-list a', { hasText: '山田 花子' }).click();
    await page.waitForURL(/\/speaker\//);
    expect(await page.locator('h1').evaluate(isIn, 'ja')).toBe(true);
    expect(problems).toEqual([]);
  });
});

describe('search', () => {
  /** Types a query and waits for its results (the status names the query it answers). */
  async function search(page: Page, text: string) {
    await page.locator('#q').fill(text);
    await page.locator(`#search-status[data-query="${new URLSearchParams({ q: text })}"]`).waitFor();
  }

  it("shows a result in its talk's language (its title in the language its page gives it), its names isolated, as every other page does", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await search(page, 'ハンズオン');
    const title = page.locator('#results li h2 a', { hasText: 'はじめての Python 入門ハンズオン' });
    expect(await title.evaluate((a: HTMLAnchorElement) => [a.lang, a.dir, a.closest('li')!.querySelector('.excerpt')!.getAttribute('lang')])).toEqual(['ja', 'auto', 'ja']);
    expect(await page.locator('#results li p.muted bdi').count()).toBeGreaterThan(1);
    // Its text as written, without the spaces the index puts between Chinese and Japanese words.
    expect(await title.evaluate((a) => a.closest('li')!.querySelector('.excerpt')!.textContent)).toContain('プログラミングが初めての方向けのハンズオンです。ブラウザだけで参加できます。 — ');
    // The site's own pages are in the site's language.
    await search(page, 'catalogue');
    expect(await page.locator('#results li h2 a', { hasText: 'About this catalogue' }).evaluate((a: HTMLAnchorElement) => a.lang)).toBe('');
    expect(problems).toEqual([]);
  });

  it("names a talk's speakers in their language, as its page does, where every name has the same", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await search(page, 'fixtures');
    const result = page.locator('#results li', { hasText: 'pytest fixtures の奥深い世界' });
    // The language the browser gives the line of names (the :lang() it matches), which sets their glyphs and a screen reader's voice.
    expect(await result.locator('p.muted bdi', { hasText: '小林 美咲' }).evaluate((bdi) => [bdi.matches(':lang(ja)'), bdi.matches(':lang(en)')])).toEqual([true, false]);
    // Names of several languages take the page's.
    await search(page, 'ハンズオン');
    const mixed = page.locator('#results li', { hasText: 'はじめての Python 入門ハンズオン' }).locator('p.muted bdi', { hasText: 'Lucy Hargreaves' });
    expect(await mixed.evaluate((bdi) => bdi.matches(':lang(en)'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('finds a talk by a word of its title, as you type, from the keyboard', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await page.locator('#q').focus();
    await page.keyboard.type('outages');
    await expect.poll(() => page.locator('#results li h2').allTextContents()).toEqual(['asyncio in Production: Five Outages and What They Taught Us']);
    // The first result is the next stop for the keyboard after the form.
    await page.locator('#results a').first().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/video/12/asyncio-in-production-lessons/`);
    expect(problems).toEqual([]);
  });

  it("shows a result's excerpt from its text, not its title again, and still ranks the talk whose title has the word first", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    const excerptsWithoutTitles = async (query: string) => {
      const titles = await page.locator('#results li h2').allTextContents();
      const excerpts = await page.locator('#results li p.excerpt').allTextContents();
      expect(excerpts.length, query).toBeGreaterThan(0);
      for (const [i, excerpt] of excerpts.entries()) expect(excerpt, query).not.toContain(titles[i]);
      return excerpts;
    };
    for (const [word, title] of [
      ['typing', 'Structural Typing with Protocols in Practice'],
      ['reporting', 'Moving a Reporting Pipeline from pandas to Polars 🚀'],
      ['outages', 'asyncio in Production: Five Outages and What They Taught Us'],
    ] as const) {
      await search(page, word);
      expect((await page.locator('#results li h2').allTextContents())[0], word).toBe(title);
      await excerptsWithoutTitles(word);
    }
    expect((await excerptsWithoutTitles('outages'))[0]).toMatch(/^Five real incidents from a payments platform/);
    // Found by a filter alone, a talk's excerpt is the start of its text.
    const query = new URLSearchParams({ event: 'Tidewater Python 2024' });
    await page.goto(`${base}/search/?${query}`);
    await page.locator(`#search-status[data-query="${query}"]`).waitFor();
    await excerptsWithoutTitles(String(query));
    expect(problems).toEqual([]);
  });

  it('finds every word that starts with a query\'s, in whichever chunk of the index it is ("go" finds the Google talks)', async () => {
    // Words enough for Pagefind to cut its index in two chunks, each with words that start with "ga", each talk's in one.
    const count = 300;
    const talks = Object.fromEntries(
      Array.from({ length: count }, (_, i) => {
        const words = Array.from({ length: 30 }, (_, j) => `ga${String(i * 30 + j).padStart(5, '0')}`).join(' ');
        return [`talk-${i}.yaml`, `id: ${i + 1}\ntitle: "Talk ${i + 1}"\nsummary: "${words}"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`];
      }),
    );
    const own = await serveEvent('chunks', 'chunk-meetup', 'title: "Chunk Meetup"\n', talks);
    const chunks = await fg('pagefind/**/index/*.pf_index', { cwd: path.join(dir, 'chunks-dist') });
    expect(chunks.length).toBeGreaterThan(1);
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      // Pagefind loaded only the chunk "ga" falls in, and found only the talks whose words are there.
      await search(page, 'ga');
      expect(await page.locator('#search-status').textContent()).toBe(`${count} talks found.`);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it("ranks a talk whose title has the query's word whole above those whose titles only start with it, however often they do, and shows no title again in its excerpt", async () => {
    const talk = (id: number, title: string, summary: string, speaker = 'Ann Lee') =>
      `id: ${id}\ntitle: "${title}"\nspeakers: [${speaker}]\nsummary: "${summary}"\nrecorded: "2024-05-${10 + id}"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`;
    // The word is in no summary: the titles alone tell the talks apart, and as Pagefind's title meta alone they tied.
    const own = await serveEvent('whole-words', 'web-meetup', 'title: "Web Meetup"\n', {
      'talk-1.yaml': talk(1, 'Debugging Django', 'Breakpoints and logging in a web app.'),
      'talk-2.yaml': talk(2, 'DjangoCon 2008 Keynote: Cal Henderson', 'Why I hate it, with love.'),
      'talk-3.yaml': talk(3, 'DjangoCon 2008: Reusable Apps', 'Apps that others can plug in.'),
      // Longer words that start with the query's, four times over, against the whole word once.
      'talk-4.yaml': talk(4, 'Astronomy with Astropy', 'Astropy for astronomers and astrophotography.'),
      'talk-5.yaml': talk(5, 'What Would You Do with an AST?', 'A syntax tree, walked.'),
      // A title written otherwise than the words it is searched by (its Japanese words spaced) counts once, as any other.
      'talk-6.yaml': talk(6, 'pandasで時系列', 'Time series, step by step.'),
      'talk-7.yaml': talk(7, 'pandas internals', 'How pandas stores a frame.'),
      // A speaker's name that starts with the word counts no more than a title's word that does.
      'talk-8.yaml': talk(8, 'Climate and Karma - John Gill', 'Weather data, plotted.', 'John Gill'),
      'talk-9.yaml': talk(9, 'Understanding the GIL', 'What the GIL locks, and when.'),
      // Pagefind scores each distinct word a query starts apart: talks that each have several longer ones add them up.
      'talk-10.yaml': talk(10, 'Memory Safety with Rust', 'Ownership and borrowing.'),
      'talk-11.yaml': talk(11, 'Rusty Rustaceans: Rustup and Rustfmt', 'Rustc, rustdoc and rustls.'),
      'talk-12.yaml': talk(12, 'Rustaceans at Rustconf', 'Rustup, rustc and rustfmt.'),
      'talk-13.yaml': talk(13, 'Rustpython: Rusty Pythons', 'Rustc and rustup, rustdoc.'),
    });
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      for (const [word, first] of [
        ['django', 'Debugging Django'],
        ['ast', 'What Would You Do with an AST?'],
        ['pandas', 'pandas internals'],
        ['rust', 'Memory Safety with Rust'],
        ['gil', 'Understanding the GIL'],
      ] as const) {
        await search(page, word);
        const titles = await page.locator('#results li h2').allTextContents();
        expect(titles[0], word).toBe(first);
        const excerpts = await page.locator('#results li p.excerpt').allTextContents();
        for (const [i, excerpt] of excerpts.entries()) expect(excerpt, word).not.toContain(titles[i]);
      }
      expect(await page.locator('#results li p.excerpt').first().textContent()).toBe('What the GIL locks, and when. — Ann Lee — Web Meetup');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('finds talks in a browser without Intl.Segmenter (Firefox before 125), a Chinese or Japanese run looked up whole', async () => {
    const { page, problems } = await openPage();
    await page.addInitScript(() => delete (Intl as { Segmenter?: unknown }).Segmenter);
    await page.goto(`${base}/search/`);
    await search(page, 'outages');
    expect(await page.locator('#results li h2').allTextContents()).toEqual(['asyncio in Production: Five Outages and What They Taught Us']);
    await search(page, 'ハンズオン');
    expect(await page.locator('#results li h2 a', { hasText: 'はじめての Python 入門ハンズオン' }).count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('says while the index loads and when it cannot, and waits for two letters as the index counts them', async () => {
    const { page } = await openPage();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/pagefind/**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${base}/search/`);
    await expect.poll(() => page.locator('#search-status').textContent()).toBe('Loading the search index…');
    release();
    await search(page, 'c#');
    expect(await page.locator('#search-status').textContent()).toBe('Type at least two letters.');
    expect(await page.locator('#results li').count()).toBe(0);
    await page.close();

    const failing = await openPage();
    await failing.page.route('**/pagefind/**', (route) => route.abort());
    await failing.page.goto(`${base}/search/`);
    await expect.poll(() => failing.page.locator('#search-status').textContent()).toBe('Search could not be loaded: reload the page, or browse all talks.');
    expect(await failing.page.locator('#search-status a').getAttribute('href')).toBe('/talks/');
  });

  it('says that search could not be loaded, rather than "No talks found.", when a part of the index cannot be fetched once the page has loaded it (a rebuild since, offline)', async () => {
    for (const part of ['**/*.pf_index', '**/*.pf_fragment']) {
      const { page } = await openPage();
      await page.goto(`${base}/search/`);
      await expect.poll(() => page.locator('#search-status').textContent()).toBe('');
      // As after a rebuild, which removes the chunks the index this page loaded names.
      await page.route(part, (route) => route.fulfill({ status: 404, body: '' }));
      await page.locator('#q').fill('outages');
      await expect.poll(() => page.locator('#search-status').textContent(), { message: part }).toBe('Search could not be loaded: reload the page, or browse all talks.');
      expect(await page.locator('#search-status a').getAttribute('href')).toBe('/talks/');
      expect(await page.locator('#results li').count()).toBe(0);
      await page.close();
    }
  });

  it('says the index is loading until its WebAssembly and metadata are in, and that it could not be loaded when they cannot be', async () => {
    // Pagefind's script loads them after it has loaded: an index is searchable once they are in.
    const { page, problems } = await openPage();
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = () => undefined as void;
    const wasmAsked = new Promise<void>((resolve) => (asked = resolve));
    await page.route('**/*.pagefind', async (route) => {
      asked();
      await held;
      await route.continue();
    });
    await page.goto(`${base}/search/`);
    await wasmAsked;
    await page.locator('#q').fill('outages');
    expect(await page.locator('#search-status').textContent()).toBe('Loading the search index…');
    release();
    await page.locator('#search-status[data-query="q=outages"]').waitFor();
    expect(await page.locator('#results li h2').allTextContents()).toEqual(['asyncio in Production: Five Outages and What They Taught Us']);
    expect(problems).toEqual([]);
    await page.close();

    for (const part of ['**/*.pagefind', '**/pagefind-entry.json*', '**/*.pf_meta']) {
      const failing = await openPage();
      await failing.page.route(part, (route) => route.abort());
      await failing.page.goto(`${base}/search/`);
      await expect.poll(() => failing.page.locator('#search-status').textContent(), { message: part }).toBe('Search could not be loaded: reload the page, or browse all talks.');
      await failing.page.close();
    }
  });

  it('finds a Chinese or Japanese word inside a run of text written without spaces, even of one character', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    for (const [word, title] of [
      ['水位', 'Raspberry Pi で鴨川の水位を見守る'],
      ['フォント', 'matplotlib で日本語フォントを正しく使う 📊'],
      ['日本語フォント', 'matplotlib で日本語フォントを正しく使う 📊'],
      ['鴨', 'Raspberry Pi で鴨川の水位を見守る'],
    ] as const) {
      await search(page, word);
      expect(await page.locator('#results li h2').allTextContents(), word).toEqual([title]);
    }
    expect(problems).toEqual([]);
  });

  it('finds a talk by an emoji of its title or tags, which the index keeps as a word of its own', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await search(page, '🐍');
    expect(await page.locator('#results li h2').allTextContents()).toEqual(['Where Did the Time Go? Profiling Python 🐍']);
    expect(await page.locator('#search-status').textContent()).toBe('1 talk found.');
    expect(problems).toEqual([]);
  });

  it('changes the status only when its words change: some screen readers read it out again whenever its text is replaced', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await search(page, 'zzyzxnothing');
    expect(await page.locator('#search-status').textContent()).toBe('No talks or pages found.');
    await page.evaluate(() => {
      const counter = window as unknown as { statusChanges: number };
      counter.statusChanges = 0;
      new MutationObserver((records) => (counter.statusChanges += records.length)).observe(document.getElementById('search-status')!, { childList: true, characterData: true, subtree: true });
    });
    await search(page, 'zzyzxnothingelse');
    expect(await page.locator('#search-status').textContent()).toBe('No talks or pages found.');
    expect(await page.evaluate(() => (window as unknown as { statusChanges: number }).statusChanges)).toBe(0);
    await search(page, 'python');
    expect(await page.locator('#search-status').textContent()).toMatch(/^\d+ talks? and 1 page found\.$/);
    expect(await page.evaluate(() => (window as unknown as { statusChanges: number }).statusChanges)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("finds the site's own pages beside the talks, counts them apart, and leaves them out once a filter narrows the search", async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    await search(page, 'mistake');
    expect(await page.locator('#results li h2').allTextContents()).toEqual(['About this catalogue']);
    expect(await page.locator('#results li p.muted').allTextContents()).toEqual(['Page']);
    expect(await page.locator('#search-status').textContent()).toBe('1 page found.');
    expect(await page.locator('#results a').getAttribute('href')).toBe('/about/');

    await search(page, 'python');
    const status = (await page.locator('#search-status').textContent()) ?? '';
    expect(status).toMatch(/^\d+ talks? and 1 page found\.$/);
    while (await page.locator('#more').isVisible()) await page.locator('#more').click();
    await expect.poll(() => page.locator('#results li h2').allTextContents()).toContain('About this catalogue');
    await page.selectOption('#f-event', 'Kamogawa Python Meetup 2025');
    await expect.poll(() => page.locator('#search-status').textContent()).toMatch(/^\d+ talks? found\.$/);
    expect(await page.locator('#results li h2').allTextContents()).not.toContain('About this catalogue');

    await page.selectOption('#f-event', '');
    await search(page, 'zzyzxnothing');
    expect(await page.locator('#search-status').textContent()).toBe('No talks or pages found.');
    // The pages' index is one more shard (see the shards' test below): a word the pages lack, Pagefind answers with
    // a start of it they have ("as" for "asyncio"), and a word only the pages have, the talks' shard with a start of
    // it ("C" for "catalogue"); those results are left out, as one index of talks and pages would not give them.
    await search(page, 'asyncio');
    expect(await page.locator('#search-status').textContent()).toMatch(/^\d+ talks found\.$/);
    await search(page, 'catalogue');
    expect(await page.locator('#search-status').textContent()).toBe('1 page found.');
    // No index has "bytecode": a talk and the page both answer with "by", the talk's a part of "step-by-step", and
    // both stand, as in one index.
    await search(page, 'bytecode');
    expect(await page.locator('#results li h2').allTextContents()).toEqual(['From setup.py to pyproject.toml Without Tears', 'About this catalogue']);
    // As one index of talks and pages gives them: the talks with "Conference", which the talks' first result (with
    // "confidentialité") falls short of; "English", which only a result's meta holds; a kana with its voicing mark.
    for (const [query, found] of [['confe', '12 talks and 1 page found.'], ['today eng', '2 talks found.'], ['all グ', 'No talks or pages found.']]) {
      await search(page, query!);
      expect(await page.locator('#search-status').textContent(), query).toBe(found);
    }
    expect(problems).toEqual([]);
  });

  it('marks a title in English as its page does, where the talk is in a language of other letters, and shows its text as written', async () => {
    const talk = 'id: 500\ntitle: Type Checking at Scale\nspeakers:\n  - 山田 花子\nlanguage: Japanese\nsummary: Pythonで型ヒントを段階的に導入した記録です。mypy と pyright で検査する\nadded: "2025-01-01T00:00:00"\nupdated: "2025-01-01T00:00:00"\n';
    const own = await serveOneEventWith('english-title', 'type-checking-at-scale.yaml', talk);
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}video/500/type-checking-at-scale/`);
      expect(await page.getAttribute('h1', 'lang')).toBe('en');
      await page.goto(`${own.url}search/`);
      await search(page, 'checking');
      const title = page.locator('#results li h2 a', { hasText: 'Type Checking at Scale' });
      // The title in the site's English, the text found in it in the talk's Japanese.
      expect(await title.evaluate((a: HTMLAnchorElement) => [a.lang, a.closest('li')!.querySelector('.excerpt')!.getAttribute('lang')])).toEqual(['en', 'ja']);
      // Without the spaces the index puts between Japanese and Latin words ("Python で 型 ヒント", shown "Python で型ヒント"), and with the text's own ("mypy と pyright", and "山田 花子", shown "山田花子").
      expect(await page.locator('#results li p.excerpt').textContent()).toMatch(/^Pythonで型ヒントを段階的に導入した記録です。mypy と pyright で検査する — 山田 花子 — /);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('finds a talk by a word written with a symbol, as its title writes it (<canvas>, $PATH, a=b), and shows its excerpt as written (an entity written out too: &amp;)', async () => {
    const talk = 'id: 501\ntitle: "Drawing on <canvas> from $PATH, where a=b"\nsummary: "Escaping &amp; and &copy; for AT&T, &nbsp; too"\nadded: "2025-01-01T00:00:00"\nupdated: "2025-01-01T00:00:00"\n';
    const own = await serveOneEventWith('symbols', 'symbols.yaml', talk);
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      // The index keeps a word without its symbols (canvas, path, ab); Pagefind takes only punctuation out of a query.
      for (const query of ['<canvas>', '$PATH', 'a=b', '"<canvas> from $PATH"']) {
        await search(page, query);
        expect(await page.locator('#results li h2').allTextContents(), query).toEqual(['Drawing on <canvas> from $PATH, where a=b']);
      }
      // Pagefind's excerpt escapes only < and >: read as HTML, &amp; was shown as &.
      expect(await page.locator('#results li p.excerpt').textContent()).toMatch(/^Escaping &amp; and &copy; for AT&T, &nbsp; too — /);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('searches a site of pages alone, with no talks and no filters', async () => {
    const content = path.join(dir, 'pages-only');
    await mkdir(content);
    await cp(path.join(DEMO_CONTENT, '_pages'), path.join(content, '_pages'), { recursive: true });
    const own = await serveBuilt(content, 'pages-only-dist');
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      expect(await page.locator('#search-form select').count()).toBe(0);
      await search(page, 'mistake');
      expect(await page.locator('#search-status').textContent()).toBe('1 page found.');
      expect(await page.locator('#results li h2').allTextContents()).toEqual(['About this catalogue']);
      await search(page, 'outages');
      expect(await page.locator('#search-status').textContent()).toBe('No talks or pages found.');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('finds talks by speaker, deep-links the query, and filters narrow the results', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/?q=Raghunathan`);
    await expect.poll(() => page.locator('#results li h2').allTextContents()).toContain('asyncio in Production: Five Outages and What They Taught Us');
    expect(await page.inputValue('#q')).toBe('Raghunathan');

    await search(page, 'python');
    const all = await page.locator('#results li').count();
    const total = Number(/(\d+)/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1]);
    expect(total).toBeGreaterThan(5);
    await page.selectOption('#f-event', 'Kamogawa Python Meetup 2025');
    await expect.poll(async () => Number(/(\d+)/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1])).toBeLessThan(total);
    const meta = await page.locator('#results li p.muted').allTextContents();
    expect(meta.length).toBeGreaterThan(0);
    expect(meta.every((m) => m.includes('Kamogawa Python Meetup 2025'))).toBe(true);
    expect(new URL(page.url()).searchParams.get('event')).toBe('Kamogawa Python Meetup 2025');

    await page.selectOption('#f-event', '');
    await page.selectOption('#f-language', 'Spanish');
    await expect.poll(() => page.locator('#results li').count()).toBeLessThan(all);
    await page.selectOption('#f-language', '');
    await page.selectOption('#f-year', '2012');
    await expect.poll(async () => (await page.locator('#results li p.muted').allTextContents()).every((m) => m.includes('2012-'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('counts in each option of a filter the talks the query finds, whatever is chosen, and without a query every talk', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/`);
    const counts = async (filter: string): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await page.locator(`#f-${filter} option`).allTextContents()).slice(1).map((label) => {
          const [, name, n] = /^(.*) \((\d+)\)$/.exec(label)!;
          return [name, Number(n)];
        }),
      );
    const talksFound = async () => Number(/^(\d+) talks?/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1]);
    await expect.poll(async () => Object.keys(await counts('year')).length).toBeGreaterThan(1);
    const every = await counts('year');
    await search(page, 'asyncio');
    const years = await counts('year');
    // Every talk has a language: the options add up to the talks found.
    expect(Object.values(await counts('language')).reduce((a, b) => a + b, 0)).toBe(await talksFound());
    expect(Object.keys(years)).toEqual(Object.keys(every));
    expect(Object.entries(years).some(([year, n]) => n > 0 && n < every[year]!)).toBe(true);
    const [year, n] = Object.entries(years).find(([, count]) => count > 0)!;
    await page.selectOption('#f-year', year);
    await page.locator(`#search-status[data-query="${new URLSearchParams({ q: 'asyncio', year })}"]`).waitFor();
    expect(await talksFound()).toBe(n);
    expect(await counts('year')).toEqual(years);
    await page.selectOption('#f-year', '');
    await page.locator('#q').fill('');
    await expect.poll(() => counts('year')).toEqual(every);
    expect(problems).toEqual([]);
  });

  it('counts in each option the talks a deep-linked query finds, though it ran before the filters were loaded', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/?q=asyncio`);
    await page.locator('#search-status[data-query="q=asyncio"]').waitFor();
    const found = Number(/^(\d+) talks?/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1]);
    expect(found).toBeGreaterThan(0);
    const languageCounts = async () => (await page.locator('#f-language option').allTextContents()).slice(1).reduce((sum, label) => sum + Number(/\((\d+)\)$/.exec(label)![1]), 0);
    // Every talk has a language: once the lists are in, their counts add up to the talks found, not to none or to all.
    await expect.poll(languageCounts).toBe(found);
    expect(problems).toEqual([]);
  });

  it('shows each batch once however fast "Show more" is pressed, keeps the keyboard in the results, and shows a deep-linked filter the index lacks', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/search/?language=English`);
    await page.locator('#search-status[data-query="language=English"]').waitFor();
    const total = Number(/(\d+)/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1]);
    expect(total).toBeGreaterThan(20);
    const items = page.locator('#results li');
    await page.locator('#more').dblclick();
    await expect.poll(() => items.count()).toBe(30);
    const links = await page.locator('#results li h2 a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(new Set(links).size).toBe(30);
    while (await page.locator('#more').isVisible()) {
      const shown = await items.count();
      await page.locator('#more').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => items.count()).toBeGreaterThan(shown);
    }
    expect(await items.count()).toBe(total);
    // The button hid itself: the focus is on the first talk the last batch brought, not on the page.
    expect(await page.evaluate(() => document.activeElement?.closest('#results li') !== null)).toBe(true);

    await page.goto(`${base}/search/?event=No+Such+Event`);
    await expect.poll(() => page.locator('#f-event option:checked').textContent()).toBe('No Such Event (0)');
    expect(await page.locator('#search-status').textContent()).toBe('No talks found.');
    expect(problems).toEqual([]);
  });

  it('takes a deep-linked filter written in another letter case or Unicode form as the option it names, and puts that spelling in the address', async () => {
    const talk = 'id: 1\ntitle: Talk one\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n';
    const own = await serveEvent('filter-spelling', 'montreal', 'title: "Rencontres Montréal"\n', { 'talk-1.yaml': talk });
    const { page, problems } = await openPage();
    try {
      await page.goto(`${base}/search/?language=spanish`);
      await page.locator('#search-status[data-query="language=Spanish"]').waitFor();
      expect(await page.locator('#f-language option:checked').textContent()).toBe('Spanish (1)');
      expect(await page.locator('#search-status').textContent()).toBe('1 talk found.');
      expect(new URL(page.url()).search).toBe('?language=Spanish');
      // é as e and a combining accent, as macOS writes it, in lower case.
      await page.goto(`${own.url}search/?q=talk&event=${encodeURIComponent('rencontres montre\u0301al')}`);
      await page.locator(`#search-status[data-query="${new URLSearchParams({ q: 'talk', event: 'Rencontres Montréal' })}"]`).waitFor();
      expect(await page.locator('#f-event option:checked').textContent()).toBe('Rencontres Montréal (1)');
      expect(await page.locator('#f-event option').allTextContents()).toEqual(['Any event', 'Rencontres Montréal (1)']);
      expect(await page.locator('#search-status').textContent()).toBe('1 talk found.');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('searches every shard of the index: filter counts add up, and talks found by a filter alone come newest first', async () => {
    // Small shards: the search page searches several, as it does on a catalogue larger than SEARCH_SHARD_SIZE.
    const own = await serveBuilt(path.join(dir, 'content'), 'sharded', { searchShardSize: SHARD_SIZE });
    // What one index finds for the start of a word, on the site built with the default shard size.
    const single = await openPage();
    await single.page.goto(`${base}/search/?q=pyth`);
    await single.page.locator('#search-status[data-query="q=pyth"]').waitFor();
    const pythonFound = (await single.page.locator('#search-status').textContent()) ?? '';
    const pythonTalks = Number(/(\d+)/.exec(pythonFound)?.[1]);
    // Words found only in fields a result has no location in (its language), or by a part of a word ("params" of
    // "rcParams"): found by the shards as by one index.
    const across = ['eng', 'japanes', 'para'];
    const acrossFound: string[] = [];
    for (const word of across) {
      await search(single.page, word);
      acrossFound.push((await single.page.locator('#search-status').textContent()) ?? '');
    }
    await single.page.close();
    expect(pythonTalks).toBeGreaterThan(SHARD_SIZE);
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      const indexes = (await page.locator('#search-form').getAttribute('data-indexes'))!.split(' ');
      expect(indexes.length).toBeGreaterThan(3);
      // Every live talk is in one shard: the language filter's counts add up to them all.
      await expect.poll(async () => (await page.locator('#f-language option').count()) > 1).toBe(true);
      const counted = (await page.locator('#f-language option').allTextContents()).slice(1).reduce((n, label) => n + Number(/\((\d+)\)$/.exec(label)![1]), 0);
      expect(counted).toBeGreaterThan(SHARD_SIZE * (indexes.length - 1));
      expect(counted).toBeLessThanOrEqual(SHARD_SIZE * indexes.length);
      await page.selectOption('#f-language', 'English');
      await expect.poll(() => page.locator('#search-status').textContent()).toMatch(/talks found/);
      const items = page.locator('#results li');
      for (let shown = await items.count(); await page.locator('#more').isVisible(); shown = await items.count()) {
        await page.locator('#more').click();
        await expect.poll(() => items.count()).toBeGreaterThan(shown);
      }
      const dates = (await page.locator('#results li p.muted').allTextContents()).map((m) => /\d{4}-\d\d-\d\d/.exec(m)?.[0] ?? '');
      const english = Number(/(\d+)/.exec((await page.locator('#search-status').textContent()) ?? '')?.[1]);
      expect(dates).toHaveLength(english);
      expect(dates.filter(Boolean)).toEqual(dates.filter(Boolean).sort().reverse());
      // Words of one talk, in one shard, find that talk alone, as in one index: the shards that lack a
      // word answer it with a start of it ("outages" finds "out"), and those results are left out.
      await page.selectOption('#f-language', '');
      for (const word of ['Raghunathan', 'outages']) {
        await page.locator('#q').fill(word);
        await page.locator(`#search-status[data-query="${new URLSearchParams({ q: word })}"]`).waitFor();
        expect(await page.locator('#results li h2').allTextContents()).toEqual(['asyncio in Production: Five Outages and What They Taught Us']);
      }
      // With a filter that leaves the shard with the word empty, no results: not those of shards that answered
      // the word with a start of it ("out"), nor, for a word no talk has, those of a shorter start than one index's.
      await page.selectOption('#f-year', '2012');
      for (const word of ['outages', 'already']) {
        await page.locator('#q').fill(word);
        await page.locator(`#search-status[data-query="${new URLSearchParams({ q: word, year: '2012' })}"]`).waitFor();
        expect(await page.locator('#search-status').textContent(), word).toBe('No talks found.');
      }
      await page.selectOption('#f-year', '');
      // A start of a word finds the talks of every shard that has words it starts.
      await page.locator('#q').fill('pyth');
      await page.locator(`#search-status[data-query="q=pyth"]`).waitFor();
      expect(await page.locator('#search-status').textContent()).toBe(pythonFound);
      for (const [i, word] of across.entries()) {
        await search(page, word);
        expect(await page.locator('#search-status').textContent(), word).toBe(acrossFound[i]);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  }, 60_000);
});

describe('language and direction', () => {
  it("marks the API page's example title with its talk's language, as every other page marks a talk's title", async () => {
    const { page, problems } = await openPage();
    try {
      await page.goto(`${base}/api/`);
      // The demo's newest talk is Kamogawa's, titled in Japanese.
      const title = page.locator('main p', { hasText: 'The newest talk' }).locator('[lang]');
      expect(await title.evaluate((span: HTMLElement) => [span.lang, span.dir, span.textContent])).toEqual(['ja', 'auto', 'matplotlib で日本語フォントを正しく使う 📊']);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('sets a name written right to left in its own direction wherever it stands alone: the event, series and speaker headings, a tag, a related link, the event a talk is from', async () => {
    const talk = (id: number) =>
      `id: ${id}\ntitle: Talk ${id}\nspeakers: ["!مريم"]\ntags: ["!تعلم"]\nrelated_urls: [{label: "!الشرائح", url: "https://example.org/slides"}]\nrecorded: "2024-05-1${id}"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`;
    const own = await serveEvent('rtl', 'rtl-event', 'title: "!مؤتمر بايثون"\n', { 'talk-1.yaml': talk(1), 'talk-2.yaml': talk(2) });
    const { page, problems } = await openPage();
    const direction = (selector: string) => page.locator(selector).evaluate((el) => getComputedStyle(el).direction);
    try {
      await page.goto(`${own.url}events/`);
      expect(await direction('main h2')).toBe('rtl');
      await page.goto(`${own.url}events/rtl-event/`);
      expect(await direction('h1')).toBe('rtl');
      await page.goto(`${own.url}video/1/talk-1/`);
      expect(await direction('.tags a')).toBe('rtl');
      expect(await direction('.related a')).toBe('rtl');
      expect(await direction('#others-title bdi')).toBe('rtl');
      await page.click('.speakers a');
      expect(await direction('h1')).toBe('rtl');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  // Between the words and quotes of "Talks tagged “…”", the "!" that ends an Arabic tag stood after the tag's first letter, on its right.
  it("keeps a tag written right to left whole between the words of its page's heading and title, and a speaker's name in the lists of its talks and a search result's", async () => {
    const own = await serveEvent('rtl-tag', 'python-day', 'title: Python Day\n', {
      'talk.yaml': 'id: 1\ntitle: A talk\nspeakers: ["Ann Lee", "דוד כהן!"]\ntags: ["بايثون!"]\nrecorded: "2024-05-11"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n',
    });
    const { page, problems } = await openPage();
    // Where the first of each character stands across the element's text, from the left.
    const leftOf = (selector: string, chars: string[]) =>
      page.locator(selector).first().evaluate((el, chars) => {
        const text = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        const at: Record<string, number> = {};
        for (let node = text.nextNode() as Text | null; node; node = text.nextNode() as Text | null) {
          for (const char of chars) {
            const i = node.data.indexOf(char);
            if (i < 0 || char in at) continue;
            range.setStart(node, i);
            range.setEnd(node, i + char.length);
            at[char] = range.getBoundingClientRect().left;
          }
        }
        return at;
      }, chars);
    try {
      await page.goto(`${own.url}video/1/talk/`);
      await page.click('.tags a');
      const heading = await leftOf('h1', ['“', 'ب', 'ن', '!', '”']);
      // “, then the tag read from the right (its "!" at its left end), then ”.
      expect(heading['“']!).toBeLessThan(heading['!']!);
      expect(heading['!']!).toBeLessThan(heading['ن']!);
      expect(heading['ن']!).toBeLessThan(heading['ب']!);
      expect(heading['ب']!).toBeLessThan(heading['”']!);
      expect(await page.title()).toBe('Talks tagged “\u2068بايثون!\u2069” · Video catalogue');
      // The Hebrew name read from the right, its "!" at its left end: in the list of the tag's talks, and after another name in a search result's.
      for (const names of ['.talk-list bdi:nth-of-type(2)', '#results li p.muted bdi']) {
        if (names.startsWith('#results')) await page.goto(`${own.url}search/?q=talk`);
        const speaker = await leftOf(names, ['!', 'ד', 'ן']);
        expect(speaker['!']!, names).toBeLessThan(speaker['ן']!);
        expect(speaker['ן']!, names).toBeLessThan(speaker['ד']!);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  // An option holds text alone: set in the select's left-to-right line, the count after an Arabic event's name stood on its left, the name's "!" between them.
  it("keeps an event's name written right to left whole before its count in the search page's filter, and filters by it", async () => {
    const talk = (id: number) => `id: ${id}\ntitle: Talk ${id}\nrecorded: "2024-05-1${id}"\nadded: "2024-06-01T00:00:00"\nupdated: "2024-06-01T00:00:00"\n`;
    const own = await serveEvent('rtl-filter', 'rtl-event', 'title: "!مؤتمر بايثون"\n', { 'talk-1.yaml': talk(1), 'talk-2.yaml': talk(2) });
    const { page, problems } = await openPage();
    try {
      await page.goto(`${own.url}search/`);
      const option = page.locator('#f-event option').nth(1);
      await expect.poll(() => option.textContent()).toMatch(/\(2\)$/);
      // Where each character stands in the option's text laid out as the select lays it out (in the select's direction:
      // Chromium draws an option's text so, pixel for pixel), from the left.
      const at = await option.evaluate((el: HTMLOptionElement) => {
        const line = document.createElement('div');
        line.dir = getComputedStyle(el.parentElement!).direction;
        line.style.cssText = 'position: absolute; white-space: pre';
        line.textContent = el.text;
        document.body.append(line);
        const range = document.createRange();
        const left = (char: string) => {
          const i = line.firstChild!.textContent!.indexOf(char);
          range.setStart(line.firstChild!, i);
          range.setEnd(line.firstChild!, i + char.length);
          return range.getBoundingClientRect().left;
        };
        const found = Object.fromEntries(['!', 'م', 'ن', '(', ')'].map((char) => [char, left(char)]));
        line.remove();
        return found;
      });
      // The name read from the right (its "!" at its right end), then its count.
      expect(at['ن']!).toBeLessThan(at['م']!);
      expect(at['م']!).toBeLessThan(at['!']!);
      expect(at['!']!).toBeLessThan(at['(']!);
      expect(at['(']!).toBeLessThan(at[')']!);
      expect(await option.textContent()).toBe('\u2068!مؤتمر بايثون\u2069 (2)');
      await page.selectOption('#f-event', '!مؤتمر بايثون');
      await expect.poll(() => page.locator('#search-status').textContent()).toBe('2 talks found.');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });
});

describe('hostile text', () => {
  const HOSTILE_PAGES = ['/video/990/hostile-talk/', '/events/tidewater-python-2024/', '/talks/', '/tag/', '/speakers/', '/tags/', '/search/?q=Hostile', '/api/v2/video/990'];

  it('runs nowhere: talk page, listings, search results, API record', async () => {
    const { page, problems } = await openPage();
    await page.exposeFunction('__pwned', (what: string) => problems.push(`executed: ${what}`));
    const tagPage = (await readFile(path.join(dir, 'dist', 'tags', 'index.html'), 'utf8')).match(/href="(\/tag\/[^"]+\/)"[^>]*>&lt;svg/)?.[1];
    expect(tagPage).toBeDefined();
    for (const sitePath of HOSTILE_PAGES.map((p) => (p === '/tag/' ? tagPage! : p))) {
      await page.goto(`${base}${sitePath}`);
      if (sitePath.startsWith('/search/')) await expect.poll(() => page.locator('#results li h2').allTextContents()).toEqual([expect.stringContaining('Hostile talk')]);
      await page.mouse.move(10, 10);
      await page.locator('body').hover();
      const scripts = await page.evaluate(() => [...document.scripts].map((s) => s.type || 'classic'));
      expect(scripts.every((t) => t === 'module' || t === 'application/ld+json'), `${sitePath}: ${scripts.join(', ')}`).toBe(true);
      expect(await page.locator('img[onerror], svg[onload], [onmouseover], a[href^="javascript:"], iframe[src^="javascript:"]').count(), sitePath).toBe(0);
    }
    await page.goto(`${base}/video/990/hostile-talk/`);
    expect(await page.locator('h1').textContent()).toBe("<script>alert('title')</script><img src=x onerror=alert('title-img')> Hostile talk");
    const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    expect(jsonLd.name).toContain("<script>alert('title')</script>");
    expect(problems).toEqual([]);
  });

  it('lists events named like properties of every object ("constructor", "__proto__") in the search filter, with their counts', async () => {
    const content = path.join(dir, 'proto-content');
    for (const [slug, title, id] of [['ctor', 'constructor', 1], ['proto', '__proto__', 2]] as const) {
      await mkdir(path.join(content, slug, 'videos'), { recursive: true });
      await writeFile(path.join(content, slug, 'category.yaml'), `title: "${title}"\n`);
      await writeFile(path.join(content, slug, 'videos', 'a-talk.yaml'), `id: ${id}\ntitle: A talk\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n`);
    }
    const own = await serveBuilt(content, 'proto');
    const { page, problems } = await openPage();
    try {
      // A deep link's event the index lacks is listed with no talks, even one named like a property.
      await page.goto(`${own.url}search/?event=toString`);
      await expect.poll(() => page.locator('#f-event option').allTextContents()).toEqual(['Any event', '__proto__ (1)', 'constructor (1)', 'toString (0)']);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  });

  it('stays text in every feed', async () => {
    const feeds = ['feed.atom', 'feed.rss', 'feed.json', 'events/tidewater-python-2024/feed.atom'];
    for (const feed of feeds) {
      const body = await (await fetch(`${base}/${feed}`)).text();
      if (feed.endsWith('.json')) {
        const item = JSON.parse(body).items.find((i: { url: string }) => i.url.endsWith(`/video/${HOSTILE_ID}/hostile-talk/`));
        expect(item.title).toContain('<script>');
        expect(item.content_html).not.toMatch(/<script|<b |<img/);
      } else {
        expect(XMLValidator.validate(body), feed).toBe(true);
        expect(body).not.toMatch(/<script|<img|<svg/);
      }
    }
  });
});

describe('search over a catalogue whose fragments share files', () => {
  it('finds each talk and shows its own title and address', async () => {
    const site = path.join(dir, 'bundled');
    const count = 1500;
    const records = Array.from({ length: count }, (_, i) => ({
      url: `/video/${i + 1}/talk-${i + 1}/`,
      content: `Talk ${i + 1} about ${i % 3 === 0 ? 'asyncio' : 'packaging'}, code word zeta${i + 1}q`,
      meta: { title: `Talk ${i + 1}` },
      filters: {},
    }));
    const files = (await buildSearchIndex([{ records, dir: path.join(site, 'pagefind') }]))[0]!;
    const fragments = files.filter((f) => f.startsWith('fragment/')).length;
    expect(fragments).toBeLessThanOrEqual(fragmentFiles(count));
    expect(fragments).toBeGreaterThan(0);
    await writeFile(path.join(site, 'index.html'), '<!doctype html><html lang="en"><title>search</title></html>');
    const own = await startServer({ dir: site, host: '127.0.0.1', port: 0, quiet: true });
    const { page, problems } = await openPage();
    try {
      await page.goto(own.url);
      // A string, not a function: vitest would rewrite a function's import() for Node.
      const found: { word: string; results: number; shown: { url: string; title: string }[] }[] = await page.evaluate(`(async () => {
        const pagefind = await import('/pagefind/pagefind.js');
        await pagefind.options({ noWorker: true });
        const out = [];
        for (const word of ['zeta7q', 'zeta1234q', 'zeta1500q', 'asyncio']) {
          const search = await pagefind.search(word);
          const shown = await Promise.all(search.results.slice(0, 20).map((r) => r.data()));
          out.push({ word, results: search.results.length, shown: shown.map((d) => ({ url: d.url, title: d.meta.title })) });
        }
        return out;
      })()`);
      for (const n of [7, 1234, 1500]) expect(found.find((f) => f.word === `zeta${n}q`)).toEqual({ word: `zeta${n}q`, results: 1, shown: [{ url: `/video/${n}/talk-${n}/`, title: `Talk ${n}` }] });
      const asyncio = found.find((f) => f.word === 'asyncio')!;
      expect(asyncio.results).toBe(count / 3);
      for (const { url, title } of asyncio.shown) expect(url).toBe(`/video/${title.slice(5)}/talk-${title.slice(5)}/`);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await own.close();
    }
  }, 60_000);
});

describe('a site built for a folder of its host (a GitHub Pages project site), served under it', () => {
  const FOLDER = '/talks';
  let folder: RunningServer;
  let origin: string;

  beforeAll(async () => {
    folder = await serveBuilt(DEMO_CONTENT, 'folder-dist', { baseUrl: `https://user.github.io${FOLDER}/` }, FOLDER);
    origin = new URL(folder.url).origin;
  }, 60_000);

  afterAll(() => folder?.close());

  /** The addresses a page names: its links, scripts, images, forms and the target of a refresh, as written (entities decoded). */
  const addresses = (html: string) => [...html.matchAll(/\s(?:href|src|action|poster)="([^"]*)"|<meta http-equiv="refresh" content="\d+; url=([^"]*)"/g)].map((m) => decodeHTMLAttribute(m[1] ?? m[2]!));

  it('reaches every page from the home page, and each address any page names on this host is under the folder and answers', async () => {
    const queue = [`${FOLDER}/`];
    const seen = new Set(queue);
    const pages = new Set<string>();
    const escaped: string[] = [];
    const failed: string[] = [];
    while (queue.length > 0) {
      const at = queue.shift()!;
      const res = await fetch(`${origin}${at}`, { redirect: 'manual' });
      if (res.status !== 200) failed.push(`${at}: ${res.status}`);
      const type = res.headers.get('content-type') ?? '';
      if (!type.startsWith('text/html')) {
        await res.arrayBuffer();
        continue;
      }
      pages.add(at);
      for (const address of addresses(await res.text())) {
        const url = new URL(address, `${origin}${at}`);
        if (url.origin !== origin) continue;
        if (!url.pathname.startsWith(`${FOLDER}/`)) escaped.push(`${at} → ${address}`);
        const next = `${url.pathname}${url.search}`;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    expect(escaped).toEqual([]);
    expect(failed).toEqual([]);
    // Every page of the folder, as the host maps it: dist/events/index.html is /talks/events/. Redirects (old
    // addresses, short links) and the page for a miss are linked from nowhere, as they should be.
    const built = await fg('**/index.html', { cwd: path.join(dir, 'folder-dist') });
    const redirects = built.filter((file) => readFileSync(path.join(dir, 'folder-dist', file), 'utf8').includes('http-equiv="refresh"'));
    const expected = built.filter((file) => !redirects.includes(file)).map((file) => `${FOLDER}/${file.replace(/(^|\/)index\.html$/, '$1')}`);
    expect(expected.filter((page) => !pages.has(page))).toEqual([]);
    // A redirect sends the browser to the page under the folder too.
    for (const file of redirects) for (const address of addresses(readFileSync(path.join(dir, 'folder-dist', file), 'utf8'))) expect(address, file).toMatch(/^\/talks\/|^https:\/\/user\.github\.io\/talks\//);
  });

  it('finds a talk on the search page, whose result opens it, without a request outside the folder', async () => {
    const { page, problems } = await openPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === origin && !url.pathname.startsWith(`${FOLDER}/`)) outside.push(url.pathname);
    });
    await page.goto(`${origin}${FOLDER}/search/`);
    await page.locator('#q').fill('outages');
    await expect.poll(() => page.locator('#results li h2').allTextContents()).toEqual(['asyncio in Production: Five Outages and What They Taught Us']);
    expect(await page.locator('#results a').first().getAttribute('href')).toBe(`${FOLDER}/video/12/asyncio-in-production-lessons/`);
    await page.locator('#results a').first().click();
    await page.waitForURL(`${origin}${FOLDER}/video/12/asyncio-in-production-lessons/`);
    expect(await page.locator('h1').textContent()).toBe('asyncio in Production: Five Outages and What They Taught Us');
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });
});
