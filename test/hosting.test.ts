// The host configurations: every file of a real demo build, asked for the way
// a client asks for it, must get exactly the headers headers.ts gives its kind,
// under each host's documented matching rules (modelled here in a few lines each).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build.ts';
import { categoryFile, COMPRESSED_KINDS, ENCODINGS, HEADERS, HOST_FILES, ID_PATTERN, kindOf, listFile, SLUG_PATTERN, type FileKind } from '../src/headers.ts';
import { DEFAULT_LISTEN, DEFAULT_ROOT, hostFile, LIST_NAMES, nginxConfig } from '../src/hosting.ts';
import { inertJson } from '../src/record.ts';
import { pageParam } from '../src/server.ts';
import { describeResource, RECORD_OPTIONS } from '../src/headers.ts';
import { DEMO_CONTENT, TEMPLATES } from './helpers.ts';

/** The files the build writes for a site in the folder `base` of its host. */
const hostFiles = (base = '') => HOST_FILES.map((name) => ({ path: name, body: hostFile(name, base) }));
const filesFor = (base: string) => Object.fromEntries(hostFiles(base).map((f) => [f.path, f.body]));
const files = filesFor('');
/** The files for a site built for a folder of its host (--base-url https://example.org/talks). */
const FOLDER = '/talks';
const folderFiles = filesFor(FOLDER);
const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
const escapeRegex = (text: string) => text.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');

/** The path a client asks for to get a file of the output (lists are asked for by their endpoint and ?page=N). */
function requestPath(rel: string): string {
  const list = /^api\/v2\/(video|category|speaker)\/page\.(?:\d+|last)$/.exec(rel);
  return list ? `/api/v2/${list[1]}` : `/${rel}`;
}

let out: string;
/** Every file of a demo build that a client can ask for, with its kind. */
let served: { rel: string; kind: FileKind }[];

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'vc-hosting-'));
  const result = await build({ content: DEMO_CONTENT, out: path.join(out, 'dist'), templates: TEMPLATES });
  expect(result.ok).toBe(true);
  const rels = await fg('**/*', { cwd: path.join(out, 'dist'), onlyFiles: true });
  served = rels
    .filter((rel) => !ENCODINGS.some((e) => rel.endsWith(e.suffix)) && !(HOST_FILES as readonly string[]).includes(rel))
    .map((rel) => ({ rel, kind: kindOf(rel) }));
  // The checks below are only as good as the variety of files they run over.
  expect(new Set(served.map((f) => f.kind))).toEqual(new Set(Object.keys(HEADERS)));
});

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('hostFiles', () => {
  it('writes exactly HOST_FILES, the same bytes every time', () => {
    expect(hostFiles().map((f) => f.path)).toEqual([...HOST_FILES]);
    expect(hostFiles()).toEqual(hostFiles());
    for (const { body } of hostFiles()) expect(body.endsWith('\n') && !body.includes('undefined')).toBe(true);
  });

  it("the API's URL patterns name exactly the files headers.ts classifies as records and lists", () => {
    const id = new RegExp(`^${ID_PATTERN}$`);
    for (const text of ['1', '12', '21713', '9007199254740991', '12345678901234567', '0', '01', '-1', '1a', '']) {
      expect(id.test(text), text).toBe(kindOf(`api/v2/video/${text}`) === 'record');
    }
    const slug = new RegExp(`^${SLUG_PATTERN}$`);
    for (const text of ['pycon-us-2014', 'a', 'A', 'a--b', '-a', 'a_b', 'page.1']) {
      expect(slug.test(text) || text === 'page.1', text).toBe(kindOf(categoryFile(text)) === 'list');
    }
    for (const name of LIST_NAMES) expect(kindOf(listFile(name, 3))).toBe('list');
  });

  it('OPTIONS bodies are the ones our server sends', () => {
    for (const name of ['Video Instance', 'Video List', 'Category List', 'Speaker List', 'Category Instance']) {
      expect(files['nginx.conf']).toContain(inertJson(describeResource(name)));
      expect(files.Caddyfile).toContain(inertJson(describeResource(name)));
    }
    expect(describeResource('Video Instance')).toEqual(RECORD_OPTIONS);
  });
});

describe('nginx.conf', () => {
  interface Location {
    match: string;
    /** A one-line `{ return 404; }`. */
    hidden: boolean;
    headers: Record<string, string>;
    contentType?: string;
    /** Sends the build's .gz copies (gzip_static). */
    gzipStatic: boolean;
    /** Compresses as it sends. */
    gzip: boolean;
  }

  /** nginx's quoted strings, unescaped. */
  const unquote = (text: string) => (/^['"]/.test(text) ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text);

  /** The server block's locations with the headers each sets. */
  function locations(conf: string): Location[] {
    const found: Location[] = [];
    let current: Location | undefined;
    for (const line of conf.split('\n')) {
      // A location on one line (writes refused, then 404) is one that hides what it matches.
      const open = /^ {4}location (.+?) \{( (?:if \(\$vc_read = 0\) \{ return 405; \} )?return 404; \})?$/.exec(line);
      if (open) found.push((current = { match: open[1]!, hidden: open[2] !== undefined, headers: {}, gzipStatic: false, gzip: false }));
      if (open?.[2]) current = undefined;
      if (!current) continue;
      const header = /^ {8}add_header (\S+) ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+) always;$/.exec(line);
      if (header) current.headers[header[1]!] = unquote(header[2]!);
      const type = /^ {8}default_type (.+);$/.exec(line);
      if (type) current.contentType = unquote(type[1]!);
      if (line === '        gzip_static on;') current.gzipStatic = true;
      if (line === '        gzip on;') current.gzip = true;
      if (line === '    }') current = undefined;
    }
    return found;
  }

  /** nginx's choice: the longest matching prefix, unless a regular expression matches first. */
  function locationFor(all: Location[], uri: string): Location {
    const regex = all.find((l) => l.match.startsWith('~ ') && new RegExp(unquote(l.match.slice(2))).test(uri));
    if (regex) return regex;
    const prefixes = all.filter((l) => !/^[~@]/.test(l.match) && uri.startsWith(l.match)).sort((a, b) => b.match.length - a.match.length);
    return prefixes[0]!;
  }

  /** Every file, asked for in the folder `base`, is sent with exactly its kind's headers, compressed only for compressed kinds. */
  function expectKindsSent(conf: string, base: string): void {
    const all = locations(conf);
    for (const { rel, kind } of served) {
      const location = locationFor(all, `${base}${requestPath(rel)}`);
      expect(location.hidden, rel).toBe(false);
      const { 'Content-Type': type, ...rest } = HEADERS[kind];
      expect({ rel, headers: location.headers, type: location.contentType, copies: location.gzipStatic, gzip: location.gzip }).toEqual({
        rel,
        headers: rest,
        type,
        copies: COMPRESSED_KINDS.has(kind),
        gzip: COMPRESSED_KINDS.has(kind),
      });
    }
  }

  /** The host files, hidden files and the compressed copies, in the folder `base`. */
  function expectHidden(conf: string, base: string): void {
    const all = locations(conf);
    for (const uri of [...HOST_FILES.map((f) => `/${f}`), '/.env', '/.git/config', '/assets/.DS_Store', '/index.html.gz', '/assets/style.css.br']) {
      expect(locationFor(all, `${base}${uri}`).hidden, uri).toBe(true);
    }
  }

  it('sends each file with exactly its kind’s headers, compressed (from copies or as sent) only for compressed kinds', () => expectKindsSent(files['nginx.conf']!, ''));

  it('hides the host files, hidden files and the compressed copies', () => expectHidden(files['nginx.conf']!, ''));

  it('for a site in a folder of its host: the same in the folder, its files found by the path after it, nothing outside it', () => {
    const conf = folderFiles['nginx.conf']!;
    expectKindsSent(conf, FOLDER);
    expectHidden(conf, FOLDER);
    const all = locations(conf);
    for (const uri of ['/video/12/', '/api/v2/video/12', '/assets/style.css', `${FOLDER}x/`]) expect(locationFor(all, uri).hidden, uri).toBe(true);
    expect(conf).toContain(`error_page 404 ${FOLDER}/404.html;`);
    expect(conf).toContain(`location = ${FOLDER} { add_header X-Content-Type-Options 'nosniff' always; return 301 ${FOLDER}/$is_args$args; }`);
    for (const name of LIST_NAMES) expect(conf).toContain(`try_files /api/v2/${name}/page.$vc_page =404;`);
    // Each location of the site's files sends the file the path after the folder names.
    expect(conf.match(/^ {8}alias \$vc_root\$vc_file;$/gm)).toHaveLength(5);
    for (const { rel, kind } of served) {
      const uri = `${FOLDER}${requestPath(rel)}`;
      const { match } = locationFor(all, uri);
      // The API's files are found by try_files, from the endpoint's path.
      if (kind !== 'record' && kind !== 'list') expect({ rel, file: new RegExp(unquote(match.slice(2))).exec(uri)?.groups?.vc_file }).toEqual({ rel, file: requestPath(rel) });
    }
  });

  it('marks the two lines a user edits, and the helper fills them in', () => {
    const conf = files['nginx.conf']!;
    expect(conf).toBe(nginxConfig({ root: DEFAULT_ROOT, listen: DEFAULT_LISTEN }));
    expect(conf).toMatch(/^ {4}listen 8080; {2}# EDIT: /m);
    expect(conf).toMatch(/^ {4}root '\/srv\/video-catalogue\/dist'; {2}# EDIT: /m);
    const mine = nginxConfig({ root: '/tmp/a b/dist', listen: '127.0.0.1:9999' });
    expect(mine).toContain("    listen 127.0.0.1:9999;  # EDIT");
    expect(mine).toContain("    root '/tmp/a b/dist';  # EDIT");
    expect(() => nginxConfig({ root: '/tmp/$x', listen: '80' })).toThrow(/variable/);
  });

  /** The page the `map $args $vc_page` block gives a raw query: its first matching regex's value, else its default. */
  function nginxPage(conf: string, args: string): string {
    const block = /^map \$args \$vc_page \{\n([\s\S]*?)\n\}$/m.exec(conf);
    expect(block).not.toBeNull();
    for (const line of block![1]!.split('\n')) {
      const entry = /^ {4}(?:"~(.*)"|default) (\S+);$/.exec(line)!;
      const [, regex, value] = entry;
      const match = regex === undefined ? [] : new RegExp(regex).exec(args);
      if (match) return unquote(value!).replace(/\$(\d)/g, (_, n: string) => match[Number(n)]!);
    }
    throw new Error('the map has no default');
  }

  it('reads ?page= from the raw query as our server does: the last one, case-sensitive, a name maybe escaped', () => {
    const conf = files['nginx.conf']!;
    const queries = [
      '', 'page=2', 'page=1&page=2', 'page=&page=2', 'page=2&page=', 'page=2&page', 'page', 'Page=2', 'PAGE=2&page=3',
      'pag%65=2', '%70%61%67%65=3', 'page=2&pag%65=', 'page=0', 'page=00', 'page=0002', 'page=000000000000002',
      'page=0000000000000002', 'page=999999999999999', 'page=-1', 'page=x', 'page=2x', 'page=+2', 'page=2+', 'page=++2++', 'page=+', 'page=+0', 'page=+x', 'page=2+x',
      'page=+000000000000002', 'page=+0000000000000002', 'page=+2&page=x',
      'page=x&page=2', 'page=2&page=x', 'pagex=3', 'x=page=3', 'xpage=3', 'format=json', 'page=3&format=json',
      'format=json&page=3&q=a%20b', '&page=3&&', 'page==2', 'page=2=', 'page=last', 'page=2&page=last', 'page=last&page=2',
      'page=Last', 'page=lastx', 'page=last&format=json',
    ];
    for (const query of queries) expect({ query, page: nginxPage(conf, query) }).toEqual({ query, page: String(pageParam(`?${query}`) ?? '') });
    // nginx cannot percent-decode a value: digits written as escapes name no page there (docs/hosting.md).
    for (const query of ['page=%32', 'page=1%30', 'page=2&page=%33', 'page=%202', 'page=%2B2']) expect({ query, page: nginxPage(conf, query) }).toEqual({ query, page: '' });
  });

  it('maps ?page=N from the raw query and never gzips the API', () => {
    const conf = files['nginx.conf']!;
    expect(conf).toContain('map $args $vc_page {');
    expect(conf).toMatch(/^ {4}gzip off;$/m);
    for (const name of LIST_NAMES) expect(conf).toContain(`try_files /api/v2/${name}/page.$vc_page =404;`);
  });
});

describe('_headers (Netlify, Cloudflare Pages)', () => {
  interface Rule {
    path: string;
    set: [string, string][];
    unset: string[];
  }

  function parse(text: string): Rule[] {
    const rules: Rule[] = [];
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      if (line.startsWith('/')) rules.push({ path: line, set: [], unset: [] });
      else if (line.startsWith('  ! ')) rules.at(-1)!.unset.push(line.slice(4));
      else {
        const [, name, value] = /^ {2}([\w-]+): (.+)$/.exec(line)!;
        rules.at(-1)!.set.push([name!, value!]);
      }
    }
    return rules;
  }

  /** Cloudflare's rules engine: `*` any characters, `:name` one segment; every matching rule in order, repeated headers joined. */
  function cloudflare(rules: Rule[], uri: string): Record<string, string> {
    const headers = new Map<string, string>();
    const setHere = new Set<string>();
    for (const rule of rules) {
      const pattern = rule.path.split('*').map(escapeRegex).join('.*').replace(/:[A-Za-z]\w*/g, '[^/]+');
      if (!new RegExp(`^${pattern}$`).test(uri)) continue;
      for (const name of rule.unset) headers.delete(name.toLowerCase());
      for (const [name, value] of rule.set) {
        const key = name.toLowerCase();
        headers.set(key, setHere.has(key) && headers.has(key) ? `${headers.get(key)}, ${value}` : value);
        setHere.add(key);
      }
    }
    return Object.fromEntries(headers);
  }

  /** Every file, asked for in the folder `base`, gets exactly its kind's headers on Cloudflare Pages. */
  function expectKindsHeaders(text: string, base: string): void {
    const rules = parse(text);
    for (const { rel, kind } of served) expect({ rel, headers: cloudflare(rules, `${base}${requestPath(rel)}`) }).toEqual({ rel, headers: lower(HEADERS[kind]) });
    expect(cloudflare(rules, `${base}/api/v2/video/12/`)).toEqual(lower(HEADERS.record));
    expect(cloudflare(rules, `${base}/api/v2/video/page.2`)).toEqual(lower(HEADERS.list));
    expect(cloudflare(rules, `${base}/`)).toEqual(lower(HEADERS.page));
  }

  it('gives every file exactly its kind’s headers on Cloudflare Pages', () => expectKindsHeaders(files._headers!, ''));

  it('for a site in a folder of its host, gives them in the folder and sets nothing outside it', () => {
    expectKindsHeaders(folderFiles._headers!, FOLDER);
    const rules = parse(folderFiles._headers!);
    for (const uri of ['/', '/video/12/', '/api/v2/video/12']) expect(cloudflare(rules, uri), uri).toEqual({});
  });

  it('is read the same way by Netlify, which skips the `!` lines', () => {
    for (const line of files._headers!.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('/')) continue;
      expect(line).toMatch(/^ {2}(! [\w-]+|[\w-]+: \S.*)$/);
    }
    // Netlify merges by header name, so no rule may set a header twice.
    for (const rule of parse(files._headers!)) expect(new Set(rule.set.map(([n]) => n)).size).toBe(rule.set.length);
  });
});

describe('_redirects (Netlify, Cloudflare Pages)', () => {
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => l.split(/\s+/));
  const compile = (from: string, trailingSlash: 'optional' | 'exact') => {
    const body = from.replace(/\/$/, trailingSlash === 'optional' ? '' : '/').split('*').map(escapeRegex).join('(?<splat>.*)');
    return new RegExp(`^${body.replace(/:([A-Za-z]\w*)/g, '(?<$1>[^/]+)')}${trailingSlash === 'optional' ? '/?' : ''}$`);
  };
  const fill = (to: string, values: Record<string, string>) => to.replace(/:([A-Za-z]\w*)/g, (m, name: string) => values[name] ?? m);

  /** Cloudflare: two or three tokens, a known status, the first rule for a path; exact paths before patterns. */
  function cloudflare(uri: string, text = files._redirects!): string | undefined {
    const seen = new Set<string>();
    const rules = lines(text).filter(([from, , status = '302', ...rest]) => {
      const ok = rest.length === 0 && ['200', '301', '302', '303', '307', '308'].includes(status) && !seen.has(from!);
      if (ok) seen.add(from!);
      return ok;
    });
    const exact = rules.find(([from]) => !/[*:]/.test(from!) && from === uri);
    if (exact) return exact[1];
    for (const [from, to] of rules) {
      const m = compile(from!, 'exact').exec(uri);
      if (m) return fill(to!, m.groups ?? {});
    }
    return undefined;
  }

  /**
   * Netlify, as its own redirect engine (netlify-redirector, which the Netlify CLI runs) matches: query conditions
   * between the paths, a trailing slash ignored, the first rule that matches applies, one that points at itself too;
   * one without `!` gives way to a file at the path (undefined: the file is sent).
   */
  function netlify(uri: string, query: Record<string, string>, text = files._redirects!, base = ''): string | undefined {
    for (const tokens of lines(text)) {
      const [from, ...rest] = tokens;
      const conditions = rest.slice(0, -2);
      const [to, status] = rest.slice(-2);
      const m = compile(from!, 'optional').exec(uri);
      if (!m) continue;
      const values: Record<string, string> = { ...m.groups };
      if (!conditions.every((c) => c.split('=')[0]! in query && (values[c.split('=')[1]!.slice(1)] = query[c.split('=')[0]!]!) !== undefined)) continue;
      if (!status!.endsWith('!') && served.some(({ rel }) => `${base}/${rel}` === uri)) return undefined;
      return fill(to!, values);
    }
    return undefined;
  }

  it("puts each list's ?page= and page 1 before the line Cloudflare keeps, which Netlify would otherwise apply to every request", () => {
    for (const [text, base] of [[files._redirects!, ''], [folderFiles._redirects!, FOLDER]] as const) {
      for (const name of LIST_NAMES) {
        const list = `${base}/api/v2/${name}`;
        expect(text).toContain(`${list}  page=:page  ${list}/page.:page  200!\n${list}  ${list}/page.1  200!\n${list}  ${list}  200\n`);
      }
    }
    // A record's file is sent, not the rule for its trailing slash.
    expect(netlify('/api/v2/video/12', {})).toBeUndefined();
    expect(netlify(`${FOLDER}/api/v2/video/12`, {}, folderFiles._redirects!, FOLDER)).toBeUndefined();
  });

  it('maps ?page=N on Netlify, page 1 without it, and ignores other parameters', () => {
    for (const name of LIST_NAMES) {
      expect(netlify(`/api/v2/${name}`, { page: '2' })).toBe(`/api/v2/${name}/page.2`);
      expect(netlify(`/api/v2/${name}/`, { page: '3', format: 'json' })).toBe(`/api/v2/${name}/page.3`);
      expect(netlify(`/api/v2/${name}`, {})).toBe(`/api/v2/${name}/page.1`);
      expect(netlify(`/api/v2/${name}`, { format: 'json' })).toBe(`/api/v2/${name}/page.1`);
    }
  });

  it('for a site in a folder of its host, maps the same paths in the folder, and none outside it', () => {
    const text = folderFiles._redirects!;
    for (const name of LIST_NAMES) {
      expect(netlify(`${FOLDER}/api/v2/${name}/`, { page: '3', format: 'json' }, text)).toBe(`${FOLDER}/api/v2/${name}/page.3`);
      expect(netlify(`${FOLDER}/api/v2/${name}`, {}, text)).toBe(`${FOLDER}/api/v2/${name}/page.1`);
      expect(netlify(`/api/v2/${name}`, { page: '2' }, text)).toBeUndefined();
      expect(cloudflare(`${FOLDER}/api/v2/${name}`, text)).toBe(`${FOLDER}/api/v2/${name}`);
    }
    expect(cloudflare(`${FOLDER}/api/v2/video/12/`, text)).toBe(`${FOLDER}/api/v2/video/12`);
    expect(cloudflare(`${FOLDER}/api/v2/category/pycon-us-2014/`, text)).toBe(`${FOLDER}/api/v2/category/pycon-us-2014`);
    expect(cloudflare('/api/v2/video/12/', text)).toBeUndefined();
  });

  it('leaves the lists unmapped (404) on Cloudflare, which cannot see the query, and maps trailing slashes there', () => {
    for (const name of LIST_NAMES) expect(cloudflare(`/api/v2/${name}`)).toBe(`/api/v2/${name}`);
    expect(cloudflare('/api/v2/video/12/')).toBe('/api/v2/video/12');
    expect(cloudflare('/api/v2/category/pycon-us-2014/')).toBe('/api/v2/category/pycon-us-2014');
    expect(cloudflare('/api/v2/video/12')).toBeUndefined();
  });
});

describe('vercel.json and firebase.json', () => {
  const vercel = (base = '') => JSON.parse(filesFor(base)['vercel.json']!);
  const firebase = (base = '') => JSON.parse(filesFor(base)['firebase.json']!).hosting;
  type JsonRule = { headers: { key: string; value: string }[] };
  const asRecord = (rule: JsonRule) => Object.fromEntries(rule.headers.map((h) => [h.key.toLowerCase(), h.value]));
  /** Firebase's headers for a path: every matching rule, the later one winning. */
  const firebaseHeaders = (base: string) => {
    const rules: (JsonRule & { regex: string })[] = firebase(base).headers;
    return (uri: string) => Object.assign({}, ...rules.filter((r) => new RegExp(r.regex).test(uri)).map(asRecord));
  };

  /** Every file, asked for in the folder `base`, gets exactly its kind's headers on Firebase. */
  function expectFirebaseKinds(base: string): void {
    const headersFor = firebaseHeaders(base);
    for (const { rel, kind } of served) expect({ rel, headers: headersFor(`${base}${requestPath(rel)}`) }).toEqual({ rel, headers: lower(HEADERS[kind]) });
    expect(headersFor(`${base}/talks/`)).toEqual(lower(HEADERS.page));
    expect(headersFor(`${base}/api/v2/video/12/`)).toEqual(lower(HEADERS.record));
  }

  it('Firebase: every file gets exactly its kind’s headers (every matching rule, the later one winning)', () => expectFirebaseKinds(''));

  it('for a site in a folder of its host: the same headers, rewrites and redirects in the folder, and none outside it', () => {
    expectFirebaseKinds(FOLDER);
    expect(firebaseHeaders(FOLDER)('/api/v2/video/12')).toEqual({});
    const config = firebase(FOLDER);
    for (const f of HOST_FILES) expect(config.ignore).toContain(`${FOLDER.slice(1)}/${f}`);
    // Itself at the deploy's root, where it is moved to be read (README), as Firebase's own `firebase init` writes it.
    expect(config.ignore).toContain('firebase.json');
    // Only the site's copies: a .gz elsewhere in the deploy (an archive to download) is uploaded.
    for (const e of ENCODINGS) expect(config.ignore).toContain(`${FOLDER.slice(1)}/**/*${e.suffix}`);
    const [record] = config.redirects;
    const m = new RegExp(record.regex.replace('(?P<', '(?<')).exec(`${FOLDER}/api/v2/video/12/`);
    expect(record.destination.replace(':id', m!.groups!.id!)).toBe(`${FOLDER}/api/v2/video/12`);
    expect(new RegExp(record.regex.replace('(?P<', '(?<')).test('/api/v2/video/12/')).toBe(false);
    const site = vercel(FOLDER);
    expect(site.headers.map(asRecord)).toEqual(config.headers.map(asRecord));
    expect(site.headers.map((r: { source: string }) => r.source)).toContain(`${FOLDER}/api/v2/video/:id(${ID_PATTERN}){/}?`);
    for (const name of LIST_NAMES) {
      expect(site.rewrites).toContainEqual({ source: `${FOLDER}/api/v2/${name}{/}?`, missing: [{ type: 'query', key: 'page' }], destination: `${FOLDER}/api/v2/${name}/page.1` });
    }
    const [folders] = site.redirects;
    const pattern = new RegExp(`^/${/^\/:path\((.*)\)$/.exec(folders.source)![1]}$`);
    expect([FOLDER, `${FOLDER}/talks`, `${FOLDER}/video/12/a-talk`, `${FOLDER}/api`].every((p) => pattern.test(p))).toBe(true);
    expect([`${FOLDER}/api/v2/video/12`, `${FOLDER}/api/v2`, `${FOLDER}/feed.atom`, `${FOLDER}/`, '/events', `${FOLDER}x`].some((p) => pattern.test(p))).toBe(false);
  });

  it('Vercel has the same header rules, in the same order', () => {
    expect(vercel().headers.map(asRecord)).toEqual(firebase().headers.map(asRecord));
    expect(vercel().headers.map((r: { source: string }) => r.source)).toContain(`/api/v2/video/:id(${ID_PATTERN}){/}?`);
  });

  it('Vercel maps ?page=N with `has`, page 1 with `missing`, trailing slashes, and folders without their slash', () => {
    const config = vercel();
    expect(config.cleanUrls).toBe(false);
    // trailingSlash: true would redirect /api/v2/video/1 to /api/v2/video/1/; false every page away from its URL.
    expect(config).not.toHaveProperty('trailingSlash');
    for (const name of LIST_NAMES) {
      expect(config.rewrites).toContainEqual({ source: `/api/v2/${name}{/}?`, has: [{ type: 'query', key: 'page', value: '0*(?<page>[1-9][0-9]*)' }], destination: `/api/v2/${name}/page.:page` });
      expect(config.rewrites).toContainEqual({ source: `/api/v2/${name}{/}?`, missing: [{ type: 'query', key: 'page' }], destination: `/api/v2/${name}/page.1` });
    }
    const [folders] = config.redirects;
    const pattern = new RegExp(`^/${/^\/:path\((.*)\)$/.exec(folders.source)![1]}$`);
    expect(['/talks', '/video/12/a-talk', '/api'].every((p) => pattern.test(p))).toBe(true);
    expect(['/api/v2/video/12', '/api/v2', '/feed.atom', '/talks/', '/index.html'].some((p) => pattern.test(p))).toBe(false);
  });

  it('Firebase uploads no host file or compressed copy and redirects trailing slashes after API paths', () => {
    const config = firebase();
    for (const f of HOST_FILES) expect(config.ignore).toContain(f);
    for (const e of ENCODINGS) expect(config.ignore).toContain(`**/*${e.suffix}`);
    expect(config.cleanUrls).toBe(false);
    const [record] = config.redirects;
    const m = new RegExp(record.regex.replace('(?P<', '(?<')).exec('/api/v2/video/12/');
    expect(record.destination.replace(':id', m!.groups!.id!)).toBe('/api/v2/video/12');
  });
});

describe('Caddyfile', () => {
  it('holds every kind’s headers and marks the lines a user edits', () => {
    const caddy = files.Caddyfile!;
    for (const kind of Object.keys(HEADERS) as FileKind[]) {
      for (const [name, value] of Object.entries(HEADERS[kind])) expect(caddy, `${kind} ${name}`).toMatch(new RegExp(`\\t\\??${escapeRegex(name)} \`${escapeRegex(value)}\``));
    }
    expect(caddy).toMatch(/^# EDIT: .*\n:8080 \{$/m);
    expect(caddy).toMatch(/^\t# EDIT: .*\n\troot \* `\/srv\/video-catalogue\/dist`$/m);
    expect(caddy).toContain('precompressed br gzip');
    expect(caddy).toContain('\t\t\tencode {\n\t\t\t\tzstd\n\t\t\t\tgzip\n\t\t\t\tminimum_length 512\n\t\t\t}\n\t\t\tfile_server {\n\t\t\t\tprecompressed br gzip');
  });
});
