import { describe, expect, it } from 'vitest';
import { basePathOf, rebased, sitePathOf } from '../src/base-path.ts';
import { renderMarkdown } from '../src/markdown.ts';

describe('basePathOf', () => {
  it("is a base URL's path without its slash: '' at a host's root", () => {
    const bases = ['https://talks.example.org', 'https://user.github.io/talks', 'http://127.0.0.1:8080/a/b/'];
    expect(bases.map(basePathOf)).toEqual(['', '/talks', '/a/b']);
  });
});

describe('sitePathOf', () => {
  it("is a request's path within the folder, from the site's root", () => {
    expect(sitePathOf('/talks', '/talks/')).toBe('/');
    expect(sitePathOf('/talks', '/talks/video/12/')).toBe('/video/12/');
    expect(sitePathOf('', '/video/12/')).toBe('/video/12/');
  });

  it('is null outside the folder, and for the folder without its slash, which no file answers', () => {
    for (const outside of ['/', '/talks', '/talksx/', '/video/12/', '/x/talks/']) expect(sitePathOf('/talks', outside), outside).toBeNull();
  });
});

describe('rebased', () => {
  it("puts the folder before content's links from the site's root, and leaves others alone", () => {
    const html = '<p><a href="/events/">events</a> <a href="//cdn.example/x">cdn</a> <a href="https://a.example/">a</a> <a href="#top">top</a> <a href="notes/">notes</a> <a title="x" href="/about/">about</a></p>';
    expect(rebased(html, '/talks')).toBe(
      '<p><a href="/talks/events/">events</a> <a href="//cdn.example/x">cdn</a> <a href="https://a.example/">a</a> <a href="#top">top</a> <a href="notes/">notes</a> <a title="x" href="/talks/about/">about</a></p>',
    );
    expect(rebased(html, '')).toBe(html);
  });

  it('leaves text that reads like a link alone: text keeps a quote as it is where the Markdown had HTML', () => {
    const html = renderMarkdown('Set <b>href="/x"</b> and <a title=\'href="/y"\' href="https://a.example/">a</a>', 2);
    expect(html).toContain('<b>href="/x"</b>');
    expect(rebased(html, '/talks')).toBe(html);
  });
});
