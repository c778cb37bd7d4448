import http from 'node:http';

/** An answer as it came over the wire: supertest would decompress bodies and merge nothing, but hide the bytes. */
export interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Header names and values in the order sent. */
  rawHeaders: string[];
  body: Buffer;
}

/** One request over a new connection, with exactly the headers given. */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
