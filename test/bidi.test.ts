import { describe, expect, it } from 'vitest';
import { isolated, isolatedAmongWords, withBidiFormattingClosed, withoutBidiFormatting } from '../src/bidi.ts';

const [LRI, RLI, FSI, PDI, RLO, PDF] = ['\u2066', '\u2067', '\u2068', '\u2069', '\u202e', '\u202c'];

describe('isolated', () => {
  it('leaves text without explicit bidirectional formatting as it is, right-to-left text too', () => {
    expect(isolated('Plain title')).toBe('Plain title');
    expect(isolated('שלום עולם')).toBe('שלום עולם');
    expect(isolated('Two\u2029paragraphs')).toBe('Two\u2029paragraphs');
  });

  it('isolates text that holds it, its own isolates closed and stray closing marks dropped', () => {
    expect(isolated(`a${RLO}bc`)).toBe(`${FSI}a${RLO}bc${PDI}`);
    expect(isolated(`a${RLO}b${PDF}c`)).toBe(`${FSI}a${RLO}b${PDF}c${PDI}`);
    expect(isolated(`${RLI}a${LRI}b`)).toBe(`${FSI}${RLI}a${LRI}b${PDI}${PDI}${PDI}`);
    expect(isolated(`${PDI}a${RLI}b${PDI}${PDI}c`)).toBe(`${FSI}a${RLI}b${PDI}c${PDI}`);
  });

  // A paragraph separator ends the isolate, and an override after it would be open again past the text.
  it('turns paragraph separators into spaces', () => {
    for (const separator of ['\n', '\r', '\u001c', '\u001d', '\u001e', '\u0085', '\u2029']) {
      expect(isolated(`Evil${separator}${RLO}talk`), JSON.stringify(separator)).toBe(`${FSI}Evil ${RLO}talk${PDI}`);
    }
  });
});

describe('isolatedAmongWords', () => {
  // Set between words ("Talks tagged “…”"), the "!" that ends a right-to-left name would stand at its other end.
  it('isolates text with letters written right to left, from every right-to-left block', () => {
    for (const text of ['بايثون!', 'דוד כהן', '3 ܫܠܡܐ', 'ﻻ', '𐤀𐤁', '𞤀𞤣𞤤𞤢𞤥']) expect(isolatedAmongWords(text), text).toBe(`${FSI}${text}${PDI}`);
  });

  it('leaves other text as it is, and isolates text with explicit formatting as isolated does', () => {
    for (const text of ['python', 'Ελληνικά', '日本語', '3.12!', '🐍']) expect(isolatedAmongWords(text), text).toBe(text);
    expect(isolatedAmongWords(`a${RLO}b\nc`)).toBe(isolated(`a${RLO}b\nc`));
  });
});

describe('withoutBidiFormatting', () => {
  it('drops embeddings, overrides and isolates, and keeps the marks that reach no further than a character', () => {
    expect(withoutBidiFormatting(`a${RLO}b${PDF}${LRI}c${PDI}${RLI}d${FSI}`)).toBe('abcd');
    expect(withoutBidiFormatting('שלום\u200f 3')).toBe('שלום\u200f 3');
  });
});

describe('withBidiFormattingClosed', () => {
  it('leaves text that closes what it opens as it is', () => {
    for (const text of ['Plain', 'שלום עולם', `a${RLO}b${PDF}c`, `${RLI}a${RLO}b${PDI}c`]) expect(withBidiFormattingClosed(text)).toBe(text);
  });

  it('closes what each paragraph leaves open at its end, innermost first', () => {
    expect(withBidiFormattingClosed(`a${RLO}b`)).toBe(`a${RLO}b${PDF}`);
    expect(withBidiFormattingClosed(`${RLI}a${RLO}b`)).toBe(`${RLI}a${RLO}b${PDF}${PDI}`);
    // A PDF inside an isolate closes nothing opened outside it.
    expect(withBidiFormattingClosed(`${RLO}a${LRI}b${PDF}c`)).toBe(`${RLO}a${LRI}b${PDF}c${PDI}${PDF}`);
    expect(withBidiFormattingClosed(`${RLO}a\n${FSI}b\u2029c`)).toBe(`${RLO}a${PDF}\n${FSI}b${PDI}\u2029c`);
  });
});
