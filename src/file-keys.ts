// Output names as the file systems of macOS and Windows compare them: where two names the build writes
// would be one file. Apart from the schema, which loads zod: the theme's check takes these on every
// build, and a build with nothing to do loads neither the schema nor the content's modules.

/** A name of ASCII alone, as nearly every address of a catalogue is: lower case is all its key needs. */
const ASCII = /^[\0-\x7f]*$/;

/**
 * A site path or output file as the file systems of macOS and Windows (and hosts on them) compare names:
 * two with one key are one file there, whichever the build wrote last. Both ignore case beyond ASCII,
 * Windows by each letter's upper case (`ı` is `I`), macOS by Unicode's case folding (`ß` is `ss`): upper
 * case, then lower, takes both. They differ in `ı` alone, which is `i` on Windows and not on macOS: the
 * key takes it for `i`, as a name that is one file on either is refused on both, a catalogue being built
 * on and deployed from either. macOS also takes a letter as one however Unicode encodes it (`é` as one
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

/** Said of two names that are one only by Windows's upper case of `ı`. */
const WHERE_DOTLESS_I_IS_I = 'where letter case is ignored, as on Windows, whose upper case of ı is I (macOS keeps ı apart)';

/** Case folded as macOS folds, which keeps `ı` apart, the one letter where its case folding and Windows's upper case differ (no name holds NUL). */
const foldedOnMacOS = (name: string) => caseFolded(name.replaceAll('ı', '\0'));

/** A text's characters as Unicode names them, `U+00E9 U+0301`. */
export const codePoints = (text: string) => Array.from(text, (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

/**
 * Why two names of one fileKey are one file: their letters' case, how Unicode encodes a letter of
 * theirs, or both. The two encodings of a letter look alike, so the first pair is named by code points.
 */
export function whereOneFile(a: string, b: string): string {
  if (caseFolded(a) === caseFolded(b)) return foldedOnMacOS(a) === foldedOnMacOS(b) ? WHERE_CASE_IS_IGNORED : WHERE_DOTLESS_I_IS_I;
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

/** A folder of an output file as that file spells it (`Old/`), and whose file it is. */
export interface SpelledFolder<T> {
  folder: string;
  holder: T;
}

/** A folder of a file as it spells it (`own`) that is another's, spelled otherwise. */
export type FolderClash<T> = SpelledFolder<T> & { own: string };

/** Whose the site's own folder `folder` is, spelled as its key; undefined when the site has none so named. */
export type SiteFolders<T> = (folder: string) => T | undefined;

/** The folders of `file` and of its key (see fileKey), from the outermost: `Old/Talks/a.html` gives [`Old/`, `old/`], then [`Old/Talks/`, `old/talks/`]. */
function foldersOf(file: string, key: string): [own: string, key: string][] {
  const folders: [string, string][] = [];
  // Neither case nor decomposition makes or takes a "/": the nth of the file's is the nth of its key's.
  for (let i = file.indexOf('/'), j = key.indexOf('/'); i !== -1; i = file.indexOf('/', i + 1), j = key.indexOf('/', j + 1)) folders.push([file.slice(0, i + 1), key.slice(0, j + 1)]);
  return folders;
}

/**
 * The folders of the output files, by their keys, each as the first file in it spells it. Where case
 * is ignored (or, on macOS, how Unicode encodes a letter) `Old/` and `old/` are one folder, named as
 * the build first made it: `old/b.html` lands in `Old/`, where a host that tells case apart, given that
 * copy of the site, finds no /old/b.html. So each folder is spelled one way, as each file is.
 */
export class FolderSpellings<T> {
  readonly #firsts = new Map<string, SpelledFolder<T>>();

  /**
   * The outermost folder of `file` (whose key is `key`) that another file's folder is, spelled
   * otherwise, and that one; else, of those no file has yet, the outermost that `site` says is one of
   * the site's own, whose files it does not take (spelled as their keys, they are asked of only the
   * folders spelled otherwise).
   */
  clash(file: string, key: string, site?: SiteFolders<T>): FolderClash<T> | undefined {
    return this.#holds(file, key) ? undefined : this.#outermost(foldersOf(file, key), site);
  }

  #outermost(folders: [own: string, key: string][], site?: SiteFolders<T>): FolderClash<T> | undefined {
    for (const [own, folder] of folders) {
      const first = this.#firsts.get(folder);
      if (first && first.folder !== own) return { own, folder: first.folder, holder: first.holder };
      const holder = first || own === folder ? undefined : site?.(folder);
      if (holder !== undefined) return { own, folder, holder };
    }
    return undefined;
  }

  /** The clash of `file`, as clash finds it; else takes its folders that no file has yet, as spelled there, as `holder`'s. */
  claim(file: string, key: string, holder: T, site?: SiteFolders<T>): FolderClash<T> | undefined {
    if (this.#holds(file, key)) return undefined;
    const folders = foldersOf(file, key);
    const clash = this.#outermost(folders, site);
    if (!clash) for (const [own, folder] of folders) if (!this.#firsts.has(folder)) this.#firsts.set(folder, { folder: own, holder });
    return clash;
  }

  /**
   * Whether the folder `file` is in is held as it spells it, and so (as no file with a clash is taken)
   * every folder it is in: most files are in a folder another file made, found so by one look-up.
   */
  #holds(file: string, key: string): boolean {
    const end = file.lastIndexOf('/') + 1;
    const first = this.#firsts.get(key.slice(0, key.lastIndexOf('/') + 1));
    return end === 0 || (first !== undefined && first.folder.length === end && file.startsWith(first.folder));
  }
}
