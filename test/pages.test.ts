// The site's own pages: a Markdown file with front matter → its fields and
// text, with every problem at the file's own line and column; the addresses
// a page may not take; the order of the navigation.
import { describe, expect, it } from 'vitest';
import { sortErrors } from '../src/errors.ts';
import { navOf, pageSlug, parsePage } from '../src/pages.ts';

const FILE = 'content/_pages/faq.md';
const parse = (text: string | Uint8Array) => parsePage(FILE, typeof text === 'string' ? Buffer.from(text) : text);
const problems = (text: string) => {
  const result = parse(text);
  return result.ok ? [] : sortErrors(result.errors).map(String);
};

describe('a page file', () => {
  it('is its front matter, with defaults, and the Markdown after it', () => {
    expect(parse('---\ntitle: FAQ\n---\n# Questions\n\nAsk away.\n')).toEqual({ ok: true, value: { title: 'FAQ', description: '', nav: false, draft: false, body: '# Questions\n\nAsk away.\n' } });
    expect(parse('---\ntitle: Frequently asked questions\ndescription: Asked often.\nnav: true\norder: -2\nlinkTitle: FAQ\nupdated: 2026-11-20\n---\n')).toEqual({
      ok: true,
      value: { title: 'Frequently asked questions', description: 'Asked often.', nav: true, order: -2, linkTitle: 'FAQ', draft: false, updated: '2026-11-20', body: '' },
    });
  });

  it('may have Windows line breaks and a byte order mark', () => {
    const result = parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('---\r\ntitle: FAQ\r\n---\r\nText.\r\n')]));
    expect(result).toEqual({ ok: true, value: { title: 'FAQ', description: '', nav: false, draft: false, body: 'Text.\r\n' } });
  });

  it('ends its front matter at the first line that is only "---": one further down is Markdown (a rule)', () => {
    const result = parse('---\ntitle: FAQ\n---\nAbove\n\n---\n\nBelow\n');
    expect(result.ok && result.value.body).toBe('Above\n\n---\n\nBelow\n');
  });

  it("reports every problem of its front matter at the file's own line and column, naming the field and the fix", () => {
    expect(problems('---\ntitle: FAQ\ndraft: "no"\n---\n')).toEqual([`${FILE}:3:8 draft: expected true or false, got "no"; write false, without quotes`]);
    expect(problems('---\ntitle: FAQ\nupdated: 2026-02-30\n---\n')).toEqual([`${FILE}:3:10 updated: expected a real calendar date YYYY-MM-DD, got "2026-02-30"`]);
    expect(problems('---\n# comment\ntitel: FAQ\ndescription: [a]\nnav: "yes"\norder: 1.5\n---\nBody\n')).toEqual([
      `${FILE}:3:1 title: required field is missing; add it (a non-empty title)`,
      `${FILE}:3:1 titel: unknown field; did you mean \`title\`?`,
      `${FILE}:4:14 description: expected a string, got a list`,
      `${FILE}:5:6 nav: expected true or false, got "yes"; write true, without quotes`,
      `${FILE}:6:8 order: expected a whole number, got a decimal number`,
    ]);
    // A draft as Jekyll or a talk writes it, whose removal would publish the page, is told how a page is one.
    expect(problems('---\ntitle: FAQ\npublished: false\nstate: 2\n---\n')).toEqual([
      `${FILE}:3:1 published: unknown field; a page is a draft with \`draft: true\``,
      `${FILE}:4:1 state: unknown field; a page is a draft with \`draft: true\``,
    ]);
    expect(problems('---\ntitle: "  "\norder: 3\n---\n')).toEqual([`${FILE}:2:8 title: must not be empty`, `${FILE}:3:8 order: orders the page in the navigation, which it is not in; add nav: true or remove order`]);
    expect(problems('---\ntitle: About us\nlinkTitle: About\n---\n')).toEqual([`${FILE}:3:12 linkTitle: is the text of the page's link in the navigation, which it is not in; add nav: true or remove linkTitle`]);
    expect(problems('---\ntitle: About us\nnav: true\nlinkTitle: " "\nlink_title: About\n---\n')).toEqual([`${FILE}:4:12 linkTitle: must not be empty`, `${FILE}:5:1 link_title: unknown field; did you mean \`linkTitle\`?`]);
    expect(problems('---\ntitle: A\ntitle: B\n---\n')).toEqual([`${FILE}:3:1 title: duplicate key (also at line 2); keep only one`]);
    expect(problems('---\ntitle: [\n---\n')[0]).toMatch(new RegExp(`^${FILE}:3:1 YAML syntax error: `));
  });

  it('must start with front matter, and close it', () => {
    expect(problems('title: FAQ\n\nText\n')).toEqual([`${FILE}:1:1 a page starts with its front matter: a line "---", its fields (title: …), then a line "---"; add it`]);
    expect(problems('---\ntitle: FAQ\n\nText\n')).toEqual([`${FILE}:1:1 the front matter opened on line 1 has no closing "---" line; add one after its fields`]);
    expect(problems('---\n---\nText\n')).toEqual([`${FILE}:1:1 no fields (the file, or its front matter, holds none); write them, one "name: value" a line`]);
  });

  it('says so when its front matter is there but below blank lines, where it was told to add it', () => {
    const below = `${FILE}:1:1 the front matter's opening "---" is not the file's first line; remove the blank lines above it`;
    expect(problems('\n---\ntitle: FAQ\n---\nText\n')).toEqual([below]);
    expect(problems(' \r\n\t\r\n---\r\ntitle: FAQ\r\n---\r\n')).toEqual([below]);
  });

  // As in a field: a page's Markdown is a page's text and search record, which drop them or refuse them.
  it("reports every character of its Markdown that is no text at its line and column, with its front matter's problems", () => {
    expect(problems('---\ntitle: FAQ\nnav: "yes"\n---\nA\u0000b\n\nEsc \u001b[2J and \ufffe\n')).toEqual([
      `${FILE}:3:6 nav: expected true or false, got "yes"; write true, without quotes`,
      `${FILE}:5:2 the page's text holds U+0000, a control character no page or feed can carry; remove it`,
      `${FILE}:7:5 the page's text holds U+001B, a control character no page or feed can carry; remove it`,
      `${FILE}:7:14 the page's text holds U+FFFE, a noncharacter no page or feed can carry; remove it`,
    ]);
    expect(parse('---\ntitle: FAQ\n---\nTab\tand\r\nbreaks\n')).toMatchObject({ ok: true });
  });

  it('must be UTF-8', () => {
    expect(parse(Buffer.from([...Buffer.from('---\ntitle: Caf'), 0xe9, ...Buffer.from('\n---\n')]))).toMatchObject({ ok: false, errors: [{ pos: { line: 2, col: 11 }, message: 'file is not UTF-8 (byte 0xE9); save it as UTF-8' }] });
  });
});

describe("a page's file name", () => {
  it('is its slug, directly in _pages/', () => {
    expect(pageSlug('_pages/code-of-conduct.md')).toEqual({ ok: true, slug: 'code-of-conduct' });
    for (const name of ['_pages/team.yaml', '_pages/sub/deeper.md']) expect(pageSlug(name)).toMatchObject({ ok: false, problem: expect.stringMatching(/^the _pages folder holds pages, a Markdown file each directly in it/) });
    expect(pageSlug('_pages/Code_of_Conduct.md')).toMatchObject({ ok: false, problem: expect.stringMatching(/^the file name "Code_of_Conduct" is not a valid slug/) });
  });

  it("may not be an address the site keeps for its own pages and files, /video/ included", () => {
    for (const slug of ['api', 'assets', 'events', 'language', 'languages', 'pagefind', 'search', 'speaker', 'speakers', 'tag', 'tags', 'talks', 'video']) {
      expect(pageSlug(`_pages/${slug}.md`), slug).toEqual({ ok: false, named: true, problem: `the page's address /${slug}/ is where the site keeps its own pages or files; rename the file` });
    }
    // Events are under /events/: a page may share an event's slug.
    expect(pageSlug('_pages/tidewater-python-2024.md').ok).toBe(true);
  });
});

describe('the navigation', () => {
  it("names a link by the page's linkTitle, else its title, and orders links by their text", () => {
    const page = (slug: string, title: string, linkTitle?: string) => ({ slug, title, linkTitle, description: '', nav: true, draft: false });
    expect(navOf([page('about', 'About this catalogue', 'About'), page('abc', 'Abbreviations'), page('coc', 'A code of conduct', 'Conduct')])).toEqual([
      { title: 'Abbreviations', url: '/abc/' },
      { title: 'About', url: '/about/' },
      { title: 'Conduct', url: '/coc/' },
    ]);
  });

  it('links the published pages that ask for it, by order, then title, then slug', () => {
    const page = (slug: string, title: string, nav: boolean, order?: number, draft = false) => ({ slug, title, description: '', nav, order, draft });
    const pages = [page('faq', 'FAQ', true), page('sponsors', 'Sponsors', false), page('about', 'About', true, 1), page('coc', 'Code of conduct', true, -1), page('b', 'Same', true), page('a', 'Same', true), page('soon', 'Coming soon', true, 0, true)];
    expect(navOf(pages)).toEqual([
      { title: 'Code of conduct', url: '/coc/' },
      { title: 'FAQ', url: '/faq/' },
      { title: 'Same', url: '/a/' },
      { title: 'Same', url: '/b/' },
      { title: 'About', url: '/about/' },
    ]);
    expect(navOf([])).toEqual([]);
  });
});
