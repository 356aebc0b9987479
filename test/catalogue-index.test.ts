import { beforeAll, describe, expect, it } from 'vitest';
import { indexCatalogue } from '../src/catalogue-index.ts';
import { termSlug } from '../src/collections.ts';
import { loadContent, type CatalogueTalk } from '../src/load.ts';
import { DEMO_CONTENT } from './helpers.ts';

let talks: CatalogueTalk[];

beforeAll(async () => {
  const loaded = await loadContent(DEMO_CONTENT);
  expect(loaded.errors).toEqual([]);
  talks = loaded.catalogue.talks;
});

describe('indexCatalogue', () => {
  /** Talk `id` as a new read of its file gives it: a new object. */
  const edit = (id: number, change: Partial<CatalogueTalk>) => (list: CatalogueTalk[]) => list.map((t) => (t.id === id ? { ...t, ...change } : t));

  it('works out from the last index what indexing again gives, after each change of a sequence', () => {
    const first = talks[0]!;
    const steps: [string, (list: CatalogueTalk[]) => CatalogueTalk[]][] = [
      ['nothing', (list) => [...list]],
      ['a title', edit(12, { title: 'Zz: last of all' })],
      ['the recording date, which orders every list', edit(14, { recorded: '1999-01-01' })],
      ['a speaker of its own and another spelling of a tag', edit(13, { speakers: ['Someone Else'], tags: first.tags.map((tag) => tag.toUpperCase()) })],
      ['a talk made a draft', edit(12, { state: 2 })],
      ['a draft published again', edit(12, { state: 1 })],
      ['a talk removed', (list) => list.filter((t) => t.id !== 13)],
      ['a talk added', (list) => [...list, { ...first, id: 10_000, slug: 'new-talk', tags: ['brand-new-tag'] }]],
    ];
    let current = talks;
    let index = indexCatalogue(current);
    for (const [name, change] of steps) {
      current = change(current);
      const next = indexCatalogue(current, index);
      // A new list of the same talks is indexed from scratch, not looked up.
      expect(next, name).toEqual(indexCatalogue([...current]));
      index = next;
    }
  });

  it('keeps the terms an edit does not touch, and is the same index for the same talks', () => {
    const index = indexCatalogue(talks);
    expect(indexCatalogue(talks)).toBe(index);
    expect(indexCatalogue([...talks])).not.toBe(index);
    const talk = talks.find((t) => t.state === 1 && t.tags.length > 0)!;
    const next = indexCatalogue(edit(talk.id, { title: 'Another title' })(talks), index);
    const elsewhere = index.tags.find((term) => !term.items.includes(talk))!;
    expect(next.tags.find((term) => term.slug === elsewhere.slug)).toBe(elsewhere);
    const own = (list: typeof index.tags) => list.find((term) => term.slug === termSlug(talk.tags[0]!));
    expect(own(next.tags)).toBeDefined();
    expect(own(next.tags)).not.toBe(own(index.tags));
  });
});
