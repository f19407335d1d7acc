import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printableIo, type CliIo } from '../../src/cli/output.js';
import { parseSpeed, replayCommand } from '../../src/cli/replay.js';
import { buildStatus } from '../../src/testing/index.js';

function fakeIo(isTty: boolean): CliIo & { lines: string[]; statuses: string[] } {
  const lines: string[] = [];
  const statuses: string[] = [];
  return {
    lines,
    statuses,
    isTty,
    out: (line) => void lines.push(line),
    err: (line) => void lines.push(`ERR ${line}`),
    status: (text) => void statuses.push(text),
  };
}

let dir: string;
let server: Server;
let url: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mw-replay-cmd-'));
  // Answers 400 to the third request, 200 otherwise.
  let count = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(count === 3 ? 400 : 200, { 'content-type': 'application/json' });
      res.end(count === 3 ? '{"error":{"message":"bad payload"}}' : '{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(dir, { recursive: true, force: true });
});

function captureFile(name: string, count: number): string {
  const file = join(dir, name);
  const lines = Array.from({ length: count }, () =>
    JSON.stringify({ type: 'status', payload: buildStatus() }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('replay command output', () => {
  it('draws a progress bar on a terminal, prints failures above it, then the summary', async () => {
    const io = fakeIo(true);
    const report = await replayCommand(captureFile('tty.jsonl', 4), { to: url }, io);
    expect(report.failed).toBe(1);
    expect(io.statuses).toContain('[##############--------------] 2/4  ok 2  failed 0');
    expect(io.statuses.at(-1)).toBe('[############################] 4/4  ok 3  failed 1\n');
    expect(io.lines[0]).toBe('3/4 line 3 status /webhooks/status → FAILED: answered 400: bad payload');
    expect(io.lines.at(-1)).toMatch(
      new RegExp(`^Replayed 4 of 4 to ${url}: 3 ok, 1 failed \\(200: 3, 400: 1\\) in \\d+ ms$`),
    );
  });

  it('prints one plain line per item when not on a terminal', async () => {
    const io = fakeIo(false);
    await replayCommand(captureFile('plain.jsonl', 2), { to: url }, io);
    expect(io.statuses).toEqual([]);
    expect(io.lines).toHaveLength(3);
    expect(io.lines[0]).toMatch(/^1\/2 line 1 status \/webhooks\/status → 200 [\d.]+ ms$/);
  });
});

describe('--speed', () => {
  it.each([
    [undefined, 'none'],
    ['none', 'none'],
    ['original', 'original'],
    ['2', 2],
    ['0.5', 0.5],
  ] as const)('reads %s as %s', (value, expected) => {
    expect(parseSpeed(value)).toBe(expected);
  });

  it.each(['0', '-1', 'fast', ''])('refuses %j', (value) => {
    expect(() => parseSpeed(value)).toThrow('--speed: expected none, original or a positive number');
  });
});

describe('--to', () => {
  it.each([
    [
      'not a URL',
      'not a url',
      'expected an http(s) URL such as http://localhost:3000/webhooks; got "not a url"',
    ],
    ['another scheme', 'ftp://x/', 'expected an http(s) URL, got the scheme ftp:; got "ftp://x/"'],
  ])('refuses %s before reading anything, naming the option', async (_name, to, message) => {
    await expect(replayCommand(join(dir, 'absent.jsonl'), { to }, fakeIo(false))).rejects.toThrow(
      `--to: ${message}`,
    );
  });
});

describe('replay command with a hostile capture file and target', () => {
  // eslint-disable-next-line no-control-regex -- what must not reach the terminal
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
  let hostile: Server;
  let hostileUrl: string;
  const paths: string[] = [];
  beforeAll(async () => {
    // Answers 500 with a body that would retitle the terminal and clear the screen.
    hostile = createServer((req, res) => {
      paths.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('oops\u001b]0;owned\u0007\u001b[2J\u009b31m');
      });
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      hostile.close(() => resolve());
      hostile.closeAllConnections();
    });
  });

  it.each([[false], [true]])(
    'refuses a path leaving --to, prints the answer escaped (terminal: %s)',
    async (isTty) => {
      paths.length = 0;
      const file = join(dir, `hostile-${String(isTty)}.jsonl`);
      const record = (path: string) =>
        JSON.stringify({
          receivedAt: '2026-01-01T00:00:00.000Z',
          type: 'status',
          path,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(buildStatus()),
        });
      writeFileSync(file, `${record('/../../admin/users/1?_method=DELETE')}\n${record('/status')}\n`);
      const io = fakeIo(isTty);
      // The writers main hands every command: each line escaped on its way out.
      const report = await replayCommand(file, { to: hostileUrl, token: 'tok' }, printableIo(io));
      expect(paths).toEqual(['/webhooks/status']);
      expect(report.items.map((item) => item.refused === true)).toEqual([true, false]);
      const text = [...io.lines, ...io.statuses.filter((line) => !line.startsWith('['))].join('\n');
      expect(io.lines.join('\n')).not.toMatch(CONTROL);
      expect(text).toContain('oops\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m');
      expect(io.lines.join('\n')).toMatch(/refused, not sent: a dot segment/);
      expect(io.lines.at(-1)).toMatch(/^ERR 1 record refused and not sent/);
      expect(io.lines.join('\n')).toMatch(/refused: 1/);
    },
  );
});
