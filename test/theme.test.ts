import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTheme, TEMPLATE_NAMES, templatesUsed } from '../src/theme.ts';
import { TEMPLATES, tempDir } from './helpers.ts';

describe('loadTheme', () => {
  it('reads every other template of the folder as a partial, after the page templates', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'site-footer.eta'), '<footer></footer>');
    await writeFile(path.join(dir, 'notes.txt'), 'not a template');
    const { templates } = await loadTheme(dir);
    expect(Object.keys(templates)).toEqual([...TEMPLATE_NAMES, 'site-footer']);
    expect(templates['site-footer']).toBe('<footer></footer>');
    await writeFile(path.join(dir, 'site footer.eta'), '');
    await expect(loadTheme(dir)).rejects.toThrow(/site footer\.eta: a template's name is letters, digits, _ and - \(it is included as include\('@site footer'\)\)$/);
  });
});

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
