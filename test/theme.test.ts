import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isThemeFile, loadTheme, missingAssets, missingCssAssets, relativeAssets, rootAddresses, TEMPLATE_NAMES, templatesUsed } from '../src/theme.ts';
import { TemplateError } from '../src/template-errors.ts';
import { TEMPLATES, tempDir } from './helpers.ts';

describe('loadTheme', () => {
  it('reads every other template of the folder as a partial, after the page templates', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'site-footer.eta'), '<footer></footer>');
    await writeFile(path.join(dir, 'notes.txt'), 'not a template');
    const { templates } = await loadTheme(dir);
    // event-item.eta and pager.eta are the default templates' own partials.
    expect(Object.keys(templates)).toEqual([...TEMPLATE_NAMES, 'event-item', 'pager', 'site-footer']);
    expect(templates['site-footer']).toBe('<footer></footer>');
    await writeFile(path.join(dir, 'site footer.eta'), '');
    await expect(loadTheme(dir)).rejects.toThrow(/site footer\.eta: a template's name is letters, digits, _ and - \(it is included as include\('@site footer'\)\)$/);
    // The templates' errors, as a build and the dev server count them.
    await expect(loadTheme(dir)).rejects.toBeInstanceOf(TemplateError);
    await rm(path.join(dir, 'site footer.eta'));
    await rm(path.join(dir, 'talk.eta'));
    await expect(loadTheme(dir)).rejects.toMatchObject({ problems: [`${path.join(dir, 'talk.eta')} is missing: a templates folder has ${TEMPLATE_NAMES.map((n) => `${n}.eta`).join(', ')}`], count: 1 });
  });

  it('names a template included by a name the folder has no template of, at its line, with the one meant', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'site-footer.eta'), '<footer></footer>');
    const layout = await readFile(path.join(dir, 'layout.eta'), 'utf8');
    await writeFile(path.join(dir, 'layout.eta'), layout.replace('</body>', `<%~ include('@site-footr') %>\n<%~ include(\`@\${it.partial}\`) %>\n<%/* include('@old-footer') */%>\n</body>`));
    const before = layout.slice(0, layout.indexOf('</body>')).split('\n');
    // The column of the name, after `<%~ include(`.
    const col = before.at(-1)!.length + 13;
    await expect(loadTheme(dir)).rejects.toMatchObject({
      problems: [`${path.join(dir, 'layout.eta')}:${before.length}:${col}: no template '@site-footr': a template is included by its file's name in the templates folder with an @, did you mean '@site-footer'?`],
    });
  });

  it('names a template included by a path, as Eta names templates read from files, with the name it is included by', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'site-footer.eta'), '<footer></footer>');
    await writeFile(path.join(dir, 'notes.eta'), `<%~ include('./site-footer.eta') %>\n<%~ include("site-footer", it) %>\n<%~ include(\`@partials/site-footer\`) %>\n<%~ include('@site-footer') %>`);
    const fix = (name: string) => `no template '${name}': a template is included by its file's name in the templates folder with an @, did you mean '@site-footer'?`;
    await expect(loadTheme(dir)).rejects.toMatchObject({
      problems: [`${path.join(dir, 'notes.eta')}:1:13: ${fix('./site-footer.eta')}`, `${path.join(dir, 'notes.eta')}:2:13: ${fix('site-footer')}`, `${path.join(dir, 'notes.eta')}:3:13: ${fix('@partials/site-footer')}`],
    });
  });
});

describe('the assets', () => {
  it("publishes none of what editors leave beside a file they save, which the dev server's watcher passes over by the same rule", async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    const published = (await loadTheme(dir)).assets.map((a) => a.path);
    const leftovers = ['style.css~', '#style.css#', '.style.css.swp', '4913', '.DS_Store', 'img/logo.svg.orig'];
    await mkdir(path.join(dir, 'assets', 'img'));
    for (const name of leftovers) await writeFile(path.join(dir, 'assets', name), 'x');
    // Emacs's lock, a link to where the file is being edited.
    await symlink('someone@host.1234:1700000000', path.join(dir, 'assets', '.#style.css'));
    expect((await loadTheme(dir)).assets.map((a) => a.path)).toEqual(published);
    expect([...leftovers, '.#style.css'].filter((name) => isThemeFile(`assets/${name}`))).toEqual([]);
    expect(isThemeFile('assets/style.css')).toBe(true);
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

describe('missingAssets', () => {
  it('names each address under /assets/ a template writes out that the assets folder lacks, with its line and column', () => {
    const templates = { layout: '<link rel="stylesheet" href="/assets/style.css">\n<img src="/assets/img/logo.png?v=2" alt="">', talk: "<% layout('@layout', { scripts: ['/assets/talk.js'] }) %>" };
    expect(missingAssets(templates, new Set(['style.css']))).toEqual([
      { template: 'layout', line: 2, col: 11, ref: '/assets/img/logo.png' },
      { template: 'talk', line: 1, col: 35, ref: '/assets/talk.js' },
    ]);
  });

  it('takes a name whole, whatever it holds but what ends an address, and finds an encoded one by its file', () => {
    const templates = { home: '<img src="/assets/img/logo@2x.png" srcset="/assets/img/café.svg 2x, /assets/img/my%20logo.svg 3x" alt="">\n<img src="/assets/img/icon@2x.png" alt="">' };
    expect(missingAssets(templates, new Set(['img/logo@2x.png', 'img/café.svg', 'img/my logo.svg']))).toEqual([{ template: 'home', line: 2, col: 11, ref: '/assets/img/icon@2x.png' }]);
  });

  // Most editors write "é" as one code point (NFC); macOS's HFS+ named files with e and U+0301 (NFD), which a copy keeps.
  it('finds a file named in the other of Unicode\'s encodings of a letter', () => {
    const templates = { home: '<img src="/assets/caf\u00e9.svg"><img src="/assets/cre\u0300me.svg"><img src="/assets/caf%C3%A9.svg">' };
    expect(missingAssets(templates, new Set(['cafe\u0301.svg', 'cr\u00e8me.svg']))).toEqual([]);
  });

  it("leaves another site's assets, and checks an address after a tag (the site's base URL)", () => {
    const templates = { layout: '<img src="https://cdn.example/assets/x.png"><link href="/static/assets/y.css">\n<img src="<%= it.site.baseUrl %>/assets/z.svg">' };
    expect(missingAssets(templates, new Set())).toEqual([{ template: 'layout', line: 2, col: 33, ref: '/assets/z.svg' }]);
    expect(relativeAssets(templates)).toEqual([]);
  });

  it('leaves an address that goes on in template code, whose file only a page knows', () => {
    const templates = { layout: '<img src="/assets/flags/${it.lang}.svg"><img src="/assets/icon-<%= it.kind %>.svg"><a href="/assets/">' };
    expect(missingAssets(templates, new Set())).toEqual([]);
  });

  it('fails loadTheme, saying where the file should be', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    expect(missingAssets((await loadTheme(dir)).templates, new Set(['style.css', 'favicon.svg', 'search.js', 'api.js']))).toEqual([]);
    await rm(path.join(dir, 'assets', 'favicon.svg'));
    const lines = (await readFile(path.join(dir, 'layout.eta'), 'utf8')).split('\n');
    const line = lines.findIndex((l) => l.includes('/assets/favicon.svg'));
    const col = lines[line]!.indexOf('/assets/favicon.svg') + 1;
    await expect(loadTheme(dir)).rejects.toThrow(`${path.join(dir, 'layout.eta')}:${line + 1}:${col}: /assets/favicon.svg is not a file of ${path.join(dir, 'assets')}; add it there, or change the reference`);
  });

  // A host that tells names apart by their bytes, as Linux's file systems do, finds the file only by its own name.
  it("writes an address of a file named in the other of Unicode's encodings of a letter as the file is named, as written or percent-encoded", async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'assets', 'cafe\u0301.svg'), '<svg/>');
    const layout = await readFile(path.join(dir, 'layout.eta'), 'utf8');
    const refs = '<img src="/assets/caf\u00e9.svg" alt=""><img src="/assets/caf%C3%A9.svg" alt=""><img src="/assets/caf\u00e9.svg" alt="">';
    await writeFile(path.join(dir, 'layout.eta'), layout.replace('</body>', `${refs}\n</body>`));
    const { templates } = await loadTheme(dir);
    expect(templates.layout).toBe(layout.replace('</body>', '<img src="/assets/cafe\u0301.svg" alt=""><img src="/assets/cafe%CC%81.svg" alt=""><img src="/assets/cafe\u0301.svg" alt="">\n</body>'));
  });

  it('refuses a link in the assets folder, to a folder or a file: what it leads to would be published', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await symlink('/etc', path.join(dir, 'assets', 'etc'));
    await symlink(path.join(dir, 'assets', 'style.css'), path.join(dir, 'assets', 'copy.css'));
    const failed = await loadTheme(dir).then(() => [], (err: { problems?: string[] }) => err.problems);
    expect(failed).toEqual(['copy.css', 'etc'].map((name) => `${path.join(dir, 'assets', name)} is a symbolic link; the site takes only the assets folder's own files: copy the file there`));
  });

  // style.css.gz of the theme's own was written over the build's copy of style.css with --compress, and sent as its gzip.
  it('refuses an asset named as a compressed copy is, in any case of its letters: no server sends such a file', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    for (const name of ['style.css.gz', 'talks.tar.GZ', 'logo.svg.br']) await writeFile(path.join(dir, 'assets', name), 'bytes');
    const failed = await loadTheme(dir).then(() => [], (err: { problems?: string[] }) => err.problems);
    expect(failed).toEqual(
      ['logo.svg.br', 'style.css.gz', 'talks.tar.GZ'].map(
        (name) => `${path.join(dir, 'assets', name)} ends in .br or .gz, the names of the compressed copies --compress writes beside a file, which no server sends as a file of their own; rename it`,
      ),
    );
  });

  // Copied to dist/assets/ on macOS or Windows, or from a host on them, the two would be one file there.
  it('refuses assets whose names, or the folders they are in, differ only in case, or in how Unicode encodes a letter, naming both and the fix', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await mkdir(path.join(dir, 'assets', 'Img'));
    await mkdir(path.join(dir, 'assets', 'img'));
    for (const name of ['Favicon.svg', 'Img/logo.svg', 'img/logo.svg', 'img/caf\u00e9.svg', 'img/cafe\u0301.svg', 'img/cafe.svg']) await writeFile(path.join(dir, 'assets', name), '<svg/>');
    const failed = await loadTheme(dir).then(() => [], (err: { problems?: string[] }) => err.problems);
    const fix = "copied to the site's assets there, one would overwrite the other; rename one of them (and the addresses of it), or remove it";
    const at = (name: string) => path.join(dir, 'assets', name);
    expect(failed).toEqual([
      `${at('favicon.svg')} and ${at('Favicon.svg')} are one file where letter case is ignored, as on macOS and Windows: ${fix}`,
      `${at('img/caf\u00e9.svg')} and ${at('img/cafe\u0301.svg')} are one file where a letter is one however Unicode encodes it (\u00e9 as U+00E9, e\u0301 as U+0065 U+0301), as on macOS: ${fix}`,
      `${at('img/logo.svg')} and ${at('Img/logo.svg')} are one file where letter case is ignored, as on macOS and Windows: ${fix}`,
      ...['img/cafe.svg', 'img/cafe\u0301.svg'].map(
        (name) =>
          `${at(name)} is in ${at('img/')}, and ${at('Img/logo.svg')} in ${at('Img/')}: one folder where letter case is ignored, as on macOS and Windows: copied to the site's assets there, their files would land in one folder, named as the first copied; name the two folders alike (and the addresses of their files)`,
      ),
    ]);
  });
});

describe('relativeAssets', () => {
  it('names each address of an asset written relative to the page, however it starts, with its path in the assets folder', () => {
    const templates = {
      layout: '<img src="assets/img/logo.svg" alt="">\n<link rel="stylesheet" href=\'./assets/style.css?v=2\'>\n<img src=../assets/a.png srcset="/assets/b.png 1x, assets/b@2x.png 2x" alt="">',
      talk: "<% layout('@layout', { scripts: [`assets/talk.js`, '/assets/ok.js'] }) %>",
    };
    expect(relativeAssets(templates)).toEqual([
      { template: 'layout', line: 1, col: 11, ref: 'assets/img/logo.svg', path: 'img/logo.svg' },
      { template: 'layout', line: 2, col: 30, ref: './assets/style.css', path: 'style.css' },
      { template: 'layout', line: 3, col: 10, ref: '../assets/a.png', path: 'a.png' },
      { template: 'layout', line: 3, col: 52, ref: 'assets/b@2x.png', path: 'b@2x.png' },
      { template: 'talk', line: 1, col: 35, ref: 'assets/talk.js', path: 'talk.js' },
    ]);
  });

  it('leaves addresses from the root or another host, a name that only ends in assets, and one made in template code', () => {
    const templates = { home: '<img src="/assets/a.png"><img src="https://cdn.example.org/assets/b.png"><img src="my-assets/c.png"><img src="assets/<%= it.f %>.png">\n<p>The theme\'s assets/ folder</p>' };
    expect(relativeAssets(templates)).toEqual([]);
  });

  it('fails loadTheme, saying what to write instead', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    const layout = path.join(dir, 'layout.eta');
    await writeFile(layout, (await readFile(layout, 'utf8')).replace('href="<%= it.site.basePath %>/assets/style.css"', 'href="assets/style.css"'));
    const lines = (await readFile(layout, 'utf8')).split('\n');
    const line = lines.findIndex((l) => l.includes('"assets/style.css"'));
    const col = lines[line]!.indexOf('assets/style.css') + 1;
    await expect(loadTheme(dir)).rejects.toMatchObject({
      problems: [`${layout}:${line + 1}:${col}: assets/style.css is relative to the page it is on, and every page below the root (a talk's, /video/12/a-talk/) asks for it in its own folder; write <%= it.site.basePath %>/assets/style.css, from the site's root (it.site.basePath is '' at a host's root, /talks for --base-url https://user.github.io/talks)`],
    });
  });
});

describe('missingCssAssets', () => {
  const sheet = (name: string, text: string) => ({ path: `assets/${name}`, bytes: Buffer.from(text) });

  it("names each address of a style sheet that the assets folder lacks, relative to the sheet's folder, with its line and column", () => {
    const css = [
      '@import "base.css";',
      "@import url('gone.css');",
      '.logo { background: url(img/logo.png) }',
      '.hero { background: url( "/assets/img/hero%20wide.jpg?v=2#top" ) }',
      "@font-face { src: url('../fonts/Inter.woff2') format('woff2'), url(fonts/inter.woff) }",
    ].join('\n');
    const files = new Set(['base.css', 'img/logo.png', 'fonts/Inter.woff2']);
    expect(missingCssAssets([sheet('css/site.css', css), sheet('css/base.css', ''), sheet('img/logo.png', 'url(x.png)')], files)).toEqual([
      { template: 'css/site.css', line: 1, col: 10, ref: 'base.css' },
      { template: 'css/site.css', line: 2, col: 14, ref: 'gone.css' },
      { template: 'css/site.css', line: 3, col: 25, ref: 'img/logo.png' },
      { template: 'css/site.css', line: 4, col: 27, ref: '/assets/img/hero%20wide.jpg?v=2#top' },
      { template: 'css/site.css', line: 5, col: 68, ref: 'fonts/inter.woff' },
    ]);
  });

  it("leaves another site's addresses, data: URLs, fragments, the site's own pages, and what a comment holds", () => {
    const css = '/* url(old.png) */ a { background: url(https://cdn.example/a.png), url(//cdn.example/b.png), url(data:image/png;base64,AAAA) }\n.f { filter: url(#blur); cursor: url(/cursor.png), auto; mask: url(../../up.svg) }\n';
    expect(missingCssAssets([sheet('style.css', css)], new Set())).toEqual([]);
  });

  it('fails loadTheme, saying where the file should be', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    await writeFile(path.join(dir, 'assets', 'style.css'), `${await readFile(path.join(dir, 'assets', 'style.css'), 'utf8')}\n.talk { background: url(img/stage.jpg) }\n`);
    const line = (await readFile(path.join(dir, 'assets', 'style.css'), 'utf8')).split('\n').length - 1;
    await expect(loadTheme(dir)).rejects.toThrow(`${path.join(dir, 'assets', 'style.css')}:${line}:25: img/stage.jpg is not a file of ${path.join(dir, 'assets')}; add it there, or change the reference`);
    await mkdir(path.join(dir, 'assets', 'img'));
    await writeFile(path.join(dir, 'assets', 'img', 'stage.jpg'), '');
    expect((await loadTheme(dir)).assets.map((a) => a.path)).toContain('assets/img/stage.jpg');
  });
});

describe('rootAddresses', () => {
  it("names each address of the site written from the host's root in an attribute, not one after the base path a template writes, nor another host's", () => {
    const templates = {
      layout: '<link rel="stylesheet" href="/assets/style.css">\n<a href=/events/>Events</a> <a href="<%= it.site.basePath %>/talks/">Talks</a> <a href="//cdn.example/x">x</a>',
      home: "<form action='/search/'><img src=\"<%= it.site.basePath %>/assets/a.png\" srcset=\"/assets/b.png 2x\" alt=\"\"></form><% layout('@layout', { scripts: ['/assets/ok.js'] }) %>",
    };
    const named = rootAddresses(templates).map((r) => `${r.template}:${r.line}:${r.col} ${r.ref}`);
    expect(named).toEqual(['layout:1:30 /assets/style.css', 'layout:2:9 /events/', 'home:1:15 /search/', 'home:1:81 /assets/b.png']);
    expect(rootAddresses({ layout: '<a href="https://example.org/">x</a>' })).toEqual([]);
  });

  it('fails loadTheme for a site built for a folder of its host, whose pages would ask for them outside it, and not at a root', async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    const layout = path.join(dir, 'layout.eta');
    await writeFile(layout, (await readFile(layout, 'utf8')).replace('href="<%= it.site.basePath %>/assets/style.css"', 'href="/assets/style.css"'));
    await expect(loadTheme(dir)).resolves.toMatchObject({ folder: dir });
    const lines = (await readFile(layout, 'utf8')).split('\n');
    const line = lines.findIndex((l) => l.includes('"/assets/style.css"'));
    const col = lines[line]!.indexOf('/assets/style.css') + 1;
    await expect(loadTheme(dir, '/talks')).rejects.toMatchObject({
      problems: [`${layout}:${line + 1}:${col}: /assets/style.css is from the host's root, outside the folder /talks the site is built for (--base-url); write <%= it.site.basePath %>/assets/style.css`],
    });
  });

  it("fails loadTheme for a folder of its host on a style sheet's address from the host's root, which the browser asks for outside it, naming the one from the sheet's folder", async () => {
    const dir = path.join(await tempDir('vc-theme-'), 'templates');
    await cp(TEMPLATES, dir, { recursive: true });
    const style = path.join(dir, 'assets', 'style.css');
    await mkdir(path.join(dir, 'assets', 'img'));
    await writeFile(path.join(dir, 'assets', 'img', 'style.css'), '.x { background: url("/assets/favicon.svg#a") } .y { background: url(//cdn.example/a.png) }\n');
    await writeFile(style, `${await readFile(style, 'utf8')}\n.talk { background: url(/assets/favicon.svg) }\n`);
    const line = (await readFile(style, 'utf8')).split('\n').length - 1;
    await expect(loadTheme(dir)).resolves.toMatchObject({ folder: dir });
    await expect(loadTheme(dir, '/talks')).rejects.toMatchObject({
      problems: [
        `${path.join(dir, 'assets', 'img', 'style.css')}:1:23: /assets/favicon.svg#a is from the host's root, outside the folder /talks the site is built for (--base-url); write it from the style sheet's folder: ../favicon.svg#a`,
        `${style}:${line}:25: /assets/favicon.svg is from the host's root, outside the folder /talks the site is built for (--base-url); write it from the style sheet's folder: favicon.svg`,
      ],
    });
  });
});
