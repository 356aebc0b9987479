// Rendering and writing the files made from talks (API record, page, short
// link, old addresses). Runs on the main thread for small catalogues and in
// worker threads for large ones; either way it only turns jobs into files.
import { FileWriter, type WriteTarget } from './output.ts';
import type { TalkJob } from './plan.ts';
import { serialiseRecord } from './record.ts';
import type { SiteRenderer } from './render.ts';

export interface BatchResult {
  files: number;
  bytes: number;
  unchanged: number;
  staged: string[];
}

export function renderTalkBatch(renderer: SiteRenderer, target: WriteTarget, jobs: TalkJob[]): BatchResult {
  const writer = new FileWriter(target);
  for (const job of jobs) {
    const { talk } = job.page;
    for (const output of job.outputs) {
      if (output.kind === 'record') writer.write(output.path, serialiseRecord(talk));
      else if (output.kind === 'page') writer.write(output.path, renderer.talk(job.page));
      else writer.write(output.path, renderer.redirect(talk.title, output.target));
    }
  }
  return { files: writer.files, bytes: writer.bytes, unchanged: writer.unchanged, staged: writer.staged };
}
