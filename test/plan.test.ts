import { beforeAll, describe, expect, it } from 'vitest';
import { loadContent, type Catalogue, type CatalogueTalk } from '../src/load.ts';
import { planSearch } from '../src/plan.ts';
import { DEMO_CONTENT } from './helpers.ts';

let catalogue: Catalogue;

beforeAll(async () => {
  const loaded = await loadContent(DEMO_CONTENT);
  expect(loaded.errors).toEqual([]);
  catalogue = loaded.catalogue;
});

/** The catalogue with talk 12 changed, as a new read of its file would give it (a new rev). */
const withTalk12 = (change: Partial<CatalogueTalk>): Catalogue => ({
  ...catalogue,
  talks: catalogue.talks.map((t) => (t.id === 12 ? { ...t, rev: `${t.rev}-edited`, ...change } : t)),
});

describe('planSearch', () => {
  it('holds one record per live talk, newest first', () => {
    const { records } = planSearch(catalogue, 'c');
    expect(records.length).toBe(catalogue.talks.filter((t) => t.state === 1).length);
    const dates = records.map((r) => r.meta.recorded).filter(Boolean);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('keeps its key when a talk changes in what search does not hold, so the index is not rebuilt', () => {
    const { key } = planSearch(catalogue, 'c');
    expect(planSearch(withTalk12({ duration: 12_345 }), 'c').key).toBe(key);
    expect(planSearch(catalogue, 'other code').key).not.toBe(key);
  });

  it('moves its key when a searchable field changes', () => {
    const { key } = planSearch(catalogue, 'c');
    for (const change of [{ title: 'Another title' }, { speakers: ['Someone Else'] }, { tags: ['new-tag'] }, { language: 'Spanish' }, { recorded: '2001-01-01' }, { blurb: 'Another excerpt' }]) {
      expect(planSearch(withTalk12(change), 'c').key, JSON.stringify(change)).not.toBe(key);
    }
  });
});
