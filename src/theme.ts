// The theme: the templates a build renders with and the static files it
// copies, read from the templates folder. Templates stay strings here; they
// are compiled by the renderer.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';

/** Template sources by name: TEMPLATE_NAMES, then the theme's partials. */
export type Templates = Record<string, string>;

export const TEMPLATE_NAMES = ['layout', 'home', 'events', 'event', 'listing', 'terms', 'talk', 'redirect', 'search', 'api', 'not-found'] as const;

/** A partial's name as Eta names it, `@name`, and as templatesUsed finds it. */
const PARTIAL_NAME = /^[\w-]+$/;

export interface Theme {
  templates: Templates;
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

export async function loadTheme(dir: string): Promise<Theme> {
  const templates: Templates = {};
  for (const name of TEMPLATE_NAMES) {
    const file = path.join(dir, `${name}.eta`);
    templates[name] = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new Error(`${file} is missing: a templates folder has ${TEMPLATE_NAMES.map((n) => `${n}.eta`).join(', ')}`) : err;
    });
  }
  // Any other template in the folder is a partial, which makes no page of its own: templates include it by name.
  for (const file of (await fg('*.eta', { cwd: dir, onlyFiles: true })).sort()) {
    const name = file.slice(0, -'.eta'.length);
    if (name in templates) continue;
    if (!PARTIAL_NAME.test(name)) throw new Error(`${path.join(dir, file)}: a template's name is letters, digits, _ and - (it is included as include('@${name}'))`);
    templates[name] = await readFile(path.join(dir, file), 'utf8');
  }
  const assetNames = (await fg('**/*', { cwd: path.join(dir, 'assets'), onlyFiles: true, dot: false })).sort();
  const assets = await Promise.all(assetNames.map(async (name) => ({ path: `assets/${name}`, bytes: await readFile(path.join(dir, 'assets', name)) })));
  return { templates, assets };
}
