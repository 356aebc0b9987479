import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addToken, credentials, parseTokens, readTokens, removeToken, verifyToken } from '../src/tokens.ts';
import { tempDir } from './helpers.ts';

describe('tokens', () => {
  it('stores only a hash of each token, readable by its owner alone, and recognises the token', async () => {
    const file = path.join(await tempDir(), 'tokens.txt');
    const alice = await addToken(file, 'alice');
    const bob = await addToken(file, 'bob');
    expect(alice).toMatch(/^[0-9a-f]{40}$/);
    expect(alice).not.toBe(bob);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(alice);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const entries = await readTokens(file);
    expect(verifyToken(entries, alice)).toBe('alice');
    expect(verifyToken(entries, bob)).toBe('bob');
    // One character changed (a token ends in "0" one time in 64).
    expect(verifyToken(entries, `${alice.slice(0, -1)}${alice.endsWith('0') ? '1' : '0'}`)).toBeUndefined();
    expect(verifyToken(entries, '')).toBeUndefined();
  });

  it('removes the temporary file a token command killed as it wrote left beside the tokens', async () => {
    const file = path.join(await tempDir(), 'tokens.txt');
    await writeFile(path.join(path.dirname(file), `.tokens.txt.tmp-${2 ** 22 + 17}-k9x`), 'half');
    await addToken(file, 'ci');
    expect(await readdir(path.dirname(file))).toEqual(['tokens.txt']);
  });

  it('refuses a taken or unusable name, and removes by name', async () => {
    const file = path.join(await tempDir(), 'tokens.txt');
    const token = await addToken(file, 'ci');
    await expect(addToken(file, 'ci')).rejects.toThrow(/already has a token named "ci"/);
    await expect(addToken(file, 'two words')).rejects.toThrow(/not a usable token name/);
    expect(await removeToken(file, 'nobody')).toBe(false);
    expect(await removeToken(file, 'ci')).toBe(true);
    expect(verifyToken(await readTokens(file), token)).toBeUndefined();
  });

  it('names the line of a tokens file it cannot read', async () => {
    const file = path.join(await tempDir(), 'tokens.txt');
    await writeFile(file, '# comment\n\nalice sha256:abc\n');
    await expect(readTokens(file)).rejects.toThrow(`${file}:3:1 expected "<name> sha256:<64 hex digits>"`);
    expect(parseTokens('', 'x')).toEqual([]);
  });

  it('reads the Authorization header as Django REST framework does', () => {
    expect(credentials(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(credentials('Bearer abc')).toEqual({ ok: false, reason: 'missing' });
    expect(credentials('Token abc')).toEqual({ ok: true, token: 'abc' });
    expect(credentials('token abc')).toEqual({ ok: true, token: 'abc' });
    expect(credentials('TOKEN   abc ')).toEqual({ ok: true, token: 'abc' });
    expect(credentials('Token')).toEqual({ ok: false, reason: 'invalid', detail: 'Invalid token header. No credentials provided.' });
    expect(credentials('Token  ')).toEqual({ ok: false, reason: 'invalid', detail: 'Invalid token header. No credentials provided.' });
    expect(credentials('Token a b')).toEqual({ ok: false, reason: 'invalid', detail: 'Invalid token header. Token string should not contain spaces.' });
    // Byte 0xE9 alone is not UTF-8; the same letter sent as UTF-8 is a key like any other, and an unknown one.
    expect(credentials('Token caf\u00e9')).toEqual({ ok: false, reason: 'invalid', detail: 'Invalid token header. Token string should not contain invalid characters.' });
    expect(credentials('Token caf\u00c3\u00a9')).toEqual({ ok: true, token: 'caf\u00c3\u00a9' });
    // Byte 0xA0 is not whitespace to Python's split, so this is one key, and not UTF-8.
    expect(credentials('Token a\u00a0b')).toMatchObject({ ok: false, detail: 'Invalid token header. Token string should not contain invalid characters.' });
  });
});
