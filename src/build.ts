// The build: content folder → validated catalogue → output folder
// (API records, pages, assets), written through a staging folder.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import type { ContentError } from './errors.ts';
import { isLive, loadContent, type Catalogue } from './load.ts';
import { Staging } from './output.ts';
import type { Progress } from './progress.ts';
import { serialiseRecord } from './record.ts';
import { SiteRenderer, TEMPLATE_NAMES, type Templates } from './render.ts';

export interface BuildOptions {
  content: string;
  out: string;
  templates: string;
  progress?: Progress;
}

export interface BuildSummary {
  events: number;
  talks: number;
  drafts: number;
  files: number;
  bytes: number;
  ms: number;
}

export type BuildResult = { ok: true; summary: BuildSummary } | { ok: false; errors: ContentError[] };

export interface Theme {
  templates: Templates;
  /** Static files under templates/assets, copied to /assets. */
  assets: { path: string; bytes: Buffer }[];
}

export async function loadTheme(dir: string): Promise<Theme> {
  const templates: Templates = {};
  for (const name of TEMPLATE_NAMES) templates[name] = await readFile(path.join(dir, `${name}.eta`), 'utf8');
  const assetNames = (await fg('**/*', { cwd: path.join(dir, 'assets'), onlyFiles: true, dot: false })).sort();
  const assets = await Promise.all(assetNames.map(async (name) => ({ path: `assets/${name}`, bytes: await readFile(path.join(dir, 'assets', name)) })));
  return { templates, assets };
}

export async function writeSite(catalogue: Catalogue, theme: Theme, staging: Staging, progress?: Progress): Promise<void> {
  const renderer = new SiteRenderer(theme.templates);
  const events = new Map(catalogue.events.map((e) => [e.slug, e]));
  const live = catalogue.talks.filter(isLive);
  progress?.start('writing talks', live.length);
  for (const talk of live) {
    await staging.write(`api/v2/video/${talk.id}`, serialiseRecord(talk));
    for (const page of [renderer.talk(talk, events.get(talk.event)), renderer.talkRedirect(talk)]) await staging.write(page.path, page.body);
    progress?.tick();
  }
  for (const page of [renderer.home(catalogue), renderer.notFound()]) await staging.write(page.path, page.body);
  for (const asset of theme.assets) await staging.write(asset.path, asset.bytes);
  await staging.flush();
  progress?.done();
}

export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const loaded = await loadContent(options.content);
  if (loaded.errors.length > 0) return { ok: false, errors: loaded.errors };
  const { catalogue } = loaded;
  const theme = await loadTheme(options.templates);
  const staging = await Staging.open(options.out);
  try {
    await writeSite(catalogue, theme, staging, options.progress);
    await staging.commit();
  } catch (err) {
    await staging.discard();
    throw err;
  }
  const live = catalogue.talks.filter(isLive).length;
  return {
    ok: true,
    summary: {
      events: catalogue.events.length,
      talks: live,
      drafts: catalogue.talks.length - live,
      files: staging.files,
      bytes: staging.bytes,
      ms: performance.now() - started,
    },
  };
}
