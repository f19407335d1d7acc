import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIncoming, replay, type CaptureRecord } from '../../src/testing/index.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

let dir: string;
let server: Server;
let base: string;
const seen: Seen[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-replay-hostile-'));
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
beforeEach(() => {
  seen.length = 0;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(dir, { recursive: true, force: true });
});

const record = (path: string, headers: Record<string, string> = {}): CaptureRecord => ({
  receivedAt: '2026-01-01T00:00:00.000Z',
  type: 'incoming',
  path,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(buildIncoming()),
});

const file = (records: readonly CaptureRecord[]): string => {
  const path = join(dir, `capture-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(path, `${records.map((one) => JSON.stringify(one)).join('\n')}\n`);
  return path;
};

describe('replay treats a capture file as data', () => {
  it.each([
    ['a parent segment with a method override', '/../../admin/users/1?_method=DELETE', /dot segment/],
    ['a parent segment', '/incoming/../../admin', /dot segment/],
    ['a percent-encoded parent segment', '/%2e%2E/admin', /dot segment/],
    ['a current-directory segment', '/./incoming', /dot segment/],
    ['an encoded slash', '/..%2fadmin', /encoded slash|dot segment/],
    ['an absolute URL', 'http://evil.test/admin', /absolute URL/],
    ['a protocol-relative URL', '//evil.test/admin', /absolute URL/],
    ['a backslash', '/\\..\\admin', /backslash/],
    ['a method override on an endpoint', '/incoming?_method=DELETE', /method override \(_method\)/],
    ['another method override', '/incoming?X-HTTP-Method-Override=PUT', /method override/],
  ])('refuses %s and sends nothing for it', async (_name, path, reason) => {
    const report = await replay(file([record(path), record('/incoming')]), base, { token: 'tok' });
    expect(seen.map(({ method, url }) => [method, url])).toEqual([['POST', '/webhooks/incoming']]);
    expect(report.items[0]).toMatchObject({ ok: false, refused: true, status: undefined });
    expect(report.items[0]!.error).toMatch(/^refused, not sent: /);
    expect(report.items[0]!.error).toMatch(reason);
    expect(report.items[0]!.path).toBeUndefined();
    expect(report).toMatchObject({ sent: 1, succeeded: 1, failed: 1, stopped: false });
  });

  it('forwards only the allowlisted headers of a record, plus the token', async () => {
    const captured = {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'req-1',
      'user-agent': 'platform/1',
      authorization: 'Bearer stolen',
      cookie: 'session=1',
      'x-forwarded-for': '10.0.0.1',
      'x-http-method-override': 'DELETE',
      'x-webhook-token': 'from-the-file',
    };
    await replay(file([record('/incoming', captured)]), base, { token: 'tok' });
    const sent = seen[0]!.headers;
    expect(sent).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'req-1',
      'user-agent': 'platform/1',
      'x-webhook-token': 'tok',
    });
    for (const name of ['authorization', 'cookie', 'x-forwarded-for', 'x-http-method-override'])
      expect([name, sent[name]]).toEqual([name, undefined]);
  });

  it('forwards the headers listed in forwardHeaders, and none with false', async () => {
    const captured = { 'x-trace': 't1', 'x-request-id': 'req-2', authorization: 'Bearer x' };
    await replay(file([record('/incoming', captured)]), base, { forwardHeaders: ['X-Trace'] });
    expect(seen[0]!.headers['x-trace']).toBe('t1');
    expect(seen[0]!.headers['x-request-id']).toBeUndefined();
    await replay(file([record('/incoming', captured)]), base, { forwardHeaders: false });
    expect(seen[1]!.headers['x-trace']).toBeUndefined();
    // The body's type is still said.
    expect(seen[1]!.headers['content-type']).toBe('application/json');
    await expect(replay([], base, { forwardHeaders: 'yes' as never })).rejects.toThrow(TypeError);
  });
});
