import { describe, expect, it } from 'vitest';
import { TALK_FIELDS, talkSchema } from '../src/schema.ts';
import { parseSource } from '../src/source.ts';
import { validate } from '../src/validate.ts';

function check(file: string, text: string) {
  const parsed = parseSource(file, Buffer.from(text));
  if (!parsed.ok) throw new Error('fixture does not parse');
  return validate(talkSchema, parsed.doc, TALK_FIELDS);
}

describe('validate', () => {
  it('maps every problem to the position it was written at', () => {
    const result = check('content/e/videos/t.yaml', 'id: 1\ntitle: x\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\ntags:\n  - a\n  - b\n  - 3\n');
    expect(!result.ok && result.errors.map(String)).toEqual(['content/e/videos/t.yaml:8:5 tags[2]: expected a string, got a number; write it in quotes ("…") to keep it as text']);
  });

  it('names unknown fields at their key and suggests the closest known one', () => {
    const result = check('t.json', '{"id": 1, "title": "x", "added": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00", "speaker": ["A"], "zzzzzz": 1}');
    expect(!result.ok && result.errors.map(String)).toEqual([
      't.json:1:91 speaker: unknown field; did you mean `speakers`?',
      't.json:1:109 zzzzzz: unknown field; remove it (see "Content format" in the README for the known fields)',
    ]);
    // Two letters that share none with `id` are no typo of it: YAML's merge key, say.
    const merge = check('t.json', '{"id": 1, "title": "x", "added": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00", "<<": 1}');
    expect(!merge.ok && merge.errors.map(String)).toEqual(['t.json:1:91 <<: unknown field; remove it (see "Content format" in the README for the known fields)']);
  });

  it('shows control characters a name holds as escapes, so that an error line cannot drive the terminal or forge another line', () => {
    const result = check('t.yaml', 'id: 1\ntitle: x\n"\\e]0;owned\\a\\e[2J\\nt.yaml:1:1 all fine": 1\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n');
    expect(!result.ok && result.errors.map(String)).toEqual([
      't.yaml:3:1 \\x1b]0;owned\\x07\\x1b[2J\\x0at.yaml:1:1 all fine: unknown field; remove it (see "Content format" in the README for the known fields)',
    ]);
  });

  it('refuses what is not text in any string, control characters and half a surrogate pair, at each, with the other problems', () => {
    const json = '{"id": 1, "title": "a\\ud800b", "speakers": ["Ada", "Bo\\u0000b"],\n "language": "\\u001b[2J", "added": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00", "duration": "x"}';
    const result = check('t.json', json);
    expect(!result.ok && result.errors.map(String)).toEqual([
      't.json:1:20 title: holds half of a character (the surrogate U+D800, without its other half); write the whole character, or remove the escape',
      't.json:1:52 speakers[1]: holds U+0000, a control character no page or feed can carry; remove it',
      't.json:2:14 language: holds U+001B, a control character no page or feed can carry; remove it',
      't.json:2:105 duration: expected a whole number of seconds or null, got a string',
    ]);
    // Tabs, line breaks and whole characters outside the BMP are text.
    expect(check('t.json', '{"id": 1, "title": "a\\tb\\r\\nc \\ud83d\\ude00", "added": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00"}').ok).toBe(true);
  });

  // Pages and feeds drop them (NOT_HTML_TEXT in src/markdown.ts), where the API would publish them: U+009D is a closing quote's mojibake.
  it('refuses DEL and the C1 controls as it refuses C0 ones, at each string, with the other problems of the file', () => {
    const yaml = 'id: 1\ntitle: "Bell\\x7f"\nspeakers:\n  - Ada\n  - "Bo\\u0085b"\nsummary: "a \\u00e2\\u20ac\\u009dquote"\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\nsource_url: https:///e.org/x\n';
    const errors = (text: string) => {
      const result = check('t.yaml', text);
      return result.ok ? [] : result.errors.map(String);
    };
    expect(errors(yaml)).toEqual([
      't.yaml:2:8 title: holds U+007F, a control character no page or feed can carry; remove it',
      't.yaml:5:5 speakers[1]: holds U+0085, a control character no page or feed can carry; remove it',
      't.yaml:6:10 summary: holds U+009D, a control character no page or feed can carry; remove it',
      't.yaml:9:13 source_url: has "///" after "https:", where "//" and the host go; write "https://e.org/x"',
    ]);
    // The letters around them are text: U+00A0 and on.
    expect(errors('id: 1\ntitle: "~\\u00a0\\u00ff"\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n')).toEqual([]);
  });

  // Pages drop U+FDD0 to U+FDEF and U+FFFE, as they drop the C1 controls; HTML calls every plane's last two code points a parse error.
  it('refuses the noncharacters of any plane at each string, as it refuses controls', () => {
    const result = check('t.json', '{"id": 1,\n "title": "a\\ufdd0",\n "speakers": ["\\ud83f\\udfff"],\n "summary": "\\ufdcf\\ufdf0\\ud83f\\udffd", "added": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00"}');
    expect(!result.ok && result.errors.map(String)).toEqual([
      't.json:2:11 title: holds U+FDD0, a noncharacter no page or feed can carry; remove it',
      't.json:3:15 speakers[0]: holds U+1FFFF, a noncharacter no page or feed can carry; remove it',
    ]);
  });

  it('shows bidirectional overrides and line separators as escapes, so that a quoted value cannot reorder the line', () => {
    const result = check('t.yaml', 'id: 1\ntitle: x\nlanguage: "\\u202eenalpsid\\u2066\\u2028x"\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n');
    expect(!result.ok && result.errors.map(String)).toEqual(['t.yaml:3:11 language: unknown language "\\u202eenalpsid\\u2066\\u2028x": use an English language name from ISO 639-3']);
  });

  it('rejects a file that is not a mapping', () => {
    const result = check('t.yaml', '- 1\n- 2\n');
    expect(!result.ok && result.errors.map(String)).toEqual(['t.yaml:1:1 expected a mapping of fields, got a list; write the fields one "name: value" a line, without "- " before them']);
    const empty = check('t.yaml', '');
    expect(!empty.ok && empty.errors.map(String)).toEqual(['t.yaml:1:1 no fields (the file, or its front matter, holds none); write them, one "name: value" a line']);
  });

  it('says what to do with a field that has a name and no value', () => {
    const result = check('t.yaml', 'id: 1\ntitle: x\nspeakers:\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n');
    expect(!result.ok && result.errors.map(String)).toEqual(['t.yaml:3:10 speakers: expected a list of strings, got null (as a name with no value after it is); give it a value, or remove the field']);
    // An item of a list with nothing after its "-": said at the item, which is told apart from a field.
    const item = check('t.yaml', 'id: 1\ntitle: x\nspeakers:\n  -\n  - Bob\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00"\n');
    expect(!item.ok && item.errors.map(String)).toEqual([`t.yaml:4:4 speakers[0]: is an empty item ("-" with nothing after it, or null); write the speaker's name there, or remove the item`]);
  });

  it('returns the typed record when valid', () => {
    const result = check('t.yaml', 'id: 4\ntitle: x\nadded: "2024-01-01T00:00:00"\nupdated: "2024-01-01T00:00:00.5"\n'.replace('.5', '.500'));
    expect(result.ok && result.value.id).toBe(4);
  });
});
