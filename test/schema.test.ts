import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { acceptedTalk, aliasProblem, eventSchema, siteSchema, talkSchema, textProblems } from '../src/schema.ts';
import { parseSource } from '../src/source.ts';
import { DEMO_CONTENT } from './helpers.ts';

const base = { id: 1, title: 'A talk', added: '2024-05-03T10:00:00', updated: '2024-05-03T10:00:00.000' };
const messages = (input: unknown) => {
  const r = talkSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('acceptedTalk', () => {
  it('gives a record the schema accepted what the schema gives, field for field and in its order, without checking it again', async () => {
    const records: Record<string, unknown>[] = [
      base,
      { ...base, updated: '2024-05-03T10:00:00', related_urls: ['https://example.org/slides', { label: 'Code', url: 'https://example.org/code' }] },
      { ...base, category: 'An event', slug: 'a-talk', state: 2, speakers: ['Ada'], tags: ['a'], duration: 60, video_mp4_url: 'https://example.org/v.mp4', video_mp4_length: 10, recorded: null },
    ];
    for (const file of await fg('*/videos/*', { cwd: DEMO_CONTENT })) {
      const parsed = parseSource(file, await readFile(path.join(DEMO_CONTENT, file)));
      if (parsed.ok) records.push(parsed.doc.value as Record<string, unknown>);
    }
    expect(records.length).toBeGreaterThan(10);
    for (const record of records) expect(JSON.stringify(acceptedTalk(record))).toBe(JSON.stringify(talkSchema.parse(record)));
    // Defaults are not shared between talks.
    const [one, other] = [acceptedTalk(base), acceptedTalk(base)];
    expect(one.speakers).not.toBe(other.speakers);
  });
});

describe('talk schema', () => {
  it('fills the defaults of the contract', () => {
    const talk = talkSchema.parse(base);
    expect(talk).toMatchObject({
      language: 'English',
      speakers: [],
      tags: [],
      state: 1,
      summary: '',
      embed: '',
      thumbnail_url: '',
      duration: null,
      video_ogv_url: null,
      video_ogv_length: null,
      video_ogv_download_only: false,
      recorded: null,
      related_urls: [],
    });
  });

  it('keeps speakers and tags exactly as written', () => {
    const talk = talkSchema.parse({ ...base, tags: ['  web', 'django.', 'Testing', 'testing'], speakers: [' Zoë '] });
    expect(talk.tags).toEqual(['  web', 'django.', 'Testing', 'testing']);
    expect(talk.speakers).toEqual([' Zoë ']);
  });

  it('says an empty item of a list is empty, and what to write in it, where a field left empty is told to be given a value', () => {
    expect(messages({ ...base, speakers: [null, 'Bob'], tags: ['a', null], aliases: [null], related_urls: [null] })).toEqual([
      `speakers.0: is an empty item ("-" with nothing after it, or null); write the speaker's name there, or remove the item`,
      'tags.1: is an empty item ("-" with nothing after it, or null); write the tag there, or remove the item',
      'related_urls.0: is an empty item ("-" with nothing after it, or null); write a URL there, or remove the item',
      'aliases.0: is an empty item ("-" with nothing after it, or null); write an old address such as "/old/path.html" there, or remove the item',
    ]);
    expect(messages({ ...base, speakers: null })).toEqual(['speakers: expected a list of strings, got null (as a name with no value after it is); give it a value, or remove the field']);
    expect(eventSchema.safeParse({ title: 'An event', aliases: [null] }).error?.issues.map((i) => i.message)).toEqual([
      'is an empty item ("-" with nothing after it, or null); write an old address such as "/old/path.html" there, or remove the item',
    ]);
  });

  it('says how to write a list given as one value or as a mapping, and an item of it given as a mapping', () => {
    const asList = 'write it as a list: each item on a line of its own under the field, after "- " (in JSON, ["…"])';
    expect(messages({ ...base, tags: { python: true }, related_urls: 'https://e.org/slides', aliases: '/old.html' })).toEqual([
      `tags: expected a list of strings, got a mapping; ${asList}`,
      `related_urls: expected a list of URLs, got a string; ${asList}`,
      `aliases: expected a list of site paths such as "/old/path.html", got a string; ${asList}`,
    ]);
    // "- name: Ada", or a colon in a tag, "- python: the good parts", are mappings.
    expect(messages({ ...base, speakers: [{ name: 'Ada' }], tags: [{ python: 'the good parts' }], related_urls: ['ftp://e.org/slides'] })).toEqual([
      `speakers.0: expected the speaker's name, got a mapping; write only the speaker's name, in quotes if it holds ": "`,
      'tags.0: expected the tag, got a mapping; write only the tag, in quotes if it holds ": "',
      'related_urls.0: expected an absolute http(s) URL such as "https://example.org/talk", or {label, url}',
    ]);
  });

  it('says to quote a number or true or false where text belongs, as YAML reads `title: 1984` or a tag `3.10` as a number', () => {
    const quote = 'write it in quotes ("…") to keep it as text';
    expect(messages({ ...base, title: true, category: 2024, tags: ['python', 3.1], summary: 12 })).toEqual([
      `category: expected the event's title, got a number; ${quote}`,
      `tags.1: expected a string, got a decimal number; ${quote}`,
      `title: expected a non-empty title, got true; ${quote}`,
      `summary: expected a string, got a number; ${quote}`,
    ]);
    expect(eventSchema.safeParse({ title: 1984 }).error?.issues.map((i) => i.message)).toEqual([`expected a non-empty title, got a number; ${quote}`]);
  });

  it('says the slug to write for one that is not a slug', () => {
    expect(messages({ ...base, slug: 'My_Talk' })).toEqual(['slug: expected lower-case letters, digits and hyphens only; write "my-talk"']);
    expect(messages({ ...base, slug: '日本' })).toEqual(['slug: expected lower-case letters, digits and hyphens only, e.g. "my-talk-title"']);
  });

  it("says which of true and false YAML 1.1's words mean, as YAML 1.2 reads them as text", () => {
    const fix = (given: string, meant: boolean) => [`video_mp4_download_only: expected true or false, got "${given}"; write ${meant}, without quotes`];
    for (const word of ['yes', 'Yes', 'on', 'true', 'y']) expect(messages({ ...base, video_mp4_url: 'https://e.org/t.mp4', video_mp4_download_only: word })).toEqual(fix(word, true));
    for (const word of ['no', 'OFF', 'false', 'n']) expect(messages({ ...base, video_mp4_download_only: word })).toEqual(fix(word, false));
    for (const word of ['maybe', 'constructor']) expect(messages({ ...base, video_mp4_download_only: word })).toEqual(['video_mp4_download_only: expected true or false, got a string']);
  });

  it('writes updated with milliseconds when they were left out', () => {
    expect(talkSchema.parse({ ...base, updated: '2024-05-03T10:00:00' }).updated).toBe('2024-05-03T10:00:00.000');
  });

  it('keeps signed media URLs byte for byte', () => {
    const url = 'https://b.s3.example.com/x.mp4?AWSAccessKeyId=AKIA&Expires=1767225600&Signature=abc%2Bdef%3D';
    expect(talkSchema.parse({ ...base, video_mp4_url: url }).video_mp4_url).toBe(url);
  });

  it('refuses a URL that WHATWG\'s parser reads otherwise than it is written, or that the API and feeds would publish broken, saying how to write it', () => {
    // new URL() takes each of these: https:///x as https://x/, a "\\" as "/", and "<", '"' and a space percent-encoded.
    expect(
      messages({
        ...base,
        source_url: 'https:///example.org/talk',
        thumbnail_url: 'http:/example.org/t.jpg',
        video_mp4_url: 'https://example.org/a\\b.mp4',
        video_webm_url: 'https://example.org/<b>.webm',
        video_ogv_url: 'https://example.org/"a".ogv',
        video_flv_url: 'https://example.org/a b.flv',
        related_urls: ['https://example.org/100%', { label: 'Slides', url: 'https://example.org/slides\u00a0' }, 'https://example.org/a\tb'],
      }),
    ).toEqual([
      'thumbnail_url: has "/" after "http:", where "//" and the host go; write "http://example.org/t.jpg"',
      'video_ogv_url: holds \'"\', which no URL can (browsers send it as %22, the API and feeds would publish it as written); write it as %22',
      'video_mp4_url: holds "\\", which browsers read as "/" and other clients do not; write "/" or %5C',
      'video_webm_url: holds "<", which no URL can (browsers send it as %3C, the API and feeds would publish it as written); write it as %3C',
      'video_flv_url: holds a space, which no URL can; write it as %20',
      'source_url: has "///" after "https:", where "//" and the host go; write "https://example.org/talk"',
      'related_urls.0: holds a "%" that starts no escape (%XX); write it as %25',
      'related_urls.1.url: has white space before or after it; remove it',
      'related_urls.2: holds U+0009, white space, which no URL can; write it as %09',
    ]);
    for (const ok of ['https://example.org/caf%C3%A9?q=a|b&s={x}', 'https://例え.jp/トーク', 'HTTP://EXAMPLE.ORG', 'https://[::1]:8080/x']) expect(messages({ ...base, source_url: ok }), ok).toEqual([]);
  });

  it('accepts related URLs as strings or labelled links', () => {
    const talk = talkSchema.parse({ ...base, related_urls: ['https://e.org/slides', { label: 'Code', url: 'https://e.org/code' }] });
    expect(talk.related_urls).toEqual([
      { label: 'https://e.org/slides', url: 'https://e.org/slides' },
      { label: 'Code', url: 'https://e.org/code' },
    ]);
    expect(messages({ ...base, related_urls: [{ label: 'Slides' }, { title: 'Code', url: 'https://e.org/code' }, { label: '', url: 'ftp://e.org' }] })).toEqual([
      'related_urls.0: expected a URL or {label, url}, got a mapping whose `url` is missing',
      'related_urls.1: expected a URL or {label, url}, got a mapping whose `label` is missing, `title` is not one of its fields',
      'related_urls.2.label: expected some text, got an empty string',
      'related_urls.2.url: expected an absolute http(s) URL such as "https://example.org/talk"',
    ]);
    // A page would show such a link as no text at all.
    expect(messages({ ...base, related_urls: [{ label: ' \t\u00a0', url: 'https://e.org/code' }, { label: ' Code ', url: 'https://e.org/code' }] })).toEqual([
      'related_urls.0.label: holds only white space; write the link\'s text, or give the URL alone (it is its own text)',
    ]);
  });

  it('rejects impossible dates and times', () => {
    expect(messages({ ...base, recorded: '2019-02-30' })).toEqual(['recorded: expected a real calendar date YYYY-MM-DD, got "2019-02-30"']);
    expect(messages({ ...base, recorded: '2020-02-29' })).toEqual([]);
    for (const added of ['2024-05-03T24:00:00', '2024-05-03T10:60:00', '2024-05-03T10:00:60']) expect(messages({ ...base, added })[0], added).toMatch(/^added: expected a real date-time/);
    // A malformed `added` is its own error only, not also an `updated` before it.
    expect(messages({ ...base, added: 'bogus' })).toEqual([expect.stringMatching(/^added: expected a real date-time/)]);
  });

  it('takes the years 0001 to 0099 as written, as the contract\'s YYYY-MM-DD and Python\'s dates do, and refuses year 0000 saying why', () => {
    // Date.UTC reads a year under 100 as 19xx: "0050-06-01" was refused as no real date.
    expect(messages({ ...base, recorded: '0050-06-01', added: '0001-01-01T00:00:00', updated: '0099-12-31T23:59:59.999' })).toEqual([]);
    expect(eventSchema.safeParse({ title: 'E', start_date: '0012-02-29', end_date: '0012-03-01' }).success).toBe(true);
    expect(messages({ ...base, recorded: '0013-02-29' })).toEqual(['recorded: expected a real calendar date YYYY-MM-DD, got "0013-02-29"']);
    expect(messages({ ...base, recorded: '0000-06-01', added: '0000-01-01T00:00:00', updated: '0000-01-01T00:00:00' })).toEqual([
      'recorded: expected a real calendar date YYYY-MM-DD, got "0000-06-01": years are counted from 0001, there is no year 0000',
      'added: expected a real date-time YYYY-MM-DDThh:mm:ss (no fraction, no zone), got "0000-01-01T00:00:00": years are counted from 0001, there is no year 0000',
      'updated: expected a real date-time YYYY-MM-DDThh:mm:ss, with or without .fff (no zone), got "0000-01-01T00:00:00": years are counted from 0001, there is no year 0000',
    ]);
  });

  it('enforces rule 2: a format without a URL has no length and is not download-only', () => {
    expect(messages({ ...base, video_flv_url: '', video_flv_length: 10, video_flv_download_only: true })).toEqual([
      'video_flv_length: must be null when video_flv_url is empty; add the URL or remove the length',
      'video_flv_download_only: must be false when video_flv_url is empty; add the URL or remove the flag',
    ]);
    expect(messages({ ...base, video_flv_url: 'https://e.org/a.flv', video_flv_length: 10, video_flv_download_only: true })).toEqual([]);
  });

  it('reports cross-field rules even when other fields are wrong too', () => {
    expect(messages({ ...base, title: 5, updated: '2024-05-02T10:00:00.000' })).toEqual([
      'title: expected a non-empty title, got a number; write it in quotes ("…") to keep it as text',
      'updated: is before added (2024-05-03T10:00:00); it must be the same or later',
    ]);
    // A decimal where a whole number belongs fails zod's z.int() in a way that stops the object's own checks.
    expect(messages({ ...base, id: 1.5, duration: 2.5, video_mp4_length: 9, updated: '2024-05-02T10:00:00.000' })).toEqual([
      'id: expected a positive whole number, got a decimal number',
      'duration: expected a whole number of seconds or null, got a decimal number',
      'video_mp4_length: must be null when video_mp4_url is empty; add the URL or remove the length',
      'updated: is before added (2024-05-03T10:00:00); it must be the same or later',
    ]);
    expect(messages({ ...base, id: 0 })).toEqual(['id: expected a positive whole number, got 0']);
    expect(messages({ ...base, id: 2 ** 53 + 2 })).toEqual([`id: expected a positive whole number, got ${2 ** 53 + 2}, past the largest whole number kept exactly (${Number.MAX_SAFE_INTEGER})`]);
  });

  it('takes old addresses as they read, in any script, and refuses what the server would not serve', () => {
    for (const ok of ['/pycon-us-2014/a-talk.html', '/video/7/old/', '/fosdem-2017/fosdem-2017-françois-revol.html', '/pycon-jp-2017/日本語のトーク.html', '/pycon-fr-2023/Introduction-a-Devops-(le-vrai).html']) {
      expect(messages({ ...base, aliases: [ok] }), ok).toEqual([]);
    }
    for (const bad of ['old/page.html', '/a%20b.html', '/a b.html', '/a?b=1', '/a#b', '/../x.html', '/.env', '/a/./b']) {
      expect(messages({ ...base, aliases: [bad] })[0], bad).toMatch(/^aliases\.0: expected a path on this site/);
    }
  });

  it("refuses an old address where the site's own pages and files are, or through a folder named like a page", () => {
    for (const [bad, problem] of [
      ['/', /is among the site's own pages and files \(\/index\.html\)/],
      ['/index.html', /\(\/index\.html\)/],
      ['/talks/', /\(\/talks\)/],
      ['/api/v2/video/7', /\(\/api\)/],
      ['/robots.txt/x.html', /\(\/robots\.txt\)/],
      ['/sitemap.xml.gz/', /\(\/sitemap\.xml\.gz\)/],
      ['/sitemap-12.xml/', /\(\/sitemap-12\.xml\)/],
      ['/old/page.html/', /goes through a folder named like a page/],
      ['/video/7/index.html/x', /goes through a folder named like a page/],
      ['/2019/talk.gz', /ends in \.br or \.gz/],
      ['/x y.html', /got "\/x y\.html": it holds a space, which a path on the site cannot$/],
      ['/caf%C3%A9/', /it is percent-encoded: write it as it reads/],
      // No escape: a "%" as it reads, which the server refuses in any path, encoded or not.
      ['/old/100%.html', /got "\/old\/100%\.html": it holds "%", which a path on the site cannot; write it out \("percent"\) or leave it out$/],
      ['/old/50%-off/', /it holds "%", which a path on the site cannot/],
      ['/talk?id=3', /it has a query \("\?"\)/],
      ['talks/old', /it does not start with "\/"/],
      ['/2019/talk.br/', /ends in \.br or \.gz/],
      ['/a/./b.html', /it has a "\." segment$/],
      ['/a/.git/b.html', /it names a hidden file or folder \("\.git"\)$/],
      ['/events/index.html', /\(\/events\)/],
      ['/events/old/', /\(\/events\)/],
      ['/events/2019/old.html', /\(\/events\)/],
      ['/events/old.html.gz', /\(\/events\)/],
      ['/assets/old.html', /\(\/assets\)/],
      ['/api/old.html', /\(\/api\)/],
      ['/video/', /\(\/video\/index\.html\)/],
      ['/video/index.html', /\(\/video\/index\.html\)/],
      ['/video', /\(\/video\/index\.html\)/],
    ] as const) {
      expect(messages({ ...base, aliases: [bad] }), bad).toEqual([expect.stringMatching(problem)]);
    }
    for (const ok of ['/talk/old/', '/videos/7/', '/talks.html', '/2019/talks/', '/2019.gz/talk/']) expect(messages({ ...base, aliases: [ok] }), ok).toEqual([]);
  });

  // Where case is ignored (macOS's and Windows's file systems), "/Index.html" is the home page's file.
  it("refuses those in any case of their letters, and an ending .html in another case, which would be a folder", () => {
    for (const [bad, problem] of [
      ['/Index.html', /^aliases\.0: "\/Index\.html" is among the site's own pages and files \(\/index\.html, where letter case is ignored, as on macOS and Windows\); choose a path outside them$/],
      ['/API/v2/video/7', /\(\/api, where letter case is ignored/],
      ['/Video/', /\(\/video\/index\.html, where letter case is ignored/],
      ['/CADDYFILE', /\(\/caddyfile, where letter case is ignored/],
      ['/Sitemap-2.XML/', /\(\/sitemap-2\.xml, where letter case is ignored/],
      ['/Events/old/', /\(\/events, where letter case is ignored/],
      ['/old/page.HTML/x', /goes through a folder named like a page/],
      ['/old/page.HTML', /^aliases\.0: "\/old\/page\.HTML" ends in "\.HTML", which names a folder here and a page's file \(\.html\) where letter case is ignored, as on macOS and Windows; write "\.html"$/],
      ['/2019/talk.GZ', /ends in \.br or \.gz/],
    ] as const) {
      expect(messages({ ...base, aliases: [bad] }), bad).toEqual([expect.stringMatching(problem)]);
    }
    for (const ok of ['/Talk/Old/', '/Old/Page.html']) expect(messages({ ...base, aliases: [ok] }), ok).toEqual([]);
  });

  // Where case is ignored, "/Events/" is the folder "/events/" the site writes: a file put there is "/events/…" on a copy made there.
  it("refuses a path into one of the site's own folders spelled otherwise", () => {
    for (const [bad, own, written, where] of [
      ['/Events/PyCon-US-2017.html', 'events', 'Events', 'where letter case is ignored, as on macOS and Windows'],
      ['/Video/12/old-talk/', 'video', 'Video', 'where letter case is ignored, as on macOS and Windows'],
      ['/vıdeo/12/old.html', 'video', 'vıdeo', 'where letter case is ignored, as on Windows, whose upper case of ı is I (macOS keeps ı apart)'],
    ] as const) {
      expect(messages({ ...base, aliases: [bad] }), bad).toEqual([`aliases.0: "${bad}" is in the site's own folder /${own}/ (/${written}/, ${where}); spell it /${own}/, or choose a path outside it`]);
    }
    expect(aliasProblem('/Tag/pytest/', true)).toBe(`"/Tag/pytest/" is in the site's own folder /tag/ (/Tag/, where letter case is ignored, as on macOS and Windows); spell it /tag/, or choose a path outside it`);
    expect(aliasProblem('/tag/PyTest/', true)).toBeUndefined();
  });

  // macOS folds case by Unicode's case folding and Windows by upper case, beyond ASCII: "ſ" is "s", "ı" is "I" there.
  it('refuses those in any case of letters beyond ASCII too', () => {
    const onWindows = 'where letter case is ignored, as on Windows, whose upper case of ı is I (macOS keeps ı apart)';
    for (const [bad, root, where] of [
      ['/ındex.html', '/index.html', onWindows],
      ['/ſearch/', '/search', 'where letter case is ignored, as on macOS and Windows'],
      ['/vıdeo/', '/video/index.html', onWindows],
    ] as const) {
      expect(messages({ ...base, aliases: [bad] }), bad).toEqual([`aliases.0: "${bad}" is among the site's own pages and files (${root}, ${where}); choose a path outside them`]);
    }
    // The root is named as written, whatever the rest of the path holds.
    expect(messages({ ...base, aliases: ['/api/café/'] })).toEqual([`aliases.0: "/api/café/" is among the site's own pages and files (/api); choose a path outside them`]);
  });

  it("takes a page directly in a list's folder, where the site writes only folders and index.html (pyvideo.org's /events/<slug>.html)", () => {
    for (const ok of ['/events/pycon-us-2017.html', '/speaker/guido-van-rossum.html', '/tag/python.html', '/talks/all.html']) expect(messages({ ...base, aliases: [ok] }), ok).toEqual([]);
  });

  it("gives an event old addresses, checked as a talk's", () => {
    expect(eventSchema.parse({ title: 'PyCon US 2017' }).aliases).toEqual([]);
    expect(eventSchema.parse({ title: 'PyCon US 2017', aliases: ['/events/pycon-us-2017.html', '/category/5/PyCon-US-2017'] }).aliases).toHaveLength(2);
    const r = eventSchema.safeParse({ title: 'PyCon US 2017', aliases: ['/events/old/'] });
    expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([expect.stringMatching(/^aliases\.0: .*is among the site's own pages and files \(\/events\)/)]);
  });

  // Past 255 bytes a name is no file or folder: check passed such content and the build failed with ENAMETOOLONG.
  it('refuses a slug or an old address with a part too long to be a file or folder name', () => {
    expect(messages({ ...base, slug: 's'.repeat(255) })).toEqual([]);
    expect(messages({ ...base, slug: 's'.repeat(256) })).toEqual(['slug: expected at most 255 characters (the slug names a folder), got 256']);
    expect(messages({ ...base, aliases: [`/old/${'é'.repeat(97)}.html`] })).toEqual([]);
    expect(messages({ ...base, aliases: [`/old/${'é'.repeat(98)}x.html`] })).toEqual([expect.stringMatching(/: its part "é+…" is 202 bytes long, past the 200 a file or folder name on the site may take$/)]);
    expect(messages({ ...base, aliases: [`/${'a'.repeat(201)}/x.html`] })).toHaveLength(1);
  });

  it('accepts only http(s) URLs', () => {
    // A space inside or at the end would parse (the URL class trims and escapes it), but is no address as written.
    for (const bad of ['javascript:alert(1)', 'ftp://e.org/x', '/relative', ' https://e.org', 'https://e.org/a b', 'https://e.org/x ', 'https://']) {
      expect(messages({ ...base, source_url: bad })).toHaveLength(1);
    }
    expect(messages({ ...base, source_url: 'HTTPS://e.org/x' })).toEqual([]);
  });

  it('checks languages against ISO 639-3 names and suggests the nearest', () => {
    expect(messages({ ...base, language: 'Spanish' })).toEqual([]);
    expect(messages({ ...base, language: 'english' })).toEqual([
      'language: unknown language "english": use an English language name from ISO 639-3 (did you mean "English"?)',
    ]);
  });

  it('allows only the states 1 and 2', () => {
    expect(messages({ ...base, state: 2 })).toEqual([]);
    expect(messages({ ...base, state: 0 })).toEqual(['state: expected 1 (live) or 2 (draft), got 0']);
  });
});

describe('event schema', () => {
  it('needs a title and orders its dates', () => {
    const r = eventSchema.safeParse({ start_date: '2024-05-02', end_date: '2024-05-01' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['title', 'end_date']);
  });
});

describe('site schema', () => {
  const editUrlProblems = (editUrl: string) => {
    const r = siteSchema.safeParse({ edit_url: editUrl });
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };

  it('takes an edit_url with {path} after the host, once or more, in its path or query', () => {
    for (const ok of ['https://github.com/you/talks/edit/main/content/{path}', 'https://git.example.org/edit?file={path}&view={path}', 'http://localhost:3000/{path}']) expect(editUrlProblems(ok), ok).toEqual([]);
  });

  it('refuses an edit_url without {path}, of another scheme, or with {path} in its host', () => {
    for (const bad of ['https://github.com/you/talks/edit/main/content/', 'javascript:alert(1)//{path}', '{path}', 'ftp://example.org/{path}']) expect(editUrlProblems(bad), bad).toEqual([expect.stringMatching(/^expected an absolute http\(s\) URL with \{path\}/)]);
    for (const bad of ['https://{path}/', 'https://{path}.example.org/edit', 'https://example.org{path}', 'https://{path}@example.org/']) expect(editUrlProblems(bad), bad).toEqual([expect.stringMatching(/^\{path\} is in the URL's host; put it in the path/)]);
  });
});

describe('textProblems', () => {
  it('names each string that is not text by its path, telling a control character, a noncharacter and half a pair apart', () => {
    expect(textProblems({ title: 'ok 🐍', speakers: ['Ada', 'B\ufffeo'], nested: { note: 'a\udc00b', bell: '\u0007' } })).toEqual([
      { path: ['speakers', 1], message: 'holds U+FFFE, a noncharacter no page or feed can carry; remove it' },
      { path: ['nested', 'note'], message: 'holds half of a character (the surrogate U+DC00, without its other half); write the whole character, or remove the escape' },
      { path: ['nested', 'bell'], message: 'holds U+0007, a control character no page or feed can carry; remove it' },
    ]);
    expect(textProblems({ del: 'a\u007f', c1: ['\u0080', 'x\u009fy'], ok: '\u00a0é' })).toEqual([
      { path: ['del'], message: 'holds U+007F, a control character no page or feed can carry; remove it' },
      { path: ['c1', 0], message: 'holds U+0080, a control character no page or feed can carry; remove it' },
      { path: ['c1', 1], message: 'holds U+009F, a control character no page or feed can carry; remove it' },
    ]);
    // Pages drop U+FDD0 to U+FDEF as they drop U+FFFE, and HTML calls every plane's last two code points a parse error.
    expect(textProblems({ arabic: 'a\ufdd0', last: '\ufdef', planes: ['\u{1fffe}', 'x\u{10ffff}'], ok: ['\ufdcf\ufdf0', '\u{1fffd}\u{20000}'] })).toEqual([
      { path: ['arabic'], message: 'holds U+FDD0, a noncharacter no page or feed can carry; remove it' },
      { path: ['last'], message: 'holds U+FDEF, a noncharacter no page or feed can carry; remove it' },
      { path: ['planes', 0], message: 'holds U+1FFFE, a noncharacter no page or feed can carry; remove it' },
      { path: ['planes', 1], message: 'holds U+10FFFF, a noncharacter no page or feed can carry; remove it' },
    ]);
  });
});

// Where two old addresses, or an old address and a page, would be one file: macOS's file systems take
// a letter as one however Unicode encodes it, and both they and Windows's ignore case beyond ASCII.
