// The types of compiled.mjs, for the TypeScript that imports it (the build's code fingerprint, the tests).
export const ROOT: string;
export const STAMP: string;
export function sourceDigest(root?: string): string;
export function compiledIsCurrent(root?: string): boolean;
export function swapIn(compiled: string, aside: string, root?: string, rename?: (from: string, to: string) => void): void;
