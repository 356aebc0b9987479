// API tokens: who may write through the server. The file keeps one line per
// token, its name and the SHA-256 of the token: a leaked file lets nobody in.
// A plain hash is enough because tokens are 160 random bits, not passwords.
import { isUtf8 } from 'node:buffer';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { visible } from './errors.ts';
import { removeKilledTemps, writeFileAtomic } from './output.ts';

export interface TokenEntry {
  name: string;
  hash: Buffer;
}

const LINE = /^([A-Za-z0-9._@-]{1,64})\s+sha256:([0-9a-f]{64})$/;
const isTokenName = (name: string) => /^[A-Za-z0-9._@-]{1,64}$/.test(name);
const digest = (token: string) => hash('sha256', token, 'buffer');

/** Reads a tokens file; a line it cannot read is an error that names it, never a token silently ignored. */
export function parseTokens(text: string, file: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m) throw new Error(`${file}:${i + 1}:1 expected "<name> sha256:<64 hex digits>"; add tokens with npm run token -- add NAME`);
    entries.push({ name: m[1]!, hash: Buffer.from(m[2]!, 'hex') });
  });
  return entries;
}

function formatTokens(entries: readonly TokenEntry[]): string {
  const head = '# API tokens for `npm run serve -- --tokens FILE`: name and SHA-256 of the token.\n# Manage with `npm run token -- add|remove|list`.\n';
  return head + entries.map((e) => `${e.name} sha256:${e.hash.toString('hex')}\n`).join('');
}

export async function readTokens(file: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseTokens(text, file);
}

/** Adds a token named `name` and returns it: the only time it is ever shown. */
export async function addToken(file: string, name: string): Promise<string> {
  if (!isTokenName(name)) throw new Error(`"${visible(name)}" is not a usable token name: use letters, digits, ".", "_", "@" or "-" (at most 64)`);
  const entries = await readTokens(file);
  if (entries.some((e) => e.name === name)) throw new Error(`${file} already has a token named "${name}"; remove it first`);
  // 20 random bytes as 40 hex digits: the form Django REST framework's tokens have, which clients expect.
  const token = randomBytes(20).toString('hex');
  await writeTokens(file, [...entries, { name, hash: digest(token) }]);
  return token;
}

export async function removeToken(file: string, name: string): Promise<boolean> {
  const entries = await readTokens(file);
  const kept = entries.filter((e) => e.name !== name);
  if (kept.length === entries.length) return false;
  await writeTokens(file, kept);
  return true;
}

async function writeTokens(file: string, entries: readonly TokenEntry[]): Promise<void> {
  // A `token add` killed as it wrote (SIGKILL) left its temporary file beside the tokens, where nothing else removes it.
  await removeKilledTemps(path.dirname(file));
  await writeFileAtomic(file, formatTokens(entries), 0o600);
}

/**
 * The name of the token `presented` matches, or undefined. Every stored hash
 * is compared, in constant time, so the answer's timing tells nothing about
 * which token came close.
 */
export function verifyToken(entries: readonly TokenEntry[], presented: string): string | undefined {
  const hash = digest(presented);
  let found: string | undefined;
  for (const entry of entries) if (timingSafeEqual(entry.hash, hash) && found === undefined) found = entry.name;
  return found;
}

type Credentials = { ok: true; token: string } | { ok: false; reason: 'missing' } | { ok: false; reason: 'invalid'; detail: string };

const invalid = (detail: string): Credentials => ({ ok: false, reason: 'invalid', detail });

/** Reads `Authorization: Token <key>` (the keyword in any case) as Django REST framework does, with its words for a malformed one. */
export function credentials(header: string | undefined): Credentials {
  if (header === undefined) return { ok: false, reason: 'missing' };
  // Split as Python splits the header's bytes: on ASCII whitespace only (not on U+00A0, which Node's Latin-1 reading makes of byte 0xA0).
  const parts = header.split(/[ \t\n\r\v\f]+/).filter((part) => part !== '');
  if (parts[0]?.toLowerCase() !== 'token') return { ok: false, reason: 'missing' };
  if (parts.length === 1) return invalid('Invalid token header. No credentials provided.');
  if (parts.length > 2) return invalid('Invalid token header. Token string should not contain spaces.');
  // Node reads a header's bytes as Latin-1; Django decodes the key as UTF-8.
  if (!isUtf8(Buffer.from(parts[1]!, 'latin1'))) return invalid('Invalid token header. Token string should not contain invalid characters.');
  return { ok: true, token: parts[1]! };
}
