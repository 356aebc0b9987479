import { describe, expect, it } from 'vitest';
import {
  byEventDate,
  byNewest,
  byProgramme,
  fileOf,
  groupByTerm,
  initialOf,
  lastUpdated,
  paginate,
  recordedSpan,
  regroupByTerm,
  resorted,
  seriesOf,
  slugFromTitle,
  termSlug,
} from '../src/collections.ts';

describe('termSlug', () => {
  it('makes URL slugs of names and tags, keeping C, C++ and C# apart', () => {
    expect(termSlug('Łukasz Langa')).toBe('lukasz-langa');
    expect(termSlug('PyCon')).toBe('pycon');
    expect(new Set([termSlug('C'), termSlug('C++'), termSlug('C#')]).size).toBe(3);
  });

  it('gives names the transliterator cannot read a stable slug of their own', () => {
    const slug = termSlug('山田 太郎');
    expect(slug).toMatch(/^u-[0-9a-f]{10}$/);
    expect(termSlug('山田 太郎')).toBe(slug);
    expect(termSlug('木村 優子')).not.toBe(slug);
  });

  it('keeps the slug of a long name within a folder name, apart from names that differ only at the end', () => {
    const long = 'Python Web Conf supports @coderdojo with: '.repeat(8);
    const slug = termSlug(long);
    expect(slug.length).toBeLessThanOrEqual(200);
    expect(slug).toMatch(/^python-web-conf-supports-coderdojo-with-python[a-z-]+-[0-9a-f]{10}$/);
    expect(termSlug(`${long}Ann`)).not.toBe(slug);
    expect(termSlug(long.toUpperCase())).toBe(slug);
    expect(termSlug('x'.repeat(200))).toBe('x'.repeat(200));
  });
});

describe('slugFromTitle', () => {
  it('slugs titles, short enough for a URL, empty without Latin letters or digits', () => {
    expect(slugFromTitle('Ça va? Łódź & Co.')).toBe('ca-va-lodz-and-co');
    expect(slugFromTitle('型ヒント')).toBe('');
    expect(slugFromTitle('a '.repeat(80)).length).toBeLessThanOrEqual(60);
    // Cut at the last word that fits; a word too long to leave a fair start is cut through instead.
    expect(slugFromTitle('Building a scalable data pipeline for real-time analytics with Python and Kafka')).toBe('building-a-scalable-data-pipeline-for-real-time-analytics');
    expect(slugFromTitle(`Introduction to ${'x'.repeat(70)}`)).toBe(`introduction-to-${'x'.repeat(44)}`);
  });
});

describe('groupByTerm', () => {
  const talks = [
    { id: 1, tags: ['Django', 'web'] },
    { id: 2, tags: ['django', ' web'] },
    { id: 3, tags: ['Web', 'WEB'] },
    { id: 4, tags: [] },
  ];

  it('files spellings that slug the same under one term, most used spelling first, talks in input order', () => {
    const terms = groupByTerm(talks, (t) => t.tags);
    expect(terms.map((t) => t.slug)).toEqual(['django', 'web']);
    const web = terms[1]!;
    expect(web.items.map((t) => t.id)).toEqual([1, 2, 3]);
    expect(web.names).toEqual([' web', 'WEB', 'Web', 'web']);
    expect(terms[0]!.names).toEqual(['Django', 'django']);
  });

  it('lists a talk once under a term it names twice, and skips blank terms', () => {
    const terms = groupByTerm([{ tags: ['web', 'Web', '  '] }], (t) => t.tags);
    expect(terms).toHaveLength(1);
    expect(terms[0]!.items).toHaveLength(1);
  });
});

describe('resorted and regroupByTerm', () => {
  type Talk = { id: number; rank: number; tags: string[] };
  const byRank = (a: Talk, b: Talk) => a.rank - b.rank || a.id - b.id;
  const spellings = ['web', 'Web', 'WEB', 'django', 'Django', 'data', 'C', 'C++', '  ', 'ml'];
  /** A small deterministic generator, so that a failure can be replayed. */
  const random = (seed: number) => () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);

  it('give what sorting and grouping again give, after random edits, additions and removals', () => {
    const next = random(7);
    const pickFrom = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const talkWith = (id: number): Talk => ({ id, rank: Math.floor(next() * 20), tags: Array.from({ length: Math.floor(next() * 4) }, () => pickFrom(spellings)) });
    let talks = Array.from({ length: 60 }, (_, i) => talkWith(i));
    let sorted = [...talks].sort(byRank);
    let terms = groupByTerm(sorted, (t) => t.tags);
    let nextId = 60;
    for (let step = 0; step < 300; step++) {
      const removed = talks.filter(() => next() < 0.05);
      const replaced = removed.filter(() => next() < 0.7).map((t) => talkWith(t.id));
      const added = [...replaced, ...Array.from({ length: Math.floor(next() * 3) }, () => talkWith(nextId++))];
      talks = [...talks.filter((t) => !removed.includes(t)), ...added];
      const before = new Map(terms.map((term) => [term.slug, term]));
      sorted = resorted(sorted, new Set(removed), added, byRank);
      terms = regroupByTerm(terms, removed, added, (t) => t.tags, byRank);
      const again = [...talks].sort(byRank);
      expect(sorted).toEqual(again);
      expect(terms).toEqual(groupByTerm(again, (t) => t.tags));
      const edited = new Set([...removed, ...added]);
      const untouched = (term: { items: Talk[] } | undefined) => term && !term.items.some((t) => edited.has(t));
      for (const term of terms) if (untouched(term) && untouched(before.get(term.slug))) expect(term).toBe(before.get(term.slug));
    }
  });
});

describe('initialOf', () => {
  it('files slugs under a letter, digits or other', () => {
    expect(initialOf('zoe')).toBe('z');
    expect(initialOf('42-things')).toBe('0-9');
    expect(initialOf('u-0a1b')).toBe('u');
    expect(initialOf('u-thant')).toBe('u');
    // A name with no Latin spelling is not filed under U for its slug's prefix.
    expect(initialOf(termSlug('日本 太郎'))).toBe('other');
    expect(initialOf('')).toBe('other');
  });
});

describe('seriesOf', () => {
  it('groups editions of an event by the title without its year', () => {
    expect(seriesOf('PyCon US 2014')).toBe('PyCon US');
    expect(seriesOf('PyCon US 2015')).toBe('PyCon US');
    expect(seriesOf('EuroPython 2019')).toBe('EuroPython');
    expect(seriesOf('PyData London 2016')).toBe('PyData London');
    expect(seriesOf('2014 Python Brasil')).toBe('Python Brasil');
    expect(seriesOf('Boston Python Meetup')).toBe('Boston Python Meetup');
    expect(seriesOf('PyCon 3000')).toBe('PyCon 3000');
  });
});

describe('orders', () => {
  const talk = (id: number, recorded: string | null, title = 'T') => ({ id, recorded, title });
  const ids = (items: { id: number }[]) => items.map((t) => t.id);

  it("list an event's programme by recording date, undated last, then title, then id", () => {
    const talks = [talk(1, '2024-05-02', 'B'), talk(2, '2024-05-01', 'Z'), talk(3, null, 'Q'), talk(5, '2024-05-02', 'A'), talk(4, '2024-05-02', 'A'), talk(6, null, 'P')];
    expect(ids(talks.sort(byProgramme))).toEqual([2, 4, 5, 1, 6, 3]);
  });

  it('list talks newest recorded first, undated last, then newest id first', () => {
    const talks = [talk(1, '2023-01-01'), talk(2, null), talk(3, '2024-01-01'), talk(4, '2023-01-01'), talk(5, null)];
    expect(ids(talks.sort(byNewest))).toEqual([3, 4, 1, 5, 2]);
  });

  it('list events newest first by their start date, else their first recording, undated last, then by slug', () => {
    const event = (slug: string, start_date: string | null, recordedFrom: string | null) => ({ slug, start_date, recordedFrom });
    const events = [event('undated', null, null), event('b', '2020-01-01', null), event('recorded-only', null, '2022-06-01'), event('a', '2020-01-01', '2025-01-01'), event('new', '2023-01-01', null)];
    expect(events.sort(byEventDate).map((e) => e.slug)).toEqual(['new', 'recorded-only', 'a', 'b', 'undated']);
  });

  it("give an event's span of recording dates, and its talks' latest update", () => {
    expect(recordedSpan([{ recorded: '2024-05-02' }, { recorded: null }, { recorded: '2024-05-01' }, { recorded: '2024-05-03' }, { recorded: '2024-05-02' }])).toEqual({ recordedFrom: '2024-05-01', recordedTo: '2024-05-03' });
    expect(recordedSpan([{ recorded: null }])).toEqual({ recordedFrom: null, recordedTo: null });
    expect(lastUpdated([{ updated: '2024-01-02T00:00:00.000' }, { updated: '2024-03-01T00:00:00.000' }, { updated: '2024-02-01T00:00:00.000' }])).toBe('2024-03-01T00:00:00.000');
    expect(lastUpdated([])).toBeNull();
  });
});

describe('paginate', () => {
  it('cuts a list into numbered pages with links both ways', () => {
    const pages = paginate([1, 2, 3, 4, 5], 2, '/tag/web/');
    expect(pages.map((p) => p.items)).toEqual([[1, 2], [3, 4], [5]]);
    expect(pages.map((p) => p.path)).toEqual(['/tag/web/', '/tag/web/page/2/', '/tag/web/page/3/']);
    expect(pages[0]).toMatchObject({ number: 1, count: 3, prev: undefined, next: '/tag/web/page/2/' });
    expect(pages[1]).toMatchObject({ prev: '/tag/web/', next: '/tag/web/page/3/' });
    expect(pages[2]).toMatchObject({ prev: '/tag/web/page/2/', next: undefined });
  });

  it('gives an empty list one empty page and a short list one page', () => {
    expect(paginate([], 50, '/talks/')).toEqual([{ number: 1, count: 1, path: '/talks/', items: [], prev: undefined, next: undefined }]);
    expect(paginate([1, 2], 50, '/talks/')).toHaveLength(1);
  });
});

describe('fileOf', () => {
  it('maps folder paths to their index file', () => {
    expect(fileOf('/')).toBe('index.html');
    expect(fileOf('/tag/web/page/2/')).toBe('tag/web/page/2/index.html');
    expect(fileOf('/feed.atom')).toBe('feed.atom');
  });
});
