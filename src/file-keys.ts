// Output names as the file systems of macOS and Windows compare them: where two names the build writes
// would be one file. Apart from the schema, which loads zod: the theme's check takes these on every
// build, and a build with nothing to do loads neither the schema nor the content's modules.

/** A name of ASCII alone, as nearly every address of a catalogue is: lower case is all its key needs. */
const ASCII = /^[\0-\x7f]*$/;

/**
 * A site path or output file as the file systems of macOS and Windows (and hosts on them) compare names:
 * two with one key are one file there, whichever the build wrote last. Both ignore case beyond ASCII,
 * Windows by each letter's upper case (`ı` is `I`), macOS by Unicode's case folding (`ß` is `ss`): upper
 * case, then lower, takes both. macOS also takes a letter as one however Unicode encodes it (`é` as one
 * code point or as `e` and a combining accent, a Korean syllable whole or as its jamo), which canonical
 * decomposition (NFD) before and after folding makes one (Unicode's canonical caseless match). The key
 * is made of the name as it is written to disk: an alias is written as it reads, never percent-encoded
 * (see sitePathProblem), and its file is named so (aliasFile). Every address the site makes of slugs
 * and ids is lower-case ASCII, its own key; aliases and redirects may not be.
 */
export const fileKey = (name: string) => (ASCII.test(name) ? name.toLowerCase() : name.normalize('NFD').toUpperCase().toLowerCase().normalize('NFD'));

/** Said of two names that are one only where case is ignored. */
export const WHERE_CASE_IS_IGNORED = 'where letter case is ignored, as on macOS and Windows';

/** Case folded, but not normalised: two names of one fileKey that differ so differ in how Unicode encodes a letter. */
const caseFolded = (name: string) => name.toUpperCase().toLowerCase();

const codePoints = (text: string) => Array.from(text, (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

/**
 * Why two names of one fileKey are one file: their letters' case, how Unicode encodes a letter of
 * theirs, or both. The two encodings of a letter look alike, so the first pair is named by code points.
 */
export function whereOneFile(a: string, b: string): string {
  if (caseFolded(a) === caseFolded(b)) return WHERE_CASE_IS_IGNORED;
  const letters = (name: string) => Array.from(new Intl.Segmenter().segment(name), (part) => part.segment);
  const others = letters(b);
  const pair = letters(a)
    .map((letter, i) => [letter, others[i] ?? ''] as const)
    .find(([x, y]) => caseFolded(x) !== caseFolded(y) && fileKey(x) === fileKey(y));
  // Past a letter that folds to two (ß, ss), the two names' letters no longer pair up.
  const shown = pair ? `${pair[0]} as ${codePoints(pair[0])}, ${pair[1]} as ${codePoints(pair[1])}` : 'é as one code point or as e and a combining accent';
  const encoded = `a letter is one however Unicode encodes it (${shown}`;
  return a.normalize('NFD') === b.normalize('NFD') ? `where ${encoded}), as on macOS` : `where letter case is ignored (macOS, Windows) and ${encoded}; macOS)`;
}
