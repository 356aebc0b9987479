// Rendering and writing a batch of jobs: the files made from talks (API
// record, page, short link, old addresses) and pages made from many talks
// (lists, feeds, sitemaps). Runs on the main thread or in worker threads, as
// build.ts decides (see renderJobs: a build with few files to render keeps to
// the main thread, whatever the catalogue's size); either way it only turns
// jobs into files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { videoListJson } from './api-lists.ts';
import { recordFile } from './headers.ts';
import { loadFullTalk } from './load.ts';
import { FileWriter, tempName, type WriteTarget } from './output.ts';
import type { PageJob, TalkJob } from './plan.ts';
import { serialiseRecord } from './record.ts';
import type { SiteRenderer } from './render.ts';
import { mergeFailures, RenderError, type RenderFailure } from './template-errors.ts';

export interface BatchResult {
  files: number;
  bytes: number;
  unchanged: number;
  staged: string[];
  /** The templates' failures on the batch's pages, whose files are not written. */
  failures: RenderFailure[];
}

/** What a batch wrote, as plain data that can come back from a worker thread. */
const resultOf = (writer: FileWriter, failures: RenderFailure[] = []): BatchResult => ({ files: writer.files, bytes: writer.bytes, unchanged: writer.unchanged, staged: writer.staged, failures });

/**
 * Renders and writes each job's outputs, reading each talk's full record from `contentDir`. A page
 * the templates fail on is counted among the failures and the batch goes on, so that one build
 * names every failure, not the first; the build then fails.
 */
export function renderBatch(renderer: SiteRenderer, target: WriteTarget, contentDir: string, jobs: TalkJob[], pages: PageJob[]): BatchResult {
  const writer = new FileWriter(target);
  const failures: RenderFailure[] = [];
  const failed = (err: unknown) => {
    if (!(err instanceof RenderError)) throw err;
    failures.push({ place: err.place, reason: err.reason, page: err.page, pages: 1 });
  };
  for (const page of pages) {
    try {
      writer.write(page.path, renderer.output(page), page.compress);
    } catch (err) {
      failed(err);
    }
  }
  for (const job of jobs) {
    const talk = job.outputs.some((o) => o.kind !== 'redirect') ? loadFullTalk(contentDir, job.talk) : undefined;
    for (const output of job.outputs) {
      try {
        if (output.kind === 'record') writer.write(output.path, serialiseRecord(talk!));
        else if (output.kind === 'page') writer.write(output.path, renderer.talk({ ...job, talk: talk! }), output.compress);
        else writer.write(output.path, renderer.redirect(job.talk.title, output.target));
      } catch (err) {
        failed(err);
      }
    }
  }
  // One entry per place and reason: a batch of 200 talk pages failing alike sends one back.
  return resultOf(writer, mergeFailures(failures));
}

/**
 * Writes the pages of the record list from the record files this build left in
 * its target (a record changed by this build is still under its temporary
 * name), so that a list shows every record byte for byte as its address serves it.
 */
export function writeRecordLists(target: WriteTarget, baseUrl: string, pages: Extract<PageJob, { kind: 'video-list' }>[]): BatchResult {
  const writer = new FileWriter(target);
  const read = (rel: string) => {
    if (target.mode === 'patch') {
      try {
        return readFileSync(path.join(target.root, tempName(rel, target.tag)), 'utf8');
      } catch {
        // not changed by this build: the file in place is current
      }
    }
    return readFileSync(path.join(target.root, rel), 'utf8');
  };
  for (const page of pages) writer.write(page.path, videoListJson(page.input, baseUrl, page.input.items.map((id) => read(recordFile(id)))));
  return resultOf(writer);
}
