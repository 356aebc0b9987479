import { describe, expect, it } from 'vitest';
import { chooseSlug, convertEvent, convertTalk, embedFor, evidenceOf, recordEvidence, eventPage, legacyRedirects, playerUrl, restBlockQuotes, restBlocks, restInlineText, restLineBlocks, restLinks, restMarkup, restPlainBlocks, type TalkContext } from '../src/pyvideo.ts';
import { renderMarkdown } from '../src/markdown.ts';
import { paragraphs } from '../src/render.ts';
import { talkSchema, textProblems } from '../src/schema.ts';

const ctx: TalkContext = {
  source: 'conf/videos/a-talk.json',
  folder: 'conf',
  eventTitle: 'Conf',
  stem: 'a-talk',
  id: 7,
  draft: false,
  slug: 'a-talk',
  added: '2026-01-01T00:00:00',
  updated: '2026-01-01T00:00:00.000',
};

const record = {
  title: 'A "talk" <about> things',
  speakers: ['Ada', 'Ada'],
  tags: [' web', 'django.'],
  language: 'spa',
  recorded: '2014-04-11T10:30:00',
  description: 'Text',
  summary: null,
  thumbnail_url: null,
  duration: 1800,
  videos: [
    { type: 'youtube', url: 'https://www.youtube.com/watch?v=GeQt7CxzmPo', length: 0 },
    { type: 'mp4', url: 'http://s3.example.org/a.mp4?Signature=a%2Bb&Expires=1&AWSAccessKeyId=K', size: 1234 },
    { type: 'webm', url: 'https://e.org/a.webm', length: 0 },
    { type: 'mp4', url: 'https://e.org/second.mp4' },
    { type: 'vimeo', url: 'https://vimeo.com/123' },
    { type: 'mkv', url: 'https://e.org/a.mkv', size: 99 },
  ],
  related_urls: ['https://e.org/slides', { label: 'Code', url: 'https://e.org/code' }, 'not a url'],
  alias: 'video/2558/old-slug',
};

function convert(source: unknown = record, context: Partial<TalkContext> = {}) {
  const result = convertTalk(source, { ...ctx, ...context });
  if (!result.ok) throw new Error(result.error);
  return result;
}

describe('convertTalk', () => {
  it('produces a record the build schema accepts', () => {
    expect(talkSchema.safeParse(convert().value).success).toBe(true);
  });

  it('maps ISO 639-3 codes to English names, and a missing language to English with a note', () => {
    expect(convert().value.language).toBe('Spanish');
    const missing = convert({ ...record, language: null });
    expect(missing.value.language).toBe('English');
    expect(missing.notes.map((n) => n.kind)).toContain('language missing → English');
  });

  it('reads ISO 639-1 and 639-2 codes and English names in any case, with a note, and refuses any other language', () => {
    const read = { fr: 'French', en: 'English', sh: 'Serbo-Croatian', ENG: 'English', Eng: 'English', ger: 'German', fre: 'French', chi: 'Chinese', English: 'English', spanish: 'Spanish', Mon: 'Mon', MON: 'Mongolian' };
    for (const [code, name] of Object.entries(read)) {
      const { value, notes } = convert({ ...record, language: code });
      expect(value.language).toBe(name);
      expect(notes.map((n) => n.kind)).toContain(`language "${code}" is not an ISO 639-3 code: read as ${name}`);
    }
    expect(convert({ ...record, language: 'mon' }).value.language).toBe('Mongolian');
    expect(convert().notes.map((n) => n.kind).filter((k) => k.startsWith('language'))).toEqual([]);
    expect(convert({ ...record, language: '' }).value.language).toBe('English');
    expect(convertTalk({ ...record, language: 'xx' }, ctx)).toEqual({ ok: false, error: 'language "xx" is neither an ISO 639 code nor the English name of a language' });
    expect(convertTalk({ ...record, language: 7 }, ctx)).toEqual({ ok: false, error: 'language 7 is neither an ISO 639 code nor the English name of a language' });
  });

  it('keeps the date of a recorded time, and turns null text and thumbnails into ""', () => {
    const { value, notes } = convert();
    expect(value.recorded).toBe('2014-04-11');
    expect(value.summary).toBe('');
    expect(value.thumbnail_url).toBe('');
    expect(notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['recorded: time of day dropped', 'summary null → ""', 'thumbnail_url null → ""']));
  });

  it('decodes the HTML character references a title was scraped with, and says so', () => {
    const { value, notes } = convert({ ...record, title: 'Python &amp; PySide: &quot;&lt;user&gt;&quot; &#8212; It&apos;s' });
    expect(value.title).toBe('Python & PySide: "<user>" — It\'s');
    expect(value.embed).toContain('title="Python &amp; PySide: &quot;&lt;user&gt;&quot; — It\'s"');
    expect(notes.map((n) => n.kind)).toContain('title: HTML character references decoded (&amp; → &)');
    // Text that only looks like one stays: no semicolon, or no such reference.
    const plain = convert({ ...record, title: 'AT&T &copy 2010 &nosuch; R&D' });
    expect(plain.value.title).toBe('AT&T &copy 2010 &nosuch; R&D');
    expect(plain.notes.map((n) => n.kind)).not.toContain('title: HTML character references decoded (&amp; → &)');
    expect(chooseSlug('Not A Slug', 'Python &amp; PySide', 1, new Set())).toBe('python-and-pyside');
  });

  it('keeps speakers and tags exactly as stored', () => {
    const { value } = convert();
    expect(value.speakers).toEqual(['Ada', 'Ada']);
    expect(value.tags).toEqual([' web', 'django.']);
  });

  it('fills formats from files, source and embed from the first hosted video, and places every other URL', () => {
    const { value } = convert();
    expect(value.video_mp4_url).toBe('http://s3.example.org/a.mp4?Signature=a%2Bb&Expires=1&AWSAccessKeyId=K');
    expect(value.video_mp4_length).toBe(1234);
    expect(value.video_webm_url).toBe('https://e.org/a.webm');
    expect(value.video_webm_length).toBeNull();
    expect(value.video_ogv_url).toBeNull();
    expect(value.source_url).toBe('https://www.youtube.com/watch?v=GeQt7CxzmPo');
    expect(value.embed).toBe(
      '<iframe src="https://www.youtube-nocookie.com/embed/GeQt7CxzmPo" title="A &quot;talk&quot; &lt;about&gt; things" allow="encrypted-media; picture-in-picture; fullscreen" allowfullscreen></iframe>',
    );
    expect(value.related_urls.map((r) => r.url)).toEqual([
      'https://e.org/slides',
      'https://e.org/code',
      'https://e.org/second.mp4',
      'https://vimeo.com/123',
      'https://e.org/a.mkv',
    ]);
    expect(value.whiteboard).toContain('not a url');
    for (const fmt of ['ogv', 'mp4', 'webm', 'flv'] as const) expect(value[`video_${fmt}_download_only`]).toBe(false);
  });

  it('counts media sizes that are not a whole positive number', () => {
    for (const size of ['1234', -5, 12.5]) {
      const { value, notes } = convert({ ...record, videos: [{ type: 'ogv', url: 'https://e.org/a.ogv', size }] });
      expect(value.video_ogv_length).toBeNull();
      expect(notes.map((n) => n.kind)).toContain('videos: ogv size not a whole positive number → null');
    }
    expect(convert({ ...record, videos: [{ type: 'ogv', url: 'https://e.org/a.ogv', size: 0 }] }).notes.map((n) => n.kind)).not.toContain('videos: ogv size not a whole positive number → null');
  });

  it('reads the evidence of a record as the talk it converts to holds it, so that a talk that left is matched with its record that came', () => {
    for (const source of [record, { ...record, videos: [{ type: 'webm', url: 'https://e.org/a.webm' }], recorded: null, title: 'Python &amp; PySide' }]) {
      expect(recordEvidence(source)).toEqual(evidenceOf(convert(source).value));
    }
    expect(recordEvidence(record)).toEqual({ title: record.title, recorded: '2014-04-11', video: 'https://www.youtube.com/watch?v=GeQt7CxzmPo' });
    expect(recordEvidence({ videos: [] })).toBeUndefined();
  });

  it("drops a media size that is the talk's duration (FOSDEM 2018's four talks), and counts it", () => {
    // Their `length` (pyvideo's deprecated size in bytes) holds the talk's seconds: a 50-minute video is no 2,800-byte file.
    const videos = [
      { length: 2800, type: 'webm', url: 'https://e.org/pythran.webm' },
      { length: 2800, type: 'mp4', url: 'https://e.org/pythran.mp4' },
    ];
    const { value, notes } = convert({ ...record, duration: 2800, videos });
    expect([value.duration, value.video_webm_url, value.video_webm_length, value.video_mp4_url, value.video_mp4_length]).toEqual([2800, 'https://e.org/pythran.webm', null, 'https://e.org/pythran.mp4', null]);
    const kinds = notes.map((n) => n.kind);
    expect(kinds).toEqual(expect.arrayContaining(["videos: webm size is the talk's duration, not a size → null", "videos: mp4 size is the talk's duration, not a size → null"]));
    expect(kinds).not.toContain('videos: webm size not a whole positive number → null');
    expect(convert({ ...record, duration: 2801, videos }).value.video_mp4_length).toBe(2800);
  });

  it("reads a duration of more than a week that is a talk's length in milliseconds (PyCon FR 2016's 47 talks) as milliseconds, and counts it", () => {
    // 1,513,080 "seconds" is 17 days; as milliseconds, 25 minutes, as the talk runs.
    const { value, notes } = convert({ ...record, duration: 1513080 });
    expect(value.duration).toBe(1513);
    expect(notes.map((n) => n.kind)).toContain('duration: milliseconds (over a week as seconds) → seconds');
    // What is not a talk's length in milliseconds either stays as written: a day's stream, a week's, 20 days of milliseconds.
    for (const duration of [1800, 86400 * 2, 604799, 1728000000]) expect(convert({ ...record, duration }).value.duration, String(duration)).toBe(duration);
  });

  it('says where a video URL that is not an http(s) URL went', () => {
    const { value, notes } = convert({ ...record, videos: [{ type: 'mp4', url: 'ftp://e.org/a.mp4' }, { type: 'youtube', url: 'rtmp://e.org/live' }] });
    expect(value.whiteboard).toContain('ftp://e.org/a.mp4');
    expect(value.whiteboard).toContain('rtmp://e.org/live');
    expect(value.video_mp4_url).toBeNull();
    const kinds = notes.map((n) => n.kind);
    expect(kinds).toEqual(expect.arrayContaining(['videos: mp4 → whiteboard', 'videos: youtube → whiteboard']));
    expect(kinds.filter((k) => k.startsWith('videos'))).toHaveLength(2);
  });

  it('reads a videos value that is one entry or one URL as a list of it, and says so', () => {
    const one = convert({ ...record, videos: { type: 'mp4', url: 'https://e.org/a.mp4', size: 10 } });
    expect(one.value.video_mp4_url).toBe('https://e.org/a.mp4');
    expect(one.notes.map((n) => n.kind)).toContain('videos: one entry, not a list');
    const url = convert({ ...record, videos: 'https://e.org/b.mp4' });
    expect(url.value.related_urls.map((r) => r.url)).toContain('https://e.org/b.mp4');
    expect(url.notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['videos: one URL, not a list', 'videos: untyped → related_urls']));
    expect(convert({ ...record, videos: ['https://e.org/c.mp4'] }).value.related_urls.map((r) => r.url)).toContain('https://e.org/c.mp4');
    expect(convert({ ...record, videos: 7 }).notes.map((n) => n.kind)).toContain('videos: neither a list nor a URL, dropped');
    expect(convert({ ...record, related_urls: { label: 'Slides', url: 'https://e.org/slides' } }).value.related_urls).toContainEqual({ label: 'Slides', url: 'https://e.org/slides' });
  });

  it('makes the embed from a hosted video that repeats the record\'s own source_url, without listing it again', () => {
    const { value } = convert({ ...record, source_url: 'https://www.youtube.com/watch?v=GeQt7CxzmPo' });
    expect(value.source_url).toBe('https://www.youtube.com/watch?v=GeQt7CxzmPo');
    expect(value.embed).toContain('https://www.youtube-nocookie.com/embed/GeQt7CxzmPo');
    expect(value.related_urls.map((r) => r.url)).not.toContain('https://www.youtube.com/watch?v=GeQt7CxzmPo');
  });

  it('keeps a source_url or related URL of an unexpected shape, and says so', () => {
    const { value, notes } = convert({ ...record, source_url: 'ftp://e.org/talk.mp4', related_urls: 'https://e.org/slides' });
    expect(value.whiteboard).toContain('ftp://e.org/talk.mp4');
    expect(value.related_urls.map((r) => r.url)).toContain('https://e.org/slides');
    expect(notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['source_url: not an http(s) URL, kept in whiteboard', 'related_urls: one URL, not a list']));
    expect(convert({ ...record, related_urls: 7 }).notes.map((n) => n.kind)).toContain('related_urls: neither a list nor a URL, dropped');
  });

  it('counts related_urls entries that hold no URL', () => {
    const { value, notes } = convert({ ...record, related_urls: [null, 7, '', { label: 'Slides', url: null }, { label: 'Code' }, 'https://e.org/kept'] });
    expect(value.related_urls.map((r) => r.url)).toContain('https://e.org/kept');
    const kinds = notes.map((n) => n.kind);
    expect(kinds.filter((k) => k === 'related_urls: entry neither a URL nor {label, url}, dropped')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'related_urls: entry without a url dropped')).toHaveLength(2);
  });

  it('shows a related URL given twice once, with its label where one came bare, and says when a second label is left out', () => {
    const related = ['https://e.org/site', { label: 'Conference Website', url: 'https://e.org/site' }, { label: 'Slides', url: 'https://e.org/s' }, { label: 'Session Information', url: 'https://e.org/s' }, 'https://e.org/s'];
    const { value, notes } = convert({ ...record, videos: [], related_urls: related });
    expect(value.related_urls).toEqual([
      { label: 'Conference Website', url: 'https://e.org/site' },
      { label: 'Slides', url: 'https://e.org/s' },
    ]);
    expect(notes.map((n) => n.kind).filter((k) => k.includes('label dropped'))).toEqual(['related_urls: a URL given again with another label, that label dropped']);
  });

  it('decodes the character references a related URL was scraped with, and says so', () => {
    const { value, notes } = convert({ ...record, related_urls: [{ label: 'Slides', url: 'https://docs.example.org/p/edit?usp=sharing&amp;ouid=1&amp;rtpof=true' }] });
    expect(value.related_urls[0]).toEqual({ label: 'Slides', url: 'https://docs.example.org/p/edit?usp=sharing&ouid=1&rtpof=true' });
    expect(notes.map((n) => n.kind)).toContain('related_urls: HTML character references in a URL decoded (&amp; → &)');
  });

  // Two descriptions of the snapshot hold U+009D, the mojibake of a closing quote's last byte, which the schema refuses.
  it('takes DEL and the C1 controls out of a text, and says so, so that the record validates', () => {
    const { value, notes } = convert({ ...record, description: 'This \u00e2\u20ac\u0153un-tutorial\u00e2\u20ac\u009d has a goal.\u007f', quality_notes: 'ok\u0085' });
    expect(value.description).toBe('This \u00e2\u20ac\u0153un-tutorial\u00e2\u20ac has a goal.');
    expect(value.quality_notes).toBe('ok');
    expect(notes.map((n) => n.kind).filter((k) => k.includes('control characters'))).toEqual([
      'description: control characters (DEL, U+0080 to U+009F) taken out',
      'quality_notes: control characters (DEL, U+0080 to U+009F) taken out',
    ]);
    expect(textProblems(value)).toEqual([]);
  });

  // The schema refuses noncharacters too (pages drop them): the import takes them out as it does the C1 controls.
  it('takes the noncharacters of any plane out of a text, and says so apart from the controls, so that the record validates', () => {
    const { value, notes } = convert({ ...record, description: 'A\ufdd0 talk\u{1ffff}', summary: 'ok\u0085\ufffe' });
    expect([value.description, value.summary]).toEqual(['A talk', 'ok']);
    expect(notes.map((n) => n.kind).filter((k) => k.includes('taken out'))).toEqual([
      'summary: control characters (DEL, U+0080 to U+009F) taken out',
      'summary: noncharacters (U+FDD0 to U+FDEF, U+FFFE and U+FFFF of any plane) taken out',
      'description: noncharacters (U+FDD0 to U+FDEF, U+FFFE and U+FFFF of any plane) taken out',
    ]);
    expect(textProblems(value)).toEqual([]);
  });

  it('takes them out of a title too, as of the other texts, before its character references are decoded', () => {
    const { value, notes } = convert({ ...record, title: 'Caf\u00e9\u009d &amp; t\ufdd0alks' });
    expect(value.title).toBe('Caf\u00e9 & talks');
    expect(notes.map((n) => n.kind).filter((k) => k.startsWith('title:'))).toEqual([
      'title: control characters (DEL, U+0080 to U+009F) taken out',
      'title: noncharacters (U+FDD0 to U+FDEF, U+FFFE and U+FFFF of any plane) taken out',
      'title: HTML character references decoded (&amp; → &)',
    ]);
    expect(textProblems(value)).toEqual([]);
  });

  // 34 related URLs of the snapshot carry Markdown's escapes (`Kalman\_filter`), which browsers read as "/" (`Kalman/_filter`, no page).
  it('takes out the Markdown escapes of a related URL, and keeps in whiteboard what is still no URL to publish, so that the record validates', () => {
    const related = ['http://en.wikipedia.org/wiki/Kalman\\_filter', { label: 'Gephi', url: 'http://gephi.org/\\' }, 'http://2016.es.pycon.org/</a', 'https:///e.org/x'];
    const { value, notes } = convert({ ...record, videos: [{ type: 'mp4', url: 'https://e.org/a\\b.mp4' }], related_urls: related, thumbnail_url: 'https://e.org/"t".jpg', source_url: 'https://e.org/a b' });
    expect(value.related_urls).toEqual([
      { label: 'http://en.wikipedia.org/wiki/Kalman_filter', url: 'http://en.wikipedia.org/wiki/Kalman_filter' },
      { label: 'Gephi', url: 'http://gephi.org/' },
    ]);
    expect(value.whiteboard).toBe('Source URLs that are not http(s) URLs: http://2016.es.pycon.org/</a https:///e.org/x https://e.org/a b https://e.org/a\\b.mp4 https://e.org/"t".jpg');
    expect(value.video_mp4_url).toBe(null);
    expect(notes.map((n) => n.kind).filter((k) => k.includes('Markdown escape'))).toEqual(['related_urls: Markdown escapes in a URL taken out (\\_ → _)', 'related_urls: Markdown escapes in a URL taken out (\\_ → _)']);
    expect(talkSchema.safeParse(value).success).toBe(true);
  });

  // europython-2020's slides (`/media/conference/slides/….pdf`, 94 talks) and 52 URLs ending in "\r" or " ".
  it("trims a related URL and resolves one from the conference site's root against it, and says so", () => {
    const related = [{ label: 'Slides', url: '/media/conference/slides/3TMW.pdf' }, { label: 'Conference Website', url: 'https://ep2020.europython.eu/' }, 'https://github.com/x/y\r', { label: 'Schedule', url: 'http://2017.pyconuk.org/schedule/ ' }];
    const { value, notes } = convert({ ...record, related_urls: related });
    expect(value.related_urls.slice(0, 4)).toEqual([
      { label: 'Conference Website', url: 'https://ep2020.europython.eu/' },
      { label: 'https://github.com/x/y', url: 'https://github.com/x/y' },
      { label: 'Schedule', url: 'http://2017.pyconuk.org/schedule/' },
      { label: 'Slides', url: 'https://ep2020.europython.eu/media/conference/slides/3TMW.pdf' },
    ]);
    expect(value.whiteboard).toBe('');
    expect(notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['related_urls: white space around a URL trimmed', "related_urls: a path from the root of the conference's site → its address"]));
    // Without the conference's address, the path stays where it was, and the report says why.
    const unknown = convert({ ...record, related_urls: [{ label: 'Slides', url: '/media/s.pdf' }] });
    expect(unknown.value.whiteboard).toContain('/media/s.pdf');
    expect(unknown.notes.map((n) => n.kind)).toContain('related_urls: a path from the root of a site not known, kept in whiteboard');
  });

  it('turns the pyvideo.org page and the legacy alias into redirects', () => {
    expect(convert().value.aliases).toEqual(['/conf/a-talk.html', '/conf/a-talk-things.html', '/video/2558/old-slug/']);
    expect(convert({ ...record, alias: 'video/7/a-talk' }).value.aliases).toEqual(['/conf/a-talk.html', '/conf/a-talk-things.html']);
    // pyvideo's file names are its pages' names, punctuation and all; a name a site path cannot hold is reported.
    expect(convert(record, { stem: 'q-&-a,-part-1', slug: 'q-a-part-1' }).value.aliases).toContain('/conf/q-&-a,-part-1.html');
    expect(convert(record, { stem: 'françois-talk', slug: 'francois-talk' }).value.aliases).toContain('/conf/françois-talk.html');
    const spaced = convert(record, { stem: 'what is new?', slug: 'what-is-new' });
    expect(spaced.value.aliases).toEqual(['/conf/a-talk-things.html', '/video/2558/old-slug/']);
    expect(spaced.notes.map((n) => n.kind)).toContain('pyvideo.org page: its file name has characters a site path cannot hold, no redirect');
  });

  it("turns reStructuredText's links and line blocks into Markdown in a description, and its links into text in a summary", () => {
    const rest = 'Slides: `the slides\n<https://e.org/a_b>`__, `code <https://e.org/c>`_ and `03:04 </watch?v=x>`_.\n\n| Room 1\n| Kyoto\n';
    const { value, notes } = convert({ ...record, description: rest, summary: 'See `the docs <https://e.org/d>`_.' });
    // A moment of the video, linked from its YouTube page's text (the record's source).
    expect(value.description).toBe('Slides: [the slides](<https://e.org/a_b>), [code](<https://e.org/c>) and [03:04](<https://www.youtube.com/watch?v=x>).\n\nRoom 1\\\nKyoto\n');
    expect(renderMarkdown(value.description)).toBe(
      '<p>Slides: <a href="https://e.org/a_b" rel="nofollow ugc noopener">the slides</a>, <a href="https://e.org/c" rel="nofollow ugc noopener">code</a> and <a href="https://www.youtube.com/watch?v=x" rel="nofollow ugc noopener">03:04</a>.</p>\n<p>Room 1<br>Kyoto</p>\n',
    );
    expect(value.summary).toBe('See the docs (https://e.org/d).');
    expect(notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['description: reStructuredText markup → Markdown', 'summary: reStructuredText markup → plain text']));
    // Markdown stays as it is: its links, its code, its tables, its headings and fences.
    const markdown = '[a](https://e.org) `code <b>` and\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Notes\n\n```\nTitle\n~~~~~\n```\n\n---\n';
    expect(restLineBlocks(restBlocks(restLinks(markdown, true)))).toBe(markdown);
  });

  // euroscipy-2017's "Abstract" over "~~~~~~~~" opened a code fence that swallowed the rest; "Background" over "^^^^" was text.
  it("makes reStructuredText's section titles headings, in the order their adornments appear", () => {
    const rest = 'Intro.\n\n=====\nTitle\n=====\n\nAbstract\n~~~~~~~~\nText.\n\nBackground\n^^^^^^^^^^\n\nMore\n~~~~\n';
    expect(restBlocks(rest)).toBe('Intro.\n\n# Title\n\n## Abstract\nText.\n\n### Background\n\n## More\n');
    expect(renderMarkdown(restBlocks(rest))).toContain('<h4>Abstract</h4>\n<p>Text.</p>');
    // A line of text with a shorter line under it, or a transition after a blank line, is no title.
    expect(restBlocks('A longer line of text\n~~~\nx\n~~~\n\n----\n')).toBe('A longer line of text\n~~~\nx\n~~~\n\n----\n');
  });

  // pycon-de-2018's "```ipytest`` <https://github.com/chmp/ipytest>`__" (15 links of 8 descriptions): pandoc's link whose text is code.
  it('keeps a link whose text is an inline literal, as a link to its address with its text as code', () => {
    const rest = 'I will demo\n```ipytest`` <https://e.org/ipytest>`__, a small tool, and ``x`` with `docs <https://e.org/d>`_.';
    expect(restLinks(rest, true)).toBe('I will demo\n[``ipytest``](<https://e.org/ipytest>), a small tool, and ``x`` with [docs](<https://e.org/d>).');
    expect(renderMarkdown(restLinks(rest, true))).toContain('<a href="https://e.org/ipytest" rel="nofollow ugc noopener"><code>ipytest</code></a>, a small tool');
    expect(restLinks(rest, false)).toBe('I will demo\nipytest (https://e.org/ipytest), a small tool, and ``x`` with docs (https://e.org/d).');
  });

  // pycon-us-2012's summary showed "``time``, ``datetime``, and ``calendar``" in search results and feeds (196 summaries of the snapshot).
  it("turns reStructuredText's inline markup in a summary into the plain text docutils shows", () => {
    const { value, notes } = convert({ ...record, summary: '``time``, ``datetime``, and ``calendar`` from the standard library are a' });
    expect(value.summary).toBe('time, datetime, and calendar from the standard library are a');
    expect(notes.map((n) => n.kind)).toContain('summary: reStructuredText markup → plain text');
    expect(restInlineText('*Tags:* Parallel Programming, Programming, Python')).toBe('Tags: Parallel Programming, Programming, Python');
    expect(restInlineText('through **pip** or **easy\\_install**. The')).toBe('through pip or easy_install. The');
    expect(restInlineText('Spatial weights matrices, :math:`W`, represent')).toBe('Spatial weights matrices, W, represent');
    expect(restInlineText('about: \\* Handling large data. \\* Dealing')).toBe('about: * Handling large data. * Dealing');
    expect(restInlineText('**very\npythonic** and `Zen`, :PEP:`8`, ``a\\b``, ``ndarray``\\ s')).toBe('very\npythonic and Zen, PEP 8, a\\b, ndarrays');
    // pandoc wrote a link's emphasis in its text, which docutils showed as written.
    expect(restLinks(restInlineText('The `*GR* framework <http://gr-framework.org/>`__ could'), false)).toBe('The GR framework (http://gr-framework.org/) could');
  });

  // north-bay-python-2018's summary showed "Abstract ~~~~~~~~" on its page, and "Structure of this talk ~~~~…" (140 titles in 31 summaries).
  it("makes a summary's section titles paragraphs of their own, without their adornment lines, as docutils shows them", () => {
    const rest = [
      'Abstract', '~~~~~~~~', '', 'I am a backend Software Engineer at Yelp who uses Python extensively for', 'building Yelps infrastructure.', '',
      'Structure of this talk', '~~~~~~~~~~~~~~~~~~~~~~', '', '1.  Define low vision', '2.  Demographics of low vision', '',
      '4. ``dplyr`` tutorial', '~~~~~~~~~~~~~~~~~~~~~', 'Attendees will get to learn then try the different functions of', '``dplyr`` including ``mutate()``.', '',
      '=====', 'Why', '=====', '', 'Industry-ready Machine Learning systems have to be bullet-proof.',
    ].join('\n');
    const { value, notes } = convert({ ...record, summary: rest });
    expect(paragraphs(value.summary)).toEqual([
      ['Abstract'], ['I am a backend Software Engineer at Yelp who uses Python extensively for building Yelps infrastructure.'],
      ['Structure of this talk'], ['1.  Define low vision', '2.  Demographics of low vision'],
      ['4. dplyr tutorial'], ['Attendees will get to learn then try the different functions of dplyr including mutate().'],
      ['Why'], ['Industry-ready Machine Learning systems have to be bullet-proof.'],
    ]);
    expect(notes.map((n) => n.kind)).toContain('summary: reStructuredText markup → plain text');
  });

  // pycon-au-2013's summary showed "| If you're too lazy … | thousands of remote servers." as one line, its "|" and all.
  it("makes each line of a summary's line block a paragraph of its own, without its \"|\", a line that goes on with it joined to it", () => {
    const rest = '| If you\'re too lazy to login to your servers to run commands: let Salt\n do it for you. Salt is also a remote execution system.\n| thousands of remote servers.\n\nAnd if you\'re too lazy';
    expect(restPlainBlocks(rest)).toBe('If you\'re too lazy to login to your servers to run commands: let Salt do it for you. Salt is also a remote execution system.\n\nthousands of remote servers.\n\nAnd if you\'re too lazy');
  });

  // chipy's "why it works\n- and how it works for approaching problems" showed "- and how it works…" on a line of its own, as an item of a list (14 summaries).
  it("joins a summary's wrapped line that starts as a list's item would to the line before, as docutils reads it; a list stays as written", () => {
    const wrapped = [
      ['machine example), how and where evolution selected it, and why it works\n- and how it works for approaching problems (design) too.', 'machine example), how and where evolution selected it, and why it works - and how it works for approaching problems (design) too.'],
      ['Die Sichtbarkeit von C++ in der Software-Entwicklung ist auch in ihrem\n33. Jahr noch enorm.', 'Die Sichtbarkeit von C++ in der Software-Entwicklung ist auch in ihrem 33. Jahr noch enorm.'],
      ['object model \\* Everything you\'ve ever wanted to know about dictionaries\n\\* Building on types', 'object model \\* Everything you\'ve ever wanted to know about dictionaries \\* Building on types'],
    ];
    for (const [rest, plain] of wrapped) expect(restPlainBlocks(rest!)).toBe(plain);
    expect(convert({ ...record, summary: wrapped[2]![0] }).value.summary).toBe("object model * Everything you've ever wanted to know about dictionaries * Building on types");
    const lists = [
      'Discuss briefly the tools available in python focusing on\n\n-  Fiona - reading and writing spatial files\n-  Shapely - manipulation of geometric objects such as calculating\n   areas, distances, etc.',
      '1. Strong practical understanding of what low vision means in real life.\n2. Simple and pragmatic strategies to overcome fundamental limitations\n   that a person with low vision faces',
      // docutils' definition list, whose term is no paragraph; a paragraph's wrapped lines that only look like a line block's and a title's.
      'Intro:\n  - a\n  - b', 'Price: 5\n| not a line block', 'a line and\nAbove\n=====',
    ];
    for (const text of lists) expect(restPlainBlocks(text)).toBe(text);
  });

  it('keeps what docutils reads as no inline markup as it is written', () => {
    for (const text of ['2*3*4 and 2**8', 'a lone * here', 'rm *.pyc or *.py files', 'def f(*args, **kwargs):', 'a "*" or (*) or **', ':py:func:`open`', '*a\n\nb*', 'np.ix_ and ``x ``']) {
      expect(restInlineText(text)).toBe(text);
    }
  });

  // djangocon-us-2016's lists, parted by "..", were one list with ".." in it; europython-2017's ".." before a quote showed as text.
  it("makes an empty comment, which parts two blocks in docutils, an HTML comment that parts them in Markdown", () => {
    const rest = ['* What is it?', '..', '* Must run', '..', '    | Mary had a little lambda', '..'].join('\n\n');
    expect(restBlocks(rest)).toBe(['* What is it?', '<!-- -->', '* Must run', '<!-- -->', '    | Mary had a little lambda', '<!-- -->'].join('\n\n'));
    expect(renderMarkdown(restMarkup(rest))).toBe('<ul>\n<li>What is it?</li>\n</ul>\n<ul>\n<li>Must run</li>\n</ul>\n<blockquote>\n<p>Mary had a little lambda</p>\n</blockquote>\n');
    // A comment's own indented text is no empty comment: docutils hides it.
    expect(restBlocks('..\n   hidden\n')).toBe('..\n   hidden\n');
  });

  // pycon-za-2015's list, written by pandoc as ".. raw:: html" around "<ol>" and "<li>", showed ".. raw:: html" three times.
  it('makes the content of a raw HTML directive raw HTML, which the page sanitises, without the directive', () => {
    const rest = 'Covered:\n\n.. raw:: html\n\n   <ol>\n   <li>\n\nGLCM\n\n.. raw:: html\n\n   </li>\n   </ol>\nAfter.\n';
    const markdown = restBlocks(rest);
    expect(markdown).toBe('Covered:\n\n<ol>\n<li>\n\nGLCM\n\n</li>\n</ol>\n\nAfter.\n');
    expect(renderMarkdown(markdown)).toBe('<p>Covered:</p>\n<ol>\n<li><p>GLCM</p>\n</li>\n</ol><p>After.</p>\n');
    // Raw content for another format, or none, stays as it is.
    expect(restBlocks('.. raw:: latex\n\n   \\LaTeX\n\n.. raw:: html\nText\n')).toBe('.. raw:: latex\n\n   \\LaTeX\n\n.. raw:: html\nText\n');
  });

  // pycon-cz-2016's "(almost[*]_) no cost" and ".. [*] CPU consumption not included", pydata-barcelona-2017's "[#]_".
  it('makes footnotes and the references to them their labels, as docutils numbers them', () => {
    const rest = 'Almost[*]_ free, [#]_ and [#]_ and [7]_.\n\n.. [*] CPU not\n   included\n.. [#] First\n.. [#] Second\n.. [7] Seventh\n';
    expect(restBlocks(rest)).toBe('Almost\\[\\*\\] free, \\[1\\] and \\[2\\] and \\[7\\].\n\n\\[\\*\\] CPU not\nincluded\n\n\\[1\\] First\n\n\\[2\\] Second\n\n\\[7\\] Seventh\n');
    expect(renderMarkdown(restMarkup(rest))).toBe('<p>Almost[*] free, [1] and [2] and [7].</p>\n<p>[*] CPU not\nincluded</p>\n<p>[1] First</p>\n<p>[2] Second</p>\n<p>[7] Seventh</p>\n');
  });

  // pycon-us-2017's ".. figure:: …png" and its "   :alt: Notebook screenshot", which stayed on the page as text.
  it("reads an image directive's options as its, its alt text as the image's", () => {
    const rest = 'Notebooks:\n\n.. figure:: https://e.org/a.png\n   :alt: Notebook [1]\n   :width: 50%\n\n   Caption\n';
    expect(restBlocks(rest)).toBe('Notebooks:\n\n![Notebook \\[1\\]](https://e.org/a.png)\n\n   Caption\n');
    expect(renderMarkdown(restMarkup(rest))).toContain('<p><a href="https://e.org/a.png" rel="nofollow ugc noopener">Notebook [1]</a></p>');
  });

  // pycon-us-2019's "|pandas_gif|" and ".. |pandas_gif| image:: https://…" (5 descriptions) were shown as that text.
  it('makes substitutions defined by an image directive images, and takes their definitions out', () => {
    const rest = 'Census data?\n\n|pandas gif|\n\nText | not |this|.\n\n.. |Pandas  GIF| image:: https://e.org/a.gif?itemid=5\n   :width: 500px\n';
    const converted = restBlocks(rest);
    expect(converted).toBe('Census data?\n\n![pandas gif](<https://e.org/a.gif?itemid=5>)\n\nText | not |this|.\n\n');
    expect(renderMarkdown(converted)).toContain('<a href="https://e.org/a.gif?itemid=5" rel="nofollow ugc noopener">pandas gif</a>');
  });

  it('makes literal blocks and code directives fenced code, image directives images', () => {
    expect(restBlocks('Example::\n\n    x = 1\n      y\n\nAfter ::\n\n  z\n\n::\n\n  w\n\nNo block follows::\nText.\n')).toBe(
      'Example:\n\n```\nx = 1\n  y\n```\n\nAfter\n\n```\nz\n```\n\n\n```\nw\n```\n\nNo block follows:\nText.\n',
    );
    expect(restBlocks('.. code:: python\n   :linenos:\n\n   import this\n\n.. figure:: https://e.org/a.png\n')).toBe('\n```python\nimport this\n```\n\n![](https://e.org/a.png)\n');
  });

  // europython-2018's quote of the pickle module's manual was shown in a code box: Markdown's indented code.
  it('makes block quotes quotes, and reads their text as docutils does: its line blocks, directives and quotes', () => {
    const rest = 'The manual warns\n\n    The pickle module is not __secure__\n    against erroneous data.\n\nAfter.\n';
    expect(restMarkup(rest)).toBe('The manual warns\n\n> The pickle module is not \\_\\_secure\\_\\_\n> against erroneous data.\n\nAfter.\n');
    expect(renderMarkdown(restMarkup(rest))).toBe('<p>The manual warns</p>\n<blockquote>\n<p>The pickle module is not __secure__\nagainst erroneous data.</p>\n</blockquote>\n<p>After.</p>\n');
    const nested = 'Poem:\n\n    | Mary had a little lambda,\n    | a function pure as snow.\n\n        Anon.\n\n    .. code:: python\n\n        lambda: snow\n';
    expect(renderMarkdown(restMarkup(nested))).toBe(
      '<p>Poem:</p>\n<blockquote>\n<p>Mary had a little lambda,<br>a function pure as snow.</p>\n<blockquote>\n<p>Anon.</p>\n</blockquote>\n<pre><code class="language-python">lambda: snow\n</code></pre>\n</blockquote>\n',
    );
    // A line right after the quote is not the quote's; literal blocks stay code, and a text without a quote is returned as it is.
    expect(renderMarkdown(restBlockQuotes('Text\n\n    quoted\nAfter'))).toBe('<p>Text</p>\n<blockquote>\n<p>quoted</p>\n</blockquote>\n<p>After</p>\n');
    expect(restMarkup('Example::\n\n    x = 1\n')).toBe('Example:\n\n```\nx = 1\n```\n');
    const plain = 'Two\r\nlines\r\n';
    expect(restBlockQuotes(plain)).toBe(plain);
  });

  // djangocon-2012's outline, numbered by docutils, was a run of paragraphs starting "#.".
  it("makes docutils' auto-numbered list items numbered ones", () => {
    expect(renderMarkdown(restMarkup('Outline\n\n#. Intro\n#. Tasks\n\n   #. Small\n\n      -  Atomic\n'))).toBe(
      '<p>Outline</p>\n<ol>\n<li><p>Intro</p>\n</li>\n<li><p>Tasks</p>\n<ol>\n<li><p>Small</p>\n<ul>\n<li>Atomic</li>\n</ul>\n</li>\n</ol>\n</li>\n</ol>\n',
    );
    expect(restMarkup('```\n#. not a list\n```\n#.no space\n')).toBe('```\n#. not a list\n```\n#.no space\n');
  });

  // europython-2016's "CloudABI_ … .. _CloudABI: https://nuxi.nl/" (284 targets in the snapshot).
  it('makes hyperlink targets and the references to them Markdown reference links, and leaves names that only end in "_"', () => {
    const rest = 'Use CloudABI_ or `Two  Words`_, not my_var_ nor __init__.\n.. _CloudABI: https://nuxi.nl/\n.. _`two words`: https://e.org/2\n';
    const converted = restBlocks(rest);
    expect(converted).toBe('Use [CloudABI] or [Two  Words], not my_var_ nor \\_\\_init\\_\\_.\n\n[cloudabi]: <https://nuxi.nl/>\n[two words]: <https://e.org/2>\n');
    expect(renderMarkdown(converted)).toBe(
      '<p>Use <a href="https://nuxi.nl/" rel="nofollow ugc noopener">CloudABI</a> or <a href="https://e.org/2" rel="nofollow ugc noopener">Two  Words</a>, not my_var_ nor __init__.</p>\n',
    );
  });

  // pyohio-2022's "extensive `hardware\nsupport`_" showed a code span and a "_", its target's address on no page (10 texts of the snapshot).
  it('links a reference whose phrase goes on over a line break, as docutils does, but not over a paragraph break', () => {
    const rest = 'An extensive `hardware\n   support`_ list.\n\nNot `one\n\ntwo`_ here.\n\n.. _hardware support: https://e.org/hw\n.. _one two: https://e.org/12\n';
    const converted = restBlocks(rest);
    expect(converted).toBe('An extensive [hardware\n   support] list.\n\nNot `one\n\ntwo`_ here.\n\n[hardware support]: <https://e.org/hw>\n[one two]: <https://e.org/12>\n');
    expect(renderMarkdown(converted)).toMatch(/An extensive <a href="https:\/\/e\.org\/hw" rel="nofollow ugc noopener">hardware\s+support<\/a> list\./);
  });

  // pycon-ca-2017's "__slots__" was a bold "slots".
  it("keeps Python's dunder names in running text as text, and leaves code, addresses and Markdown's bold alone", () => {
    const text = 'Use __slots__ and obj.__init__() in `x.__dict__`, https://e.org/__init__.py and __Bold__';
    expect(renderMarkdown(restBlocks(text))).toBe(
      '<p>Use __slots__ and obj.__init__() in <code>x.__dict__</code>, <a href="https://e.org/__init__.py" rel="nofollow ugc noopener">https://e.org/__init__.py</a> and <strong>Bold</strong></p>\n',
    );
  });

  // euroscipy-2017's "ndarray\ s", pycon-us-2019's "pip install\ ed" (38 descriptions) showed the "\".
  it("takes out reStructuredText's escaped spaces, which part markup from a word and show nothing, but in code", () => {
    const rest = 'Concepts of ndarray\\ s, sys.\\ *current*\\ frames(), [a](<https://e.org/>)\\ ”, `a\\ b` and ``c\\ d``, C:\\\\ drive\n';
    expect(restBlocks(rest)).toBe('Concepts of ndarrays, sys.*current*frames(), [a](<https://e.org/>)”, `a\\ b` and ``c\\ d``, C:\\\\ drive\n');
    expect(renderMarkdown(restMarkup(rest))).toContain('<p>Concepts of ndarrays, sys.<em>current</em>frames(), ');
  });

  // europython-2018's "| What's in the Talk:" over "| - Functions nature…" showed a stray "\" at each line's end.
  it("keeps a line block's lines that look like list items as its lines", () => {
    expect(renderMarkdown(restLineBlocks("| What's in the Talk:\n| - Functions\n| 2. Closures\n| # not a heading\n"))).toBe(
      "<p>What&#39;s in the Talk:<br>- Functions<br>2. Closures<br># not a heading</p>\n",
    );
  });

  // pytexas-2017's ".. list-table:: Lightning Talks" and its "00:00_" to ".. _00:00: …&t=00m00s" (6 descriptions) stayed as written.
  it("makes a list table a Markdown table, its title before it, and links references to targets whose names hold a colon", () => {
    const rest = [
      '.. list-table:: Lightning Talks',
      '   :widths: 10 30 60',
      '   :header-rows: 1',
      '',
      '',
      '   * - Time',
      '     - Speaker',
      '     - Title',
      '   * - 00:00_',
      '     - Walker Hale',
      '     - Conda packages | bash',
      '   * - 05:10_',
      '     - Ricky Whitaker',
      '     - Becoming Comfortable in Discomfort: A few life lessons from',
      '       quitting my job',
      '',
      '',
      '.. _00:00: https://www.youtube.com/watch?v=w3Z3P0aDwN4&t=00m00s',
      '.. _05:10: https://www.youtube.com/watch?v=w3Z3P0aDwN4&t=05m10s',
      '',
    ].join('\n');
    expect(restBlocks(rest)).toBe(
      [
        'Lightning Talks',
        '',
        '| Time | Speaker | Title |',
        '| --- | --- | --- |',
        '| [00:00] | Walker Hale | Conda packages \\| bash |',
        '| [05:10] | Ricky Whitaker | Becoming Comfortable in Discomfort: A few life lessons from quitting my job |',
        '',
        '',
        '[00:00]: <https://www.youtube.com/watch?v=w3Z3P0aDwN4&t=00m00s>',
        '[05:10]: <https://www.youtube.com/watch?v=w3Z3P0aDwN4&t=05m10s>',
        '',
      ].join('\n'),
    );
    const html = renderMarkdown(restMarkup(rest));
    expect(html).toContain('<p>Lightning Talks</p>');
    expect(html).toContain('<th>Time</th>');
    expect(html).toContain('<td><a href="https://www.youtube.com/watch?v=w3Z3P0aDwN4&amp;t=05m10s" rel="nofollow ugc noopener">05:10</a></td>');
    expect(html).toContain('<td>Conda packages | bash</td>');
    expect(restBlocks('See 00:00_ and a:b_.\n\n.. _00:00: https://e.org/t\n')).toBe('See [00:00] and a:b_.\n\n[00:00]: <https://e.org/t>\n');
    // A name ends at the first colon before white space, and white space in the address is none of it (pycon-es-2016's).
    expect(restBlocks('Pyomo_\n\n.. _Pyomo: http: //www.pyomo.org/\n')).toBe('[Pyomo]\n\n[pyomo]: <http://www.pyomo.org/>\n');
    // A list table without a header row has an empty one (Markdown's tables have one), an empty item an empty cell (pycon-us-2018's
    // "   * - 22:17_\n     -\n     - Type Hint"); one that is no list of lists stays as written.
    expect(restBlocks('.. list-table::\n\n   * - a\n     - b\n   * -\n     - c\n')).toBe('|  |  |\n| --- | --- |\n| a | b |\n|  | c |\n');
    expect(restBlocks('.. list-table::\n\n   Not a list\n')).toBe('.. list-table::\n\n   Not a list\n');
  });

  // pycon-us-2017's and scipy-2017's lightning talks (7 descriptions), grid tables whose rows pandoc edged with "+", stayed as written, their rows list items.
  it('makes a grid table a Markdown table, the lines of a cell one line', () => {
    const rest = [
      'Lightning talks 2017-05-19 Evening',
      '',
      '+----------+--------------------+--------------------------------------------------------+',
      '+ Start    | Speakers           | Subject                                                +',
      '+==========+====================+========================================================+',
      '+ 0:55     | Katy               | **Emoji Archeology 101 - A lightning talk cover**      +',
      '+          |                    | - A call to revolution against the Unicode emoji.      +',
      '+----------+--------------------+--------------------------------------------------------+',
      '+ 37:50    | Lev                | **Same Content, Different Words**                      +',
      "+          | Konstantinovskiy   | - Is 'Ice cream' the same as 'Gelato' in different     +",
      '+          |                    | out.                                                   +',
      '+----------+--------------------+--------------------------------------------------------+',
      'After.',
    ].join('\n');
    expect(restBlocks(rest)).toBe(
      [
        'Lightning talks 2017-05-19 Evening',
        '',
        '| Start | Speakers | Subject |',
        '| --- | --- | --- |',
        '| 0:55 | Katy | **Emoji Archeology 101 - A lightning talk cover** - A call to revolution against the Unicode emoji. |',
        "| 37:50 | Lev Konstantinovskiy | **Same Content, Different Words** - Is 'Ice cream' the same as 'Gelato' in different out. |",
        '',
        'After.',
      ].join('\n'),
    );
    expect(renderMarkdown(restMarkup(rest))).toContain('<td>Lev Konstantinovskiy</td>');
    // Edged with "|", without a header; a cell that spans columns stays as written.
    expect(restBlocks('+---+-----+\n| a | b c |\n+---+-----+\n')).toBe('|  |  |\n| --- | --- |\n| a | b c |\n');
    const spanning = '+---+---+\n| a     |\n+---+---+\n';
    expect(restBlocks(spanning)).toBe(spanning);
  });

  // pycon-us-2024's ".. container::" around the project's logo stayed on the page.
  it("makes a container's content the text's own, read as the rest", () => {
    const rest = '.. container::\n   :name: logo\n\n   |Hatch logo|\n\n--------------\n\n.. |Hatch logo| image:: https://e.org/logo.svg\n   :width: 500px\n';
    expect(restBlocks(rest)).toBe('![Hatch logo](<https://e.org/logo.svg>)\n\n--------------\n\n');
  });

  // scipy-2014's two figures, the second right after the first's caption, were one paragraph with it.
  it("keeps a figure's caption a paragraph of its own, under the figure, in a list item too", () => {
    const rest = '.. figure:: http://d.pr/i/pqWT+\n   :alt: PyMC forest plot\n\n   PyMC forest plot\n.. figure:: http://d.pr/i/AHZV+\n   :alt: DAG\n\n   DAG\n';
    expect(restBlocks(rest)).toBe('![PyMC forest plot](http://d.pr/i/pqWT+)\n\n   PyMC forest plot\n\n![DAG](http://d.pr/i/AHZV+)\n\n   DAG\n');
    // The caption's indent is kept in the paragraph, where a browser does not show it.
    expect(renderMarkdown(restMarkup(rest)).replace(/<p>\s+/g, '<p>')).toBe(
      '<p><a href="http://d.pr/i/pqWT+" rel="nofollow ugc noopener">PyMC forest plot</a></p>\n<p>PyMC forest plot</p>\n<p><a href="http://d.pr/i/AHZV+" rel="nofollow ugc noopener">DAG</a></p>\n<p>DAG</p>\n',
    );
    // pycon-us-2017's figure in a list item.
    const item = '-  A notebook that the rich media that modern\n   browsers can display:\n\n   .. figure:: http://jupyter.org/p.png\n      :alt: Notebook screenshot\n\n      Notebook screenshot\n\nThe notebooks.\n';
    expect(renderMarkdown(restMarkup(item)).replace(/<p>\s+/g, '<p>')).toBe(
      '<ul>\n<li><p>A notebook that the rich media that modern\nbrowsers can display:</p>\n<p><a href="http://jupyter.org/p.png" rel="nofollow ugc noopener">Notebook screenshot</a></p>\n<p>Notebook screenshot</p>\n</li>\n</ul>\n<p>The notebooks.</p>\n',
    );
    // An image has no caption: what is indented after it is a quote.
    expect(restBlocks('.. image:: https://e.org/a.png\n\n   Text\n')).toBe('![](https://e.org/a.png)\n\n   Text\n');
  });

  // euroscipy-2017's "#. | *Multi-layer Fully Connected Networks*" and "-  | Python version 3.5.x" showed their "|", and a line's
  // continuation on the next (europython-2019's "| The talk will try…\n  foster…") ran on into the block's next line.
  it("makes a line block in a list item, and a line that goes on over the next, lines of its own", () => {
    const rest = `#. | *Multi-layer Fully Connected Networks*
   | In this notebook we will learn the basic building blocks of Keras
     APIs to create deep neural networks.

-  | Python version 3.5.x
   | - Python 3.4 is fine as well
   | - likely Python 2.7 would also be fine, but *who knows*? :P

| The talk will try to showcase a bunch of short examples in the hope to
  foster curiosity
| - 2. not a list
`;
    expect(restLineBlocks(restBlocks(rest))).toBe(
      [
        '1. *Multi-layer Fully Connected Networks*\\',
        '   In this notebook we will learn the basic building blocks of Keras',
        '   APIs to create deep neural networks.',
        '',
        '-  Python version 3.5.x\\',
        '   \\- Python 3.4 is fine as well\\',
        '   \\- likely Python 2.7 would also be fine, but *who knows*? :P',
        '',
        'The talk will try to showcase a bunch of short examples in the hope to',
        'foster curiosity\\',
        '\\- 2. not a list',
        '',
      ].join('\n'),
    );
    expect(renderMarkdown(restMarkup(rest))).toBe(
      [
        '<ol>\n<li><em>Multi-layer Fully Connected Networks</em><br>In this notebook we will learn the basic building blocks of Keras\nAPIs to create deep neural networks.</li>\n</ol>',
        '<ul>\n<li>Python version 3.5.x<br>- Python 3.4 is fine as well<br>- likely Python 2.7 would also be fine, but <em>who knows</em>? :P</li>\n</ul>',
        '<p>The talk will try to showcase a bunch of short examples in the hope to\nfoster curiosity<br>- 2. not a list</p>\n',
      ].join('\n'),
    );
  });

  it("resolves a link from the root of the conference's site against its address, keeps one from an unknown site as text, and says so", () => {
    const site = [{ label: 'Conference Website', url: 'https://2022.djangocon.us' }];
    const description = '- [Carlton Gibson](/presenters/carlton-gibson/), Fellow\n- `**See schedule** </p3/schedule/>`_\n- `[email protected] </cdn-cgi/l/email-protection#a1b2>`_\n- [code](`/x`) and [home](//e.org/)\n';
    const { value, notes } = convert({ ...record, videos: [], related_urls: site, description, summary: 'See `the schedule </p3/schedule/>`_.' });
    expect(value.description).toBe(
      '- [Carlton Gibson](<https://2022.djangocon.us/presenters/carlton-gibson/>), Fellow\n- [**See schedule**](<https://2022.djangocon.us/p3/schedule/>)\n- [email protected]\n- [code](`/x`) and [home](//e.org/)\n',
    );
    expect(value.summary).toBe('See the schedule (https://2022.djangocon.us/p3/schedule/).');
    expect(notes.map((n) => n.kind)).toEqual(expect.arrayContaining(["description: links from the root of the site it was copied from → that site's addresses", "summary: links from the root of the site it was copied from → that site's addresses"]));
    // Without the conference's address: text, as no page of this site has that path.
    const unknown = convert({ ...record, videos: [], related_urls: [{ label: 'Slides', url: 'https://slides.example.org/a' }], description: '[Carlton Gibson](/presenters/carlton-gibson/) and `03:04 </watch?v=x>`_' });
    expect(unknown.value.description).toBe('Carlton Gibson (/presenters/carlton-gibson/) and 03:04 (/watch?v=x)');
    expect(unknown.notes.map((n) => n.kind)).toContain('description: links from the root of a site not known → text');
    // What is no path of the site, and an image, are left to the build's own rules: no other host, no error.
    const odd = convert({ ...record, videos: [], related_urls: site, description: '`x <//evil.example/a>`_ `y </\\evil.example/>`_ `z </\\[>`_ ![logo](/img/a.png)' });
    expect(odd.value.description).toBe('x (//evil.example/a) y (/\\evil.example/) z (/\\[) ![logo](/img/a.png)');
    expect(odd.notes.map((n) => n.kind)).toContain('description: links from the root of a site not known → text');
  });

  it("redirects from the page pyvideo.org's Pelican made: the event's title and the talk's slug, else its title, slugified", () => {
    const talk = { ...record, title: 'The Dictionary Even Mightier', alias: undefined };
    const at = { folder: 'djangocon-2014', eventTitle: 'DjangoCon US 2014', stem: 'brandon-rhodes-the-dictionary-even-mightier' };
    expect(convert(talk, at).value.aliases).toEqual(['/djangocon-2014/brandon-rhodes-the-dictionary-even-mightier.html', '/djangocon-us-2014/the-dictionary-even-mightier.html']);
    expect(convert({ ...talk, slug: 'dict-mightier' }, at).value.aliases).toContain('/djangocon-us-2014/dict-mightier.html');
    // In ASCII by unidecode; punctuation dropped, not spelt out ("&" is not "and").
    expect(convert({ ...talk, title: 'Ünïcode & “Quotes”: Привет, мир!' }, at).value.aliases).toContain('/djangocon-us-2014/unicode-quotes-privet-mir.html');
    // The same page under both names is one redirect.
    expect(convert(talk, { ...at, folder: 'djangocon-us-2014', stem: 'the-dictionary-even-mightier' }).value.aliases).toEqual(['/djangocon-us-2014/the-dictionary-even-mightier.html']);
  });

  it('keeps an alias no redirect can take in the related links or the whiteboard, and says so', () => {
    const cases = {
      'video/12/café': 'alias: not a plain ASCII path (other letters, spaces, a query), kept in whiteboard',
      'video/12/x?page=2': 'alias: not a plain ASCII path (other letters, spaces, a query), kept in whiteboard',
      'tags/12/x': "alias: a path of the site's own pages, kept in whiteboard",
      'https://pyvideo.org/video/12/x': 'alias: a full URL, not a path → related_urls',
    };
    for (const [alias, kind] of Object.entries(cases)) {
      const { value, notes } = convert({ ...record, alias });
      expect(value.aliases).toEqual(['/conf/a-talk.html', '/conf/a-talk-things.html']);
      expect(notes.map((n) => n.kind)).toContain(kind);
      expect([value.whiteboard, ...value.related_urls.map((r) => r.url)].join(' ')).toContain(alias);
    }
    expect(convert({ ...record, alias: 12 }).notes.map((n) => n.kind)).toContain('alias: not a string, dropped');
    expect(convert({ ...record, alias: 'video/7/a-talk' }).notes.map((n) => n.kind).filter((k) => k.startsWith('alias'))).toEqual([]);
  });

  it('makes talks listed in NO_PUBLISH drafts', () => {
    expect(convert(record, { draft: true }).value.state).toBe(2);
  });

  it('reads legacy field variants and says so', () => {
    const { value, notes } = convert({ title: 'T', videos: [], ',duration': 42, abstract: 'Short', related_url: ['https://e.org/x'], title2: 'Other' });
    expect(value.duration).toBe(42);
    expect(value.summary).toBe('Short');
    expect(value.related_urls).toEqual([{ label: 'https://e.org/x', url: 'https://e.org/x' }]);
    expect(notes.map((n) => n.kind)).toEqual(
      expect.arrayContaining(['field ",duration" read as duration', 'abstract → summary', 'field "related_url" read as related_urls', 'field "title2" ignored (not in pyvideo\'s schema)']),
    );
  });

  it('refuses records without a title', () => {
    expect(convertTalk({ videos: [] }, ctx)).toEqual({ ok: false, error: 'title is missing or empty' });
    expect(convertTalk([], ctx)).toEqual({ ok: false, error: 'not a JSON object' });
  });
});

describe('players and slugs', () => {
  it('knows the players of the hosts pyvideo uses', () => {
    expect(playerUrl('youtube', 'http://youtu.be/GeQt7CxzmPo')).toBe('https://www.youtube-nocookie.com/embed/GeQt7CxzmPo');
    expect(playerUrl('vimeo', 'https://vimeo.com/134407444')).toBe('https://player.vimeo.com/video/134407444');
    expect(playerUrl('peertube', 'https://bittube.video/videos/watch/bc21c871-50a8')).toBe('https://bittube.video/videos/embed/bc21c871-50a8');
    expect(playerUrl('archive.org', 'https://archive.org/details/pyvideo_3848')).toBe('https://archive.org/embed/pyvideo_3848');
    expect(playerUrl('youtube', 'https://www.youtube.com/user/somebody')).toBeUndefined();
    expect(embedFor('https://p/1', '<x>')).toContain('title="&lt;x&gt;"');
  });

  it('slugs titles, unique within the event', () => {
    expect(chooseSlug('Bad_Name', 'Good Title', 5, new Set())).toBe('good-title');
    expect(chooseSlug('Bad_Name', 'Good Title', 5, new Set(['good-title']))).toBe('good-title-5');
    // Foo_.json (id 1) in an event that also has foo.json and foo-1.json.
    expect(chooseSlug('Foo_', 'Foo', 1, new Set(['foo', 'foo-1']))).toBe('foo-1-2');
    expect(chooseSlug('Foo_', 'Foo', 1, new Set(['foo', 'foo-1', 'foo-1-2']))).toBe('foo-1-3');
    expect(chooseSlug('Bad_Name', '型ヒント', 5, new Set())).toBe('talk-5');
    expect(chooseSlug('fine-name', 'Whatever', 5, new Set())).toBe('fine-name');
  });
});

describe('convertEvent', () => {
  it('keeps the fields the content format has and reports the rest', () => {
    const result = convertEvent({ title: 'PyCon', description: 'D', url: 'ftp://x', start_date: '2014-02-30', alias: 'x' }, 'pycon/category.json');
    expect(result.ok && result.value).toEqual({ title: 'PyCon', description: 'D', aliases: ['/events/pycon.html'] });
    expect(result.ok && result.notes.map((n) => n.kind)).toEqual([
      'event url: not an http(s) URL, dropped',
      'event start_date: not a real date, dropped',
      'event field "alias" ignored',
    ]);
  });

  it("converts an event's reStructuredText description as a talk's, and says so", () => {
    const result = convertEvent({ title: 'VanPy', description: 'Join our meetup_.\n\n.. _meetup: https://meetup.com/vanpy\n' }, 'vanpy/category.json');
    expect(result.ok && result.value.description).toBe('Join our [meetup].\n\n[meetup]: <https://meetup.com/vanpy>\n');
    expect(result.ok && result.notes.map((n) => n.kind)).toContain('event description: reStructuredText markup → Markdown');
  });

  it("redirects from the event's page on pyvideo.org, named after its title as Pelican named it", () => {
    expect(eventPage('PyCon US 2017')).toBe('/events/pycon-us-2017.html');
    expect(eventPage('PyCon Česko 2018 — Brno')).toBe('/events/pycon-cesko-2018-brno.html');
    expect(eventPage('***')).toBeUndefined();
    const result = convertEvent({ title: '!!!' }, 'x/category.json');
    expect(result.ok && [result.value.aliases, result.notes.map((n) => n.kind)]).toEqual([undefined, ['pyvideo.org event page: its title makes no path of a page, no redirect']]);
  });
});

describe('legacyRedirects', () => {
  const pages = new Map([['/events/pycon-us-2009.html', { slug: 'pycon-us-2009', page: '/events/pycon-us-2009.html' }]]);
  const eventOf = (page: string) => pages.get(page) ?? (page === '/events/old-folder.html' ? { slug: 'renamed' } : undefined);

  it("makes each old path an alias of the event whose page it was sent to, and the page too when it is not the event's own", () => {
    const { aliases, notes } = legacyRedirects('/category/5/PyCon-US-2009 /events/pycon-us-2009.html\n/category/6/x   /events/old-folder.html \n', eventOf);
    expect([...aliases]).toEqual([
      ['pycon-us-2009', ['/category/5/PyCon-US-2009']],
      ['renamed', ['/events/old-folder.html', '/category/6/x']],
    ]);
    expect(notes.map((n) => `${n.source} ${n.kind}`)).toEqual([
      "redirects.txt:1 redirects.txt: old path → redirect to the event's page",
      "redirects.txt:2 redirects.txt: old path → redirect to the event's page",
    ]);
  });

  it('skips, and says so, lines it cannot use', () => {
    const text = ['/a /events/pycon-us-2009.html /extra', '/b /events/nobody.html', '/events/ /events/pycon-us-2009.html', '/c?x=1 /events/pycon-us-2009.html', '/d /events/pycon-us-2009.html', '/d /events/pycon-us-2009.html'].join('\n');
    const { aliases, notes } = legacyRedirects(text, eventOf);
    expect([...aliases]).toEqual([['pycon-us-2009', ['/d']]]);
    expect(notes.map((n) => n.kind.replace('redirects.txt: ', ''))).toEqual([
      'not "<old path> <new path>", skipped',
      "not to an event's page, skipped",
      'an old path no redirect can take, skipped',
      'an old path no redirect can take, skipped',
      "old path → redirect to the event's page",
      'a line given before, skipped',
    ]);
  });
});
