// A raw HTTP client for tests: sends the path exactly as given (no normalising
// of `..` or percent-escapes, unlike fetch), so traversal attempts reach the server.
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Names and values as they came, for a header sent twice. */
  rawHeaders: string[];
  body: Buffer;
  text: string;
}

export function raw(base: string, method: string, pathname: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  const url = new URL(base);
  // Node frames a body it knows in full only for some methods: a DELETE's would be read as the start of the connection's next request.
  const framed = body === undefined || Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h)) ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: pathname, headers: framed }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const data = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: data, text: data.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Headers any HTTP server may add besides the ones a test checks. */
export const STANDARD_HEADERS = ['content-length', 'date', 'etag', 'last-modified', 'cache-control', 'connection', 'keep-alive', 'content-security-policy', 'x-content-type-options'];
