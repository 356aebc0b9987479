import { describe, expect, it } from 'vitest';
import { isLanguage, languageHints, languageName, languageTag, nameLanguageTag, textLanguageTag } from '../src/languages.ts';

describe('languages', () => {
  it('are the English names of ISO 639-3, with their BCP 47 tags', () => {
    expect([isLanguage('English'), isLanguage('english'), isLanguage('Modern Greek (1453-)')]).toEqual([true, false, true]);
    expect([languageTag('German'), languageTag('Yue Chinese'), languageTag('Klingonish')]).toEqual(['de', 'yue', 'und']);
    expect([textLanguageTag('How PyPy can help', 'Russian'), textLanguageTag('Как PyPy помогает', 'Russian')]).toEqual(['en', 'ru']);
  });

  it("tag a speaker's name or a tag by the talk's language where it has that language's letters, else by letters of one language, else not at all", () => {
    // On a talk's page, or beside the talk in a list: Han letters take the talk's language, as its title does.
    expect(['山田太郎', 'Иван Петров', 'אורי', 'Taro Yamada'].map((name) => nameLanguageTag(name, 'Japanese'))).toEqual(['ja', undefined, 'he', undefined]);
    expect([nameLanguageTag('张伟', 'Chinese'), nameLanguageTag('Иван Петров', 'Russian'), nameLanguageTag('김철수', 'Japanese')]).toEqual(['zh', 'ru', 'ko']);
    // A name in Latin letters takes none, whatever the talk's language.
    expect([nameLanguageTag('Jürgen Müller', 'German'), nameLanguageTag('Łukasz Langa', 'Polish')]).toEqual([undefined, undefined]);
    // On a page of many talks: kana are Japanese, Hangul Korean; Han alone, Cyrillic and Arabic letters cannot be told.
    expect(['やまだ たろう', '김철수', '山田太郎', 'Иван Петров', 'محمد', 'Ada Lovelace', 'C++'].map((name) => nameLanguageTag(name))).toEqual(['ja', 'ko', undefined, undefined, undefined, undefined, undefined]);
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
