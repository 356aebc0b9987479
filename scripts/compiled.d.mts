// The types of compiled.mjs, for the tests that import it.
export const ROOT: string;
export const STAMP: string;
export function sourceDigest(root?: string): string;
export function compiledIsCurrent(root?: string): boolean;
