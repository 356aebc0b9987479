// A worker thread's side of rendering talks: it keeps one renderer per set of
// templates and turns each batch it is sent into files.
import { renderTalkBatch, type BatchResult } from './render-talks.ts';
import { SiteRenderer, type Templates } from './render.ts';
import type { WriteTarget } from './output.ts';
import type { TalkJob } from './plan.ts';

export interface WorkerTask {
  templatesKey: string;
  templates: Templates;
  target: WriteTarget;
  jobs: TalkJob[];
}

let current: { key: string; renderer: SiteRenderer } | undefined;

export default function run(task: WorkerTask): BatchResult {
  if (current?.key !== task.templatesKey) current = { key: task.templatesKey, renderer: new SiteRenderer(task.templates) };
  return renderTalkBatch(current.renderer, task.target, task.jobs);
}
