import { describe, expect, it } from 'vitest';
import { decodeUtf8, fieldName, parseSource, positionAt } from '../src/source.ts';

const parse = (file: string, text: string | Uint8Array) => parseSource(file, typeof text === 'string' ? Buffer.from(text) : text);

describe('positionAt', () => {
  it('maps offsets to 1-based line and column', () => {
    const starts = [0, 5, 9];
    expect(positionAt(starts, 0)).toEqual({ line: 1, col: 1 });
    expect(positionAt(starts, 6)).toEqual({ line: 2, col: 2 });
    expect(positionAt(starts, 20)).toEqual({ line: 3, col: 12 });
  });
});

describe('YAML', () => {
  it('locates keys and values, nested list items and absent fields', () => {
    const result = parse('t.yaml', 'id: 3\ntags:\n  - a\n  - 4\nrelated_urls:\n  - label: x\n    url: y\n');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { doc } = result;
    expect(doc.value).toEqual({ id: 3, tags: ['a', 4], related_urls: [{ label: 'x', url: 'y' }] });
    expect(doc.locate(['id'])).toEqual({ line: 1, col: 5 });
    expect(doc.locate(['id'], 'key')).toEqual({ line: 1, col: 1 });
    expect(doc.locate(['tags', 1])).toEqual({ line: 4, col: 5 });
    expect(doc.locate(['related_urls', 0, 'url'])).toEqual({ line: 7, col: 10 });
    expect(doc.locate(['missing'])).toEqual({ line: 1, col: 1 });
  });

  it('keeps dates and times as the strings written', () => {
    const result = parse('t.yaml', 'recorded: 2019-02-30\nadded: 2020-01-01T10:00:00\n');
    expect(result.ok && result.doc.value).toEqual({ recorded: '2019-02-30', added: '2020-01-01T10:00:00' });
  });

  it('reports syntax errors and duplicate keys with positions', () => {
    const bad = parse('t.yaml', 'id: 1\ntitle: [unclosed\n');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(String(bad.errors[0])).toMatch(/^t\.yaml:\d+:\d+ YAML syntax error: /);
    const dup = parse('t.yaml', 'id: 1\n"title": a\ntitle: b\n');
    expect(!dup.ok && dup.errors.map(String)).toEqual(['t.yaml:3:1 title: duplicate key (also at line 2); keep only one']);
    const two = parse('t.yaml', 'id: 1\n---\nid: 2\n');
    expect(!two.ok && two.errors.map(String)).toEqual(['t.yaml:2:1 YAML syntax error: a second document ("---") in the file; a file holds one talk or event, so remove it or move it to a file of its own']);
    // The parser's words, with what to do: the commonest mistake is a colon in a title; one line out of place is one error.
    const problems = (text: string) => {
      const parsed = parseSource('t.yaml', Buffer.from(text));
      return parsed.ok ? [] : parsed.errors.map(String);
    };
    expect(problems('title: Foo: Bar\n')).toEqual(['t.yaml:1:8 YAML syntax error: Nested mappings are not allowed in compact mappings; a value with ": " in it must be quoted (title: "Python: the Good Parts"), and a field starts where the others do']);
    expect(problems('title: {a\n')[0]).toMatch(/; end a mapping written in braces with "}"$/);
    expect(problems('speakers:\n  - x\n  id: 2\n')[0]).toMatch(/All mapping items must start at the same column; start each field where the others beside it start$/);
    // At the field out of line, not at the spaces before it.
    expect(problems('speakers:\n  - x\n  id: 2\n')).toEqual(['t.yaml:3:3 YAML syntax error: All mapping items must start at the same column; start each field where the others beside it start']);
    expect(problems('id: 1\nspeakers:\n  - A\n tags:\n  - x\n')[0]).toMatch(/^t\.yaml:4:2 YAML syntax error: All mapping items/);
    expect(problems('speakers:\n  - A\n - B\n')).toEqual(['t.yaml:3:1 YAML syntax error: A block sequence may not be used as an implicit map key; line the items of a list up under one another']);
    expect(problems('title: "Unclosed\nid: 2\n')).toEqual(['t.yaml:3:1 YAML syntax error: a value opened with " has no closing "; close it, or write it without quotes']);
    expect(problems('title: a\n\tid: 3\n')).toEqual(['t.yaml:2:1 YAML syntax error: Tabs are not allowed as indentation; indent with spaces']);
  });

  it('strips a byte-order mark', () => {
    const result = parse('t.yaml', '\ufeffid: 1\n');
    expect(result.ok && result.doc.locate(['id'])).toEqual({ line: 1, col: 5 });
  });
});

describe('JSON', () => {
  it('locates keys and values', () => {
    const result = parse('t.json', '{\n  "id": 1,\n  "tags": ["a", 2]\n}\n');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.doc.locate(['tags', 1])).toEqual({ line: 3, col: 17 });
    expect(result.doc.locate(['tags'], 'key')).toEqual({ line: 3, col: 3 });
  });

  it('is strict: no comments, no trailing commas, no duplicate keys', () => {
    const comment = parse('t.json', '{\n  // note\n  "id": 1\n}');
    const noComments = 'JSON syntax error: JSON has no comments; remove it, or write the file in YAML (.yaml), where # starts a comment';
    expect(!comment.ok && comment.errors.map(String)).toEqual([`t.json:2:3 ${noComments}`]);
    // Each comment is said in one run, where they are all that is wrong; YAML's and Python's "#" too.
    const comments = parse('t.json', '{\n  /* the talk */\n  "id": 1, // its id\n  "title": "x"\n}');
    expect(!comments.ok && comments.errors.map(String)).toEqual([`t.json:2:3 ${noComments}`, `t.json:3:12 ${noComments}`]);
    const hash = parse('t.json', '{\n  # note\n  "id": 1\n}');
    expect(!hash.ok && hash.errors.map(String)).toEqual([`t.json:2:3 ${noComments}`]);
    const trailing = parse('t.json', '{"id": 1,}');
    expect(!trailing.ok && trailing.errors.map(String)).toEqual(['t.json:1:10 JSON syntax error: trailing comma; remove the comma at line 1, column 9']);
    const dup = parse('t.json', '{"a": {"b": 1, "b": 2}}');
    expect(!dup.ok && dup.errors.map(String)).toEqual(['t.json:1:16 a.b: duplicate key (also at line 1); keep only one']);
  });

  it("says what to write for YAML's, JavaScript's or Python's ways in JSON", () => {
    const problems = (text: string) => {
      const parsed = parse('t.json', text);
      return parsed.ok ? [] : parsed.errors.map(String);
    };
    expect(problems("{\n  'id': 4\n}")).toEqual([`t.json:2:3 JSON syntax error: unexpected character '; JSON writes names and strings in double quotes ("…")`]);
    expect(problems('{"id": 4,\n  title: "x"}')).toEqual(['t.json:2:3 JSON syntax error: a name without quotes; write it in double quotes ("title")']);
    expect(problems('{"a": True, "b": None}')).toEqual(['t.json:1:7 JSON syntax error: unexpected word True; JSON writes it true']);
    expect(problems('{"b": None}')).toEqual(['t.json:1:7 JSON syntax error: unexpected word None; JSON writes it null']);
    expect(problems('')).toEqual(['t.json:1:1 JSON syntax error: the file is empty; write its fields as an object, {"name": value, …}']);
    expect(problems(' \n')).toEqual(['t.json:2:1 JSON syntax error: the file is empty; write its fields as an object, {"name": value, …}']);
    expect(problems('{"a": Talk}')).toEqual(['t.json:1:7 JSON syntax error: unexpected character; JSON writes text in double quotes ("…")']);
    // A YAML file named .json, not one in braces with JSON's own mistakes, which YAML would take.
    expect(problems('# A talk\nid: 4\ntitle: A talk\n')).toEqual(['t.json:1:1 JSON syntax error: the file is written in YAML; rename it to t.yaml']);
    expect(problems('{"id": 4,\n "title": "x",}')).toEqual(['t.json:2:15 JSON syntax error: trailing comma; remove the comma at line 2, column 14']);
  });

  it('reads a string of 10 MB, and finds a key repeated after it', () => {
    const long = 'lorem ipsum \\"dolor\\" sit amet '.repeat(350_000);
    expect(parse('t.json', `{"title": "T", "description": "${long}"}`).ok).toBe(true);
    const dup = parse('t.json', `{"description": "${long}", "title": "T", "title": "U"}`);
    expect(!dup.ok && dup.errors.map(String)).toEqual([expect.stringMatching(/^t\.json:1:\d+ title: duplicate key/)]);
  });
});

describe('decodeUtf8', () => {
  it('names the first byte that is not UTF-8, not a genuine replacement character', () => {
    const bytes = Buffer.concat([Buffer.from('ok \ufffd\nline '), Buffer.from([0xff]), Buffer.from(' end')]);
    const result = decodeUtf8('f.yaml', bytes);
    expect(!result.ok && String(result.error)).toBe('f.yaml:2:6 file is not UTF-8 (byte 0xFF); save it as UTF-8');
  });
});

describe('fieldName', () => {
  it('writes paths the way people write them', () => {
    expect(fieldName(['tags', 2])).toBe('tags[2]');
    expect(fieldName(['related_urls', 0, 'url'])).toBe('related_urls[0].url');
  });
});
