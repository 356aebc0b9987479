// What the site is made of: every output file, with the inputs it is rendered
// from and a key that changes whenever those inputs change. Pure and cheap: it
// renders nothing, so an incremental build can compare keys and render only
// the outputs whose key moved.
import { aliasFile, isLive, type Catalogue, type CatalogueTalk } from './load.ts';
import { byEventDate, byNewest, byProgramme, talkLink, talkPath, type EventPageInput, type HomeInput, type TalkLink, type TalkPageInput } from './render.ts';

/** One file of the output, and the key of what it is made from. */
export interface OutputSpec {
  path: string;
  key: string;
}

export type TalkOutput = OutputSpec & ({ kind: 'record' } | { kind: 'page' } | { kind: 'redirect'; target: string });

/** A talk and the files made from it: its API record, its page, its short link and its old addresses. */
export interface TalkJob extends Omit<TalkPageInput, 'talk'> {
  /** The catalogue's digest: whoever renders the job reads the full record. */
  talk: CatalogueTalk;
  outputs: TalkOutput[];
}

export type PageJob = OutputSpec & ({ kind: 'home'; input: HomeInput } | { kind: 'event'; input: EventPageInput } | { kind: 'not-found' });

export interface SitePlan {
  talks: TalkJob[];
  pages: PageJob[];
}

/** Short fingerprints of the code and templates each kind of output is made with. */
export interface Fingerprints {
  code: string;
  /** By template name; layout-based templates include the layout's. */
  templates: Record<string, string>;
}

export const NEWEST_ON_HOME = 20;

/**
 * What identifies a file's contribution to an output: the hash of its bytes and
 * its path, since the path gives a talk its slug and event (a renamed file has
 * the same bytes but another address).
 */
const token = (origin: { rev: string; name: string }) => `${origin.rev}${origin.name}`;

export function planSite(catalogue: Catalogue, prints: Fingerprints): SitePlan {
  const t = (name: string) => `${prints.code}${prints.templates[name] ?? ''}`;
  const events = new Map(catalogue.events.map((e) => [e.slug, e]));
  const byEvent = new Map<string, CatalogueTalk[]>();
  for (const talk of catalogue.talks) {
    if (!isLive(talk)) continue;
    (byEvent.get(talk.event) ?? byEvent.set(talk.event, []).get(talk.event)!).push(talk);
  }

  const talks: TalkJob[] = [];
  const pages: PageJob[] = [];
  for (const [slug, list] of byEvent) {
    const event = events.get(slug)!;
    const eventInfo = { slug: event.slug, title: event.title, start_date: event.start_date, end_date: event.end_date };
    const links = list.map(talkLink);
    const order = links.map((_, i) => i).sort((a, b) => byProgramme(links[a]!, links[b]!));
    order.forEach((index, position) => {
      const talk = list[index]!;
      const prevTalk = position > 0 ? list[order[position - 1]!] : undefined;
      const nextTalk = position < order.length - 1 ? list[order[position + 1]!] : undefined;
      const base = `${token(talk)}${token(event)}`;
      const outputs: TalkOutput[] = [
        { kind: 'record', path: `api/v2/video/${talk.id}`, key: `${prints.code}${base}` },
        { kind: 'page', path: `video/${talk.id}/${talk.slug}/index.html`, key: `${t('talk')}${base}${prevTalk ? token(prevTalk) : '-'}${nextTalk ? token(nextTalk) : '-'}` },
        { kind: 'redirect', path: `video/${talk.id}/index.html`, key: `${t('redirect')}${token(talk)}`, target: talkPath(talk) },
        ...talk.aliases.map((alias) => ({ kind: 'redirect' as const, path: aliasFile(alias), key: `${t('redirect')}${token(talk)}`, target: talkPath(talk) })),
      ];
      talks.push({
        talk,
        event: eventInfo,
        prev: prevTalk && links[order[position - 1]!],
        next: nextTalk && links[order[position + 1]!],
        outputs,
      });
    });
    const ordered = order.map((i) => links[i]!);
    pages.push({
      kind: 'event',
      path: `events/${slug}/index.html`,
      key: `${t('event')}${token(event)}${order.map((i) => token(list[i]!)).join('')}`,
      input: { event, talks: ordered },
    });
  }
  talks.sort((a, b) => a.talk.id - b.talk.id);

  const listed = catalogue.events.filter((e) => byEvent.has(e.slug)).sort(byEventDate);
  const newest = newestTalks(catalogue.talks.filter(isLive), NEWEST_ON_HOME);
  const liveCount = talks.length;
  pages.push({
    kind: 'home',
    path: 'index.html',
    key: `${t('home')}${liveCount}|${listed.map((e) => `${token(e)}${byEvent.get(e.slug)!.length}`).join('')}|${newest.map(token).join('')}`,
    input: {
      talkCount: liveCount,
      events: listed.map((e) => ({ slug: e.slug, title: e.title, start_date: e.start_date, end_date: e.end_date, talkCount: byEvent.get(e.slug)!.length })),
      newest: newest.map(talkLink),
    },
  });
  pages.push({ kind: 'not-found', path: '404.html', key: t('404') });
  return { talks, pages };
}

/** The `count` newest talks, without sorting the whole catalogue. */
function newestTalks(talks: CatalogueTalk[], count: number): CatalogueTalk[] {
  const top: CatalogueTalk[] = [];
  for (const talk of talks) {
    if (top.length === count && byNewest(talk, top[count - 1]!) >= 0) continue;
    top.push(talk);
    top.sort(byNewest);
    if (top.length > count) top.pop();
  }
  return top;
}

