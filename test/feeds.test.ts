import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderFeed, type FeedInput } from '../src/feeds.ts';
import { DEFAULT_SITE_NAME } from '../src/schema.ts';

const SITE = { baseUrl: 'https://talks.example.org', name: DEFAULT_SITE_NAME };
const HOSTILE = '<script>alert(1)</script> ]]> & <img src=x onerror=alert(2)>';

const input: FeedInput = {
  title: 'Talks tagged “web”',
  description: 'Newest first',
  page: '/tag/web/',
  path: '/tag/web/',
  items: [
    {
      id: 2,
      title: HOSTILE,
      url: '/video/2/hostile/',
      language: 'English',
      recorded: '2024-05-02',
      updated: '2024-06-01T10:00:00.000',
      speakers: ['Ada <b>Lovelace</b>', 'Grace'],
      category: 'Conf & Co',
      tags: ['web', 'a<b'],
      summary: HOSTILE,
      enclosure: { url: 'https://media.example.org/a.ogv?x=1&y=2', type: 'video/ogg', length: 1234 },
    },
    { id: 1, title: 'Plain', url: '/video/1/plain/', language: 'English', recorded: null, updated: '2024-01-01T00:00:00.000', speakers: [], category: 'Conf', tags: [], summary: '', enclosure: null },
  ],
};

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', cdataPropName: '#cdata', isArray: (name) => ['entry', 'item', 'link', 'author'].includes(name) });
const text = (node: unknown): string => (typeof node === 'string' ? node : ((node as Record<string, string>)['#cdata'] ?? (node as Record<string, string>)['#text'] ?? ''));

describe('feeds', () => {
  it('Atom is well-formed, newest first, with absolute links, an enclosure and escaped HTML', () => {
    const xml = renderFeed('atom', input, SITE);
    expect(XMLValidator.validate(xml)).toBe(true);
    const feed = parser.parse(xml).feed;
    expect(feed.id).toBe('https://talks.example.org/tag/web/');
    expect(feed.updated).toBe('2024-06-01T10:00:00.000Z');
    expect(feed.link.map((l: Record<string, string>) => l['@href'])).toContain('https://talks.example.org/tag/web/feed.atom');
    expect(feed.entry).toHaveLength(2);
    const [first] = feed.entry;
    expect(first.id).toBe('https://talks.example.org/video/2/');
    // type="html": the reader decodes the escapes back to the literal text, and runs nothing.
    expect(text(first.title)).toBe('&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; &lt;img src=x onerror=alert(2)&gt;');
    expect(text(first.summary)).not.toMatch(/<script|<img/);
    expect(first.link.find((l: Record<string, string>) => l['@rel'] === 'enclosure')).toMatchObject({ '@href': 'https://media.example.org/a.ogv?x=1&y=2', '@length': '1234' });
    expect(first.author.map((a: { name: string }) => a.name)).toEqual(['Ada <b>Lovelace</b>', 'Grace']);
    // RFC 4287 requires a category's term.
    // The event first, then the talk's tags.
    expect(first.category.map((c: Record<string, string>) => c['@term'])).toEqual(['Conf & Co', 'web', 'a<b']);
    expect(first.published).toBe('2024-05-02T00:00:00.000Z');
  });

  it('leaves out characters XML cannot hold, and names the site as the author of talks that name no speaker (Atom requires one)', () => {
    const odd: FeedInput = { ...input, items: [{ ...input.items[1]!, title: 'A \u0007bell \u000bvt \u0000nul', speakers: [] }] };
    for (const format of ['atom', 'rss'] as const) {
      const xml = renderFeed(format, odd, SITE);
      expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
      expect(xml).toContain('A bell vt nul');
    }
    expect(parser.parse(renderFeed('atom', odd, SITE)).feed.author).toEqual([{ name: 'Video catalogue' }]);
    expect(parser.parse(renderFeed('atom', { ...input, items: [input.items[0]!] }, SITE)).feed.author).toBeUndefined();
  });

  it('leaves out the code points XML discourages and HTML calls a parse error, as the pages do', () => {
    // As talk 250 of the pyvideo import wrote a closing quote (mojibake): U+009D, in its Atom, RSS and JSON feeds' HTML.
    const summary = 'This \u00e2\u20ac\u0153un-tutorial\u00e2\u20ac\u009d has a simple goal.\u007f\ufdd0';
    const odd: FeedInput = { ...input, items: [{ ...input.items[1]!, title: 'Relational Database Applications\u0085', summary }] };
    for (const format of ['atom', 'rss'] as const) {
      const xml = renderFeed(format, odd, SITE);
      expect(xml).not.toMatch(/[\u007f-\u009f\ufdd0-\ufdef]/);
      expect(xml).toContain('This \u00e2\u20ac\u0153un-tutorial\u00e2\u20ac has a simple goal.');
      expect(xml).toContain('Relational Database Applications</title>');
    }
    // JSON Feed's title is plain text, kept as the talk gives it; its content_html is HTML.
    expect(JSON.parse(renderFeed('json', odd, SITE)).items[0].content_html).toBe('This \u00e2\u20ac\u0153un-tutorial\u00e2\u20ac has a simple goal.');
  });

  it('RSS 2.0 is well-formed with the enclosure as given', () => {
    const xml = renderFeed('rss', input, SITE);
    expect(XMLValidator.validate(xml)).toBe(true);
    const channel = parser.parse(xml).rss.channel;
    expect(channel.link).toContain('https://talks.example.org/tag/web/');
    expect(channel.item).toHaveLength(2);
    expect(channel.item[0].enclosure).toEqual({ '@url': 'https://media.example.org/a.ogv?x=1&y=2', '@type': 'video/ogg', '@length': '1234' });
    expect(text(channel.item[0].title)).not.toMatch(/<script/);
    expect(channel.lastBuildDate).toBe('Sat, 01 Jun 2024 10:00:00 GMT');
    // Speakers by name in Dublin Core's creator: RSS's own author takes an e-mail address.
    expect(channel.item[0]['dc:creator']).toEqual(['Ada <b>Lovelace</b>', 'Grace']);
    expect(channel.item[0].author).toBeUndefined();
    expect(channel.item[0].category).toEqual(['Conf & Co', 'web', 'a<b']);
    expect(channel.item[1].pubDate).toBe('Mon, 01 Jan 2024 00:00:00 GMT');
  });

  it("RSS's channel title and description, which readers take as HTML as they do an item's, keep an event's, speaker's or tag's name as text", () => {
    const channel = parser.parse(renderFeed('rss', { ...input, title: `Talks by ${HOSTILE}`, description: `Talks recorded at ${HOSTILE}` }, SITE)).rss.channel;
    expect(text(channel.title)).toBe('Talks by &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; &lt;img src=x onerror=alert(2)&gt;');
    expect(text(channel.description)).toBe('Talks recorded at &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; &lt;img src=x onerror=alert(2)&gt;');
  });

  it('JSON Feed has its version, items with ids and HTML content, and attachments', () => {
    const feed = JSON.parse(renderFeed('json', input, SITE));
    expect(feed.version).toMatch(/^https:\/\/jsonfeed\.org\/version\/1/);
    expect(feed.feed_url).toBe('https://talks.example.org/tag/web/feed.json');
    expect(feed.items).toHaveLength(2);
    const [first, second] = feed.items;
    expect(first.id).toBe('https://talks.example.org/video/2/');
    expect(first.url).toBe('https://talks.example.org/video/2/hostile/');
    expect(first.title).toBe(HOSTILE);
    expect(first.content_html).not.toMatch(/<script|<img/);
    expect(first.attachments).toEqual([{ url: 'https://media.example.org/a.ogv?x=1&y=2', mime_type: 'video/ogg', size_in_bytes: 1234 }]);
    expect(second.content_html).toBe('Plain, a talk at Conf');
    expect([first.tags, second.tags]).toEqual([['Conf & Co', 'web', 'a<b'], ['Conf']]);
    expect(second.attachments).toBeUndefined();
  });

  // Between the words of "…, a talk at …", the "!" that ends an Arabic title stood before the comma, on its other side.
  it("isolates a title and an event's name written right to left in the summary of a talk that has none", () => {
    const talk = { ...input.items[1]!, title: 'بايثون!', category: 'مؤتمر!' };
    const feed = JSON.parse(renderFeed('json', { ...input, items: [talk] }, SITE));
    expect(feed.items[0].content_html).toBe('\u2068بايثون!\u2069, a talk at \u2068مؤتمر!\u2069');
  });

  it("keeps each item's id when its slug changes: the talk's short link, not its page's address (RFC 4287 4.2.6)", () => {
    const renamed: FeedInput = { ...input, items: input.items.map((item) => ({ ...item, url: item.url.replace(/[^/]+\/$/, 'renamed/') })) };
    const ids = (feed: FeedInput) => [
      parser.parse(renderFeed('atom', feed, SITE)).feed.entry.map((e: { id: string }) => e.id),
      // A string, not an object: no isPermaLink="false", as the short link opens the talk's page.
      parser.parse(renderFeed('rss', feed, SITE)).rss.channel.item.map((i: { guid: string }) => i.guid),
      JSON.parse(renderFeed('json', feed, SITE)).items.map((i: { id: string }) => i.id),
    ];
    expect(ids(renamed)).toEqual(ids(input));
    expect(ids(input)[0]).toEqual(['https://talks.example.org/video/2/', 'https://talks.example.org/video/1/']);
    // The link still goes to the page itself.
    expect(parser.parse(renderFeed('rss', renamed, SITE)).rss.channel.item[0].link).toEqual(['https://talks.example.org/video/2/renamed/']);
  });

  it("tags a talk's title and summary with their language where it is not the feed's English, and escapes no quotes in HTML text", () => {
    const talk = { ...input.items[1]!, title: "matplotlib で日本語 O'Reilly", summary: 'グラフの日本語', language: 'Japanese' };
    const english = { ...input.items[1]!, id: 3, title: 'Type hints in a Japanese codebase', summary: 'In English.', language: 'Japanese' };
    const feed: FeedInput = { ...input, items: [talk, english] };
    const atom = renderFeed('atom', feed, SITE);
    expect(atom).toContain(`<title type="html" xml:lang="ja">matplotlib で日本語 O&#39;Reilly</title>`);
    expect(atom).toContain('<summary type="html" xml:lang="ja">グラフの日本語</summary>');
    expect(atom).toContain('<title type="html">Type hints in a Japanese codebase</title>');
    expect(atom).toContain('<summary type="html">In English.</summary>');
    // An apostrophe is no markup: escaped once, for XML, not again as HTML, which a reader showing an RSS title as text (as the RSS Advisory Board says titles are) would show as &#39;.
    const rss = renderFeed('rss', feed, SITE);
    expect(rss).toContain('<title>matplotlib で日本語 O&#39;Reilly</title>');
    expect(rss).not.toContain('&amp;#39;');
    const items = JSON.parse(renderFeed('json', feed, SITE)).items;
    expect(items.map((i: { language?: string }) => i.language)).toEqual(['ja', undefined]);
    // A speaker's name too, as the talk's page tags it: in the talk's language where it has its letters; a name in Latin letters as it was.
    const named = renderFeed('atom', { ...input, items: [{ ...talk, speakers: ['山田 花子', 'Ann Lee'] }] }, SITE);
    expect(named).toContain('<author xml:lang="ja"><name>山田 花子</name></author>\n<author><name>Ann Lee</name></author>');
  });

  it('writes a media file\'s URL as URL parsers read it, percent-encoded, where the content (and the API) have it as written', () => {
    // The schema takes what WHATWG's parser takes: letters of any script, and "|", "{", "^" that RFC 3986 has in no URL.
    const written = 'https://médias.example.org/vidéos/a|b{c}^d[1]%7C`.mp4?sig=x|y^z{}[]`&k=é#t=1|2';
    const url = 'https://xn--mdias-bsa.example.org/vid%C3%A9os/a%7Cb%7Bc%7D%5Ed%5B1%5D%7C%60.mp4?sig=x%7Cy%5Ez%7B%7D%5B%5D%60&k=%C3%A9#t=1%7C2';
    const feed: FeedInput = { ...input, items: [{ ...input.items[0]!, enclosure: { url: written, type: 'video/mp4', length: 1 } }] };
    expect(parser.parse(renderFeed('rss', feed, SITE)).rss.channel.item[0].enclosure['@url']).toBe(url);
    expect(parser.parse(renderFeed('atom', feed, SITE)).feed.entry[0].link.find((l: Record<string, string>) => l['@rel'] === 'enclosure')['@href']).toBe(url);
    expect(JSON.parse(renderFeed('json', feed, SITE)).items[0].attachments[0].url).toBe(url);
  });

  it('takes its dates from the items, never the clock', () => {
    for (const format of ['atom', 'rss', 'json'] as const) {
      const first = renderFeed(format, input, SITE);
      expect(renderFeed(format, { ...input }, SITE)).toBe(first);
      expect(first).not.toContain(String(new Date().getUTCFullYear() + 1));
    }
    const empty = renderFeed('atom', { ...input, items: [] }, SITE);
    expect(XMLValidator.validate(empty)).toBe(true);
    expect(empty).toContain('<updated>1970-01-01T00:00:00.000Z</updated>');
  });
});
