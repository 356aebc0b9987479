// A worker thread's side of a build: it reads batches of talk files, and it
// renders batches of talks into files, keeping one renderer per set of templates.
import { renderBatch, type BatchResult } from './render-talks.ts';
import { SiteRenderer, type SiteInfo } from './render.ts';
import type { Templates } from './theme.ts';
import type { WriteTarget } from './output.ts';
import type { PageJob, TalkJob } from './plan.ts';

export interface WorkerTask {
  templatesKey: string;
  templates: Templates;
  site: SiteInfo;
  target: WriteTarget;
  contentDir: string;
  jobs: TalkJob[];
  pages: PageJob[];
}

export { readTalks } from './load.ts';

let current: { key: string; renderer: SiteRenderer } | undefined;

export default function run(task: WorkerTask): BatchResult {
  if (current?.key !== `${task.templatesKey}${task.site.baseUrl}`) current = { key: `${task.templatesKey}${task.site.baseUrl}`, renderer: new SiteRenderer(task.templates, task.site) };
  return renderBatch(current.renderer, task.target, task.contentDir, task.jobs, task.pages);
}
