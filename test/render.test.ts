import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HtmlValidate } from 'html-validate';
import { describe, expect, it } from 'vitest';
import { loadTheme, TEMPLATE_NAMES } from '../src/theme.ts';
import { digestOf, loadContent, loadFullTalk, type Catalogue, type FullTalk } from '../src/load.ts';
import { renderMarkdown } from '../src/markdown.ts';
import { editLink, formatBytes, formatDuration, paragraphs, playerFor, SiteRenderer, talkView } from '../src/render.ts';
import { planSite } from '../src/plan.ts';
import { termSlug } from '../src/collections.ts';
import { DEFAULT_SITE_NAME, talkSchema } from '../src/schema.ts';
import { DEMO_CONTENT, ROOT, TEMPLATES } from './helpers.ts';
import { RenderError } from '../src/template-errors.ts';

const SITE = { baseUrl: 'https://talks.example.org', nav: [], name: DEFAULT_SITE_NAME };

function makeTalk(fields: Record<string, unknown>): FullTalk {
  const talk = talkSchema.parse({ id: 9, title: 'T', added: '2024-01-01T00:00:00', updated: '2024-01-01T00:00:00', ...fields });
  const { blurb, enclosure } = digestOf(talk);
  return { ...talk, slug: 't', category: 'Conf', event: 'conf', file: 'content/conf/videos/t.yaml', name: 'conf/videos/t.yaml', rev: 'r', blurb, enclosure };
}

describe('formatting', () => {
  it('writes durations as H:MM:SS', () => {
    expect(formatDuration(4000)).toBe('1:06:40');
    expect(formatDuration(300)).toBe('0:05:00');
    expect(formatDuration(0)).toBe('0:00:00');
    expect(formatDuration(null)).toBe('');
  });

  it('writes sizes in decimal units', () => {
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(123_456_789)).toBe('123.5 MB');
    expect(formatBytes(null)).toBe('');
  });

  it('splits plain text into paragraphs of lines', () => {
    expect(paragraphs('a\nb\n\n\nc\n')).toEqual([['a b'], ['c']]);
    // A wrapped line continues the one before it; a list item starts a line of its own.
    expect(paragraphs('Five incidents, \n  and habits:\n- one\n  wrapped\n2. two\n3) three')).toEqual([['Five incidents, and habits:', '- one wrapped', '2. two', '3) three']]);
    expect(paragraphs('  \n')).toEqual([]);
  });
});

describe('playerFor', () => {
  it('plays every format that is not download-only, most playable first', () => {
    const player = playerFor(
      makeTalk({ video_ogv_url: 'https://e.org/a.ogv', video_mp4_url: 'https://e.org/a.mp4', video_flv_url: 'https://e.org/a.flv', video_flv_download_only: true }),
    );
    expect(player).toEqual({
      kind: 'video',
      poster: '',
      sources: [
        { src: 'https://e.org/a.mp4', type: 'video/mp4' },
        { src: 'https://e.org/a.ogv', type: 'video/ogg' },
      ],
    });
  });

  it('falls back to the sanitised embed, then to the thumbnail', () => {
    expect(playerFor(makeTalk({ embed: '<iframe src="https://player.example/1" onload="x()"></iframe>' }))).toEqual({
      kind: 'embed',
      html: '<iframe src="https://player.example/1" title="Video player: T"></iframe>',
      src: 'https://player.example/1',
    });
    expect(playerFor(makeTalk({ embed: '<script>x</script>', thumbnail_url: 'https://e.org/t.jpg' }))?.kind).toBe('thumbnail');
    expect(playerFor(makeTalk({}))).toBeNull();
  });

  it('plays only what the page may load, https: files over http leave the player to the host, and an http thumbnail is no poster', () => {
    const http = { video_mp4_url: 'http://e.org/a.mp4', source_url: 'https://www.youtube.com/watch?v=abcdefghijk' };
    expect(playerFor(makeTalk(http))).toMatchObject({ kind: 'iframe', src: 'https://www.youtube-nocookie.com/embed/abcdefghijk' });
    expect(playerFor(makeTalk({ video_mp4_url: 'http://e.org/a.mp4', thumbnail_url: 'http://e.org/t.jpg' }))).toBeNull();
    expect(playerFor(makeTalk({ video_webm_url: 'https://e.org/a.webm', thumbnail_url: 'http://e.org/t.jpg' }))).toMatchObject({ kind: 'video', poster: '' });
  });
});

describe('talk pages', () => {
  // Search engines want a VideoObject's contentUrl or embedUrl; an embed's player is its iframe (archive.org on 959 pyvideo talks).
  it("give an embed's player as the video's embedUrl and og:video", () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const view = talkView({ talk: makeTalk({ embed: '<iframe src="https://archive.org/embed/talk?a=1&amp;b=2" title="T"></iframe>' }), event, others: [] }, SITE);
    expect(JSON.parse(view.jsonLd).embedUrl).toBe('https://archive.org/embed/talk?a=1&b=2');
    expect(view.openGraph).toContainEqual(['og:video', 'https://archive.org/embed/talk?a=1&b=2']);
    const video = talkView({ talk: makeTalk({ embed: '<video src="https://e.org/a.webm"></video>' }), event, others: [] }, SITE);
    expect(JSON.parse(video.jsonLd).embedUrl).toBeUndefined();
  });

  it("give as the video's file the one its feeds enclose: the first playable format's, over https first", () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const talk = makeTalk({ video_mp4_url: 'http://e.org/a.mp4', video_webm_url: 'https://e.org/a.webm' });
    const view = talkView({ talk, event, others: [] }, SITE);
    expect(talk.enclosure?.url).toBe('https://e.org/a.webm');
    expect(JSON.parse(view.jsonLd).contentUrl).toBe('https://e.org/a.webm');
    expect(view.openGraph).toContainEqual(['og:video', 'https://e.org/a.webm']);
  });

  it('cut their description, in the JSON-LD and OpenGraph, between characters, never between the halves of an emoji', () => {
    const event = { slug: 'pycon-apac-2022', title: 'PyCon APAC 2022', start_date: null, end_date: null };
    // As PyCon Taiwan 2022's descriptions write (id 10708 of the pyvideo import): Chinese without spaces, and emoji.
    const chinese = '不是萬中選一要如何練一身'.repeat(10);
    const view = talkView({ talk: makeTalk({ title: '不是萬中選一，要如何練一身 Python', summary: `${chinese.slice(0, 119)}🚀${chinese}` }), event, others: [] }, SITE);
    const { description } = JSON.parse(view.jsonLd);
    expect(description).toBe(`${chinese.slice(0, 119)}…`);
    expect(view.jsonLd).not.toMatch(/\\ud[89a-f]/i);
    expect(view.openGraph).toContainEqual(['og:description', description]);
    expect(view.metaDescription).toBe(description);
  });

  it("mark a title in English as English, where the talk's language is written in another script", async () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const english = talkView({ talk: makeTalk({ title: 'How PyPy can help', language: 'Russian' }), event, others: [] }, SITE);
    expect([english.titleLang, english.lang]).toEqual(['en', 'ru']);
    const russian = talkView({ talk: makeTalk({ title: 'Как PyPy помогает', language: 'Russian' }), event, others: [] }, SITE);
    expect([russian.titleLang, russian.lang]).toEqual(['ru', 'ru']);
    // Latin letters in a language written in them cannot be told from English: the talk's language stands.
    expect(talkView({ talk: makeTalk({ title: 'How PyPy can help', language: 'Spanish' }), event, others: [] }, SITE).titleLang).toBe('es');
    // So are its summary and description, each by its own letters (PyCon Israel's talks in Hebrew, described in English).
    const hebrew = talkView({ talk: makeTalk({ title: 'פייתון', summary: 'In English.', description: 'תיאור', language: 'Hebrew' }), event, others: [] }, SITE);
    expect([hebrew.titleLang, hebrew.summaryLang, hebrew.descriptionLang, hebrew.lang]).toEqual(['he', 'en', 'he', 'he']);
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), summary: 'In English.', description: 'Also *English*.', language: 'Hebrew' };
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk });
    expect([html.includes('<p lang="en" dir="auto">In English.'), html.includes('<div class="prose" lang="en" dir="auto">')]).toEqual([true, true]);
  });

  it("name a table of a description in another language in the site's English, the table in the description's language", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const talk = makeTalk({ language: 'Japanese', description: '| 列 | 値 |\n|---|---|\n| 一 | 二 |' });
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ talk, event, others: [] });
    expect(html).toContain('<div class="prose" lang="ja" dir="auto"><div class="table-scroll" role="region" tabindex="0" aria-label="Table" lang="en"><table lang="ja">');
  });

  // As talk 368 of the pyvideo import: its description is its summary, wrapped.
  it('show a summary that is the description word for word once, as the description', () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const summary = 'Learn how cool it is to write command-line tools. In this talk we cover why.';
    const same = talkView({ talk: makeTalk({ summary, description: 'Learn how cool it is to write\ncommand-line tools.  In this talk we cover why.\n' }), event, others: [] }, SITE);
    expect(same.summary).toEqual([]);
    expect(same.description).toContain('Learn how cool it is');
    const more = talkView({ talk: makeTalk({ summary, description: `${summary}\n\nAnd more.` }), event, others: [] }, SITE);
    expect(more.summary).toEqual([[summary]]);
  });

  it('name each download by its format as its makers write it', () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const talk = makeTalk({ video_ogv_url: 'https://e.org/a.ogv', video_mp4_url: 'https://e.org/a.mp4', video_webm_url: 'https://e.org/a.webm', video_flv_url: 'https://e.org/a.flv' });
    expect(talkView({ talk, event, others: [] }, SITE).downloads.map((d) => d.format)).toEqual(['OGV', 'MP4', 'WebM', 'FLV']);
  });

  it('date the video by its recording, as well as by when it came to the catalogue', () => {
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null };
    const view = talkView({ talk: makeTalk({ recorded: '2012-03-10', added: '2026-11-25T18:05:57', updated: '2026-11-25T18:05:57' }), event, others: [] }, SITE);
    expect(JSON.parse(view.jsonLd)).toMatchObject({ dateCreated: '2012-03-10', uploadDate: '2026-11-25T18:05:57Z' });
    expect(JSON.parse(talkView({ talk: makeTalk({}), event, others: [] }, SITE).jsonLd)).not.toHaveProperty('dateCreated');
  });

  // A control character or noncharacter is a parse error anywhere in HTML: pyvideo's mojibake brought U+009D.
  it('drop the code points HTML calls a parse error wherever they stand', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const odd = 'a\u0000b\u0007c\u007fd\u009de\ufdd0f\uffffg';
    const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), title: odd, summary: odd, description: `${odd}\n\n\`${odd}\``, speakers: [odd] };
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk });
    expect(html).not.toMatch(/[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\uFDD0-\uFDEF\uFFFE\uFFFF]/);
    expect(html).toMatch(/<h1 lang="\w+" dir="auto">abcdefg<\/h1>/);
    // JSON writes C0 controls as \u escapes itself: the JSON-LD keeps those.
    expect(JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/.exec(html)![1]!).name).toBe('a\u0000b\u0007cdefg');
  });

  it("link the addresses of a summary, which stays plain text", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), summary: 'Slides: https://e.org/s?a=1&b=2.\n<b>Code</b> (https://e.org/c)' };
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk });
    expect(html).toContain(
      'Slides: <a href="https://e.org/s?a=1&amp;b=2" rel="nofollow ugc noopener">https://e.org/s?a=1&amp;b=2</a>. &lt;b&gt;Code&lt;/b&gt; (<a href="https://e.org/c" rel="nofollow ugc noopener">https://e.org/c</a>)</p>',
    );
  });

  // 893 of the pyvideo import's licences give their terms by address (http://creativecommons.org/licenses/by/3.0/).
  it('link the addresses of a licence and of recording notes, which stay plain text', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), copyright_text: 'CC <b>BY</b>: https://creativecommons.org/licenses/by/3.0/', quality_notes: 'Slides: https://e.org/s.' };
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk });
    expect(html).toContain(
      '<dt>Licence</dt><dd>CC &lt;b&gt;BY&lt;/b&gt;: <a href="https://creativecommons.org/licenses/by/3.0/" rel="nofollow ugc noopener">https://creativecommons.org/licenses/by/3.0/</a></dd>',
    );
    expect(html).toContain('<dt>Recording notes</dt><dd>Slides: <a href="https://e.org/s" rel="nofollow ugc noopener">https://e.org/s</a>.</dd>');
  });

  it('label one speaker Speaker and more Speakers in their details', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const page = (speakers: string[]) => new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk: { ...loadFullTalk(DEMO_CONTENT, job.talk), speakers } });
    expect(page(['Ann Lee'])).toContain('<dt>Speaker</dt><dd><a href="/speaker/ann-lee/" dir="auto">Ann Lee</a></dd>');
    expect(page(['Ann Lee', 'Bo Chen'])).toContain('<dt>Speakers</dt><dd><a href="/speaker/ann-lee/" dir="auto">Ann Lee</a>, <a href="/speaker/bo-chen/"');
  });

  it('link no blank speaker or tag: such a name has no page', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), speakers: ['', '  ', 'Ann Lee'], tags: [' ', 'web'] };
    const html = new SiteRenderer(templates, SITE, 'templates').talk({ ...job, talk });
    // A name with no letters to spell would have a slug of its hash, u-….
    expect(html).toContain('href="/speaker/ann-lee/"');
    expect(html).toContain('href="/tag/web/"');
    expect(html).not.toMatch(/href="\/(speaker|tag)\/u-/);
    expect(html).not.toContain('"name":""');
  });
});

describe('listed talks', () => {
  it('are isolated from the text around them, so that a title cannot turn round what follows it', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    for (const template of ['home', 'listing', 'event'] as const) {
      const html = renderer.output(pages.find((p) => p.kind === 'page' && p.template === template)!);
      const links = html.match(/<a href="\/video\/[^"]+"[^>]*>/g) ?? [];
      expect(links.length, template).toBeGreaterThan(0);
      for (const link of links) expect(link, template).toContain('dir="auto"');
      if (template !== 'listing') expect(html, template).toMatch(/class="muted">by <bdi>/);
      expect(html, template).not.toMatch(/class="muted">by (?!<bdi[ >])/);
    }
  });

  it("isolate each of a page's other spellings, so that one with an override left open cannot turn round the next", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const html = renderer.page('listing', { title: 'Talks tagged “RLO TAG”', kind: 'tag', names: ['RLO TAG', '\u202erlo tag', 'rlo tag'], path: '/tag/rlo-tag/', total: 1, page: { number: 1, count: 1 }, talks: [] });
    expect(html).toContain('<p class="muted">Also written as: <bdi>\u202erlo tag</bdi>, <bdi>rlo tag</bdi></p>');
  });

  it("links a newest talk's event on the home page, as every list of talks does", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const html = (file: string) => renderer.output(pages.find((p) => p.path === file)!);
    const newest = /<section aria-labelledby="newest-title">([\s\S]*?)<\/section>/.exec(html('index.html'))![1]!.match(/<li>.*<\/li>/g)!;
    expect(newest.length).toBeGreaterThan(1);
    for (const line of newest) expect(line).toMatch(/ <span class="muted">· <a href="\/events\/[a-z0-9-]+\/" dir="auto">[^<]+<\/a>/);
  });
});

describe("speakers' names and tags", () => {
  const talkLink = (id: number, language: string, speakers: string[]) => ({ id, slug: `t${id}`, title: `Talk ${id}`, language, duration: null, recorded: null, event: 'conf', category: 'Conf', speakers });

  it("are in the talk's language on its page where written in its letters, and Latin names as they were", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const page = (language: string) => renderer.talk({ ...job, talk: { ...loadFullTalk(DEMO_CONTENT, job.talk), language, speakers: ['山田 花子', 'Ann Lee'], tags: ['型ヒント', 'web'] } });
    const japanese = page('Japanese');
    // The byline and the details.
    expect(japanese.match(/<a href="\/speaker\/[^"]+" lang="ja" dir="auto">山田 花子<\/a>/g)).toHaveLength(2);
    expect(japanese.match(/<a href="\/speaker\/ann-lee\/" dir="auto">Ann Lee<\/a>/g)).toHaveLength(2);
    expect(japanese).toMatch(/<a href="\/tag\/[^"]+" lang="ja" dir="auto">型ヒント<\/a>/);
    expect(japanese).toContain('<a href="/tag/web/" dir="auto">web</a>');
    // On an English talk's page, Han letters alone do not tell Japanese from Chinese: the name takes none; kana are Japanese.
    const english = page('English');
    expect(english).not.toMatch(/href="\/speaker\/[^"]+" lang=/);
    expect(english).toMatch(/<a href="\/tag\/[^"]+" lang="ja" dir="auto">型ヒント<\/a>/);
  });

  it('are in the language of their talk beside it in a list, and of their letters in an index', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const talks = [talkLink(1, 'Japanese', ['山田 花子', 'Emily Carter']), talkLink(2, 'English', ['山田 花子'])];
    const listing = renderer.page('listing', { title: 'All talks', kind: 'all', names: [], path: '/talks/', total: 2, page: { number: 1, count: 1 }, talks });
    expect(listing).toContain('by <bdi lang="ja">山田 花子</bdi>, <bdi>Emily Carter</bdi></span>');
    expect(listing).toContain('by <bdi>山田 花子</bdi></span>');
    const terms = [{ name: 'やまだ はなこ', url: '/speaker/a/', count: 1 }, { name: '山田 花子', url: '/speaker/b/', count: 1 }, { name: '김철수', url: '/speaker/c/', count: 1 }, { name: 'Ada', url: '/speaker/ada/', count: 1 }];
    const index = renderer.page('terms', { title: 'Speakers', path: '/speakers/', index: '/speakers/', total: 4, page: { number: 1, count: 1 }, letters: [], groups: [{ heading: '', id: 'all', terms }] });
    expect(index.match(/<a href="\/speaker\/[^"]+"[^>]*>/g)).toEqual(['<a href="/speaker/a/" lang="ja" dir="auto">', '<a href="/speaker/b/" dir="auto">', '<a href="/speaker/c/" lang="ko" dir="auto">', '<a href="/speaker/ada/" dir="auto">']);
  });

  it("head a speaker's page in the language of their talks where all are in one, and each spelling of a name in the language of its letters", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const speaker = (talks: ReturnType<typeof talkLink>[]) => renderer.page('listing', { title: '山田 花子', kind: 'speaker', names: ['山田 花子', 'やまだ はなこ', 'Hanako Yamada'], path: '/speaker/b/', total: talks.length, page: { number: 1, count: 1 }, talks });
    const japanese = speaker([talkLink(1, 'Japanese', ['山田 花子']), talkLink(2, 'Japanese', ['山田 花子'])]);
    expect(japanese).toContain('<h1 lang="ja" dir="auto">山田 花子</h1>');
    expect(japanese).toContain('Also written as: <bdi lang="ja">やまだ はなこ</bdi>, <bdi>Hanako Yamada</bdi></p>');
    expect(speaker([talkLink(1, 'Japanese', ['山田 花子']), talkLink(2, 'English', ['山田 花子'])])).toContain('<h1 dir="auto">山田 花子</h1>');
    // A tag's title is the site's words around its name.
    const tag = renderer.page('listing', { title: 'Talks tagged “型ヒント”', kind: 'tag', names: ['型ヒント'], path: '/tag/x/', total: 1, page: { number: 1, count: 1 }, talks: [talkLink(1, 'Japanese', [])] });
    expect(tag).toContain('<h1 dir="auto">Talks tagged “型ヒント”</h1>');
  });
});

describe('a site served from a folder of its host', () => {
  it("writes the folder before every address of the site's own on every kind of page, and before the links of its content's Markdown", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const site = { ...SITE, baseUrl: 'https://user.github.io/talks', nav: [{ title: 'About', url: '/about/' }] };
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, site, 'templates');
    const kinds = new Set<string>();
    const outside = (html: string) => [...html.matchAll(/\s(?:href|src|action)="([^"#]+)"|url=([^"]+)"/g)].map((m) => m[1] ?? m[2]!).filter((a) => a.startsWith('/') && !a.startsWith('/talks/'));
    for (const job of pages.filter((p) => p.kind === 'page' || p.kind === 'redirect')) {
      kinds.add(job.kind === 'page' ? job.template : job.kind);
      expect(outside(renderer.output(job)), job.path).toEqual([]);
    }
    expect([...kinds].sort()).toEqual(['api', 'event', 'events', 'home', 'listing', 'not-found', 'page', 'redirect', 'search', 'terms']);
    for (const job of planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)) {
      const talk = { ...loadFullTalk(DEMO_CONTENT, job.talk), description: 'See [the events](/events/).' };
      const html = renderer.talk({ ...job, talk });
      expect(outside(html), job.talk.slug).toEqual([]);
      expect(html).toContain('<a href="/talks/events/" rel="nofollow ugc noopener">the events</a>');
    }
    const about = renderer.output(pages.find((p) => p.path === 'about/index.html')!);
    expect(about).toContain('<a href="/talks/events/" rel="nofollow ugc noopener">event</a>');
    expect(about).toContain('<li><a href="/talks/about/" aria-current="page">About</a></li>');
    const search = renderer.output(pages.find((p) => p.path === 'search/index.html')!);
    expect(search).toContain(' data-base="/talks"');
    expect(search).toContain('<script type="module" src="/talks/assets/search.js"></script>');
  });
});

describe("an event's page", () => {
  it('starts its description\'s headings at h2, right under its h1, as the talks\' h2 that follows', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const [event] = catalogue.events;
    const changed: Catalogue = { ...catalogue, events: [{ ...event!, description: '# About the event\n\nText.\n\n## Venue\n' }, ...catalogue.events.slice(1)] };
    const job = planSite(changed, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'event' && p.path === `events/${event!.slug}/index.html`)!;
    const html = new SiteRenderer(templates, SITE, 'templates').output(job);
    // The talks' own h2 heads their days at h3: the demo's event was recorded over two, and one of its talks has no date.
    expect(html.match(/<h\d[ >]/g)).toEqual(['<h1 ', '<h2>', '<h3>', '<h2 ', '<h3>', '<h3>', '<h3>']);
  });

  it('heads its programme a recording day at a time where its talks were recorded on more than one, on every page of it', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null, url: '', description: '', name: 'conf/category.yaml' };
    const link = (id: number, recorded: string | null, duration = 0) => ({ id, slug: `t${id}`, title: `Talk ${id}`, language: 'English', speakers: ['Ann'], duration, recorded, event: 'conf', category: 'Conf' });
    const page = (talks: ReturnType<typeof link>[], recordedFrom: string | null, recordedTo: string | null) =>
      new SiteRenderer(templates, SITE, 'templates').page('event', { event, recordedFrom, recordedTo, total: talks.length, page: { number: 1, count: 1 }, talks, feeds: '/events/conf/' });
    const days = (html: string) => [...html.matchAll(/<h3>(.*?)<\/h3>\n<ul class="talk-list">\n(.*?)<\/ul>/gs)].map(([, day, list]) => [day, [...list!.matchAll(/>(Talk \d+)</g)].map((m) => m[1])]);
    expect(days(page([link(1, '2020-01-01'), link(2, '2020-01-01'), link(4, '2020-01-02'), link(3, null)], '2020-01-01', '2020-01-02'))).toEqual([
      ['<time datetime="2020-01-01">2020-01-01</time>', ['Talk 1', 'Talk 2']],
      ['<time datetime="2020-01-02">2020-01-02</time>', ['Talk 4']],
      ['Date not known', ['Talk 3']],
    ]);
    // A page of a longer event that holds one of its days still says which.
    expect(days(page([link(1, '2020-01-02')], '2020-01-01', '2020-01-02'))).toEqual([['<time datetime="2020-01-02">2020-01-02</time>', ['Talk 1']]]);
    // One day, or none known: one list, as a day's heading would say nothing the page does not.
    for (const recorded of ['2020-01-01', null]) expect(page([link(1, recorded), link(2, recorded)], recorded, recorded)).not.toContain('<h3>');
    // A duration is set apart from the speakers' names.
    expect(page([link(1, null, 3661)], null, null)).toContain('<bdi>Ann</bdi></span> <span class="muted">·</span> <span class="duration">1:01:01</span></li>');
  });

  it("past one page, says which page of the programme it is, links the others and counts and dates the whole event's talks", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const event = { slug: 'conf', title: 'Conf', start_date: null, end_date: null, url: '', description: 'About the event.', name: 'conf/category.yaml' };
    const page = (number: number) =>
      new SiteRenderer(templates, SITE, 'templates').page('event', { event, recordedFrom: '2020-01-01', recordedTo: '2020-01-28', total: 1001, page: { number, count: 3, prev: number > 1 ? '/events/conf/' : undefined, next: '/events/conf/page/3/' }, talks: [], feeds: '/events/conf/' });
    const second = page(2);
    expect(second).toContain('<link rel="canonical" href="https://talks.example.org/events/conf/page/2/">');
    expect(second).toMatch(/<title>Conf \(page 2 of 3\) · /);
    expect(second).toContain('<p class="meta">Recorded <time datetime="2020-01-01">2020-01-01</time> to <time datetime="2020-01-28">2020-01-28</time> · 1,001\u00a0talks · page 2 of 3 · ');
    expect(second).toContain('<a rel="prev" href="/events/conf/">← Earlier</a>');
    expect(second).toContain('<a rel="next" href="/events/conf/page/3/">Later →</a>');
    // The description is the first page's alone.
    expect(second).not.toContain('About the event.');
    expect(page(1)).toContain('About the event.');
  });

  it("of an event without dates, and its line in the lists, give its talks' recording dates", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue: demo } = await loadContent(DEMO_CONTENT);
    const catalogue: Catalogue = { ...demo, events: demo.events.map((e) => (e.slug === 'datafjord-2025' ? { ...e, start_date: null, end_date: null } : e)) };
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const html = (file: string) => renderer.output(pages.find((p) => p.path === file)!);
    expect(html('events/datafjord-2025/index.html')).toContain('<p class="meta">Recorded <time datetime="2025-03-06">2025-03-06</time> to <time datetime="2025-03-07">2025-03-07</time> · ');
    // Its line spans them, as its page does: a meetup's first date alone (ChiPy's 2008-01-01) hid its talks of 2024.
    for (const file of ['events/index.html', 'index.html']) expect(html(file)).toMatch(/<a href="\/events\/datafjord-2025\/" dir="auto">[^<]*<\/a> <span class="muted">recorded <time datetime="2025-03-06">2025-03-06<\/time> to <time datetime="2025-03-07">2025-03-07<\/time> · /);
    // An event with dates of its own shows those, from the first to the last.
    expect(html('events/index.html')).toContain('<time datetime="2024-05-16">2024-05-16</time> to <time datetime="2024-05-18">2024-05-18</time> · ');
  });

  it('marks the link to a page\'s section (the events for an event, the talks for a talk), not as the page itself', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const plan = planSite(catalogue, { code: '', templates: {} });
    const pages = plan.parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const marked = (html: string) => html.match(/<a href="[^"]*" aria-current="[^"]*">/g);
    const current = (file: string) => marked(renderer.output(pages.find((p) => p.path === file)!));
    expect(current(`events/${catalogue.events[0]!.slug}/index.html`)).toEqual(['<a href="/events/" aria-current="true">']);
    expect(current('events/index.html')).toEqual(['<a href="/events/" aria-current="page">']);
    // A talk is one of the talks: its page marks their list as its section.
    const job = plan.parts.flatMap((p) => p.talks)[0]!;
    expect(marked(renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) }))).toEqual(['<a href="/talks/" aria-current="true">']);
  });
});

describe('edit links', () => {
  it("link each talk's, event's and page's file to where the site says it is edited, its path's parts percent-encoded, and nothing else", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const { parts } = planSite(catalogue, { code: '', templates: {} });
    const editUrl = 'https://git.example.org/talks/_edit/main/content/{path}?plain=1';
    const links = (site: typeof SITE & { editUrl?: string }) => {
      const renderer = new SiteRenderer(templates, site, 'templates');
      const html = [...parts.flatMap((p) => p.pages).filter((p) => p.path.endsWith('.html')).map((p) => renderer.output(p)), ...parts.flatMap((p) => p.talks).map((job) => renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) }))];
      return html.flatMap((page) => [...page.matchAll(/<a href="([^"]*)" rel="nofollow noopener">Edit this page<\/a>/g)].map((m) => m[1]!));
    };
    expect(links(SITE)).toEqual([]);
    const sources = [...catalogue.events, ...catalogue.pages.filter((p) => !p.draft), ...catalogue.talks.filter((t) => t.state === 1)].map((origin) => origin.name);
    expect(links({ ...SITE, editUrl }).sort()).toEqual(sources.map((name) => editUrl.replace('{path}', name)).sort());
    expect(editLink({ editUrl }, 'café-conf/videos/a talk#1.yaml')).toBe('https://git.example.org/talks/_edit/main/content/caf%C3%A9-conf/videos/a%20talk%231.yaml?plain=1');
  });
});

describe('every HTML page', () => {
  it('is valid HTML', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const { parts } = planSite(catalogue, { code: '', templates: {} });
    const jobs = parts.flatMap((p) => p.pages);
    const pages = jobs.filter((p) => p.path.endsWith('.html')).map((p) => ({ path: p.path, body: renderer.output(p) }));
    expect(new Set(jobs.flatMap((p) => (p.kind === 'page' ? [p.template] : [])))).toEqual(new Set(['home', 'events', 'event', 'listing', 'terms', 'search', 'api', 'not-found', 'page']));
    for (const job of parts.flatMap((p) => p.talks)) {
      for (const o of job.outputs) {
        if (o.kind === 'page') pages.push({ path: o.path, body: renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) }) });
        if (o.kind === 'redirect') pages.push({ path: o.path, body: renderer.redirect(job.talk.title, o.target) });
      }
    }
    expect(pages.length).toBeGreaterThan(200);
    const validator = new HtmlValidate({ extends: ['html-validate:standard'] });
    const messages: string[] = [];
    for (const page of pages) {
      const report = await validator.validateString(page.body, page.path);
      messages.push(...report.results.flatMap((r) => r.messages.map((m) => `${page.path}:${m.line}:${m.column} ${m.ruleId} ${m.message}`)));
    }
    expect(messages).toEqual([]);
  });

  it('names its icon, so that no browser asks for /favicon.ico, which the site has not', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).filter((p) => p.path.endsWith('.html'));
    const html = [...pages.map((p) => renderer.output(p)), renderer.redirect('A talk', '/video/1/a-talk/')];
    expect(html.filter((page) => !page.includes('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">'))).toEqual([]);
  });
});

describe('the API page', () => {
  // WAI's scrollable region (a tab stop and a name) is for a block that scrolls: this one wraps its lines anywhere, and a
  // pre's role (generic) may carry no aria-label; the paragraph before it says what it shows.
  it('shows the live example in a block that wraps and is no tab stop', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const api = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.path === 'api/index.html')!;
    const html = new SiteRenderer(templates, SITE, 'templates').output(api);
    expect(html).toContain('What the server answers right now:</p>\n<pre class="example" id="example"><code>');
    const css = await readFile(path.join(TEMPLATES, 'assets', 'style.css'), 'utf8');
    expect(css).toMatch(/pre\.example, pre\.command \{[^}]*white-space: pre-wrap; overflow-wrap: anywhere; \}/);
  });
});

describe('a long list', () => {
  it('links its first and last pages and those near this one, and marks this one', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const nav = (number: number, count: number) => {
      const html = renderer.page('listing', { title: 'All talks', kind: 'all', names: ['All talks'], path: '/talks/', total: count * 50, page: { number, count, prev: 'p', next: 'n' }, talks: [] });
      const pager = html.slice(html.indexOf('<ol class="page-numbers">'), html.indexOf('</ol>'));
      return [...pager.matchAll(/<li( aria-hidden="true")?>(?:<a href="([^"]+)"[^>]*?( aria-current="page")?>)?([^<]+)/g)].map(([, hidden, href, current, text]) => (hidden ? text : `${text} ${href}${current ? ' (here)' : ''}`));
    };
    expect(nav(7, 20)).toEqual(['1 /talks/', '…', '5 /talks/page/5/', '6 /talks/page/6/', '7 /talks/page/7/ (here)', '8 /talks/page/8/', '9 /talks/page/9/', '…', '20 /talks/page/20/']);
    expect(nav(2, 4)).toEqual(['1 /talks/', '2 /talks/page/2/ (here)', '3 /talks/page/3/', '4 /talks/page/4/']);
    // Next to the first or last page of the window, no ellipsis hides nothing.
    expect(nav(4, 7)).toEqual(['1 /talks/', '2 /talks/page/2/', '3 /talks/page/3/', '4 /talks/page/4/ (here)', '5 /talks/page/5/', '6 /talks/page/6/', '7 /talks/page/7/']);
  });
});

describe('the speakers index by letter', () => {
  it("marks the letter of the page it is on, as a list's page numbers mark theirs", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const letters = ['a', 'b'].map((id) => ({ label: id.toUpperCase(), url: `/speakers/${id}/`, count: 1 }));
    const marked = (path: string) => {
      // A letter's page lists its speakers; the index itself only the letters.
      const groups = path === '/speakers/' ? [] : [{ heading: 'B', id: 'b', terms: [{ name: 'Bea', url: '/speaker/bea/', count: 1 }] }];
      const html = renderer.page('terms', { title: 'Speakers', path, index: '/speakers/', total: 2, page: { number: 1, count: 1 }, letters, groups });
      return [...html.matchAll(/<a href="(\/speakers\/[ab]\/)" aria-current="page">/g)].map(([, url]) => url);
    };
    expect(marked('/speakers/b/')).toEqual(['/speakers/b/']);
    expect(marked('/speakers/')).toEqual([]);
  });

  it('says what it counts: the speakers of the index, or of its letter', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const letters = [{ label: 'A', url: '/speakers/a/', count: 12819 }];
    const groups = [{ heading: 'A', id: 'a', terms: [{ name: 'Ada', url: '/speaker/ada/', count: 1 }] }];
    const lead = (path: string, total: number) => /<p class="lead">(.*?)<\/p>/.exec(renderer.page('terms', { title: 'Speakers', path, index: '/speakers/', total, page: { number: 1, count: 1 }, letters, groups: path === '/speakers/' ? [] : groups }))?.[1];
    expect(lead('/speakers/', 12819)).toBe('12,819\u00a0speakers in all.');
    expect(lead('/speakers/a/', 1)).toBe('1\u00a0speaker under A.');
  });

  it("pages a long letter as a long list: its own canonical address and title, a pager, and its letter marked as the section it is in", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const letters = [{ label: 'A', url: '/speakers/a/', count: 1600 }, { label: 'B', url: '/speakers/b/', count: 1 }];
    const groups = [{ heading: 'A', id: 'a', terms: [{ name: 'Ada', url: '/speaker/ada/', count: 1 }] }];
    const html = renderer.page('terms', { title: 'Speakers: A', path: '/speakers/a/', index: '/speakers/', total: 1600, page: { number: 2, count: 3, prev: '/speakers/a/', next: '/speakers/a/page/3/' }, letters, groups });
    for (const part of [
      '<link rel="canonical" href="https://talks.example.org/speakers/a/page/2/">',
      '<title>Speakers: A (page 2 of 3) · ',
      '<a rel="prev" href="/speakers/a/">',
      '<a rel="next" href="/speakers/a/page/3/">',
      '<a href="/speakers/a/page/2/" aria-label="Page 2" aria-current="page">2</a>',
      '<a href="/speakers/a/" aria-current="true">A',
      // Counts as English writes them, their thousands grouped.
      '<p class="lead">1,600\u00a0speakers under A. Page 2 of 3.</p>',
      'A <span class="muted">(1,600)</span>',
    ]) {
      expect(html).toContain(part);
    }
    // The site's navigation marks the speakers' section, as on the letter's first page.
    expect(html).toMatch(/<a href="\/speakers\/" aria-current="true">Speakers<\/a>/);
  });
});

describe('counts', () => {
  it('are singular for one: "1 talk", not "1 talks"', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const first = catalogue.talks.find((t) => t.state === 1 && t.speakers.length === 1 && t.tags.length > 0)!;
    const one: Catalogue = { ...catalogue, events: catalogue.events.filter((e) => e.slug === first.event), talks: [{ ...first, tags: [first.tags[0]!] }] };
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const pages = planSite(one, { code: '', templates: {} }).parts.flatMap((p) => p.pages).filter((p) => p.kind === 'page' && p.template !== 'page');
    expect(pages.length).toBeGreaterThan(8);
    for (const page of pages) expect(renderer.output(page), page.path).not.toMatch(/\b1 (recorded )?(talks|events|speakers|tags|languages)\b|of the 1 /);
  });

  it('keep the number and its noun on one line ("2 talks"), which a narrow screen broke between them', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const lists = new Set(['home', 'listing', 'events', 'event', 'terms', 'api']);
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).filter((p) => p.kind === 'page' && lists.has(p.template));
    expect(new Set(pages.map((p) => p.kind === 'page' && p.template))).toEqual(lists);
    const nouns = '(recorded )?(talk|event|speaker|tag|language)s?\\b';
    for (const page of pages) {
      // The page's text, where it wraps: its tags, and the attributes in them, left out.
      const text = renderer.output(page).replace(/<[^>]*>/g, '');
      expect(text, page.path).toMatch(new RegExp(`\\d\u00a0${nouns}`));
      expect(text, page.path).not.toMatch(new RegExp(`\\d[ \\n]${nouns}`));
    }
  });
});

describe('titles in a line of plain text', () => {
  const [FSI, PDI, RLO] = ['\u2068', '\u2069', '\u202e'];
  const titleOf = (html: string) => /<title>(.*)<\/title>/.exec(html)![1]!;
  const evil = `Evil${RLO} talk`;

  it("keep a right-to-left override in a talk's, an event's, a speaker's, a tag's or a page's name from turning round the rest of the line", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const first = catalogue.talks[0]!;
    const changed: Catalogue = {
      events: catalogue.events.map((e) => (e.slug === first.event ? { ...e, title: evil } : e)),
      talks: [{ ...first, title: evil, speakers: [evil], tags: [evil], category: evil, blurb: '' }, ...catalogue.talks.slice(1)],
      pages: catalogue.pages.map((page) => ({ ...page, title: evil })),
      redirects: [],
      site: catalogue.site,
    };
    const plan = planSite(changed, { code: '', templates: {} });
    const pages = plan.parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const output = (file: string) => renderer.output(pages.find((p) => p.path === file)!);
    const inLine = `${FSI}${evil}${PDI}`;
    const job = plan.parts.flatMap((p) => p.talks).find((j) => j.talk.id === first.id)!;
    const talkPage = renderer.talk({ ...job, talk: { ...loadFullTalk(DEMO_CONTENT, first), title: evil, category: evil, blurb: '', summary: '', description: '' } });
    expect(titleOf(talkPage)).toBe(`${inLine} · ${inLine} · Video catalogue`);
    expect(talkPage).toContain(`<meta name="description" content="${inLine}, a talk at ${inLine}">`);
    expect(titleOf(renderer.redirect(evil, '/video/1/x/'))).toBe(`${inLine} · Video catalogue`);
    const slug = termSlug(evil);
    expect(titleOf(output(`speaker/${slug}/index.html`))).toBe(`${inLine} · Video catalogue`);
    expect(titleOf(output(`tag/${slug}/index.html`))).toBe(`Talks tagged “${inLine}” · Video catalogue`);
    expect(titleOf(output(`events/${first.event}/index.html`))).toBe(`${inLine} · Video catalogue`);
    expect(output(`events/${first.event}/feed.atom`)).toContain(`<title>${inLine}</title>`);
    expect(output(`events/${first.event}/feed.atom`)).toContain(`${inLine}, a talk at ${inLine}`);
    expect(titleOf(output(`${catalogue.pages[0]!.slug}/index.html`))).toBe(`${inLine} · Video catalogue`);
  });

  // Between the words and quotes of "Talks tagged “…”", the "!" that ends an Arabic tag stood on the left of the quote, not after the tag.
  it("isolate a tag written right to left between the words of its page's title, heading and feed titles, as they isolate an override", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const first = catalogue.talks[0]!;
    const tag = 'بايثون!';
    const plan = planSite({ ...catalogue, talks: [{ ...first, tags: [tag] }, ...catalogue.talks.slice(1)] }, { code: '', templates: {} });
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const output = (file: string) => renderer.output(plan.parts.flatMap((p) => p.pages).find((p) => p.path === file)!);
    const heading = `Talks tagged “${FSI}${tag}${PDI}”`;
    const html = output(`tag/${termSlug(tag)}/index.html`);
    expect(titleOf(html)).toBe(`${heading} · Video catalogue`);
    expect(html).toContain(`<h1 dir="auto">${heading}</h1>`);
    expect(output(`tag/${termSlug(tag)}/feed.atom`)).toContain(`<title>${heading}</title>`);
  });

  // "!مؤتمر بايثون (page 2 of 3) · Video catalogue": the "!" that starts an Arabic name stood at its other end, on its left, where the line is read left to right.
  it("isolate an event's, a speaker's and a page's name written right to left in their page's title and description, and in their feeds, as a tag's", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const first = catalogue.talks[0]!;
    const name = '!مؤتمر بايثون';
    const changed: Catalogue = {
      ...catalogue,
      events: catalogue.events.map((e) => (e.slug === first.event ? { ...e, title: name } : e)),
      talks: [{ ...first, speakers: [name], category: name }, ...catalogue.talks.slice(1)],
      pages: catalogue.pages.map((page) => ({ ...page, title: name, description: '' })),
    };
    const pages = planSite(changed, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const output = (file: string) => renderer.output(pages.find((p) => p.path === file)!);
    const inLine = `${FSI}${name}${PDI}`;
    const event = output(`events/${first.event}/index.html`);
    expect(titleOf(event)).toBe(`${inLine} · Video catalogue`);
    expect(event).toMatch(new RegExp(`<meta name="description" content="\\d+\u00a0recorded talks? from ${inLine}">`));
    expect(output(`events/${first.event}/feed.atom`)).toContain(`<subtitle>Talks recorded at ${inLine}</subtitle>`);
    const speaker = output(`speaker/${termSlug(name)}/index.html`);
    expect(titleOf(speaker)).toBe(`${inLine} · Video catalogue`);
    expect(speaker).toContain(`: ${inLine}">`);
    expect(output(`speaker/${termSlug(name)}/feed.atom`)).toContain(`<subtitle>${inLine}, newest first</subtitle>`);
    expect(titleOf(output(`${catalogue.pages[0]!.slug}/index.html`))).toBe(`${inLine} · Video catalogue`);
  });

  // An attribute holds no <bdi>: among its words, the "!" that ends an Arabic title or event's name stood at the name's other end.
  it("isolate a title and an event's name written right to left among the words of the talk page's title, description, players' titles, thumbnail's alt text and pager's name", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const renderer = new SiteRenderer(templates, SITE, 'templates');
    const [title, category] = ['بايثون!', 'مؤتمر!'];
    const event = { slug: 'conf', title: category, start_date: null, end_date: null };
    const page = (fields: Record<string, unknown>) => {
      const talk = { ...makeTalk({ title, ...fields }), category };
      return renderer.talk({ talk, event, next: { ...talk, id: 10, slug: 'next', speakers: [] }, others: [] });
    };
    const [t, c] = [`${FSI}${title}${PDI}`, `${FSI}${category}${PDI}`];
    const thumbnail = page({ thumbnail_url: 'https://e.org/t.jpg', source_url: 'https://e.org/talk' });
    expect(titleOf(thumbnail)).toBe(`${t} · ${c} · Video catalogue`);
    expect(thumbnail).toContain(`<meta name="description" content="${t}, a talk at ${c}">`);
    expect(thumbnail).toContain(`alt="Watch “${t}” at its source"`);
    expect(thumbnail).toContain(`<nav class="pager" aria-label="More talks from ${c}">`);
    expect(page({ source_url: 'https://www.youtube.com/watch?v=abcdefghijk' })).toContain(`title="YouTube video player: ${t}"`);
    expect(page({ embed: '<iframe src="https://player.example/1"></iframe>' })).toContain(`title="Video player: ${t}"`);
  });

  it('set the title in its own direction on the page that redirects to it, as a link of text around it', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const html = new SiteRenderer(templates, SITE, 'templates').redirect('שלום!', '/video/1/x/');
    expect(html).toContain('<p>This page is now at <a href="/video/1/x/" dir="auto">שלום!</a>.</p>');
  });
});

describe("the site's own pages", () => {
  const body = [
    '## Hello <script>alert("body")</script>',
    '',
    '<img src=x onerror="alert(1)"><p onclick="alert(2)">Clicked</p><iframe src="https://evil.example/"></iframe>',
    '',
    '[a link](javascript:alert(3)) and [the talks](/talks/)',
  ].join('\n');
  const input = { slug: 'about', title: '<b>About</b> us', description: 'Who "we" are', body, name: '_pages/about.md' };

  it('are rendered in the layout, their Markdown sanitised as talk descriptions are', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const html = new SiteRenderer(templates, SITE, 'templates').page('page', input);
    const main = html.slice(html.indexOf('<main'), html.indexOf('</main>'));
    expect(main).toContain('<h1 dir="auto">&lt;b&gt;About&lt;/b&gt; us</h1>');
    expect(main).toContain('<p class="lead" dir="auto">Who &quot;we&quot; are</p>');
    expect(html).toContain('<meta name="description" content="Who &quot;we&quot; are">');
    expect(html).toContain('<link rel="canonical" href="https://talks.example.org/about/">');
    expect(main).toContain(renderMarkdown(body, 2));
    // Right under the page's h1: its headings start at h2, the shallowest (`##` here) first.
    expect(main).toContain('<h2>Hello </h2>');
    expect(main).toContain('<p>Clicked</p>');
    expect(main).toContain('<a href="/talks/" rel="nofollow ugc noopener">the talks</a>');
    expect(html).not.toMatch(/<script|alert|onerror|onclick|<iframe|<img|javascript:/);
  });

  it("are linked from every page's navigation when they ask to be, the page itself marked current", async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const nav = [
      { title: 'About <us>', url: '/about/' },
      { title: 'FAQ', url: '/faq/' },
    ];
    const renderer = new SiteRenderer(templates, { ...SITE, nav }, 'templates');
    const links = (html: string) => html.slice(html.indexOf('<ul class="site-nav">'), html.indexOf('</ul>')).match(/<li>.*<\/li>/g)!;
    expect(links(renderer.page('page', input)).slice(-3)).toEqual([
      '<li><a href="/api/">API</a></li>',
      '<li><a href="/about/" aria-current="page">About &lt;us&gt;</a></li>',
      '<li><a href="/faq/">FAQ</a></li>',
    ]);
    expect(links(renderer.page('not-found', {})).slice(-2)).toEqual(['<li><a href="/about/">About &lt;us&gt;</a></li>', '<li><a href="/faq/">FAQ</a></li>']);
    expect(links(new SiteRenderer(templates, SITE, 'templates').page('page', input)).at(-1)).toBe('<li><a href="/api/">API</a></li>');
  });
});

describe('template errors', () => {
  it('name the template, its line, the page and the reason, without the code Eta made of the template', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const lines = (source: string) => source.split('\n').length;
    const talkLines = lines(templates.talk!);
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<p><% if (it.title { %>x<% } %></p>` }, SITE, 'templates')).toThrow(
      new RegExp(`^templates/talk\\.eta:${talkLines + 1}:20: syntax error: Unexpected token '\\{'$`),
    );
    // In an output tag, and in one that outputs raw HTML.
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<p><%= it.title.{ %></p>` }, SITE, 'templates')).toThrow(new RegExp(`^templates/talk\\.eta:${talkLines + 1}:17: syntax error`));
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<%~ it.title + %>` }, SITE, 'templates')).toThrow(new RegExp(`^templates/talk\\.eta:${talkLines + 1}(:\\d+)?: syntax error`));
    // A stray parenthesis closes Eta's own call early: the column is the parenthesis's, not one past it.
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\nabc<%= it.x ) %>` }, SITE, 'templates')).toThrow(new RegExp(`^templates/talk\\.eta:${talkLines + 1}:13: syntax error`));
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<%= ) %>` }, SITE, 'templates')).toThrow(new RegExp(`^templates/talk\\.eta:${talkLines + 1}:5: syntax error`));
    // A tag over several lines: the line of its code that fails.
    expect(() => new SiteRenderer({ ...templates, terms: `<%\n  const a = 1;\n  const b = ;\n%>\n${templates.terms}` }, SITE, 'templates')).toThrow(/^templates\/terms\.eta:3:13: syntax error: Unexpected token ';'$/);
    // One that leaves its code open fails in the text after it: the line its code ends on, without a column.
    expect(() => new SiteRenderer({ ...templates, terms: `<%= it.title %>\n<%\n  if ( {\n%>\n<p>x</p>\n${templates.terms}` }, SITE, 'templates')).toThrow(/^templates\/terms\.eta:3: syntax error/);
    // A block left open ends in Eta's own code: no line is better than a wrong one.
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<% if (it.title) { %>` }, SITE, 'templates')).toThrow(/^templates\/talk\.eta: syntax error: Unexpected token '\)'$/);
    expect(() => new SiteRenderer({ ...templates, event: `${templates.event}\n<% unclosed` }, SITE, 'templates')).toThrow(new RegExp(`^templates/event\\.eta:${lines(templates.event!) + 1}:1: unclosed tag$`));
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const broken = new SiteRenderer({ ...templates, talk: `${templates.talk}\n\n<%= it.nope.deeper %>` }, SITE, 'templates');
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const home = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'home')!;
    expect(() => new SiteRenderer({ ...templates, home: `<%= it.nope.deeper %>\n${templates.home}` }, SITE, 'templates').output(home)).toThrow(/^templates\/home\.eta:1:13, rendering \/: Cannot read properties/);
    expect(() => broken.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) })).toThrow(
      `templates/talk.eta:${talkLines + 2}:13, rendering /video/${job.talk.id}/${job.talk.slug}/: Cannot read properties of undefined (reading 'deeper')`,
    );
    // A failure in the layout a page is rendered in is the layout's.
    const layout = `${templates.layout}`.replace('\n', '\n<%= it.nope.deeper %>\n');
    expect(() => new SiteRenderer({ ...templates, layout }, SITE, 'templates').output(home)).toThrow(/^templates\/layout\.eta:2:13, rendering \/: Cannot read properties of undefined \(reading 'deeper'\)$/);
  });

  it('give their place, page and reason apart, for a build to tell one failure on many pages from many failures; each found by one renderer, whichever template failed', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const plan = planSite(catalogue, { code: '', templates: {} });
    const home = plan.parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'home')!;
    const job = plan.parts.flatMap((p) => p.talks)[0]!;
    const renderer = new SiteRenderer({ ...templates, home: `<%= it.nope.deeper %>\n${templates.home}`, talk: `\n<%= it.nope.deeper %>\n${templates.talk}` }, SITE, 'templates');
    const failure = (render: () => string) => {
      try {
        render();
      } catch (err) {
        return err instanceof RenderError && { place: err.place, page: err.page, reason: err.reason };
      }
    };
    const reason = "Cannot read properties of undefined (reading 'deeper')";
    expect(failure(() => renderer.output(home))).toEqual({ place: 'templates/home.eta:1:13', page: '/', reason });
    expect(failure(() => renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) }))).toEqual({ place: 'templates/talk.eta:2:13', page: `/video/${job.talk.id}/${job.talk.slug}/`, reason });
    expect(failure(() => renderer.output(home))).toEqual({ place: 'templates/home.eta:1:13', page: '/', reason });
  });

  it('name the line of a tag over several lines that fails, and its column, in the template as written', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const home = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'home')!;
    const failure = (top: string) => {
      try {
        new SiteRenderer({ ...templates, home: `${top}\n${templates.home}` }, SITE, 'templates').output(home);
      } catch (err) {
        return (err as Error).message.replace(/, rendering \/: .*$/s, '');
      }
    };
    expect(failure('<%= \n  it.nope.deeper\n%>')).toBe('templates/home.eta:2:11');
    expect(failure('<%\n  const title = it.title;\n  const first = title.nope.deeper;\n%>')).toBe('templates/home.eta:3:23');
    // Text before the tag that reads as its code, a tag before it on the line, Windows' line breaks.
    expect(failure('it.nope.deeper <% %><%= it.nope\r\n  .deeper %>')).toBe('templates/home.eta:2:4');
    // In a helper the template calls, or in Eta's include(): the call in the template.
    expect(failure('<p>\n  <%~ it.linked(it.nope) %>')).toBe('templates/home.eta:2:10');
    expect(failure("<%~ include(`@${'links'}`) %>")).toBe('templates/home.eta:1:5');
    // A value thrown that is not an Error has no stack to place it by: the tag's line alone.
    expect(failure('\n<% throw "no" %>')).toBe('templates/home.eta:2');
  });

  it('a partial renders where a template includes it; one it does not have is named, with how templates are named', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const home = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'home')!;
    const layout = templates.layout!.replace('</footer>', "<%~ include('@links', it) %></footer>");
    expect(new SiteRenderer({ ...templates, layout, links: '<p id="links"><%= it.site.baseUrl %></p>' }, SITE, 'templates').output(home)).toContain(`<p id="links">${SITE.baseUrl}</p>`);
    expect(() => new SiteRenderer({ ...templates, layout }, SITE, 'templates').output(home)).toThrow(
      /^templates\/layout\.eta:\d+:\d+, rendering \/: no template '@links': a template is included by its file's name in the templates folder with an @, include\('@footer'\) for footer\.eta$/,
    );
    expect(() => new SiteRenderer({ ...templates, links: '<p><%= it.x( %></p>' }, SITE, 'templates')).toThrow(/^templates\/links\.eta:1(:\d+)?: syntax error/);
  });
});

describe("docs/templates.md's table of templates", () => {
  it('lists every template, and for each page template exactly the fields of its `it`', async () => {
    const section = await readFile(path.join(ROOT, 'docs', 'templates.md'), 'utf8');
    const rows = [...section.matchAll(/^\| `([\w-]+)\.eta` \|[^|]*\|([^|]*)\|$/gm)].map(([, name, fields]) => [name!, [...fields!.matchAll(/`(\w+)`/g)].map((f) => f[1]!).filter((f) => f !== 'site')] as const);
    // What every template gets beside its own fields.
    const shared = ['site', 'counted', 'formatCount', 'linked'];
    expect(rows.map(([name]) => name)).toEqual([...TEMPLATE_NAMES]);
    // Each page template shows the names of its own `it`; the layout only writes the page.
    const dump: Record<string, string> = Object.fromEntries(TEMPLATE_NAMES.map((name) => [name, `<% layout('@layout') %><%= Object.keys(it).filter((k) => !${JSON.stringify(shared)}.includes(k)).join(' ') %>`]));
    dump.layout = '<%~ it.body %>';
    const renderer = new SiteRenderer(dump, SITE, 'templates');
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const plan = planSite(catalogue, { code: '', templates: {} });
    const got: Record<string, string> = {};
    for (const page of plan.parts.flatMap((p) => p.pages)) if (page.kind === 'page') got[page.template] ??= renderer.output(page);
    const job = plan.parts.flatMap((p) => p.talks)[0]!;
    got.talk = renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) });
    got.redirect = renderer.redirect('A talk', '/video/1/a-talk/');
    for (const [name, fields] of rows) if (name !== 'layout') expect(fields, name).toEqual(got[name]!.split(' ').filter(Boolean));
  });
});

describe("docs/templates.md's example of a theme of one's own", () => {
  it('names a line the given layout has, and adds a stylesheet a site in a folder of its host loads from under it', async () => {
    const doc = await readFile(path.join(ROOT, 'docs', 'templates.md'), 'utf8');
    const [, after, added] = /^In `my-theme\/layout\.eta`, after `([^`]+)` add `([^`]+)`/m.exec(doc)!;
    const { templates } = await loadTheme(TEMPLATES);
    expect(templates.layout).toContain(after);
    const layout = templates.layout!.replace(after!, `${after}${added}`);
    const site = { ...SITE, baseUrl: 'https://user.github.io/talks' };
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const home = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.path === 'index.html')!;
    expect(new SiteRenderer({ ...templates, layout }, site, 'templates').output(home)).toContain('<link rel="stylesheet" href="/talks/assets/mine.css">');
  });
});
