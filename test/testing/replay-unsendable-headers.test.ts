// A captured header value Node refuses to send (`café€`: outside Latin-1; `id\u2028`: a line
// separator) made http.request throw inside replay()'s promise executor: the item was missing
// from the report, the rejection went unhandled, and the CLI stopped after line 1. Such an item is
// now refused and reported, and the replay goes on.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayCommand } from '../../src/cli/replay.js';
import type { CliIo } from '../../src/cli/output.js';
import { fixtures, replay, type CaptureRecord } from '../../src/testing/index.js';

const record = (requestId: string, extra: Record<string, string> = {}): CaptureRecord => ({
  receivedAt: '2026-01-01T00:00:00.000Z',
  type: 'incoming',
  path: '/incoming',
  headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...extra },
  body: JSON.stringify(fixtures.incoming.TEXT),
});

const RECORDS = [
  record('café€'),
  record('id\u2028'),
  record('plain-id'),
  record('ok', { 'content-type': 'application/json\r\nx-injected: 1' }),
];

let dir: string;
let server: Server;
let received: string[];
let base: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-replay-headers-'));
  received = [];
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
  server = createServer((req, res) => {
    received.push(String(req.headers['x-request-id']));
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Lets a pending unhandled rejection be reported before the test looks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

it('reports each item whose captured header Node refuses as refused, and sends the others', async () => {
  const report = await replay(RECORDS, base);
  await settle();
  expect(report.items.map((item) => [item.index, item.ok, item.refused ?? false])).toEqual([
    [0, false, true],
    [1, false, true],
    [2, true, false],
    [3, false, true],
  ]);
  expect(report.items[0]?.error).toBe(
    'refused, not sent: header "x-request-id" has a value Node cannot send (a character outside Latin-1, or a control character)',
  );
  expect(report.items[3]?.error).toMatch(/header "content-type"/);
  expect([report.sent, report.succeeded, report.failed]).toEqual([1, 1, 3]);
  expect(received).toEqual(['plain-id']);
  expect(unhandled).toEqual([]);
});

it('goes on through a capture file, with concurrency too', async () => {
  const file = join(dir, 'capture.jsonl');
  writeFileSync(file, RECORDS.map((r) => JSON.stringify(r)).join('\n'));
  const report = await replay(file, base, { concurrency: 4 });
  await settle();
  expect(report.items.map((item) => [item.line, item.ok])).toEqual([
    [1, false],
    [2, false],
    [3, true],
    [4, false],
  ]);
  expect(unhandled).toEqual([]);
});

it('the CLI replays past such a line to the end', async () => {
  const file = join(dir, 'capture.jsonl');
  writeFileSync(file, RECORDS.map((r) => JSON.stringify(r)).join('\n'));
  const lines: string[] = [];
  const io: CliIo = {
    out: (line) => void lines.push(line),
    err: (line) => void lines.push(line),
    isTty: false,
    status: () => undefined,
  };
  const report = await replayCommand(file, { to: base }, io);
  expect(report.items).toHaveLength(4);
  expect(received).toEqual(['plain-id']);
  expect(lines.join('\n')).toMatch(/Replayed 1 of 4/);
});

it('refuses its own headers or token that Node cannot send before sending anything', async () => {
  await expect(replay(RECORDS, base, { headers: { 'x-tag': 'café€' } })).rejects.toThrow(
    /^headers: header "x-tag" has a value Node cannot send/,
  );
  await expect(replay(RECORDS, base, { token: 'tok\n' })).rejects.toThrow(/^token: /);
  expect(received).toEqual([]);
});
