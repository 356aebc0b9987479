import { describe, expect, it } from 'vitest';
import { isLanguage, languageHints, languageName, languageTag, textLanguageTag } from '../src/languages.ts';

describe('languages', () => {
  it('are the English names of ISO 639-3, with their BCP 47 tags', () => {
    expect([isLanguage('English'), isLanguage('english'), isLanguage('Modern Greek (1453-)')]).toEqual([true, false, true]);
    expect([languageTag('German'), languageTag('Yue Chinese'), languageTag('Klingonish')]).toEqual(['de', 'yue', 'und']);
    expect([textLanguageTag('How PyPy can help', 'Russian'), textLanguageTag('Как PyPy помогает', 'Russian')]).toEqual(['en', 'ru']);
  });

  it('are named by any ISO 639 code or English name, in any case', () => {
    expect(['zho', 'de', 'ger', 'deu', 'SPANISH', 'Mon', 'mon'].map(languageName)).toEqual(['Chinese', 'German', 'German', 'German', 'Spanish', 'Mon', 'Mongolian']);
    expect(languageName('Deutsch')).toBeUndefined();
  });

  it('suggest what an author most likely meant, never a language that only looks alike', () => {
    const hints = ['Deutsch', 'Espanol', 'Greek', 'Cantonese', 'eng', 'pt-BR', 'Portuguese (Brazil)', 'Brazilian Portuguese', 'Mandarin', 'Englsh', 'Python'].map(languageHints);
    expect(hints).toEqual([['German'], ['Spanish'], ['Modern Greek (1453-)'], ['Yue Chinese'], ['English'], ['Portuguese'], ['Portuguese'], ['Portuguese'], ['Mandarin Chinese'], ['English'], []]);
    // A word of a phrase is a name, never a code ("all" is Allar's).
    expect(languageHints('t.yaml:1:1 all fine')).toEqual([]);
  });
});
