import { describe, expect, it } from 'vitest';
import { loadContent, loadFullTalk } from '../src/load.ts';
import { blurb, blurbOfPage, escapeMarkup, escapeText, excerpt, linkedText, renderMarkdown, renderMarkdownSanitised, sanitiseEmbed } from '../src/markdown.ts';
import { DEMO_CONTENT, unlikeSanitised } from './helpers.ts';

describe('renderMarkdown', () => {
  it('renders lists, links, code and headings below the page outline', () => {
    const html = renderMarkdown('# Title\n\n- one\n- two\n\n1. first\n\n[site](https://example.org) and `code`\n\n```python\nprint(1)\n```\n');
    expect(html).toContain('<h3>Title</h3>');
    expect(html).toContain('<ul>\n<li>one</li>');
    expect(html).toContain('<ol>');
    expect(html).toContain('<a href="https://example.org" rel="nofollow ugc noopener">site</a>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<pre><code class="language-python">print(1)');
  });

  it("starts headings where the page's outline leaves off: h3 under a description's own h2, h2 right under a site page's h1", () => {
    const source = '# One\n\n## Two\n\n##### Five\n\n###### Six\n';
    // Levels the text skips are closed up: its fifth level follows its second.
    expect(renderMarkdown(source)).toBe('<h3>One</h3>\n<h4>Two</h4>\n<h5>Five</h5>\n<h6>Six</h6>\n');
    expect(renderMarkdown(source, 2)).toBe('<h2>One</h2>\n<h3>Two</h3>\n<h4>Five</h4>\n<h5>Six</h5>\n');
    const withHtml = `${source}\n<h1>Raw</h1>\n`;
    expect(renderMarkdown(withHtml, 2)).toContain('<h2>Raw</h2>');
    expect(renderMarkdown(withHtml)).toContain('<h3>Raw</h3>');
    for (const top of [2, 3] as const) expect(unlikeSanitised([source, withHtml], top)).toEqual([]);
  });

  it("puts a text's shallowest heading at the start and each deeper level it uses next, so that its outline skips no level", () => {
    const source = 'Intro\n\n## Two\n\n### Three\n\n- a list\n\n  #### Four in a list\n';
    expect(renderMarkdown(source).match(/<h\d>/g)).toEqual(['<h3>', '<h4>', '<h5>']);
    expect(renderMarkdown(source, 2).match(/<h\d>/g)).toEqual(['<h2>', '<h3>', '<h4>']);
    expect(renderMarkdown('#### Deep\n\n###### Deeper\n').match(/<h\d>/g)).toEqual(['<h3>', '<h4>']);
    expect(renderMarkdown('# A\n\n##### B\n\n# C\n\n### D\n').match(/<h\d>/g)).toEqual(['<h3>', '<h5>', '<h3>', '<h4>']);
    // A raw HTML heading counts as a Markdown one does.
    const withHtml = `${source}\n<h1>Raw</h1>\n`;
    expect(renderMarkdown(withHtml).match(/<h\d>/g)).toEqual(['<h4>', '<h5>', '<h6>', '<h3>']);
    expect(renderMarkdown('<h2>Raw</h2>\n\n### Three\n').match(/<h\d>/g)).toEqual(['<h3>', '<h4>']);
    for (const top of [2, 3] as const) expect(unlikeSanitised([source, withHtml, '#### Deep\n', '# A\n\n##### B\n\n<h3>C</h3>\n'], top)).toEqual([]);
  });

  it('makes an image a link to it, named by its alt text, and only its alt text inside a link', () => {
    expect(renderMarkdown('See ![the schema](https://example.org/erd.png "ERD") and ![](https://example.org/a.png).')).toBe(
      '<p>See <a href="https://example.org/erd.png" title="ERD" rel="nofollow ugc noopener">the schema</a> and <a href="https://example.org/a.png" rel="nofollow ugc noopener">https://example.org/a.png</a>.</p>\n',
    );
    expect(renderMarkdown('[![logo *mark*](https://example.org/l.png)](https://example.org/)')).toBe('<p><a href="https://example.org/" rel="nofollow ugc noopener">logo <em>mark</em></a></p>\n');
    // Through sanitize-html too, beside raw HTML, whose own <img> the allow-list drops.
    expect(renderMarkdown('![x](javascript:alert(1)) <img src="https://example.org/a.png">')).toBe('<p><a>x</a> </p>\n');
  });

  it('removes scripts, event handlers and javascript: links', () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3))\n\n<a href="JaVaScRiPt:alert(4)">x</a> <b onclick="alert(5)">bold</b>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:|<iframe|<img/i);
    expect(html).toContain('<b>bold</b>');
  });

  // HTML allows rel only on a link with an href: a placeholder `a` with rel is not conforming (a pyvideo talk's ftp:// autolink was one).
  it('keeps rel off a link whose target it drops', () => {
    const sources = ['ftp://ftp.example.org/slides.pdf', '[x](javascript:alert(1))', '[e]()', '<a name="top" rel="me">anchor</a> <a href="">empty</a>'];
    for (const html of [...sources.map((s) => renderMarkdown(s)), ...sources.map((s) => renderMarkdownSanitised(s))]) expect(html).not.toMatch(/<a(?![^>]*\shref=)[^>]*\srel=/);
    expect(unlikeSanitised(sources)).toEqual([]);
    expect(renderMarkdown('[x](https://example.org) <b>b</b>')).toContain('<a href="https://example.org" rel="nofollow ugc noopener">x</a>');
  });

  // A talk's page is the only page in its folder: a target relative to it was written for another site, and 404s here.
  it('drops a link target that stays in the folder of the page, keeping its text', () => {
    const sources = ['of the [Plotly JavaScript library](plotly.js), [notes](./notes.md) and [repo](github.com/x/y)', '<a href="slides.pdf">slides</a>'];
    for (const html of [...sources.map((s) => renderMarkdown(s)), ...sources.map((s) => renderMarkdownSanitised(s))]) expect(html).not.toContain('href');
    expect(renderMarkdown(sources[0]!)).toContain('of the <a>Plotly JavaScript library</a>');
    const kept = renderMarkdown('[a](/video/1/) [b](../12/t/) [c](#main) [d](https://e.org/x.js)');
    expect(kept.match(/href=/g)).toHaveLength(4);
    expect(unlikeSanitised(sources)).toEqual([]);
  });

  // An unknown named reference is text to a browser but a parse error to the standard: "Q&A;" on a pyvideo talk.
  it("keeps an authored lang that is a language tag, on any element it allows, and drops any other", () => {
    expect(renderMarkdown('<p lang="ja">鴨川の<strong>水位</strong></p>\n\nIn English, <em lang="fr">bien sûr</em>.')).toBe('<p lang="ja">鴨川の<strong>水位</strong></p><p>In English, <em lang="fr">bien sûr</em>.</p>\n');
    expect(renderMarkdown('<h2 lang="de-CH">Grüezi</h2>', 3)).toBe('<h3 lang="de-CH">Grüezi</h3>');
    expect(renderMarkdown('<p lang="ja_JP">x</p><p lang="">y</p><p lang="en" onclick="z">w</p>')).toBe('<p>x</p><p>y</p><p lang="en">w</p>');
  });

  it('escapes an ampersand that starts no known character reference', () => {
    const source = '- Q&A; &bogus; and &copy; &amp; &lt;b&gt; `&A;`';
    expect(renderMarkdown(source)).toBe('<ul>\n<li>Q&amp;A; &amp;bogus; and &copy; &amp; &lt;b&gt; <code>&amp;A;</code></li>\n</ul>\n');
    expect(unlikeSanitised([source])).toEqual([]);
  });

  // HTML made `align` on cells obsolete (a conformance error), and marked writes it for a column's `:--`.
  it('aligns table columns by class, not by the obsolete align attribute', () => {
    const sources = ['| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |', '<table><tr><td align="right">x</td><td align="justify" class="evil">y</td></tr></table>'];
    for (const html of [...sources.map((s) => renderMarkdown(s)), ...sources.map((s) => renderMarkdownSanitised(s))]) expect(html).not.toMatch(/\salign=/);
    expect(renderMarkdown(sources[0]!)).toMatch(/<th class="align-left">a<\/th>\n<th class="align-center">b<\/th>\n<th class="align-right">c<\/th>\n<th>d<\/th>/);
    expect(renderMarkdown(sources[1]!)).toContain('<td class="align-right">x</td><td>y</td>');
    expect(unlikeSanitised(sources)).toEqual([]);
  });

  // A wide table broke its words a letter or two a line at 320 px: it scrolls in a box of its own, which the keyboard must reach.
  it('puts each table in a box of its own that the keyboard reaches, named, one of several by its number', () => {
    const table = '| a | b |\n|---|---|\n| 1 | 2 |';
    const box = (label: string) => `<div class="table-scroll" role="region" tabindex="0" aria-label="${label}"><table>`;
    expect(renderMarkdown(table)).toMatch(new RegExp(`^${box('Table')}\n<thead>[^]*</table></div>\n$`));
    const two = renderMarkdown(`${table}\n\nText\n\n<table lang="fr"><tr><td>x</td></tr></table>`);
    expect(two.match(/<div[^>]*>|<\/div>/g)).toEqual([box('Table 1').slice(0, -7), '</div>', box('Table 2').slice(0, -7), '</div>']);
    expect(two).toContain(`${box('Table 2').slice(0, -7)}<table lang="fr">`);
    expect(renderMarkdown('`<table>` and\n\n    <table>')).not.toContain('<div');
    expect(unlikeSanitised([table, '<table><tr><td>x</td></tr></table>'])).toEqual([]);
  });

  // In a Japanese text, the box's name "Table" was Japanese to a screen reader, which read it with a Japanese voice.
  it("names a table's box in the site's English, marked so, in a text in another language, and keeps the table in the text's", () => {
    const table = '| a | b |\n|---|---|\n| 1 | 2 |';
    const box = (label: string) => `<div class="table-scroll" role="region" tabindex="0" aria-label="${label}" lang="en">`;
    expect(renderMarkdown(table, 3, 'ja')).toMatch(new RegExp(`^${box('Table')}<table lang="ja">\n<thead>[^]*</table></div>\n$`));
    const two = renderMarkdown(`${table}\n\n<table lang="fr"><tr><td>x</td></tr></table>`, 3, 'ja');
    expect(two).toContain(`${box('Table 1')}<table lang="ja">`);
    expect(two).toContain(`${box('Table 2')}<table lang="fr">`);
    expect(renderMarkdown(table, 3, 'en')).toBe(renderMarkdown(table));
    expect([table, '<table><tr><td>x</td></tr></table>'].filter((s) => renderMarkdown(s, 3, 'ja') !== renderMarkdownSanitised(s, 3, 'ja'))).toEqual([]);
  });

  // CJK text puts no space after a link: scipy-jp-2020's "napari (https://napari.org)です。", scipy-kr-2023's "(https://scipy.kr/)의".
  it('ends an autolink where wide text follows its punctuation, and at wide punctuation; keeps a wide letter of its path', () => {
    const link = (href: string, text = href) => `<a href="${href}" rel="nofollow ugc noopener">${text}</a>`;
    expect(renderMarkdown('napari (https://napari.org)です。')).toBe(`<p>napari (${link('https://napari.org')})です。</p>\n`);
    expect(renderMarkdown('웹사이트(https://scipy.kr/)의 자료')).toBe(`<p>웹사이트(${link('https://scipy.kr/')})의 자료</p>\n`);
    expect(renderMarkdown('https://a.org/x、そして www.b.org。')).toBe(`<p>${link('https://a.org/x')}、そして ${link('http://www.b.org', 'www.b.org')}。</p>\n`);
    expect(renderMarkdown('https://ja.wikipedia.org/wiki/東京 (https://e.org/a_(b))')).toBe(
      `<p>${link('https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC', 'https://ja.wikipedia.org/wiki/東京')} (${link('https://e.org/a_(b)')})</p>\n`,
    );
  });

  it('shows code that talks about script as text', () => {
    expect(renderMarkdown('```html\n<script>alert(1)</script>\n```')).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('renders nothing for empty text', () => expect(renderMarkdown('  \n')).toBe(''));

  // Markdown without HTML skips sanitize-html: every construct marked knows must come out as the policy would have it.
  it('renders Markdown without HTML to the markup sanitize-html makes of it', () => {
    const sources = [
      '# a\n## b\n### c\n#### d\n##### e\n###### f\n\nSetext\n===\n\nTwo\n---',
      '[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](javascript&#58;alert(1)) [w](&#x6A;avascript:alert(1))',
      '[a](<java\tscript:1>) [b](//evil.example) [c](\\\\evil) [d](/rel) [e](#frag) [f](mailto:a@b.c) [g](ftp://a) [h](data:text/html,1)',
      '[a](java&#x09;script:1) [b](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;1) [c](&lt;!---->javascript:1) [d](\u00a0javascript:1)',
      '<javascript:alert(1)> <http://a.b?x&amp;y> www.example.com a@b.com https://x.y/z?a=1&b=2',
      '[x](http://a.b "ti\\"tle") [y](http://a.b \'ti&quot;tle\') [z](http://a.b (t<>itle)) [w](https://a.b/<c>)',
      '[x][r] [y][s]\n\n[r]: javascript:alert(1)\n[s]: https://ok.example "T"',
      '![alt](x.png "t") ![a](javascript:1) [![img](a.png)](https://b.c)',
      '- [ ] a\n- [x] b\n\n3. three\n4. four',
      '| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n| `x\\|y` | **b** | [l](javascript:1) |',
      '```c++\nint x;\n```\n\n```py&amp;\nx\n```\n\n```\n<script>\n```\n\n```html extra\n<b>\n```\n\n    indented <code>',
      '"quoted" \'single\' ~~del~~ ***bold-em*** a  \nb a\\\nb `code <b>` \\* &copy; &#0; &#x110000; &bogus; &amp;',
      '> quote\n> - item\n>   1. nested\n\n---\n\n***',
      '[a [b](c)](d) [x\u0000y](http://a\u0000b) \ud800 [s](http://a/\ud800)',
    ];
    expect(unlikeSanitised(sources)).toEqual([]);
    expect(renderMarkdown(sources[1]!)).not.toContain('href');
  });
});

describe('escaping', () => {
  it('writes text as markup: every special character for an attribute, only &, < and > for element content', () => {
    expect(escapeMarkup(`"A" & 'B' <i>`)).toBe('&quot;A&quot; &amp; &#39;B&#39; &lt;i&gt;');
    expect(escapeText(`"A" & 'B' <i>`)).toBe(`"A" &amp; 'B' &lt;i&gt;`);
  });
});

describe('linkedText', () => {
  it("links a plain text's http(s) addresses, leaving the punctuation after them and everything else text", () => {
    const link = (url: string) => `<a href="${url.replace(/&/g, '&amp;')}" rel="nofollow ugc noopener">${url.replace(/&/g, '&amp;')}</a>`;
    expect(linkedText('Slides: https://e.org/s?a=1&b=2. Code (https://e.org/a_(b)), <b>x</b>')).toBe(
      `Slides: ${link('https://e.org/s?a=1&b=2')}. Code (${link('https://e.org/a_(b)')}), &lt;b&gt;x&lt;/b&gt;`,
    );
    expect(linkedText('詳細はhttps://e.org/x。 javascript:alert(1) "https://e.org/q"')).toBe(`詳細は${link('https://e.org/x')}。 javascript:alert(1) &quot;${link('https://e.org/q')}&quot;`);
    // As in Markdown (see the autolinks above): "(https://scipy.kr/)의" links the address alone.
    expect(linkedText('웹사이트(https://scipy.kr/)의 자료')).toBe(`웹사이트(${link('https://scipy.kr/')})의 자료`);
    expect(linkedText('no address')).toBe('no address');
    // Emphasis around an address, as Markdown writes it, is not part of it.
    expect(linkedText('See *https://e.org/x* or ~~https://e.org/old~~')).toBe(`See *${link('https://e.org/x')}* or ~~${link('https://e.org/old')}~~`);
  });
});

describe('excerpts', () => {
  it('of Markdown drop its marks and tags, not the text that only looks like them', () => {
    expect(blurb('## Why\n\n> **Fast** and _small_: [docs](https://e.org) <b>now</b>', 100)).toBe('Why Fast and small: docs now');
    expect(blurb('C# and snake_case, where a < b and c > d', 100)).toBe('C# and snake_case, where a < b and c > d');
    // Character references are the characters the page shows, tags in them text.
    expect(blurb('It wasn&#39;t &quot;done&quot; &amp; &lt;b&gt;kept&lt;/b&gt; &copy;', 100)).toBe('It wasn\'t "done" & <b>kept</b> ©');
  });

  it('of Markdown hold the text its page shows: not its comments, nor what the sanitiser drops with its element; an autolink is its address', () => {
    const source = 'Hi <!-- internal: Acmecorp pays --> there.\n\n<script>hiddenscript()</script>\n\n<style>.hiddenstyle{}</style>\n\nWrite to <volunteers@example.org> or see <https://example.org/signup>.\n\n<!-- left open\n\nsecret';
    expect(blurb(source, 500)).toBe('Hi there. Write to volunteers@example.org or see https://example.org/signup.');
    const shown = renderMarkdown(source, 2).replace(/<[^>]*>/g, '');
    for (const word of ['Acmecorp', 'hiddenscript', 'hiddenstyle', 'secret']) expect(shown).not.toContain(word);
    for (const word of blurb(source, 500).split(' ')) expect(shown).toContain(word);
  });

  it('of Markdown are the text its page shows: escapes resolved, code as written, tables, lists and images as their text', () => {
    expect(blurb('Hello\\*world\\* 2 * 3 = 6, a\\_b and \\<not a tag>', 300)).toBe('Hello*world* 2 * 3 = 6, a_b and <not a tag>');
    // Code's character references are text: the page shows `&amp;` as written, once decoded.
    expect(blurb('`code <x> & y` and `a &amp; b`\n\n```html\n<p>if a < b</p>\n```', 300)).toBe('code <x> & y and a &amp; b <p>if a < b</p>');
    expect(blurb('| Name | Value |\n|:-----|------:|\n| a \\| b | `1` |', 300)).toBe('Name Value a | b 1');
    expect(blurb('Setup\n=====\n\n1. one\n2. [x] two\n\n![a *diagram*](https://e.org/d.png) and [C#](https://e.org/c "tip")', 300)).toBe('Setup one two a diagram and C#');
    // Inline HTML is text without its tags (H₂O, not "H 2 O"); a raw HTML block's text is the page's too, its script not.
    expect(blurb('H<sub>2</sub>O line\\\nbreak\n\n<div>\n<script>steal()</script>\n<p>Shown &amp; <b>bold</b></p>\n</div>', 300)).toBe('H2O line break Shown & bold');
  });

  // The schema refuses them in a field, but a numeric reference in Markdown is decoded: the excerpt is the search index's text and result.
  it('leave out the controls and noncharacters a numeric reference in Markdown stands for', () => {
    expect(blurb('Hello &#1; world &#x7F; and &#xFFFE;&#x9D; end', 300)).toBe('Hello world and end');
    expect(blurb('<b>raw &#8;</b> html', 300)).toBe('raw html');
  });

  it('of Markdown have the text of each of its blocks closed off: an override open at the end of one does not reach into the next', () => {
    expect(blurb('\u202eevil\n\nnext paragraph', 300)).toBe('\u202eevil\u202c next paragraph');
    expect(excerpt('\u2067one\ntwo', 300)).toBe('\u2067one\u2069 two');
  });

  it('of plain text keep it as written, on one line, cut at a word', () => {
    expect(excerpt('use `__init__` in C#,\n a < b <script>x</script>', 100)).toBe('use `__init__` in C#, a < b <script>x</script>');
    expect(excerpt('one two three', 9)).toBe('one two…');
    expect(excerpt('one two', 7)).toBe('one two');
    // A word too long to end at is cut through, rather than leave a few characters of the text.
    expect(excerpt(`see ${'x'.repeat(100)}`, 50)).toBe(`see ${'x'.repeat(6)}…`);
  });

  it('are never cut between the halves of a surrogate pair', () => {
    // As PyCon Taiwan 2022's descriptions write (id 10708 of the pyvideo import): Chinese without spaces, and emoji.
    const chinese = '不是萬中選一要如何練一身'.repeat(10);
    expect(excerpt(`${chinese.slice(0, 119)}🚀${chinese}`, 160)).toBe(`${chinese.slice(0, 119)}…`);
    expect(blurb(`💡 ${chinese.repeat(3).slice(0, 256)}🚀${chinese}`, 300)).toBe(`💡 ${chinese.repeat(3).slice(0, 256)}…`);
    // A pair the cut leaves whole stays.
    expect(excerpt(`${chinese.slice(0, 118)}🚀${chinese}`, 160)).toBe(`${chinese.slice(0, 118)}🚀…`);
  });
});

// blurb reads the text off marked's tokens: it must be the text of the page's HTML, block breaks (where bidi formatting ends) included.
describe('excerpts of Markdown read off its tokens', () => {
  const nasty = [
    'Hello\\*world\\* \\& \\&amp; \\<b> &amp;amp; &#38;copy; &copy &bogus; Q&A; &#0; &#x110000; &#xD800; *&amp;* _a&lt;b_',
    '`&copy; <x>` a `b\nc` <https://a.b/?x&amp;y> https://a.b/?x&amp;y www.e.org/&amp; a@b.co <mailto:a@b.co>',
    '![](https://e.org/a.png?x&amp;y) ![a *b*](https://e.org/b.png) [![c](https://e.org/c.png) d&amp;e](https://e.org) [x](javascript:1) [y](<a b>)',
    '[x][r] [y][] [z] [^1]\n\n[r]: https://e.org "T"\n[y]: https://e.org/y\n\n[^1]: note',
    'Setext &amp;\n===\n\nTwo\n---\n\n# \u202ehead\nnext\n\n***\n\n\u202eline  \nbreak\\\nagain',
    '- \u202ea\n  ***\n  b\n- \u202eitem\n- [ ] box\n- [x] \u2067done\n\n1. one\n\n   ```py\n   \u202ecode &amp;\n   ```\n2. two\n   - nested\n\n- [ ] loose\n\n- b',
    '| \u202ea | `b\\|c` |\n|:--|--:|\n| &amp; | **d** |\n| e |\n\nafter',
    '> \u202equote\n> > deeper\n\nafter\n\n    indented &amp; <b>\n\n~~~\nfenced\n~~~',
    'napari (https://napari.org)です。 ~~del~~ ***bold-em*** \ud800 x\u0000y',
    'Hi <!-- c --> there <script>x()</script>\n\n<div>\n<p>a</p>\n</div>\n\n<script>\nopen\n\nafter',
  ];
  // Without a character of markup: only a line's start, if any, makes them Markdown (blurb reads the others as they are).
  const plainish = [
    'Plain text,\non two lines.\n\nA second paragraph: 3.5 + 2 = 5.5 - 0 (a@b.co, www.e.org/x?y=1).',
    'Setext\n=\nbody',
    'Setext\n---\nbody',
    'Rule\n\n- - -\n\nafter',
    '# heading\ntext',
    '   > quote',
    '+ item\n+ two',
    '- item',
    '1) one\n2. two',
    '123456789. big',
    'Line  \nbreak',
    'para\n\n    indented code\n\n\tTabbed',
    'CRLF\r\n===\r\nbody',
  ];

  it('the text of its HTML, for the demo content and Markdown that stretches it', async () => {
    const { catalogue } = await loadContent(DEMO_CONTENT);
    const texts = [
      ...nasty,
      ...plainish,
      ...catalogue.talks.map((talk) => loadFullTalk(DEMO_CONTENT, talk).description),
      ...catalogue.events.map((event) => event.description),
      ...catalogue.pages.flatMap((page) => [page.description, page.body]),
    ];
    for (const length of [Number.POSITIVE_INFINITY, 300, 40]) for (const text of texts) expect(blurb(text, length), text).toBe(blurbOfPage(text, length));
  });
});

describe('excerpts cut short', () => {
  it('are cut between graphemes: never inside a combining sequence, an emoji ZWJ sequence or a flag', () => {
    // No space to cut at within 40 characters of the limit: the cut goes through a word, at the start of the grapheme it falls in.
    expect(excerpt('e\u0301'.repeat(100), 51)).toBe(`${'e\u0301'.repeat(5)}…`);
    const han = '字'.repeat(50);
    expect(excerpt(`${han}👩\u200d👩\u200d👧${han}`, 93)).toBe(`${han}…`);
    expect(excerpt(`${han}🇯🇵${han}`, 92)).toBe(`${han}…`);
    expect(excerpt(`${han}🇯🇵${han}`, 94)).toBe(`${han}🇯🇵…`);
  });

  it('close the bidirectional formatting the cut leaves open', () => {
    const [RLO, PDF, RLI, PDI] = ['\u202e', '\u202c', '\u2067', '\u2069'];
    expect(excerpt(`Talk ${RLO}${'evil '.repeat(20)}${PDF}end`, 30)).toBe(`Talk ${RLO}evil evil evil evil${PDF}…`);
    expect(blurb(`Talk ${RLI}${'kept '.repeat(20)}${PDI}end`, 30)).toBe(`Talk ${RLI}kept kept kept kept${PDI}…`);
    expect(excerpt(`Talk ${RLO}evil${PDF} ${'word '.repeat(20)}`, 30)).toBe(`Talk ${RLO}evil${PDF} word word word…`);
  });
});

describe('sanitiseEmbed', () => {
  it('keeps https iframes with their player attributes', () => {
    const html = sanitiseEmbed('<iframe src="https://www.youtube-nocookie.com/embed/abc" title="Player" allowfullscreen onload="x()"></iframe>', 'T');
    expect(html).toBe('<iframe src="https://www.youtube-nocookie.com/embed/abc" title="Player" allowfullscreen></iframe>');
  });

  it("gives an iframe's allow the features of the site's own players, not the camera, microphone or location it asks for, and no allowfullscreen beside it (Chromium warns of both)", () => {
    expect(sanitiseEmbed('<iframe src="https://player.example/v" title="Player" allow="camera *; microphone *; geolocation *; fullscreen" allowfullscreen></iframe>', 'T')).toBe(
      '<iframe src="https://player.example/v" title="Player" allow="fullscreen; picture-in-picture; encrypted-media"></iframe>',
    );
  });

  it('drops anything that is not an iframe, video or source from the web', () => {
    const html = sanitiseEmbed(
      '<script>alert(1)</script><iframe src="ftp://e.org/p"></iframe><iframe src="javascript:alert(1)"></iframe><iframe src="/e.org/p"></iframe><object data="x"></object><div onclick="x">text</div>',
      'T',
    );
    expect(html).toBe('text');
  });

  it("asks for a player's frame over https, as a browser asks from a page served so: the classic embed codes' //host and http:// were dropped", () => {
    expect(sanitiseEmbed('<iframe src="//www.youtube.com/embed/abc123" allowfullscreen></iframe>', 'T')).toBe('<iframe src="https://www.youtube.com/embed/abc123" allowfullscreen title="T"></iframe>');
    expect(sanitiseEmbed('<iframe src="http://player.vimeo.com/video/1" title="V"></iframe>', 'T')).toBe('<iframe src="https://player.vimeo.com/video/1" title="V"></iframe>');
    for (const bad of ['///evil.example/', 'https:///evil.example/', 'https://', 'javascript:alert(1)', '/relative', 'ftp://e.org/']) expect(sanitiseEmbed(`<iframe src="${bad}"></iframe>`, 'T'), bad).toBe('');
  });

  // YouTube's embed code writes frameborder, which HTML made obsolete; an iframe without a title is a frame no screen reader can name.
  it('leaves out frameborder and names an iframe that has no title', () => {
    const youtube = '<iframe width="560" height="315" src="https://www.youtube.com/embed/abc" frameborder="0" allowfullscreen></iframe>';
    expect(sanitiseEmbed(youtube, 'Video player: A & B')).toBe(
      '<iframe width="560" height="315" src="https://www.youtube.com/embed/abc" allowfullscreen title="Video player: A &amp; B"></iframe>',
    );
    expect(sanitiseEmbed('<iframe src="https://e.org/p" title=" "></iframe>', 'T')).toBe('<iframe src="https://e.org/p" title="T"></iframe>');
  });

  it('keeps the first player an embed has, as a talk has one, and gives a video its controls', () => {
    expect(sanitiseEmbed('<iframe src="javascript:x"></iframe><iframe src="https://e.org/p"></iframe><iframe src="https://e.org/q" title="Own"></iframe><video src="https://e.org/v.mp4"></video>', 'T')).toBe(
      '<iframe src="https://e.org/p" title="T"></iframe>',
    );
    expect(sanitiseEmbed('<video src="https://e.org/v.mp4"></video>', 'T')).toBe('<video src="https://e.org/v.mp4" controls></video>');
  });

  it('keeps video with https sources only', () => {
    expect(sanitiseEmbed('<video controls><source src="https://e.org/a.mp4" type="video/mp4"><source src="a.webm"></video>', 'T')).toBe(
      '<video controls><source src="https://e.org/a.mp4" type="video/mp4" /></video>',
    );
  });
});
