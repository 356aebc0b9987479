import { beforeAll, describe, expect, it } from 'vitest';
import { loadContent, type Catalogue, type CatalogueTalk } from '../src/load.ts';
import { EVENT_PAGE_SIZE, planParts, TERMS_ON_ONE_PAGE, TERMS_PAGE_SIZE, planSearch, planSite, PlanMemo, type Fingerprints, type Part, type SearchPlan, type SitePlan } from '../src/plan.ts';
import type { PageInputs } from '../src/render.ts';
import { PAGES_INDEX, searchIndexes } from '../src/search-shards.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FEED_FILES, renderFeed } from '../src/feeds.ts';
import { DEMO_CONTENT, tempDir } from './helpers.ts';

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

/** The talks' shards of a search plan, without the pages' index. */
const talkShards = (plan: SearchPlan) => plan.shards.filter((shard) => shard.dir !== PAGES_INDEX);
/** A search plan's talks' records, newest first: the shards run from the oldest talks, each newest first. */
const recordsOf = (plan: SearchPlan) => [...talkShards(plan)].reverse().flatMap((shard) => plan.records(shard));
const keyOf = (plan: SearchPlan) => plan.shards.map((shard) => shard.key).join(' ');

describe('planSearch', () => {
  it('holds one record per live talk, newest first', () => {
    const records = recordsOf(planSearch(catalogue, 'c'));
    expect(records.length).toBe(catalogue.talks.filter((t) => t.state === 1).length);
    const dates = records.map((r) => r.meta.recorded).filter(Boolean);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('keeps its key when a talk changes in what search does not hold, so the index is not rebuilt', () => {
    const key = keyOf(planSearch(catalogue, 'c'));
    expect(keyOf(planSearch(withTalk12({ duration: 12_345 }), 'c'))).toBe(key);
    expect(keyOf(planSearch(catalogue, 'other code'))).not.toBe(key);
  });

  it("takes a talk's key from the last plan's keys by the files it is made from, and works out only those of talks whose files changed", () => {
    const first = planSearch(catalogue, 'c');
    expect(first.keys.size).toBe(catalogue.talks.filter((t) => t.state === 1).length);
    expect(keyOf(planSearch(catalogue, 'c', first.keys))).toBe(keyOf(first));
    // A key looked up is used as it is: wrong ones show in the shard's key.
    const wrong = new Map([...first.keys].map(([origin]) => [origin, 'wrong']));
    expect(keyOf(planSearch(catalogue, 'c', wrong))).not.toBe(keyOf(first));
    // An edited talk has another revision, so its key is worked out anew.
    const edited = withTalk12({ title: 'Another title' });
    expect(keyOf(planSearch(edited, 'c', first.keys))).toBe(keyOf(planSearch(edited, 'c')));
    expect(keyOf(planSearch(edited, 'c', first.keys))).not.toBe(keyOf(first));
    // The records are the same whether the keys were looked up or worked out.
    expect(recordsOf(planSearch(edited, 'c', first.keys))).toEqual(recordsOf(planSearch(edited, 'c')));
  });

  it("moves a talk's key when its event's file changes, as the records name the event", () => {
    const first = planSearch(catalogue, 'c');
    const renamed: Catalogue = { ...catalogue, events: catalogue.events.map((e, i) => (i === 0 ? { ...e, rev: `${e.rev}-edited` } : e)) };
    const again = planSearch(renamed, 'c', first.keys);
    expect([...again.keys.keys()].filter((origin) => !first.keys.has(origin)).length).toBe(catalogue.talks.filter((t) => t.state === 1 && t.event === catalogue.events[0]!.slug).length);
  });

  it('moves its key when a searchable field changes', () => {
    const key = keyOf(planSearch(catalogue, 'c'));
    for (const change of [{ title: 'Another title' }, { speakers: ['Someone Else'] }, { tags: ['new-tag'] }, { language: 'Spanish' }, { recorded: '2001-01-01' }, { blurb: 'Another excerpt' }]) {
      expect(keyOf(planSearch(withTalk12(change), 'c')), JSON.stringify(change)).not.toBe(key);
    }
  });

  it('splits the records into shards counted from the oldest talk, and an edit moves the key of its shard alone', () => {
    const whole = recordsOf(planSearch(catalogue, 'c'));
    const plan = planSearch(catalogue, 'c', undefined, undefined, 3);
    const shards = talkShards(plan);
    expect(shards.map((shard) => shard.dir)).toEqual(Array.from({ length: Math.ceil(whole.length / 3) }, (_, n) => `pagefind/${n}`));
    expect(shards.slice(0, -1).every((shard) => plan.records(shard).length === 3)).toBe(true);
    expect(recordsOf(plan)).toEqual(whole);
    // The last shard holds the newest talks; talk 12's shard is the one whose key moves.
    expect(plan.records(shards.at(-1)!)[0]).toEqual(whole[0]);
    const edited = planSearch(withTalk12({ title: 'Another title' }), 'c', undefined, undefined, 3);
    const moved = edited.shards.filter((shard, n) => shard.key !== plan.shards[n]!.key);
    expect(moved.map((shard) => edited.records(shard).some((r) => r.url.startsWith('/video/12/')))).toEqual([true]);
    expect(searchIndexes(whole.length, 3)).toEqual(shards.map((shard) => `/${shard.dir}/`).reverse());
  });

  it("indexes the site's published pages apart, whose edits move the key of their index alone", () => {
    const plan = planSearch(catalogue, 'c');
    const pagesIndex = plan.shards.find((shard) => shard.dir === PAGES_INDEX)!;
    const about = catalogue.pages.find((page) => page.slug === 'about')!;
    expect(plan.records(pagesIndex)).toEqual([
      { url: '/about/', content: expect.stringContaining('get a mistake fixed'), meta: { title: about.title, kind: 'Page' }, filters: {} },
    ]);
    // The Markdown's marks are not words: the link's text is, its address is not.
    expect(plan.records(pagesIndex)[0]!.content).toMatch(/by event, by speaker/);
    expect(plan.records(pagesIndex)[0]!.content).not.toContain('](/events/)');

    const edited: Catalogue = { ...catalogue, pages: catalogue.pages.map((page) => (page === about ? { ...page, body: `${page.body}\nOne more line.` } : page)) };
    const again = planSearch(edited, 'c');
    expect(again.shards.filter((shard, n) => shard.key !== plan.shards[n]!.key).map((shard) => shard.dir)).toEqual([PAGES_INDEX]);
    // A draft is not searched; without a published page there is no pages' index.
    const drafted = planSearch({ ...catalogue, pages: catalogue.pages.map((page) => ({ ...page, draft: true })) }, 'c');
    expect(drafted.shards.map((shard) => shard.dir)).toEqual(talkShards(plan).map((shard) => shard.dir));
  });
});

let revision = 0;
/** A talk changed as a new read of its file gives it: a new object with a new rev. */
const editTalk = (id: number, change: Partial<CatalogueTalk>) => (c: Catalogue): Catalogue => ({
  ...c,
  talks: c.talks.map((t) => (t.id === id ? { ...t, ...change, rev: `${t.rev}-${++revision}` } : t)),
});
const prints: Fingerprints = { code: 'c', templates: { talk: 't1', listing: 'l1' } };
/** Planned from scratch: a new list of the same talks is indexed again, not looked up. */
const fresh = (c: Catalogue, p = prints) => JSON.stringify(planSite({ ...c, talks: [...c.talks] }, p, true));
/** Edits in sequence, each from the catalogue the last one left. */
const steps = (): [string, (c: Catalogue) => Catalogue][] => {
  const firstEvent = catalogue.events[0]!;
  const secondEvent = catalogue.events[1]!;
  return [
    ['nothing', (c) => c],
    ['a duration', editTalk(12, { duration: 12_345 })],
    ['a title that moves the talk in its lists', editTalk(12, { title: 'Zz: last of all' })],
    ['tags', editTalk(12, { tags: ['a-tag-of-its-own'] })],
    ['speakers', editTalk(13, { speakers: ['Someone Else', ...(catalogue.talks.find((t) => t.id === 13)?.speakers ?? [])] })],
    ['the recording date, which orders every list', editTalk(14, { recorded: '1999-01-01' })],
    ['a talk made a draft', editTalk(12, { state: 2 })],
    ['a talk moved to another event', (c) => editTalk(14, { event: c.talks.find((t) => t.id === 14)!.event === secondEvent.slug ? firstEvent.slug : secondEvent.slug })(c)],
    ['a talk removed', (c) => ({ ...c, talks: c.talks.filter((t) => t.id !== 13) })],
    ['an event renamed', (c) => ({ ...c, events: c.events.map((e) => (e.slug === firstEvent.slug ? { ...e, title: 'Renamed', rev: `${e.rev}-${++revision}` } : e)) })],
  ];
};

describe('planSite with a memo', () => {
  it('plans what a plan without one does, after each change of a sequence', () => {
    const memo = new PlanMemo();
    const withMemo = (c: Catalogue, p = prints) => JSON.stringify(planSite(c, p, true, memo));
    let current = catalogue;
    for (const [name, change] of steps()) {
      current = change(current);
      expect(withMemo(current), name).toBe(fresh(current));
    }
    const otherTemplate = { ...prints, templates: { ...prints.templates, talk: 't2' } };
    expect(withMemo(current, otherTemplate)).toBe(fresh(current, otherTemplate));
  });

  it("plans the parts an edit did not touch once, and the edited talk's parts again", () => {
    const memo = new PlanMemo();
    const first = planSite(catalogue, prints, true, memo);
    const edited = editTalk(12, { duration: 12_345 })(catalogue);
    const second = planSite(edited, prints, true, memo);
    const job = (plan: SitePlan, id: number) => plan.parts.flatMap((p) => p.talks).find((j) => j.talk.id === id)!;
    const event = catalogue.talks.find((t) => t.id === 12)!.event;
    const elsewhere = catalogue.talks.find((t) => t.state === 1 && t.event !== event)!;
    expect(job(second, elsewhere.id)).toBe(job(first, elsewhere.id));
    expect(job(second, 12)).not.toBe(job(first, 12));
    expect(job(second, 12).outputs[0]!.key).not.toBe(job(first, 12).outputs[0]!.key);
    const listing = (plan: SitePlan, path: string) => plan.parts.flatMap((p) => p.pages).find((p) => p.path === path)!;
    const without12 = first.parts.flatMap((p) => p.pages).find((p) => p.kind === 'page' && p.template === 'listing' && !p.input.talks.some((link) => link.id === 12))!;
    expect(listing(second, without12.path)).toBe(without12);
    const ownEvent = `events/${event}/index.html`;
    expect(listing(second, ownEvent).key).not.toBe(listing(first, ownEvent).key);
  });
});

describe('planParts with the signatures of the last plan', () => {
  const plan = (c: Catalogue, known: ReadonlyMap<string, { signature?: string }> = new Map(), p = prints) => [...planParts(c, p, true, undefined, undefined, known)];
  const byName = (parts: Part[]) => new Map(parts.map((part) => [part.name, part]));
  /** A part's files and their keys. */
  const files = (part: Part) => [...part.talks.flatMap((job) => job.outputs), ...part.pages].map((o) => `${o.path} ${o.key}`);

  it("signs the events' and the terms' parts, and keeps them all when nothing changed, gathering from them what a plan gives", () => {
    const first = plan(catalogue);
    const signed = first.filter((part) => part.signature);
    expect(new Set(signed.map((part) => part.name.split('\0')[0]))).toEqual(new Set(['event', 'speaker', 'tag', 'language']));
    expect(signed.length).toBeGreaterThan(first.length / 2);
    const again = plan(catalogue, byName(first));
    expect(again.filter((part) => part.kept).map((part) => part.name)).toEqual(signed.map((part) => part.name));
    expect(again.filter((part) => part.kept).every((part) => part.talks.length === 0 && part.pages.length === 0)).toBe(true);
    // The sitemaps and the events page, made from what every part gives, come out the same.
    expect(JSON.stringify(again.filter((part) => !part.kept))).toBe(JSON.stringify(first.filter((part) => !part.signature)));
  });

  it('after each change of a sequence, keeps only parts whose files a plan from scratch gives the same keys, and plans the others as it does', () => {
    let current = catalogue;
    let last = plan(current);
    for (const [name, change] of steps()) {
      current = change(current);
      const known = byName(last);
      const next = plan(current, known);
      const scratch = byName(JSON.parse(fresh(current)).parts as Part[]);
      for (const part of next) {
        const made = scratch.get(part.name)!;
        if (part.kept) expect(files(known.get(part.name)!), `${name}: ${part.name}`).toEqual(files(made));
        else expect(JSON.stringify(part.talks), `${name}: ${part.name}`).toBe(JSON.stringify(made.talks));
        expect(part.sitemap, `${name}: ${part.name}`).toEqual(made.sitemap);
      }
      expect(next.map((part) => part.name)).toEqual([...scratch.keys()]);
      if (name === 'a duration') {
        const event = current.talks.find((t) => t.id === 12)!.event;
        expect(next.filter((part) => part.name.startsWith('event\0') && !part.kept).map((part) => part.name)).toEqual([`event\0${event}`]);
      }
      // The next step's signatures: a kept part keeps the last one's files.
      last = next.map((part) => (part.kept ? { ...known.get(part.name)!, signature: part.signature } : part));
    }
  });

  it('plans every part again under other templates', () => {
    const first = plan(catalogue);
    const other = plan(catalogue, byName(first), { ...prints, templates: { ...prints.templates, talk: 't2' } });
    expect(other.some((part) => part.kept)).toBe(false);
  });
});

describe('planParts', () => {
  it('gives the parts in their order: the sitemaps follow it, and the last part is made from those before it', () => {
    const redirects = [{ redirects: [{ from: '/speakers.html', to: '/speakers/' }], file: 'content/_redirects/old.yaml', name: '_redirects/old.yaml', rev: 'r' }];
    const parts = [...planParts({ ...catalogue, redirects }, prints)];
    const kinds = parts.map((part) => part.name.split('\0')[0]).filter((kind, i, all) => kind !== all[i - 1]);
    expect(kinds).toEqual(['event', 'speaker', 'tag', 'language', 'all', 'video-lists', 'speaker-lists', 'speaker-index', 'tag-index', 'language-index', 'category', 'category-lists', 'page', 'redirects', 'site']);
    const sitemapOf = parts.at(-1)!.pages.flatMap((page) => (page.kind === 'sitemap' ? page.input.map((entry) => entry.path) : []));
    expect(sitemapOf.slice(6)).toEqual(parts.flatMap((part) => part.sitemap.map((entry) => entry.path)));
  });
});

describe('planSite', () => {
  it('lists every page in the sitemaps once, the speakers index by letter included', () => {
    // Past TERMS_ON_ONE_PAGE, the speakers index is a page per letter.
    const many: Catalogue = { ...catalogue, talks: catalogue.talks.map((t, i) => ({ ...t, speakers: Array.from({ length: 12 }, (_, n) => `${String.fromCharCode(97 + ((i + n) % 26))}lice ${i}-${n}`) })) };
    const pages = planSite(many, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const listed = pages.flatMap((p) => (p.kind === 'sitemap' ? p.input.map((e) => e.path) : []));
    expect(new Set(listed).size).toBe(listed.length);
    // Pages are planned as the files they are written to.
    const templated = pages.flatMap((p) => (p.kind === 'page' && !['not-found', 'search'].includes(p.template) ? [`/${p.path.replace(/index\.html$/, '')}`] : []));
    expect(templated.filter((p) => p.startsWith('/speakers/')).length).toBeGreaterThan(10);
    expect(templated.filter((p) => !listed.includes(p))).toEqual([]);
  });
});

describe('planSite: folders of items', () => {
  it("leads the folder of each kind of item's pages to the index of its kind, where every such index is a page", () => {
    const pages = planSite(catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const targets = Object.fromEntries(pages.flatMap((p) => (p.kind === 'redirect' && /^[a-z]+\/index\.html$/.test(p.path) ? [[p.path, p.input.target]] : [])));
    expect(targets).toEqual({ 'speaker/index.html': '/speakers/', 'tag/index.html': '/tags/', 'language/index.html': '/languages/', 'video/index.html': '/talks/' });
    const planned = new Set(pages.map((p) => p.path));
    for (const target of Object.values(targets)) expect(planned.has(`${target.slice(1)}index.html`), target).toBe(true);
  });
});

describe('planSite: events', () => {
  it('are newest first by their start date, else by their talks\' first recording date, on the home page and in their series', () => {
    // As most of pyvideo's events: no start_date.
    const undated: Catalogue = { ...catalogue, events: catalogue.events.map((e) => ({ ...e, start_date: null, end_date: null })) };
    const pages = planSite(undated, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const input = (file: string) => (pages.find((p) => p.path === file) as { input: unknown }).input;
    const first = (slug: string) => catalogue.talks.filter((t) => t.event === slug && t.state === 1 && t.recorded).map((t) => t.recorded!).sort()[0]!;
    const newestFirst = catalogue.events.map((e) => e.slug).sort((a, b) => (first(a) < first(b) ? 1 : -1));
    expect((input('index.html') as PageInputs['home']).events.map((e) => e.slug)).toEqual(newestFirst);
    expect((input('events/index.html') as PageInputs['events']).series.flatMap((s) => s.events.map((e) => e.slug))).toEqual(newestFirst);
  });
});

describe("planSite: an event's programme", () => {
  it('is cut into pages of EVENT_PAGE_SIZE talks past one page, each in the sitemap and showing the whole event\'s count and dates', () => {
    // 5,000 talks on one page made a page of 820 KB and 5,000 links.
    const model = catalogue.talks.find((t) => t.state === 1)!;
    const talks = Array.from({ length: EVENT_PAGE_SIZE + 1 }, (_, i) => ({ ...model, id: 100_000 + i, slug: `t-${i}`, name: `${model.event}/videos/t-${i}.yaml`, rev: `r${i}`, recorded: `2020-01-${String(1 + (i % 28)).padStart(2, '0')}` }));
    const big: Catalogue = { ...catalogue, talks: [...catalogue.talks.filter((t) => t.event !== model.event), ...talks] };
    const pages = planSite(big, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const eventPages = pages.flatMap((p) => (p.kind === 'page' && p.template === 'event' && p.path.startsWith(`events/${model.event}/`) ? [[p.path, p.input as PageInputs['event']] as const] : []));
    expect(eventPages.map(([path]) => path)).toEqual([`events/${model.event}/index.html`, `events/${model.event}/page/2/index.html`]);
    // In programme order, every talk once.
    expect(eventPages.flatMap(([, input]) => input.talks.map((t) => t.id))).toEqual([...talks].sort((a, b) => (a.recorded! < b.recorded! ? -1 : a.recorded! > b.recorded! ? 1 : a.id - b.id)).map((t) => t.id));
    for (const [, input] of eventPages) expect([input.total, input.recordedFrom, input.recordedTo, input.page.count]).toEqual([EVENT_PAGE_SIZE + 1, '2020-01-01', '2020-01-28', 2]);
    const listed = pages.flatMap((p) => (p.kind === 'sitemap' ? p.input.map((e) => e.path) : []));
    expect(listed.filter((path) => path.startsWith(`/events/${model.event}/`))).toEqual([`/events/${model.event}/`, `/events/${model.event}/page/2/`]);
  });
});

describe('planSite: the A–Z indexes', () => {
  /** The terms pages of a catalogue whose talks have these speakers and tags, by path. */
  const termsPages = (speakers: (i: number) => string[], tags: string[]) => {
    const c: Catalogue = { ...catalogue, talks: catalogue.talks.map((t, i) => ({ ...t, speakers: speakers(i), tags })) };
    const pages = planSite(c, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    return new Map(pages.flatMap((p) => (p.kind === 'page' && p.template === 'terms' ? [[p.path, p.input as { letters: { label: string }[]; groups: { heading: string; terms: { name: string }[] }[] }] as const] : [])));
  };
  // Names not spelt in Latin letters have slugs `u-<hash>`, which sort among the U's.
  const unspelt = ['山田 太郎', '木村 優子', '王 小明'];

  it('gathers each section once, 0-9 first and Other last, on one page', () => {
    const tags = termsPages(() => ['U Ba Win'], ['U-Boot', '日本語', 'tests', 'ไทย', '3d', 'unicode', '中文', 'zope', '한국어', 'עברית']).get('tags/index.html')!;
    expect(tags.letters.map((l) => l.label)).toEqual(['0-9', 'T', 'U', 'Z', 'Other']);
    expect(tags.groups.map((g) => [g.heading, g.terms.map((t) => t.name)])).toEqual([
      ['0-9', ['3d']],
      ['T', ['tests']],
      ['U', ['U-Boot', 'unicode']],
      ['Z', ['zope']],
      // By the names' scripts and letters (Unicode's root collation), not by their slugs' hashes.
      ['Other', ['עברית', 'ไทย', '한국어', '中文', '日本語']],
    ]);
  });

  it('writes one page per section, each speaker on one of them, past one page of speakers', () => {
    const many = (i: number) => [...Array.from({ length: 12 }, (_, n) => `u${String.fromCharCode(97 + n)} ${i}`), `U Ba Win ${i}`, unspelt[i % 3]!];
    const pages = termsPages(many, []);
    const index = pages.get('speakers/index.html')!;
    expect(index.letters.map((l) => l.label)).toEqual(['U', 'Other']);
    const sections = [...pages].filter(([path]) => /^speakers\/[^/]+\/index\.html$/.test(path));
    expect(sections.map(([path]) => path)).toEqual(['speakers/u/index.html', 'speakers/other/index.html']);
    const listed = sections.flatMap(([, page]) => page.groups.flatMap((g) => g.terms.map((t) => t.name)));
    expect(listed.length).toBe(new Set(listed).size);
    expect(new Set(listed)).toEqual(new Set(catalogue.talks.flatMap((t, i) => (t.state === 1 ? many(i) : []))));
  });

  /** The live talks' count, and `per` names for each live talk, all under A. */
  const live = () => catalogue.talks.filter((t) => t.state === 1).length;
  const underA = (per: number) => (i: number) => Array.from({ length: per }, (_, n) => `Ada ${i}-${n}`);

  it("cuts a letter of more than TERMS_PAGE_SIZE speakers into pages, as an event's programme, each in the sitemap, every speaker on one of them", () => {
    // 2,000 speakers under one letter made a page of 220 KB (pyvideo's A has 1,420).
    const per = Math.ceil((2 * TERMS_PAGE_SIZE + 1) / live());
    const c: Catalogue = { ...catalogue, talks: catalogue.talks.map((t, i) => ({ ...t, speakers: underA(per)(i) })) };
    const pages = planSite(c, { code: '', templates: {} }).parts.flatMap((p) => p.pages);
    const letterA = pages.flatMap((p) => (p.kind === 'page' && p.template === 'terms' && p.path.startsWith('speakers/a/') ? [[p.path, p.input as PageInputs['terms']] as const] : []));
    expect(letterA.map(([path]) => path)).toEqual(['speakers/a/index.html', 'speakers/a/page/2/index.html', 'speakers/a/page/3/index.html']);
    for (const [, input] of letterA) expect([input.path, input.total, input.page.count, input.groups[0]!.terms.length <= TERMS_PAGE_SIZE]).toEqual(['/speakers/a/', live() * per, 3, true]);
    const names = letterA.flatMap(([, input]) => input.groups[0]!.terms.map((t) => t.name));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(live() * per);
    const listed = pages.flatMap((p) => (p.kind === 'sitemap' ? p.input.map((e) => e.path) : []));
    expect(listed.filter((path) => path.startsWith('/speakers/a/'))).toEqual(['/speakers/a/', '/speakers/a/page/2/', '/speakers/a/page/3/']);
  });

  it('gives tags past TERMS_ON_ONE_PAGE a page per letter, as speakers, each in the sitemap', () => {
    // 2,696 tags on pyvideo.org's catalogue, which made /tags/ one page of them all.
    const tags = Array.from({ length: TERMS_ON_ONE_PAGE + 1 }, (_, n) => `${String.fromCharCode(97 + (n % 2))}-tag-${n}`);
    const index = termsPages(() => ['Ada'], tags);
    expect(index.get('tags/index.html')!.letters.map((l) => l.label)).toEqual(['A', 'B']);
    expect(index.get('tags/index.html')!.groups).toEqual([]);
    expect([...index.keys()].filter((path) => path.startsWith('tags/'))).toEqual(['tags/index.html', 'tags/a/index.html', 'tags/b/index.html']);
    expect(index.get('tags/b/index.html')!.groups.map((g) => [g.heading, g.terms.length])).toEqual([['B', TERMS_ON_ONE_PAGE / 2]]);
  });
});

describe('planSite: feeds', () => {
  it("carry each talk's excerpt, never its whole description: 50 talks of 200 KB descriptions make a feed of tens of KB, as docs/site.md says", async () => {
    const content = await tempDir('vc-plan-feeds-');
    await mkdir(path.join(content, 'conf', 'videos'), { recursive: true });
    await writeFile(path.join(content, 'conf', 'category.yaml'), 'title: Conf\n');
    const description = 'A long description. '.repeat(10_000);
    for (let id = 1; id <= 50; id++) {
      await writeFile(path.join(content, 'conf', 'videos', `t-${id}.json`), JSON.stringify({ id, title: `Talk ${id}`, description, recorded: '2024-01-01', added: '2024-01-01T00:00:00', updated: '2024-01-01T00:00:00.000' }));
    }
    const loaded = await loadContent(content);
    expect(loaded.errors).toEqual([]);
    const feeds = planSite(loaded.catalogue, { code: '', templates: {} }).parts.flatMap((p) => p.pages.flatMap((job) => (job.kind === 'feed' && job.path === FEED_FILES[job.format] ? [job] : [])));
    expect(feeds).toHaveLength(3);
    for (const job of feeds) {
      const feed = renderFeed(job.format, job.input, { baseUrl: 'https://talks.example.org', name: 'Talks' });
      expect(feed.length, job.format).toBeLessThan(50 * 1000);
      expect(job.input.items.every((item) => item.summary.length <= 301), job.format).toBe(true);
    }
  });
});

describe("planSite: the site's own pages", () => {
  const prints: Fingerprints = { code: 'c', templates: { page: 't' } };
  const pageJobs = (plan: SitePlan) => plan.parts.flatMap((p) => p.pages).filter((job) => job.kind === 'page' && job.template === 'page');
  const withAbout = (change: Partial<Catalogue['pages'][number]>): Catalogue => ({ ...catalogue, pages: catalogue.pages.map((page) => ({ ...page, ...change })) });

  it('plans a page at /<slug>/ with the page template, listed in the sitemap without a date', () => {
    const plan = planSite(catalogue, prints);
    expect(pageJobs(plan).map((job) => [job.path, job.kind === 'page' && job.input])).toEqual([
      ['about/index.html', { slug: 'about', title: 'About this catalogue', description: catalogue.pages[0]!.description, body: catalogue.pages[0]!.body, name: '_pages/about.md' }],
    ]);
    const sitemap = plan.parts.flatMap((p) => p.sitemap);
    expect(sitemap.filter((entry) => entry.path === '/about/')).toEqual([{ path: '/about/', lastmod: null }]);
  });

  it('moves the key of the page alone when its text changes, and plans nothing for a page that is gone', () => {
    const keys = (plan: SitePlan) => new Map(plan.parts.flatMap((p) => p.pages).filter((job) => job.kind !== 'sitemap' && job.kind !== 'sitemap-index').map((job) => [job.path, job.key]));
    const before = keys(planSite(catalogue, prints));
    const after = keys(planSite(withAbout({ body: 'Another text.\n' }), prints));
    expect([...after].filter(([path, key]) => before.get(path) !== key).map(([path]) => path)).toEqual(['about/index.html']);
    const none = planSite({ ...catalogue, pages: [] }, prints);
    expect(pageJobs(none)).toEqual([]);
    expect(none.parts.flatMap((p) => p.sitemap).some((entry) => entry.path === '/about/')).toBe(false);
  });

  it("dates a page's sitemap entry when the page gives its date", () => {
    const sitemap = planSite(withAbout({ updated: '2026-11-20' }), prints).parts.flatMap((p) => p.sitemap);
    expect(sitemap.filter((entry) => entry.path === '/about/')).toEqual([{ path: '/about/', lastmod: '2026-11-20' }]);
  });

  it('plans nothing for a draft: no file, no sitemap entry', () => {
    const draft = planSite(withAbout({ draft: true }), prints);
    expect(pageJobs(draft)).toEqual([]);
    expect(draft.parts.flatMap((p) => p.sitemap).some((entry) => entry.path === '/about/')).toBe(false);
    expect(JSON.stringify(draft)).toBe(JSON.stringify(planSite({ ...catalogue, pages: [] }, prints)));
  });
});
