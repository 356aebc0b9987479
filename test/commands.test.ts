import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBaseUrl, runServer, servedAt, serverSettings } from '../src/commands.ts';
import { OptionError } from '../src/cli.ts';

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

describe('the server options', () => {
  const listening = { host: '127.0.0.1', port: '0', 'max-connections': '1024' };

  it('refuses an empty --host, which Node reads as every address of the machine', () => {
    expect(() => serverSettings({ ...listening, host: '' })).toThrow(OptionError);
    expect(() => serverSettings({ ...listening, host: ' ' })).toThrow('--host must name an address (127.0.0.1, ::1, or 0.0.0.0 for every address), got " "');
    expect(serverSettings({ ...listening, host: '::1' }).host).toBe('::1');
  });

  it('refuses an empty --host for dev and start too, before they build a site with its address', async () => {
    const site = { ...listening, 'base-url': 'http://127.0.0.1:8080', 'search-shard': '25000' };
    await expect(servedAt({ ...site, host: '' })).rejects.toThrow(OptionError);
    expect((await servedAt(site)).port).toMatch(/^[1-9]\d*$/);
  });

  it('says that a --dir which is a file is a file', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vc-commands-'));
    try {
      const file = path.join(root, 'dist');
      await writeFile(file, '');
      const values = { ...listening, dir: file, content: 'content', templates: 'templates', cache: '.cache', 'base-url': 'http://127.0.0.1:8080', 'search-shard': '25000' };
      await expect(runServer(values)).rejects.toThrow(`--dir ${file}: is a file, not a folder; name the folder npm run build wrote, such as dist`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
