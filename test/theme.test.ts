import { describe, expect, it } from 'vitest';
import { templatesUsed } from '../src/theme.ts';

describe('templatesUsed', () => {
  const templates = {
    layout: '<main><%~ it.body %></main><%~ include("@footer") %>',
    talk: `<% layout('@layout') %><h1><%= it.title %></h1>`,
    redirect: '<p>moved</p>',
    footer: '<footer><%~ include(`@links`) %></footer>',
    links: '<a href="/">home</a>',
    'links-old': '',
  };

  it('follows the templates a template names, however it quotes them, and those they name', () => {
    expect(templatesUsed(templates, 'talk')).toEqual(['layout', 'talk', 'footer', 'links']);
    expect(templatesUsed(templates, 'redirect')).toEqual(['redirect']);
  });

  it('takes a name only whole: @links is not @links-old', () => {
    expect(templatesUsed(templates, 'footer')).toEqual(['footer', 'links']);
  });
});
