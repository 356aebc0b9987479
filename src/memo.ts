// Work done once per key: slugs, hashes and other values derived from
// something that does not change, looked up after the first time.

/** A Map or a WeakMap: a WeakMap keyed by an object lets its values go with it. */
interface Cache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value `cache` holds for `key`, made by `make` and kept the first time. */
export function cached<K, V>(cache: Cache<K, V>, key: K, make: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) cache.set(key, (value = make(key)));
  return value;
}
