import { describe, expect, it } from 'vitest';
import { fileKey, whereOneFile } from '../src/file-keys.ts';

describe('fileKey', () => {
  it("is one for two names that differ only in their letters' case or encoding", () => {
    for (const [a, b] of [
      ['old/Talk.html', 'old/talk.html'],
      ['old/café.html', 'old/cafe\u0301.html'],
      ['Ärger.html', 'a\u0308rger.html'],
      ['파이썬.html', '\u1111\u1161\u110b\u1175\u110a\u1165\u11ab.html'],
      ['ΟΔΟΣ/index.html', 'οδος/index.html'],
      ['Straße.html', 'STRASSE.html'],
      ['\u212a.html', 'k.html'],
      ['ındex.html', 'index.html'],
    ] as const) {
      expect(fileKey(a), `${a} ${b}`).toBe(fileKey(b));
    }
  });

  it('keeps apart names that differ in more', () => {
    for (const [a, b] of [['café.html', 'cafe.html'], ['ä.html', 'a.html'], ['old/a.html', 'old/a.htm']] as const) expect(fileKey(a), `${a} ${b}`).not.toBe(fileKey(b));
  });
});

describe('whereOneFile', () => {
  it('says which of case and encoding make two names one, with the code points of a letter encoded two ways', () => {
    expect(whereOneFile('Ärger.html', 'ärger.html')).toBe('where letter case is ignored, as on macOS and Windows');
    expect(whereOneFile('café.html', 'cafe\u0301.html')).toBe('where a letter is one however Unicode encodes it (é as U+00E9, e\u0301 as U+0065 U+0301), as on macOS');
    expect(whereOneFile('Über.html', 'u\u0308ber.html')).toBe('where letter case is ignored (macOS, Windows) and a letter is one however Unicode encodes it (Ü as U+00DC, u\u0308 as U+0075 U+0308; macOS)');
    // Past "ß" and "SS" the letters no longer pair up.
    expect(whereOneFile('Straße/café.html', 'STRASSE/cafe\u0301.html')).toBe(
      'where letter case is ignored (macOS, Windows) and a letter is one however Unicode encodes it (é as one code point or as e and a combining accent; macOS)',
    );
  });
});
