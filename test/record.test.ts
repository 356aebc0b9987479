import { describe, expect, it } from 'vitest';
import { API_FIELDS, inertJson, serialiseRecord } from '../src/record.ts';
import { talkSchema } from '../src/schema.ts';

const talk = {
  ...talkSchema.parse({
    id: 42,
    title: '</script><script>alert("x")</script> & more',
    speakers: ['Zoë', '李雷'],
    tags: [' web', 'django.'],
    summary: 'Line one\nline two 🐍',
    added: '2024-01-01T00:00:00',
    updated: '2024-01-02T00:00:00',
    related_urls: ['https://example.org/slides'],
  }),
  slug: 'a-talk',
  category: 'Conf 2024',
};

describe('serialiseRecord', () => {
  it('writes exactly the 32 members of the contract, in order', () => {
    const record = JSON.parse(serialiseRecord(talk));
    expect(API_FIELDS).toHaveLength(32);
    expect(Object.keys(record)).toEqual([...API_FIELDS]);
    expect(record).not.toHaveProperty('related_urls');
    expect(record.id).toBe(42);
    expect(record.updated).toBe('2024-01-02T00:00:00.000');
  });

  it('escapes <, > and & so the body is inert as HTML, and stays the same JSON value', () => {
    const text = serialiseRecord(talk);
    expect(text).not.toMatch(/[<>&]/);
    expect(text).toContain('\\u003c/script\\u003e');
    expect(JSON.parse(text).title).toBe(talk.title);
  });

  it('writes non-ASCII text as UTF-8 and keeps line breaks as escapes', () => {
    const text = serialiseRecord(talk);
    expect(text).toContain('"speakers":["Zoë","李雷"]');
    expect(text).toContain('"summary":"Line one\\nline two 🐍"');
  });

  it('is deterministic', () => {
    expect(serialiseRecord(talk)).toBe(serialiseRecord({ ...talk }));
  });
});

describe('inertJson', () => {
  it('escapes the line separators JavaScript parsers once choked on', () => {
    expect(inertJson('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
  });
});
