// Languages: a talk's `language` is an English name from ISO 639-3, as the
// contract's records give it ("English", "Spanish"). This module knows those
// names, their BCP 47 tags for `lang` attributes, and what an author or a
// pyvideo record may have written instead (a code, a name in its own language).
import { iso6393 } from 'iso-639-3';
import { cached } from './memo.ts';
import { closest } from './suggest.ts';

const LANGUAGE_TAGS = new Map(iso6393.map((l) => [l.name, l.iso6391 ?? l.iso6393]));
const LANGUAGE_NAMES = [...LANGUAGE_TAGS.keys()];

/** Whether `name` is a language's English name, as ISO 639-3 spells it. */
export const isLanguage = (name: string) => LANGUAGE_TAGS.has(name);

/** The BCP 47 tag for an English language name, for `lang` attributes: the two-letter code where there is one. */
export function languageTag(name: string): string {
  return LANGUAGE_TAGS.get(name) ?? 'und';
}

/** ISO 15924 codes of writing systems that are several Unicode scripts. */
const COMPOSITE_SCRIPTS: Record<string, string[]> = { Jpan: ['Han', 'Hiragana', 'Katakana'], Kore: ['Hangul', 'Han'], Hans: ['Han'], Hant: ['Han'] };
/** Per tag: letters of its language's script, or null for a language written in Latin letters (or unknown). */
const OWN_LETTERS = new Map<string, RegExp | null>();

/** The letters of the script the language tagged `tag` is written in, or null for one written in Latin letters (or unknown). */
function ownLetters(tag: string): RegExp | null {
  return cached(OWN_LETTERS, tag, () => {
    let script: string | undefined;
    try {
      script = new Intl.Locale(tag).maximize().script;
    } catch {
      return null;
    }
    if (!script || script === 'Latn') return null;
    return new RegExp((COMPOSITE_SCRIPTS[script] ?? [script]).map((s) => `\\p{Script=${s}}`).join('|'), 'u');
  });
}

/**
 * The BCP 47 tag for a text of a talk in `name`: the language's own, unless the language is written in
 * another script than Latin and the text has none of its letters, as many talks given in Russian,
 * Korean or Japanese have titles in English (224 of the pyvideo import's 468 in Russian): such a text is
 * in the site's English. A text in Latin letters in a language written in them cannot be told apart.
 */
export function textLanguageTag(text: string, name: string): string {
  const tag = languageTag(name);
  const letters = ownLetters(tag);
  return letters === null || letters.test(text) ? tag : 'en';
}

/** Letters of no script a name in the site's English is written in: most names have none, and need no other test. */
const OTHER_LETTERS = /[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u;

/**
 * Scripts that, in a name, are one language's: kana Japanese, Hangul Korean, and the alphabets of one
 * language each. Han alone is not here: 山田太郎 may be Japanese or Chinese, and a wrong guess would
 * show it in the other's glyphs, where a browser's default for it follows its reader's own language;
 * nor are Cyrillic and Arabic letters, each the script of many languages.
 */
const NAME_SCRIPTS: readonly (readonly [RegExp, string])[] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Hangul}/u, 'ko'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Georgian}/u, 'ka'],
  [/\p{Script=Armenian}/u, 'hy'],
];

/**
 * The BCP 47 tag of a speaker's name or a tag, for its `lang` where it is not the page's English: a
 * talk's language (`language`, on the talk's page and beside the talk in a list) where the name has the
 * letters of its script, as its title takes it (textLanguageTag), else the language its letters tell
 * (NAME_SCRIPTS), else none. A name in Latin letters takes none, whatever the talk's language: a name is
 * its bearer's, and the language of a talk given in Latin letters says nothing of it.
 */
export function nameLanguageTag(name: string, language?: string): string | undefined {
  if (!OTHER_LETTERS.test(name)) return undefined;
  if (language !== undefined && ownLetters(languageTag(language))?.test(name)) return languageTag(language);
  return NAME_SCRIPTS.find(([letters]) => letters.test(name))?.[1];
}

// The package's codes of one kind never stand for another language in another kind, so one map holds them all.
const LANGUAGE_BY_CODE = new Map(iso6393.flatMap((l) => [l.iso6393, l.iso6392B, l.iso6392T, l.iso6391].flatMap((code) => (code ? [[code, l.name] as const] : []))));
const LANGUAGE_BY_LOWER_NAME = new Map(iso6393.map((l) => [l.name.toLowerCase(), l.name]));

/** The English name of a language given by its ISO 639-1, 639-2/B, 639-2/T or 639-3 code or its English name, in any case. */
export function languageName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.toLowerCase();
  const named = LANGUAGE_BY_LOWER_NAME.get(key);
  // Some names are also another language's code ("Mon", "mon" Mongolian): a name written as the package writes it is the name.
  return named === value ? named : (LANGUAGE_BY_CODE.get(key) ?? named);
}

/** Lower case without accents: how a name typed on a keyboard without them is compared ("Espanol"). */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

let otherNames: Map<string, string> | undefined;
/**
 * Each language by the other names ICU knows it by: its own language's ("deutsch": German, "español":
 * Spanish), for those with a two-letter code, and English names other than ISO 639-3's ("greek":
 * Modern Greek (1453-), "cantonese": Yue Chinese). Made on the error path only.
 */
function byOtherName(): Map<string, string> {
  if (otherNames) return otherNames;
  otherNames = new Map();
  const english = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  for (const { iso6391, iso6393: code, name } of iso6393) {
    const inEnglish = english.of(iso6391 ?? code);
    if (inEnglish && inEnglish !== name && !otherNames.has(folded(inEnglish))) otherNames.set(folded(inEnglish), name);
    if (!iso6391) continue;
    let own: string | undefined;
    try {
      own = new Intl.DisplayNames([iso6391], { type: 'language', fallback: 'none' }).of(iso6391);
    } catch {
      continue;
    }
    if (own && !otherNames.has(folded(own))) otherNames.set(folded(own), name);
  }
  return otherNames;
}

const LIVING = new Set(iso6393.filter((l) => l.type === 'living').map((l) => l.name));

/**
 * What an author most likely meant by a language the schema does not know: the English name of a code
 * (`de`, `deu`), of another name ICU knows (`Deutsch`, `Espanol`, `Greek`, `Cantonese`), of a name
 * without its region (`pt-BR`, `Portuguese (Brazil)`) or of a word of it (`Brazilian Portuguese`), the
 * living languages whose name has it as a word (`Mandarin`: "Mandarin Chinese"), and only then a
 * name spelt nearly alike: a name in another language that looks like an English one ("Deutsch",
 * "Dutch") never gets it.
 */
export function languageHints(value: string): string[] {
  const trimmed = value.trim();
  const known = (text: string) => languageName(text) ?? byOtherName().get(folded(text));
  const exact = known(trimmed);
  if (exact) return [exact];
  const base = /^([^(_-]+?)\s*[(_-]/.exec(trimmed)?.[1];
  const ofBase = base && known(base);
  if (ofBase) return [ofBase];
  // A word of a phrase is a name, not a code: "all" is Allar's.
  const inside = trimmed.split(/\s+/).flatMap((part) => LANGUAGE_BY_LOWER_NAME.get(part.toLowerCase()) ?? byOtherName().get(folded(part)) ?? []);
  if (inside.length > 0) return [...new Set(inside)].slice(0, 3);
  const word = new RegExp(`(?:^|[\\s(-])${trimmed.replace(/[^\p{L}\p{N} ]/gu, '')}(?:$|[\\s),-])`, 'iu');
  const containing = trimmed.length >= 3 ? LANGUAGE_NAMES.filter((name) => LIVING.has(name) && word.test(name)) : [];
  if (containing.length > 0) return containing.slice(0, 3);
  const near = closest(trimmed, LANGUAGE_NAMES);
  return near ? [near] : [];
}
