import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contains, realPath } from '../src/paths.ts';
import { tempDir } from './helpers.ts';

describe('a path inside a folder', () => {
  it('is the folder itself or under it, not beside it, whatever its name begins with', () => {
    expect(contains('/srv/site', '/srv/site')).toBe(true);
    expect(contains('/srv/site', '/srv/site/a/b.html')).toBe(true);
    expect(contains('/srv/site', '/srv/site/..cache')).toBe(true);
    expect(contains('/srv/site', '/srv')).toBe(false);
    expect(contains('/srv/site', '/srv/site-2/a')).toBe(false);
    expect(contains('/srv/site', '/srv/other')).toBe(false);
    expect(contains('/', '/etc/passwd')).toBe(true);
  });

  it('is found as the file system resolves it: through a link, then .., and up to a tail not made yet', async () => {
    const root = await realpath(await tempDir('vc-paths-'));
    await mkdir(path.join(root, 'site', 'sub'), { recursive: true });
    await symlink(path.join(root, 'site', 'sub'), path.join(root, 'link'));
    // The system reads link/.. as site/, where the text alone (path.join, path.resolve) would read root/.
    const throughLink = `${root}/link/../tokens.txt`;
    expect(realPath(throughLink)).toBe(path.join(root, 'site', 'tokens.txt'));
    expect(realPath(path.join(root, 'link', 'not', 'made', 'yet'))).toBe(path.join(root, 'site', 'sub', 'not', 'made', 'yet'));
    expect(contains(realPath(path.join(root, 'site')), realPath(throughLink))).toBe(true);
  });
});
