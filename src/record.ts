// Serialising a talk as the API record of the contract: exactly these 32
// members, in this order, as JSON that stays inert when served as text/html.
import type { Talk } from './schema.ts';

export const API_FIELDS = [
  'category',
  'language',
  'slug',
  'speakers',
  'tags',
  'id',
  'state',
  'title',
  'summary',
  'description',
  'quality_notes',
  'copyright_text',
  'embed',
  'thumbnail_url',
  'duration',
  'video_ogv_length',
  'video_ogv_url',
  'video_ogv_download_only',
  'video_mp4_length',
  'video_mp4_url',
  'video_mp4_download_only',
  'video_webm_length',
  'video_webm_url',
  'video_webm_download_only',
  'video_flv_length',
  'video_flv_url',
  'video_flv_download_only',
  'source_url',
  'whiteboard',
  'recorded',
  'added',
  'updated',
] as const satisfies readonly (keyof Talk)[];

type ApiRecord = { [K in (typeof API_FIELDS)[number]]: Talk[K] } & { slug: string; category: string };

function toApiRecord(talk: Talk & { slug: string; category: string }): ApiRecord {
  const record: Record<string, unknown> = {};
  for (const field of API_FIELDS) record[field] = talk[field];
  return record as ApiRecord;
}

const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * JSON whose `<`, `>` and `&` are written as \u escapes: the same JSON value,
 * but a browser rendering it as HTML (the contract's Content-Type) finds no markup.
 */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(HTML_SIGNIFICANT, (c) => ESCAPES[c]!);
}

export function serialiseRecord(talk: Talk & { slug: string; category: string }): string {
  return inertJson(toApiRecord(talk));
}
