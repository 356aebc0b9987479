import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { editSource, newSource } from '../src/source-edit.ts';

const YAML = `# Talk file, written by hand
id: 12
title: "asyncio in Production" # the title as announced
speakers:
  - Priya Raghunathan
summary: |
  Five incidents,
  five lessons.
recorded: "2024-05-16"
updated: "2024-05-29T09:40:00.000"
`;

describe('editing a content file', () => {
  it('keeps YAML comments, key order and quoting; changes values in place and adds new fields last', () => {
    const out = editSource('talk.yaml', YAML, { title: 'A new title', speakers: ['A', 'B'], duration: 60, updated: '2026-11-22T10:00:00.123' });
    expect(out).toContain('# Talk file, written by hand\n');
    expect(out).toContain('title: "A new title" # the title as announced\n');
    expect(out).toContain('recorded: "2024-05-16"\n');
    expect(out).toContain('updated: "2026-11-22T10:00:00.123"\n');
    expect(out).toContain('summary: |\n  Five incidents,\n  five lessons.\n');
    expect(Object.keys(parse(out))).toEqual(['id', 'title', 'speakers', 'summary', 'recorded', 'updated', 'duration']);
    expect(parse(out).speakers).toEqual(['A', 'B']);
  });

  it('writes every value so that it reads back exactly, whatever the style of the value it replaces', () => {
    // Strings of spaces, which the yaml library's block scalars drop, and the usual YAML traps.
    const values = [' ', '  \n\n', ' \t', 'yes', 'null', '~', ': x', '#x', '- x', '*anchor', '&a', '!tag', '%x', '"q"', "'s'", 'x\n---\ny', '🎉 שלום', null, 7, true];
    const styles = ['summary: plain\n', 'summary: "quoted"\n', 'summary: |\n  literal\n', 'summary: >-\n  folded\n', 'summary: !!str tagged\n', 'other: 1\n'];
    for (const style of styles) {
      for (const value of values) {
        const out = editSource('talk.yaml', `${style}id: 1 # kept\n`, { summary: value, tags: [value] });
        expect(parse(out), `${JSON.stringify(style)} ← ${JSON.stringify(value)}`).toMatchObject({ summary: value, tags: [value] });
        expect(out).toContain('# kept');
      }
    }
    expect(parse(newSource('t.yaml', { id: 1, summary: ' \n', speakers: ['  '] }))).toEqual({ id: 1, summary: ' \n', speakers: ['  '] });
  });

  it('changes only the lines of the fields it changes, whatever the style of the others', () => {
    // Written by hand: a list under its key unindented, a flow list, folded and plain strings on several lines, extra spaces, blank lines, document markers.
    const hand = [
      '---',
      '# Talk file',
      'id: 1',
      'title:   Spaced   # as announced',
      'speakers:',
      '- Alice',
      '-   Bob',
      '',
      'tags: [a, b,   c]',
      'summary: >',
      '  folded text that',
      '  goes on',
      '',
      'description: a plain string that',
      '  goes on to the next line',
      "language:  'English'",
      'duration: 60',
      '...',
      '',
    ].join('\n');
    const lines = (text: string) => text.split('\n');
    const changedLines = (out: string) => lines(out).filter((line, i) => line !== lines(hand)[i]);
    // The whole file was written again the yaml library's way: `- Alice` indented, `[ a, b, c ]`, the strings on one line, a blank line after `...`.
    expect(changedLines(editSource('talk.yaml', hand, { title: 'New' }))).toEqual(['title: New # as announced']);
    expect(changedLines(editSource('talk.yaml', hand, { duration: 61 }))).toEqual(['duration: 61']);
    // A changed list is written as the file writes its lists: block ones unindented, flow ones on their line.
    expect(editSource('talk.yaml', hand, { speakers: ['Carol'], tags: ['x', 'y'] })).toBe(hand.replace('- Alice\n-   Bob\n', '- Carol\n').replace('[a, b,   c]', '[x, y]'));
    const removed = editSource('talk.yaml', hand, { summary: undefined, recorded: '2024-01-02', quality_notes: 'echo' });
    expect(removed).toBe(hand.replace('summary: >\n  folded text that\n  goes on\n', '').replace('duration: 60\n', 'duration: 60\nrecorded: 2024-01-02\nquality_notes: echo\n'));
    // The file's last line without a line break stays so.
    expect(editSource('talk.yaml', 'id: 1\ntitle: x', { title: 'y', duration: 5 })).toBe('id: 1\ntitle: y\nduration: 5');
  });

  it("keeps a YAML file's CRLF line breaks and byte order mark", () => {
    const windows = `\ufeff${YAML.replace(/\n/g, '\r\n')}`;
    const out = editSource('talk.yaml', windows, { title: 'New', tags: ['a'] });
    expect(out).toBe(`\ufeff${editSource('talk.yaml', YAML, { title: 'New', tags: ['a'] }).replace(/\n/g, '\r\n')}`);
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it("removes the comment lines right above a field it removes, not past a blank line, nor a file's heading above its first field", () => {
    const text = '# Talk file\nduration: 60\nid: 1\n# about what follows\n\n# the title as announced\n#   (see the programme)\ntitle: x\nrecorded: "2024-05-16"\n';
    expect(editSource('t.yaml', text, { duration: undefined, title: undefined })).toBe('# Talk file\nid: 1\n# about what follows\n\nrecorded: "2024-05-16"\n');
  });

  it('keeps the comments on a list it replaces', () => {
    const out = editSource('talk.yaml', 'id: 1\nspeakers:\n  # in the order announced\n  - A\ntags: # no tag for the room\n  - a\n', { speakers: ['B', 'C'], tags: [] });
    expect(out).toContain('# in the order announced');
    expect(out).toContain('# no tag for the room');
    expect(parse(out)).toEqual({ id: 1, speakers: ['B', 'C'], tags: [] });
  });

  it('leaves what an alias elsewhere reads of a value it changes or removes as it was', () => {
    const yaml = 'id: 1\ntitle: &t Same # kept\nsummary: *t\nspeakers: &people\n  - &first A\ntags: *people\ndescription: *first\n';
    // The alias read the new title (a PATCH of the title changed the summary too), or was left without its anchor (a 500).
    expect(parse(editSource('talk.yaml', yaml, { title: 'New' }))).toEqual({ id: 1, title: 'New', summary: 'Same', speakers: ['A'], tags: ['A'], description: 'A' });
    expect(parse(editSource('talk.yaml', yaml, { title: undefined, speakers: ['B'] }))).toEqual({ id: 1, summary: 'Same', speakers: ['B'], tags: ['A'], description: 'A' });
    // An alias that is itself changed is just replaced; one to an anchor defined again later reads the later one.
    expect(parse(editSource('talk.yaml', 'id: 1\ntitle: &t A\nsummary: *t\ntags: [&t B, *t]\n', { title: 'C', summary: 'D' }))).toEqual({ id: 1, title: 'C', summary: 'D', tags: ['B', 'B'] });
    expect(editSource('talk.yaml', yaml, { title: 'New' })).toContain('title: &t New # kept\n');
    // A copy reads back as the value it copies, as a changed field does.
    expect(parse(editSource('talk.yaml', 'id: 1\ntitle: &t "  \\n\\n"\nsummary: *t\n', { title: 'New' })).summary).toBe('  \n\n');
  });

  it('removes a field so that it takes its default', () => {
    expect(parse(editSource('talk.yaml', YAML, { recorded: undefined }))).not.toHaveProperty('recorded');
    expect(JSON.parse(editSource('talk.json', '{\n  "id": 1,\n  "tags": ["a"]\n}\n', { tags: undefined }))).toEqual({ id: 1 });
  });

  it('keeps JSON as JSON with its indentation', () => {
    const json = '{\n    "id": 3,\n    "title": "x"\n}\n';
    const out = editSource('talk.json', json, { title: 'y <b>', tags: ['t'] });
    expect(out.startsWith('{\n    "id": 3,\n    "title": "y <b>",')).toBe(true);
    expect(JSON.parse(out)).toEqual({ id: 3, title: 'y <b>', tags: ['t'] });
  });

  it('keeps JSON written on one line on one line, with its spacing', () => {
    const compact = '{"id":3,"title":"x","tags":["a"],"speakers":["p"]}\n';
    expect(editSource('talk.json', compact, { title: 'y', tags: ['t', 'u'], duration: 5, speakers: undefined })).toBe('{"id":3,"title":"y","tags":["t","u"],"duration":5}\n');
    expect(editSource('talk.json', '{"id": 3, "title": "x"}', { duration: 5 })).toBe('{"id": 3, "title": "x", "duration": 5}');
    expect(editSource('talk.json', '{"id" : 3}', { title: 'T: "quoted"' })).toBe('{"id" : 3, "title" : "T: \\"quoted\\""}');
    expect(editSource('talk.json', '{"tags":["a", "b"],"id":1}', { duration: 5 })).toBe('{"tags":["a", "b"],"id":1,"duration":5}');
    expect(editSource('talk.json', '{"id": 3}', { duration: 5 })).toBe('{"id": 3, "duration": 5}');
    expect(editSource('talk.json', '{"id":3}', { duration: 5 })).toBe('{"id":3,"duration":5}');
    expect(editSource('talk.json', '\ufeff{"id":3,"title":"x"}\r\n', { title: 'y', duration: 5 })).toBe('\ufeff{"id":3,"title":"y","duration":5}\r\n');
  });

  it('writes a new file in the order given', () => {
    expect(Object.keys(parse(newSource('t.yaml', { id: 1, title: 'T', added: 'x' })))).toEqual(['id', 'title', 'added']);
    expect(newSource('t.json', { id: 1 })).toBe('{\n  "id": 1\n}\n');
  });
});
