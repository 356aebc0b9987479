import { HtmlValidate } from 'html-validate';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTheme } from '../src/theme.ts';
import { loadContent, loadFullTalk, type Catalogue, type FullTalk } from '../src/load.ts';
import { blurb } from '../src/markdown.ts';
import { formatBytes, formatDuration, paragraphs, playerFor, SiteRenderer } from '../src/render.ts';
import { planSite } from '../src/plan.ts';
import { talkSchema } from '../src/schema.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';

const SITE = { baseUrl: 'https://talks.example.org' };

function makeTalk(fields: Record<string, unknown>): FullTalk {
  const talk = talkSchema.parse({ id: 9, title: 'T', added: '2024-01-01T00:00:00', updated: '2024-01-01T00:00:00', ...fields });
  return { ...talk, slug: 't', category: 'Conf', event: 'conf', file: 'content/conf/videos/t.yaml', name: 'conf/videos/t.yaml', rev: 'r', blurb: blurb(talk.summary || talk.description, 300), enclosure: null };
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
    expect(paragraphs('a\nb\n\n\nc\n')).toEqual([['a', 'b'], ['c']]);
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
      html: '<iframe src="https://player.example/1"></iframe>',
    });
    expect(playerFor(makeTalk({ embed: '<script>x</script>', thumbnail_url: 'https://e.org/t.jpg' }))?.kind).toBe('thumbnail');
    expect(playerFor(makeTalk({}))).toBeNull();
  });
});

describe('template errors', () => {
  it('name the template, the page and the reason, without the code Eta made of the template', async () => {
    const { templates } = await loadTheme(TEMPLATES);
    expect(() => new SiteRenderer({ ...templates, talk: `${templates.talk}\n<% if (it.title) { %>` }, SITE)).toThrow(/^template talk\.eta: syntax error: Unexpected token '\)'$/);
    expect(() => new SiteRenderer({ ...templates, event: `${templates.event}\n<% unclosed` }, SITE)).toThrow(/^template event\.eta: unclosed tag at line \d+ col 1:/);
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const broken = new SiteRenderer({ ...templates, talk: `<%= it.nope.deeper %>\n${templates.talk}` }, SITE);
    const job = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.talks)[0]!;
    const home = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'home')!;
    expect(() => new SiteRenderer({ ...templates, home: `<%= it.nope.deeper %>\n${templates.home}` }, SITE).output(home)).toThrow(/^template home\.eta, rendering index\.html: Cannot read properties/);
    expect(() => broken.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) })).toThrow(`template talk.eta, rendering /video/${job.talk.id}/${job.talk.slug}/: Cannot read properties of undefined (reading 'deeper')`);
  });
});

describe('pages', () => {
  let catalogue: Catalogue;
  let renderer: SiteRenderer;
  beforeAll(async () => {
    catalogue = (await loadContent(DEMO_CONTENT)).catalogue;
    renderer = new SiteRenderer((await loadTheme(TEMPLATES)).templates, SITE);
  });

  it('are valid HTML, every one of them', async () => {
    const validator = new HtmlValidate({ extends: ['html-validate:standard'], rules: { 'no-trailing-whitespace': 'off' } });
    const { parts } = planSite(catalogue, { code: '', templates: {} });
    const jobs = parts.flatMap((p) => p.pages);
    const pages: { path: string; body: string }[] = [];
    for (const page of jobs) if (page.kind === 'page') pages.push({ path: page.path, body: renderer.output(page) });
    expect(new Set(jobs.filter((p) => p.kind === 'page').map((p) => p.kind === 'page' && p.template))).toEqual(
      new Set(['home', 'events', 'event', 'listing', 'terms', 'search', 'api', 'not-found']),
    );
    for (const job of parts.flatMap((p) => p.talks)) {
      for (const o of job.outputs) {
        if (o.kind === 'page') pages.push({ path: o.path, body: renderer.talk({ ...job, talk: loadFullTalk(DEMO_CONTENT, job.talk) }) });
        if (o.kind === 'redirect') pages.push({ path: o.path, body: renderer.redirect(job.talk.title, o.target) });
      }
    }
    expect(pages.length).toBeGreaterThan(80);
    for (const page of pages) {
      const report = await validator.validateString(page.body, page.path);
      const messages = report.results.flatMap((r) => r.messages.map((m) => `${page.path}:${m.line}:${m.column} ${m.ruleId} ${m.message}`));
      expect(messages).toEqual([]);
    }
  });

  it('show every part of a talk, with hostile text inert', () => {
    const talk = makeTalk({
      title: '<script>alert(1)</script>',
      speakers: ['<img src=x onerror=alert(2)>'],
      tags: [' web', 'django.'],
      summary: 'first\nsecond',
      description: '[x](javascript:alert(3)) **bold**',
      embed: '<iframe src="https://player.example/1"></iframe>',
      duration: 4000,
      recorded: '2024-05-01',
      language: 'Japanese',
      video_mp4_url: 'https://e.org/a.mp4?Signature=a&Expires=1',
      video_mp4_length: 1_500_000,
      video_flv_url: 'https://e.org/a.flv',
      video_flv_download_only: true,
      copyright_text: 'CC BY 4.0',
      related_urls: [{ label: 'Slides', url: 'https://e.org/slides' }],
    });
    const html = renderer.talk({
      talk,
      event: { slug: 'conf', title: 'Conf', start_date: null, end_date: null },
      prev: { id: 1, slug: 'first', title: 'The <first> talk', language: 'English', speakers: [], duration: null, recorded: null, event: 'conf', category: 'Conf' },
      others: [],
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<source src="https://e.org/a.mp4?Signature=a&amp;Expires=1" type="video/mp4">');
    expect(html).not.toContain('<source src="https://e.org/a.flv"');
    expect(html).toContain('>FLV</a>');
    expect(html).toContain('download only');
    expect(html).toContain('1.5 MB');
    expect(html).toContain('1:06:40');
    expect(html).toContain('<h1 lang="ja">');
    expect(html).toContain('first<br>\nsecond');
    expect(html).toContain('<li><a href="/tag/web/"> web</a></li><li><a href="/tag/django/">django.</a></li>');
    expect(html).toContain('<a href="https://e.org/slides" rel="nofollow ugc noopener">Slides</a>');
    expect(html).toContain('CC BY 4.0');
    expect(html).toContain('href="/api/v2/video/9"');
    expect(html).toContain('<a rel="prev" href="/video/1/first/">← <span lang="en">The &lt;first&gt; talk</span></a>');
    expect(html).toContain('<a href="/events/conf/">Conf</a>');
  });

  it('send redirects on to their target', () => {
    const html = renderer.redirect('A <talk>', '/video/9/t/');
    expect(html).toContain('<meta http-equiv="refresh" content="0; url=/video/9/t/">');
    expect(html).toContain('<link rel="canonical" href="https://talks.example.org/video/9/t/">');
    expect(html).toContain('<title>A &lt;talk&gt; · Video catalogue</title>');
  });

  it('list every live talk on its event page and no draft', () => {
    const plan = planSite(catalogue, { code: '', templates: {} });
    const html = plan.parts.flatMap((p) => p.pages).map((p) => (p.kind === 'page' && p.template === 'event' ? renderer.output(p) : '')).join('');
    for (const talk of catalogue.talks) {
      const link = `href="/video/${talk.id}/${talk.slug}/"`;
      if (talk.state === 1) expect(html).toContain(link);
      else expect(html).not.toContain(link);
    }
  });
});
