// A worker thread's side of a build: it reads batches of talk files, and it
// renders batches of talks into files, keeping one renderer per set of templates.
import { renderBatch, type BatchResult } from './render-talks.ts';
import { SiteRenderer, type SiteInfo } from './render.ts';
import { RenderError } from './template-errors.ts';
import type { Templates } from './theme.ts';
import type { WriteTarget } from './output.ts';
import type { PageJob, TalkJob } from './plan.ts';

export interface WorkerTask {
  templatesKey: string;
  templates: Templates;
  templatesFolder: string;
  site: SiteInfo;
  target: WriteTarget;
  contentDir: string;
  jobs: TalkJob[];
  pages: PageJob[];
}

/** A batch's result, or the message of a template's failure on one of its pages, which the main thread throws as a RenderError. */
export type WorkerOutcome = { done: BatchResult } | { failed: string };

export { readTalks } from './load.ts';

let current: { key: string; renderer: SiteRenderer } | undefined;

export default function run(task: WorkerTask): WorkerOutcome {
  // The site's navigation is the content's: a renderer is kept for one navigation, as for one set of templates.
  const key = `${task.templatesKey}${task.templatesFolder}\0${JSON.stringify(task.site)}`;
  if (current?.key !== key) current = { key, renderer: new SiteRenderer(task.templates, task.site, task.templatesFolder) };
  try {
    return { done: renderBatch(current.renderer, task.target, task.contentDir, task.jobs, task.pages) };
  } catch (err) {
    if (err instanceof RenderError) return { failed: err.message };
    throw err;
  }
}
