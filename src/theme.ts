// The theme: the templates a build renders with and the static files it
// copies, read from the templates folder. Templates stay strings here; they
// are compiled by the renderer.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { fileKey, FolderSpellings, whereOneFile, type SpelledFolder } from './file-keys.ts';
import { isCopyName } from './headers.ts';
import { isEditorLeftover, isHidden } from './listing.ts';
import { cached } from './memo.ts';
import { closest } from './suggest.ts';
import { noTemplate, TemplateError, templateFile } from './template-errors.ts';

/** Template sources by name: TEMPLATE_NAMES, then the theme's partials. */
export type Templates = Record<string, string>;

export const TEMPLATE_NAMES = ['layout', 'home', 'events', 'event', 'listing', 'terms', 'talk', 'redirect', 'search', 'api', 'not-found', 'page'] as const;

/** A partial's name as Eta names it, `@name`, and as templatesUsed finds it. */
const PARTIAL_NAME = /^[\w-]+$/;

export interface Theme {
  /** The templates folder as it was given, which errors name the templates' files in. */
  folder: string;
  templates: Templates;
  /**
   * The templates as written, where `templates` spell an asset's address otherwise (see spelledAsFiles), which moves
   * the columns after it: a template's errors are placed in these.
   */
  written?: Templates;
  /** Static files under templates/assets, copied to /assets. */
  assets: { path: string; bytes: Buffer }[];
}

/** True when `source` names the template `name` as Eta does, `@name` (`layout('@layout')`, `include("@layout")`); names are letters, digits, `_` and `-`. */
const names = (source: string, name: string) => new RegExp(`@${name}(?![\\w-])`).test(source);

/**
 * The templates a page made with `name` depends on: itself, the templates it names and those
 * they name, in the theme's order. A page's key is made from their sources, so that an edit of
 * the layout rebuilds the pages rendered in it, however the call to it is written.
 */
export function templatesUsed(templates: Templates, name: string): string[] {
  const used = new Set([name]);
  for (const user of used) for (const other of Object.keys(templates)) if (!used.has(other) && names(templates[user] ?? '', other)) used.add(other);
  return Object.keys(templates).filter((n) => used.has(n));
}

/** Whether loadTheme reads the file `name` (its path inside the templates folder): a template at the top, or an asset; not a hidden file, nor what an editor leaves beside one. */
export const isThemeFile = (name: string) => (name.startsWith('assets/') || /^[^/]*\.eta$/.test(name)) && !isHidden(name) && !isEditorLeftover(name);

/** The problems of a templates folder whose templates could all be read, one a line, with the templates (which may have compile errors besides). */
export class ThemeError extends Error {
  constructor(
    readonly problems: string[],
    readonly templates: Templates,
  ) {
    super(problems.join('\n'));
  }
}

const outsideFolder = (basePath: string) => `is from the host's root, outside the folder ${basePath} the site is built for (--base-url)`;

/**
 * The theme in the templates folder `dir`, for a site served from the folder of its host `basePath` (base-path.ts),
 * '' at a host's root.
 */
export async function loadTheme(dir: string, basePath = ''): Promise<Theme> {
  const templates: Templates = {};
  for (const name of TEMPLATE_NAMES) {
    const file = path.join(dir, `${name}.eta`);
    templates[name] = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new TemplateError([`${file} is missing: a templates folder has ${TEMPLATE_NAMES.map((n) => `${n}.eta`).join(', ')}`]) : err;
    });
  }
  // Any other template in the folder is a partial, which makes no page of its own: templates include it by name.
  for (const file of (await fg('*.eta', { cwd: dir, onlyFiles: true })).sort()) {
    const name = file.slice(0, -'.eta'.length);
    if (name in templates) continue;
    if (!PARTIAL_NAME.test(name)) throw new TemplateError([`${path.join(dir, file)}: a template's name is letters, digits, _ and - (it is included as include('@${name}'))`]);
    templates[name] = await readFile(path.join(dir, file), 'utf8');
  }
  // A link is not followed: a theme's assets are copied into a folder that is published, and one to /etc would publish /etc.
  const found = await fg('**/*', { cwd: path.join(dir, 'assets'), onlyFiles: false, followSymbolicLinks: false, objectMode: true, dot: false });
  const entries = found.filter((e) => isThemeFile(`assets/${e.path}`));
  const links = entries.filter((e) => e.dirent.isSymbolicLink()).map((e) => e.path);
  const assetNames = entries.filter((e) => e.dirent.isFile()).map((e) => e.path).sort();
  const assetFiles = new Set(assetNames);
  const assets = await Promise.all(assetNames.map(async (name) => ({ path: `assets/${name}`, bytes: await readFile(path.join(dir, 'assets', name)) })));
  // Found once: checked here, and written as their files are named below.
  const assetRefs = references(templates, ASSET_REF);
  const same = oneFile(assetNames);
  const notAsset = (where: string, ref: string) => `${where}: ${ref} is not a file of ${path.join(dir, 'assets')}; add it there, or change the reference`;
  const problems = [
    ...links.sort().map((name) => `${path.join(dir, 'assets', name)} is a symbolic link; the site takes only the assets folder's own files: copy the file there`),
    ...assetNames.filter(isCopyName).map((name) => `${path.join(dir, 'assets', name)} ends in .br or .gz, the names of the compressed copies --compress writes beside a file, which no server sends as a file of their own; rename it`),
    ...same.map(
      ([first, other]) =>
        `${path.join(dir, 'assets', other)} and ${path.join(dir, 'assets', first)} are one file ${whereOneFile(other, first)}: copied to the site's assets there, one would overwrite the other; rename one of them (and the addresses of it), or remove it`,
    ),
    ...oneFolder(assetNames, new Set(same.map(([, other]) => other))).map(
      ({ name, own, folder }) =>
        `${path.join(dir, 'assets', name)} is in ${path.join(dir, 'assets', own)}, and ${path.join(dir, 'assets', folder.holder)} in ${path.join(dir, 'assets', folder.folder)}: one folder ${whereOneFile(own, folder.folder)}: copied to the site's assets there, their files would land in one folder, named as the first copied; name the two folders alike (and the addresses of their files)`,
    ),
    ...missingAssets(templates, assetFiles, assetRefs).map((m) => notAsset(at(dir, m), m.ref)),
    ...missingCssAssets(assets, assetFiles).map((m) => notAsset(`${path.join(dir, 'assets', m.template)}:${m.line}:${m.col}`, m.ref)),
    ...relativeAssets(templates).map(
      (r) => `${at(dir, r)}: ${r.ref} is relative to the page it is on, and every page below the root (a talk's, /video/12/a-talk/) asks for it in its own folder; write <%= it.site.basePath %>/assets/${r.path}, from the site's root (it.site.basePath is '' at a host's root, /talks for --base-url https://user.github.io/talks)`,
    ),
    ...(basePath === '' ? [] : rootAddresses(templates)).map((r) => `${at(dir, r)}: ${r.ref} ${outsideFolder(basePath)}; write <%= it.site.basePath %>${r.ref}`),
    ...(basePath === '' ? [] : rootCssAddresses(assets)).map(
      (r) => `${path.join(dir, 'assets', r.template)}:${r.line}:${r.col}: ${r.ref} ${outsideFolder(basePath)}; write it from the style sheet's folder: ${fromSheet(r.template, r.ref)}`,
    ),
    ...missingPartials(templates).map((m) => {
      // `./partials/footer.eta` and `footer` mean footer.eta.
      const meant = closest(path.posix.basename(m.name, '.eta').replace(/^@/, ''), Object.keys(templates));
      return `${at(dir, m)}: ${noTemplate(m.name, meant ? `did you mean '@${meant}'?` : `include('@footer') for footer.eta`)}`;
    }),
  ];
  if (problems.length > 0) throw new ThemeError(problems, templates);
  const spelled = spelledAsFiles(templates, assetFiles, assetRefs);
  return { folder: dir, templates: spelled, ...(spelled === templates ? {} : { written: templates }), assets };
}

/**
 * Each asset whose path is another's where case is ignored (or, on macOS, how Unicode encodes a
 * letter; see fileKey), after the first of them: `Logo.svg` and `logo.svg` copied to one folder there
 * are one file, whichever was copied last.
 */
function oneFile(names: readonly string[]): [first: string, other: string][] {
  const firsts = new Map<string, string>();
  const found: [string, string][] = [];
  for (const name of names) {
    const first = firsts.get(fileKey(name));
    if (first === undefined) firsts.set(fileKey(name), name);
    else found.push([first, name]);
  }
  return found;
}

/**
 * Each asset in a folder another's is, spelled otherwise (see FolderSpellings), with that folder and its
 * first file; but `others`, which oneFile names as one file with another.
 */
function oneFolder(names: readonly string[], others: ReadonlySet<string>): { name: string; own: string; folder: SpelledFolder<string> }[] {
  const folders = new FolderSpellings<string>();
  return names.flatMap((name) => {
    const clash = others.has(name) ? undefined : folders.claim(name, fileKey(name), name);
    return clash ? [{ name, own: clash.own, folder: clash }] : [];
  });
}

/**
 * A template named as the argument of include() or layout(), written out, as Eta names it
 * (`include('@footer')`) or as a path (`include('./footer')`, which Eta's own docs write for
 * templates read from files, and these templates are not); not one made in code (`${…}`).
 * The call is looked behind for, so that the match, and the column an error gives, is the name's.
 */
const PARTIAL_REF = /(?<=\b(?:include|layout)(?:Async)?\(\s*)(?:'([^'\n]*)'|"([^"\n]*)"|`([^`$\n]*)`)/g;

/**
 * The templates the templates include or lay out in by a name written out that the folder has not:
 * every page made with them would fail, which `check` can say without rendering one.
 */
function missingPartials(templates: Templates): (Place & { name: string })[] {
  return references(templates, PARTIAL_REF)
    .map(({ template, line, col, match }) => ({ template, line, col, name: match[1] ?? match[2] ?? match[3]! }))
    .filter((ref) => !(ref.name.startsWith('@') && ref.name.slice(1) in templates));
}

/** Where in a template a reference is: its line and column, from 1, the column counted in the line as written. */
interface Place {
  template: string;
  line: number;
  col: number;
}

/** A reference's place as messages name it: `templates/layout.eta:16:31`. */
const at = (dir: string, place: Place) => `${templateFile(dir, place.template)}:${place.line}:${place.col}`;

const ETA_COMMENT = /<%[-_]?\s*\/\*[\s\S]*?\*\/\s*[-_]?%>/g;

/**
 * Each match of `pattern` in the templates (or other sources by name), with its place; not in a
 * `comment`, which is blanked out first (its lines and columns kept): a reference left there is no reference.
 */
function references(templates: Templates, pattern: RegExp, comment = ETA_COMMENT): (Place & { match: RegExpMatchArray })[] {
  const found = [];
  for (const [template, source] of Object.entries(templates)) {
    const uncommented = source.replace(comment, (text) => text.replace(/[^\n]/g, ' '));
    for (const [index, text] of uncommented.split('\n').entries()) for (const match of text.matchAll(pattern)) found.push({ template, line: index + 1, col: match.index + 1, match });
  }
  return found;
}

/**
 * A file's path in the assets folder as an address names it, up to what ends an address in HTML, CSS
 * or JavaScript (a quote, a space, `?`, `#`, `)`, `,`: names such as `logo@2x.png` and `café.svg` are
 * whole); not one that goes on in template code (`${name}.svg`, `<%= it.file %>`), whose file only a
 * page knows.
 */
const ASSET_PATH = /([^\s"'`<>(){}$?#,;\\]*[^\s"'`<>(){}$?#,;\\./])(?![^\s"'`>()}?#,;\\])/.source;

/**
 * Where an address starts: after a quote, white space, `=`, `(` or `,`, or a tag's end (`<%= it.site.baseUrl %>/assets/…`);
 * not within another's (`https://cdn.example/assets/…`, `/static/assets/…`), which is not a file of the assets folder.
 */
const ADDRESS_START = `(?<=^|[\\s"'\`=(,>])`;

/** An address under /assets/ written out in a template. */
const ASSET_REF = new RegExp(`${ADDRESS_START}/assets/${ASSET_PATH}`, 'g');

/** An address of the assets folder written relative to the page (`assets/logo.svg`, `./assets/…`, `../assets/…`). */
const RELATIVE_ASSET_REF = new RegExp(`${ADDRESS_START}(?:\\.\\.?/)*assets/${ASSET_PATH}`, 'g');

/** An address's path as the server finds its file: `my%20logo.svg` is `my logo.svg`. */
function decoded(address: string): string {
  try {
    return decodeURIComponent(address);
  } catch {
    return address;
  }
}

/**
 * The file of `assets` (their paths in the assets folder) that an address's path names: its own, or one
 * Unicode takes for the same name (canonically equivalent), a letter encoded otherwise: most editors
 * write `é` as one code point (NFC), and macOS's HFS+ named files with `e` and U+0301 (NFD), which a
 * copy of the file keeps.
 */
function assetFile(name: string, assets: ReadonlySet<string>): string | undefined {
  if (assets.has(name)) return name;
  const composed = name.normalize('NFC');
  for (const asset of assets) if (asset.normalize('NFC') === composed) return asset;
  return undefined;
}

/**
 * The addresses under /assets/ the templates name that are not among `assets` (their paths in
 * the assets folder): each page would ask for a file the build does not write, and get a 404.
 */
export function missingAssets(templates: Templates, assets: ReadonlySet<string>, refs = references(templates, ASSET_REF)): AssetRef[] {
  return refs
    .filter((ref) => assetFile(decoded(ref.match[1]!), assets) === undefined)
    .map(assetRef);
}

/**
 * The templates with each address of an asset written as its file is named, where the two encode a
 * letter otherwise (see assetFile), percent-encoded if the address was: a host that tells names apart
 * by their bytes, as Linux's file systems do, finds the file by its own name alone.
 */
function spelledAsFiles(templates: Templates, assets: ReadonlySet<string>, refs: ReturnType<typeof references>): Templates {
  const lines = new Map<string, string[]>();
  // From the last: an address rewritten moves the columns of those after it on its line.
  for (const { template, line, col, match } of [...refs].reverse()) {
    const name = decoded(match[1]!);
    const file = assetFile(name, assets);
    if (file === undefined || file === name) continue;
    const text = cached(lines, template, () => templates[template]!.split('\n'));
    const address = `/assets/${name === match[1] ? file : encodeURI(file)}`;
    text[line - 1] = text[line - 1]!.slice(0, col - 1) + address + text[line - 1]!.slice(col - 1 + match[0].length);
  }
  if (lines.size === 0) return templates;
  return { ...templates, ...Object.fromEntries([...lines].map(([template, text]) => [template, text.join('\n')])) };
}

/**
 * The addresses of assets the templates write relative to the page: a browser looks for them in the
 * page's own folder, which for every page below the root (/video/12/a-talk/) is not the root's, and
 * the pages' Content-Security-Policy (`base-uri 'none'`) allows no `<base href="/">` to change that.
 * `path` is the file's in the assets folder.
 */
export function relativeAssets(templates: Templates): (AssetRef & { path: string })[] {
  return references(templates, RELATIVE_ASSET_REF).map((ref) => ({ ...assetRef(ref), path: ref.match[1]! }));
}

/**
 * An address written out from the host's root as an attribute's value (`href="/events/"`, `src="/assets/x.js"`,
 * a srcset's first): not one a template writes after it.site.basePath, nor another host's (`//cdn.example/…`).
 */
const ROOT_ADDRESS = /(?<=\s(?:href|src|srcset|action|formaction|poster)=["']?)\/(?!\/)[^\s"'<>]*/gi;

/**
 * The addresses of the site's own the templates write from the host's root: a site built for a folder of its host
 * has nothing there, and its pages would ask for them outside it.
 */
export function rootAddresses(templates: Templates): AssetRef[] {
  return references(templates, ROOT_ADDRESS).map(assetRef);
}

const CSS_COMMENT = /\/\*[\s\S]*?\*\//g;

/** An address in a style sheet: `url(…)`, quoted or not, or `@import "…"`. The match's first group that is set is the address. */
const CSS_REF = /(?<=\burl\(\s*)(?:"([^"\n]*)"|'([^'\n]*)'|([^"'()\s]+))|(?<=@import\s+)(?:"([^"\n]*)"|'([^'\n]*)')/gi;

/**
 * The addresses the style sheets among `assets` name that are not among `files` (their paths in the assets folder):
 * `template` is the style sheet's path in the assets folder. A relative address is the style sheet's folder's, as a
 * browser takes it; one from the root is checked under /assets/ only. Another site's, a `data:` URL and a fragment
 * (an SVG filter's `#id`) are left alone.
 */
export function missingCssAssets(assets: Theme['assets'], files: ReadonlySet<string>): AssetRef[] {
  return cssAddresses(assets).filter((ref) => {
    const name = cssAssetPath(ref.template, ref.ref.replace(/[?#].*$/s, ''));
    return name !== undefined && assetFile(decoded(name), files) === undefined;
  });
}

/**
 * The addresses the style sheets among `assets` write from the host's root (`url(/assets/font.woff2)`): a site built for
 * a folder of its host has nothing there, and a style sheet cannot write the base path before them.
 */
export function rootCssAddresses(assets: Theme['assets']): AssetRef[] {
  return cssAddresses(assets).filter((ref) => /^\/(?!\/)/.test(ref.ref));
}

/** Every address of the style sheets among `assets`, `template` the sheet's path in the assets folder, `col` the address's own, past its quote. */
function cssAddresses(assets: Theme['assets']): AssetRef[] {
  const sheets = assets.filter((a) => /\.css$/i.test(a.path)).map((a) => [a.path.slice('assets/'.length), a.bytes.toString('utf8')]);
  return references(Object.fromEntries(sheets), CSS_REF, CSS_COMMENT).map((ref) => {
    const address = ref.match.slice(1).find((group) => group !== undefined)!;
    return { ...assetRef(ref), col: ref.col + ref.match[0].indexOf(address), ref: address };
  });
}

/** An address from the site's root as the style sheet `sheet` (its path in the assets folder) writes it from its own folder. */
function fromSheet(sheet: string, address: string): string {
  const [, target, rest] = /^([^?#]*)(.*)$/s.exec(address)!;
  return `${path.posix.relative(path.posix.dirname(`/assets/${sheet}`), target!) || '.'}${rest}`;
}

/** The path in the assets folder of an address in the style sheet `sheet`, undefined where it is none or is not checked. */
function cssAssetPath(sheet: string, address: string): string | undefined {
  if (address === '' || /^(?:[a-z][a-z\d+.-]*:|\/\/)/i.test(address)) return undefined;
  const site = address.startsWith('/') ? path.posix.normalize(address) : path.posix.join('/assets', path.posix.dirname(sheet), address);
  return site.startsWith('/assets/') ? site.slice('/assets/'.length) : undefined;
}

/** An address of an asset in a template, `ref` as written, and where it is. */
interface AssetRef extends Place {
  ref: string;
}

const assetRef = ({ template, line, col, match }: ReturnType<typeof references>[number]): AssetRef => ({ template, line, col, ref: match[0] });
