import { describe, expect, it } from 'vitest';
import { cached } from '../src/memo.ts';

describe('cached', () => {
  it('makes a value once per key and gives it back after', () => {
    const cache = new Map<string, number>();
    let made = 0;
    const length = (s: string) => cached(cache, s, (key) => (made++, key.length));
    expect([length('ab'), length('abc'), length('ab'), length('abc')]).toEqual([2, 3, 2, 3]);
    expect(made).toBe(2);
  });

  it('keys a WeakMap by the object itself, not by what it holds', () => {
    const cache = new WeakMap<object, string>();
    const a = { name: 'x' };
    const b = { name: 'x' };
    expect(cached(cache, a, () => 'first')).toBe('first');
    expect(cached(cache, a, () => 'second')).toBe('first');
    expect(cached(cache, b, () => 'third')).toBe('third');
  });
});
