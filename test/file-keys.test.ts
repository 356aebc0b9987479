import { describe, expect, it } from 'vitest';
import { fileKey, FolderSpellings, whereOneFile } from '../src/file-keys.ts';

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
  // Windows upper-cases "ı" (dotless i) to "I"; macOS's case folding keeps it apart, the one letter where the two differ.
  it('says of dotless i that it is i on Windows alone', () => {
    expect(fileKey('ındex.html')).toBe(fileKey('Index.html'));
    expect(whereOneFile('ındex.html', 'index.html')).toBe('where letter case is ignored, as on Windows, whose upper case of ı is I (macOS keeps ı apart)');
    expect(whereOneFile('ındex.html', 'INDEX.html')).toBe('where letter case is ignored, as on Windows, whose upper case of ı is I (macOS keeps ı apart)');
    expect(whereOneFile('Aı.html', 'aı.html')).toBe('where letter case is ignored, as on macOS and Windows');
  });


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

describe('FolderSpellings', () => {
  const taken = (...files: [file: string, holder: string][]) => {
    const folders = new FolderSpellings<string>();
    for (const [file, holder] of files) folders.claim(file, fileKey(file), holder);
    return folders;
  };

  it('finds the outermost folder of a file that another file spells otherwise, with that one', () => {
    const folders = taken(['Old/Talks/a.html', 'first'], ['caf\u00e9/b.html', 'second']);
    expect(folders.clash('old/talks/b.html', fileKey('old/talks/b.html'))).toEqual({ own: 'old/', folder: 'Old/', holder: 'first' });
    expect(folders.clash('Old/TALKS/b.html', fileKey('Old/TALKS/b.html'))).toEqual({ own: 'Old/TALKS/', folder: 'Old/Talks/', holder: 'first' });
    expect(folders.clash('cafe\u0301/c.html', fileKey('cafe\u0301/c.html'))).toEqual({ own: 'cafe\u0301/', folder: 'caf\u00e9/', holder: 'second' });
  });

  it('finds none for folders spelled alike, new ones, or a file at the root', () => {
    const folders = taken(['Old/Talks/a.html', 'first']);
    for (const file of ['Old/Talks/b.html', 'Old/c.html', 'Old/Talks/More/d.html', 'new/e.html', 'Index.html']) expect(folders.clash(file, fileKey(file)), file).toBeUndefined();
  });

  it("asks `site` of a folder no file has yet and spelled otherwise than its key: one of the site's own, spelled as its key", () => {
    const site = (folder: string) => (folder === 'video/1/first/' ? 'page' : undefined);
    const folders = taken(['video/2/x.html', 'alias']);
    expect(folders.clash('video/1/First/old.html', fileKey('video/1/First/old.html'), site)).toEqual({ own: 'video/1/First/', folder: 'video/1/first/', holder: 'page' });
    expect(folders.clash('video/1/first/old.html', fileKey('video/1/first/old.html'), site)).toBeUndefined();
    expect(folders.clash('video/3/Third/old.html', fileKey('video/3/Third/old.html'), site)).toBeUndefined();
  });

  it('takes the folders of a file without a clash, and keeps the first spelling of each', () => {
    const folders = taken(['Old/a.html', 'first']);
    expect(folders.claim('old/b.html', fileKey('old/b.html'), 'second')).toEqual({ own: 'old/', folder: 'Old/', holder: 'first' });
    expect(folders.claim('Old/New/b.html', fileKey('Old/New/b.html'), 'third')).toBeUndefined();
    expect(folders.clash('old/new/c.html', fileKey('old/new/c.html'))).toEqual({ own: 'old/', folder: 'Old/', holder: 'first' });
    expect(folders.clash('Old/new/c.html', fileKey('Old/new/c.html'))).toEqual({ own: 'Old/new/', folder: 'Old/New/', holder: 'third' });
  });
});
