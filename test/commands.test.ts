import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../src/commands.ts';

describe('checkBaseUrl', () => {
  it('gives the origin links are written after: no trailing slash, "?" or "#", a host in punycode', () => {
    expect(checkBaseUrl('https://talks.example.org/')).toBe('https://talks.example.org');
    expect(checkBaseUrl('https://talks.example.org?')).toBe('https://talks.example.org');
    expect(checkBaseUrl('http://127.0.0.1:8080#')).toBe('http://127.0.0.1:8080');
    expect(checkBaseUrl('https://bücher.example')).toBe('https://xn--bcher-kva.example');
  });

  it('refuses what is not the root of an http(s) host', () => {
    for (const bad of ['talks.example.org', 'ftp://example.org', 'https://example.org/catalogue/', 'https://example.org/?x=1']) expect(() => checkBaseUrl(bad), bad).toThrow(/--base-url must be/);
  });
});
