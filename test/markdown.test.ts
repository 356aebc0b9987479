import { describe, expect, it } from 'vitest';
import { renderMarkdown, sanitiseEmbed } from '../src/markdown.ts';

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

  it('removes scripts, event handlers and javascript: links', () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3))\n\n<a href="JaVaScRiPt:alert(4)">x</a> <b onclick="alert(5)">bold</b>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:|<iframe|<img/i);
    expect(html).toContain('<b>bold</b>');
  });

  it('shows code that talks about script as text', () => {
    expect(renderMarkdown('```html\n<script>alert(1)</script>\n```')).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('renders nothing for empty text', () => expect(renderMarkdown('  \n')).toBe(''));
});

describe('sanitiseEmbed', () => {
  it('keeps https iframes with their player attributes', () => {
    const html = sanitiseEmbed('<iframe src="https://www.youtube-nocookie.com/embed/abc" title="Player" allowfullscreen onload="x()"></iframe>');
    expect(html).toBe('<iframe src="https://www.youtube-nocookie.com/embed/abc" title="Player" allowfullscreen></iframe>');
  });

  it('drops anything that is not an https iframe, video or source', () => {
    const html = sanitiseEmbed(
      '<script>alert(1)</script><iframe src="http://e.org/p"></iframe><iframe src="javascript:alert(1)"></iframe><iframe src="//e.org/p"></iframe><object data="x"></object><div onclick="x">text</div>',
    );
    expect(html).toBe('text');
  });

  it('keeps video with https sources only', () => {
    expect(sanitiseEmbed('<video controls><source src="https://e.org/a.mp4" type="video/mp4"><source src="a.webm"></video>')).toBe(
      '<video controls><source src="https://e.org/a.mp4" type="video/mp4" /></video>',
    );
  });
});
