import { describe, expect, it } from 'vitest';
import { ManifestPatch } from '../src/state.ts';

describe('ManifestPatch', () => {
  const manifest = () =>
    new Map([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);

  it('changes the manifest in place, knows the keys it had and the files it took out for good', () => {
    const patch = new ManifestPatch(manifest());
    patch.delete('a');
    patch.delete('b');
    patch.set('b', '2*');
    patch.set('d', '4');
    expect([...patch.manifest]).toEqual([
      ['c', '3'],
      ['b', '2*'],
      ['d', '4'],
    ]);
    expect(['a', 'b', 'c', 'd'].map((file) => patch.before(file))).toEqual(['1', '2', '3', undefined]);
    expect(patch.removed()).toEqual(['a']);
  });

  it('puts the manifest back as it found it', () => {
    const patch = new ManifestPatch(manifest());
    patch.set('a', '1*');
    patch.delete('b');
    patch.set('d', '4');
    patch.delete('d');
    patch.undo();
    expect(new Map(patch.manifest)).toEqual(manifest());
    expect(patch.removed()).toEqual([]);
  });
});
