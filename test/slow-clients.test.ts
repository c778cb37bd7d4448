/**
 * Slow and malformed clients: the HTTP server's limits and the problem documents for requests that
 * Node's parser or the app cannot read. Raw sockets, because no HTTP client sends such requests.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../src/http/listener.js';
import { small } from './fixtures/small.js';
import { appFor, listen, type TestApp } from './helpers/app.js';

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/** Connects, writes `data` (and nothing more, whatever it is), and waits for the server to close. */
function exchange(port: number, data: string | Buffer, giveUpMs = 5_000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server still held the connection after ${giveUpMs} ms; it sent: ${text}`));
    }, giveUpMs).unref();
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponse(text: string): RawResponse {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

function expectProblem(response: RawResponse, status: number, code = 'invalid_request') {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.headers['access-control-allow-origin']).toBe('*');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-request-id']).toMatch(/^[\w-]{36}$/);
  expect(response.headers.connection).toBe('close');
  // RFC 9110 section 6.6.1: an origin server with a clock sends Date on every 4xx.
  expect(Math.abs(Date.parse(response.headers.date ?? '') - Date.now())).toBeLessThan(60_000);
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ type: 'about:blank', status, code });
  return body;
}

let t: TestApp;
let port: number;
let stop: () => Promise<void>;
beforeAll(async () => {
  t = await appFor(small);
  ({ port, stop } = await listen(t.app, { headersTimeoutMs: 300, keepAliveTimeoutMs: 300 }));
});
afterAll(async () => {
  await stop();
  t.close();
});

describe('the production server', () => {
  it('closes a request whose headers are not complete within 10 s, keeps idle connections 5 s, and caps headers at 16 KB', () => {
    const server = createHttpServer(t.app);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect((server as typeof server & { maxHeaderSize?: number }).maxHeaderSize).toBe(16 * 1024);
    // The whole request may not take longer than its headers are allowed to, with some room for a body.
    expect(server.requestTimeout).toBeGreaterThanOrEqual(10_000);
    expect(server.requestTimeout).toBeLessThanOrEqual(60_000);
  });
});

describe('a request answered before the app (no Host, headers too large, a method Node does not pass on)', () => {
  it("carries the client's own X-Request-Id and leaves its line in the request log, as any other request does", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const server = createHttpServer(t.app, {}, pino(sink)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port: own } = server.address() as net.AddressInfo;
    try {
      const asked = [
        ['GET /budget/api/totals/?year=2024 HTTP/1.1\r\nX-Request-Id: no-host\r\n\r\n', 'no-host', 400, 'GET'],
        ['get /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: lower.case\r\n\r\n', 'lower.case', 405, 'get'],
        [
          `GET /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: too_big\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
          'too_big',
          431,
          'GET',
        ],
      ] as const;
      for (const [data, id, status, method] of asked) {
        const response = parseResponse((await exchange(own, data)).text);
        expect(response.status, id).toBe(status);
        expect(response.headers['x-request-id'], id).toBe(id);
        expect(
          lines.filter((line) => line.id === id),
          id,
        ).toEqual([expect.objectContaining({ msg: 'request', id, method, path: '/budget/api/totals/', status, bytes: expect.any(Number) })]);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a client that never finishes its headers', () => {
  it('gets a 408 problem and its connection closed once the headers timeout passes', async () => {
    const { text, closedAfterMs } = await exchange(port, 'GET /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\n');
    expectProblem(parseResponse(text), 408);
    expect(closedAfterMs).toBeGreaterThanOrEqual(300);
  });
});

describe('many clients that never finish their headers, all at once', () => {
  it('are each answered 408 and closed', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => exchange(port, 'GET /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\n')));
    for (const { text } of all) expectProblem(parseResponse(text), 408);
  });
  it('include clients that connect and send nothing', async () => {
    const all = await Promise.all(Array.from({ length: 5 }, () => exchange(port, '')));
    for (const { closedAfterMs } of all) expect(closedAfterMs).toBeGreaterThanOrEqual(300);
  });
  it('include a keep-alive client whose second request never finishes', async () => {
    const { text } = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\n');
    const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
    expect(parseResponse(first!).status).toBe(200);
    expectProblem(parseResponse(second!), 408);
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed by the server once the keep-alive timeout passes', async () => {
    const { text, closedAfterMs } = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(parseResponse(text).status).toBe(200);
    expect(closedAfterMs).toBeGreaterThanOrEqual(300);
  });
});

describe('headers over 16 KB', () => {
  it('get a 431 problem, and the connection closed', async () => {
    const big = `GET /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`;
    const body = expectProblem(parseResponse((await exchange(port, big)).text), 431);
    expect(body.title).toBe('Request Header Fields Too Large');
  });
  it('include the request line: a 17 KB URL gets 431 too', async () => {
    const { text } = await exchange(port, `GET /budget/api/totals/?year=${'1'.repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expectProblem(parseResponse(text), 431);
  });
});

describe('a request Node cannot parse', () => {
  it('with raw UTF-8 in the URL gets a 400 invalid_request problem', async () => {
    const raw = Buffer.from('GET /budget/api/totals/?year=2020é HTTP/1.1\r\nHost: localhost\r\n\r\n', 'utf8');
    const body = expectProblem(parseResponse((await exchange(port, raw)).text), 400);
    expect(body.detail).toMatch(/percent-encode/);
  });
  it('with a request line that is not HTTP gets a 400 invalid_request problem', async () => {
    const body = expectProblem(parseResponse((await exchange(port, 'HELLO THERE\r\n\r\n')).text), 400);
    expect(body.detail).toBe('the request is not valid HTTP/1.1');
  });
  it('without a Host gets a 400 invalid_request problem, as HTTP/1.1 asks, not a bare 400', async () => {
    const body = expectProblem(parseResponse((await exchange(port, 'GET /budget/api/totals/ HTTP/1.1\r\n\r\n')).text), 400);
    expect(body.detail).toBe('an HTTP/1.1 request must name its Host');
    // HTTP/1.0 has no Host to name.
    expect(parseResponse((await exchange(port, 'GET /budget/api/totals/ HTTP/1.0\r\n\r\n')).text).status).toBe(200);
  });
  it('with two Host headers gets a 400 invalid_request problem, as HTTP/1.1 asks', async () => {
    const twice = 'GET /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\nHost: example.org\r\n\r\n';
    const body = expectProblem(parseResponse((await exchange(port, twice)).text), 400);
    expect(body.detail).toBe('an HTTP/1.1 request must name one Host, not 2');
    // A comma is no second Host line.
    expect(parseResponse((await exchange(port, 'GET /budget/api/totals/ HTTP/1.1\r\nHost: a,b\r\n\r\n')).text).status).toBe(200);
  });
  it("with HEAD gets the problem's headers without its body", async () => {
    const { text } = await exchange(port, 'HEAD /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: \u0001\r\n\r\n');
    const response = parseResponse(text);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.body).toBe('');
  });
  it.each(['FOO', 'get', 'CONNECT'])('with the method %s, which Node does not pass on, gets a 405 naming the methods allowed', async (method) => {
    const response = parseResponse((await exchange(port, `${method} /budget/api/totals/ HTTP/1.1\r\nHost: localhost\r\n\r\n`)).text);
    const body = expectProblem(response, 405, 'method_not_allowed');
    expect(body).toMatchObject({ code: 'method_not_allowed', detail: `${method} is not allowed here; use GET, HEAD, OPTIONS` });
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('a request with an expectation the server does not know', () => {
  it('is answered as without it, with the common headers and its request id (Node alone answers a bare 417)', async () => {
    const response = parseResponse(
      (
        await exchange(
          port,
          'GET /budget/api/totals/?year=2020 HTTP/1.1\r\nHost: localhost\r\nExpect: nonsense\r\nX-Request-Id: expect-1\r\nConnection: close\r\n\r\n',
        )
      ).text,
    );
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['x-request-id']).toBe('expect-1');
  });
});

describe('a request with a body', () => {
  it('is answered without waiting for the body, then its connection is closed', async () => {
    const { text, closedAfterMs } = await exchange(
      port,
      'GET /budget/api/totals/?year=2020 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\nonly a little',
    );
    const response = parseResponse(text);
    expect(response.status).toBe(200);
    expect(response.headers.connection).toBe('close');
    // Well before the keep-alive timeout: the server did not keep the connection to read the body.
    expect(closedAfterMs).toBeLessThan(300);
  });
});

describe('percent-encoding the app cannot decode', () => {
  it.each([
    ['a path segment', '/budget/api/tot%E0%A4%A/'],
    ['a path with an invalid UTF-8 sequence', '/budget/api/%C3%28/'],
    ['a query value', '/budget/api/totals/?year=%ZZ'],
    ['a query name', '/budget/api/totals/?%E0%A4%A=1'],
    ['a docs asset', '/budget/api/docs/%ZZ.js'],
  ])('in %s gets a 400 invalid_request problem', async (_where, url) => {
    const res = await request(t.app).get(url);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'the URL is not valid percent-encoded UTF-8',
      code: 'invalid_request',
    });
  });
  it('does not stop a well-encoded UTF-8 value from reaching validation', async () => {
    const res = await request(t.app).get('/budget/api/budget-categories/?type=d%C3%A9pense');
    expect(res.status).toBe(200);
  });
});
