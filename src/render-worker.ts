// A worker thread's side of a build: it reads batches of talk files, and it
// renders batches of talks into files, keeping one renderer per set of templates.
import { renderBatch, type BatchResult } from './render-talks.ts';
import { SiteRenderer, type SiteInfo } from './render.ts';
import { mapStackTraces } from './stack-traces.ts';
import { readTalks as readTalksHere } from './load.ts';
import { carrying } from './workers.ts';
import type { Templates } from './theme.ts';
import type { WriteTarget } from './output.ts';
import type { PageJob, TalkJob } from './plan.ts';

export interface WorkerTask {
  templatesKey: string;
  templates: Templates;
  templatesFolder: string;
  /** The theme's templates as written, where they differ from `templates` (Theme's `written`). */
  writtenTemplates?: Templates;
  site: SiteInfo;
  target: WriteTarget;
  contentDir: string;
  jobs: TalkJob[];
  pages: PageJob[];
}


mapStackTraces();

let current: { key: string; renderer: SiteRenderer } | undefined;

function run(task: WorkerTask): BatchResult {
  // The site's navigation is the content's: a renderer is kept for one navigation, as for one set of templates.
  const key = `${task.templatesKey}${task.templatesFolder}\0${JSON.stringify(task.site)}`;
  if (current?.key !== key) current = { key, renderer: new SiteRenderer(task.templates, task.site, task.templatesFolder, task.writtenTemplates) };
  return renderBatch(current.renderer, task.target, task.contentDir, task.jobs, task.pages);
}

export default carrying(run);
export const readTalks = carrying(readTalksHere);
