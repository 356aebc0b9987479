// The catalogue's talks as the site lists them: the live ones newest first, in
// the API's order, and grouped by speaker, tag and language. A long-running
// caller (the dev server) keeps the index between builds: the next one is
// worked out from the talks an edit changed rather than by sorting and
// grouping every talk again.
import { byRecordedThenTitle } from './api-lists.ts';
import { byNewest, groupByTerm, regroupByTerm, resorted, type Term } from './collections.ts';
import { isLive, type CatalogueTalk } from './load.ts';
import { cached } from './memo.ts';

export interface CatalogueIndex {
  /** The catalogue's talks, by id, that the index is made from. */
  talks: readonly CatalogueTalk[];
  /** The live ones, by id. */
  live: CatalogueTalk[];
  newestFirst: CatalogueTalk[];
  /** The API's video list order. */
  byRecorded: CatalogueTalk[];
  /** Each term's talks newest first. */
  speakers: Term<CatalogueTalk>[];
  tags: Term<CatalogueTalk>[];
  languages: Term<CatalogueTalk>[];
}

const speakersOf = (talk: CatalogueTalk) => talk.speakers;
const tagsOf = (talk: CatalogueTalk) => talk.tags;
const languageOf = (talk: CatalogueTalk) => [talk.language];

/** Beyond this share of the live talks changed, sorting and grouping them all again is about as quick. */
const REINDEX_SHARE = 0.1;

/**
 * The index of `talks` (by id), made once per list: the search index's plan
 * and the pages' share it. Given the index of an earlier catalogue, it is
 * worked out from the talks that are not the same objects as before: a load
 * gives the same object again for a file that did not change.
 */
export function indexCatalogue(talks: readonly CatalogueTalk[], previous?: CatalogueIndex): CatalogueIndex {
  return cached(indexes, talks, () => made(talks, previous));
}

const indexes = new WeakMap<readonly CatalogueTalk[], CatalogueIndex>();

function made(talks: readonly CatalogueTalk[], previous: CatalogueIndex | undefined): CatalogueIndex {
  const live = talks.filter(isLive);
  const change = previous && changedTalks(previous.talks, talks);
  if (!previous || !change || change.removed.length + change.added.length > REINDEX_SHARE * live.length) {
    const newestFirst = [...live].sort(byNewest);
    return {
      talks,
      live,
      newestFirst,
      byRecorded: [...live].sort(byRecordedThenTitle),
      speakers: groupByTerm(newestFirst, speakersOf),
      tags: groupByTerm(newestFirst, tagsOf),
      languages: groupByTerm(newestFirst, languageOf),
    };
  }
  const { removed, added } = change;
  const gone = new Set(removed);
  return {
    talks,
    live,
    newestFirst: resorted(previous.newestFirst, gone, added, byNewest),
    byRecorded: resorted(previous.byRecorded, gone, added, byRecordedThenTitle),
    speakers: regroupByTerm(previous.speakers, removed, added, speakersOf, byNewest),
    tags: regroupByTerm(previous.tags, removed, added, tagsOf, byNewest),
    languages: regroupByTerm(previous.languages, removed, added, languageOf, byNewest),
  };
}

/** The live talks `before` has and `after` has not, and the reverse, by object; both lists are by id. */
function changedTalks(before: readonly CatalogueTalk[], after: readonly CatalogueTalk[]) {
  const removed: CatalogueTalk[] = [];
  const added: CatalogueTalk[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const a = before[i];
    const b = after[j];
    if (a !== undefined && a === b) {
      i++;
      j++;
      continue;
    }
    const idA = a?.id ?? Infinity;
    const idB = b?.id ?? Infinity;
    if (idA <= idB) {
      if (isLive(a!)) removed.push(a!);
      i++;
    }
    if (idB <= idA) {
      if (isLive(b!)) added.push(b!);
      j++;
    }
  }
  return { removed, added };
}
