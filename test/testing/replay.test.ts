import express from 'express';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookRouter, type WebhookRouter } from '../../src/receiver/index.js';
import type { WebhookType } from '../../src/schemas/index.js';
import {
  allFixtures,
  buildIncoming,
  buildStatus,
  CaptureFileError,
  createJsonlCapture,
  fixtures,
  readCapture,
  replay,
  ReplayError,
  serialiseRecord,
  type CaptureLine,
  type CaptureRecord,
} from '../../src/testing/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-replay-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const tempFile = (): string => join(dir, `capture-${(fileCount += 1)}.jsonl`);

interface RawRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** A bare server keeping every request's exact bytes; answers `status(index)` (default 200). */
async function startRawServer(status: (index: number) => number = () => 200): Promise<{
  url: string;
  requests: RawRequest[];
  close(): Promise<void>;
}> {
  const requests: RawRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = requests.length;
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(status(index), { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await listen(server);
  return { url: urlOf(server), requests, close: () => closeServer(server) };
}

/** A captured status receipt, received `ms` after the start of 2026. */
const statusRecordAt = (ms: number): CaptureRecord => ({
  receivedAt: new Date(Date.UTC(2026, 0, 1) + ms).toISOString(),
  type: 'status',
  path: '/status',
  headers: {},
  body: JSON.stringify(buildStatus()),
});

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}
const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** POSTs exact bytes (no client-side re-serialisation). */
function postRaw(url: string, body: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function readAll(file: string): Promise<CaptureLine[]> {
  const lines: CaptureLine[] = [];
  for await (const line of readCapture(file)) lines.push(line);
  return lines;
}

function recordingRouter(options: Parameters<typeof createWebhookRouter>[0] = {}): {
  router: WebhookRouter;
  calls: { type: WebhookType; payload: unknown }[];
} {
  const calls: { type: WebhookType; payload: unknown }[] = [];
  const record =
    (type: WebhookType) =>
    (payload: unknown): void => {
      calls.push({ type, payload });
    };
  const router = createWebhookRouter({
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
    ...options,
  });
  return { router, calls };
}

describe('capture → replay round trip', () => {
  it('replays the exact bytes the receiver got, to the same paths, in order', async () => {
    const file = tempFile();
    const capture = createJsonlCapture({ file });
    const { router } = recordingRouter({ capture, token: 'tok' });
    const app = express();
    app.use('/webhooks', router);
    const receiver = createServer(app);
    await listen(receiver);
    // Bodies a re-serialisation would change: spacing, key order, escapes, non-ASCII, a trailing newline.
    const sent: { path: string; body: Buffer }[] = [
      {
        path: '/incoming',
        body: Buffer.from(
          `{ "messageContentType":"TEXT",  "sender":"+27831234567", "text":"caf\\u00e9 ☕ \\"q\\"" }\n`,
        ),
      },
      { path: '/status', body: Buffer.from(JSON.stringify(buildStatus({ status: 'SENT' }), null, 2)) },
      { path: '/', body: Buffer.from(JSON.stringify(fixtures.event.USER_PREFERENCE)) },
      { path: '/session', body: Buffer.from('{"statusType": "connecting"') }, // invalid JSON: captured too
      { path: '/chatbot', body: Buffer.from(JSON.stringify(fixtures.chatbot.v2.INCOMING)) },
    ];
    const statuses: number[] = [];
    try {
      for (const { path, body } of sent) {
        statuses.push(
          await postRaw(`${urlOf(receiver)}/webhooks/tok${path}`, body, { 'x-request-id': `req${path}` }),
        );
      }
    } finally {
      await router.close();
      await closeServer(receiver);
      await capture.close();
    }
    expect(statuses).toEqual([200, 200, 200, 400, 200]);

    const lines = await readAll(file);
    expect(lines.map((line) => line.error)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const records = lines.map((line) => line.record!);
    expect(records.map((record) => record.path)).toEqual(sent.map(({ path }) => path));
    expect(records.map((record) => record.type)).toEqual([
      'incoming',
      'status',
      undefined,
      'session',
      'chatbot',
    ]);
    for (const record of records) expect(JSON.stringify(record)).not.toContain('tok/');

    const target = await startRawServer();
    try {
      const report = await replay(file, `${target.url}/replayed`);
      expect(report.failed).toBe(0);
      expect(report.sent).toBe(sent.length);
      expect(target.requests.map((req) => req.url)).toEqual(sent.map(({ path }) => `/replayed${path}`));
      target.requests.forEach((req, index) => {
        expect(req.body.equals(sent[index]!.body)).toBe(true);
        expect(req.headers['content-type']).toBe('application/json');
      });
      expect(target.requests[0]!.headers['x-request-id']).toBe('req/incoming');
    } finally {
      await target.close();
    }
  });

  it('replays a capture into an in-process app with a token, running the callbacks in order', async () => {
    const records: CaptureRecord[] = allFixtures().map(({ type, payload }, index) => ({
      receivedAt: new Date(Date.UTC(2026, 0, 1) + index).toISOString(),
      type,
      path: `/${type === 'event' ? 'events' : type}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    }));
    const { router, calls } = recordingRouter({ token: 'abc', dedupe: false });
    const app = express();
    app.use('/webhooks', router);
    const progress: number[] = [];
    const report = await replay(records, app, {
      basePath: '/webhooks',
      token: 'abc',
      onProgress: (_item, { done }) => progress.push(done),
    });
    await router.idle();
    await router.close();
    expect(report.items.every((item) => item.ok && item.status === 200)).toBe(true);
    expect(report.items.map((item) => item.index)).toEqual(records.map((_, index) => index));
    expect(progress).toEqual(records.map((_, index) => index + 1));
    expect(calls.map((call) => call.type)).toEqual(records.map((record) => record.type));
    expect(report.items[0]).toMatchObject({ type: 'incoming', path: '/webhooks/incoming', ok: true });
    expect(typeof report.items[0]!.latencyMs).toBe('number');
  });
});

describe('replay', () => {
  it('sends plain { type, payload } items to their endpoints, and untyped ones to /', async () => {
    const target = await startRawServer();
    try {
      const message = buildIncoming({ text: 'hello' });
      const report = await replay(
        [{ type: 'incoming', payload: message }, { payload: fixtures.session['Connecting...'] }],
        target.url,
      );
      expect(report.items.map((item) => [item.type, item.path, item.status])).toEqual([
        ['incoming', '/incoming', 200],
        [undefined, '/', 200],
      ]);
      expect(JSON.parse(target.requests[0]!.body.toString('utf8'))).toEqual(message);
    } finally {
      await target.close();
    }
  });

  it('reports non-2xx answers per item with the reason, and carries on', async () => {
    const { router } = recordingRouter();
    const app = express();
    app.use(router);
    const report = await replay(
      [
        { type: 'status', payload: { status: 'SENT' } },
        { type: 'status', payload: buildStatus() },
      ],
      app,
    );
    await router.close();
    expect(report.items[0]).toMatchObject({ status: 400, ok: false });
    expect(report.items[0]!.error).toMatch(/^answered 400: /);
    expect(report.items[1]).toMatchObject({ status: 200, ok: true });
    expect(report).toMatchObject({ sent: 2, succeeded: 1, failed: 1, stopped: false });
  });

  it('answers 401 without the token and 200 with it', async () => {
    const { router } = recordingRouter({ token: 'right' });
    const app = express();
    app.use(router);
    const items = [{ type: 'status' as const, payload: buildStatus() }];
    const without = await replay(items, app);
    const withToken = await replay(items, app, { token: 'right' });
    await router.close();
    expect(without.items[0]!.status).toBe(401);
    expect(withToken.items[0]!.status).toBe(200);
  });

  it('reports bad lines of a file by number and keeps going', async () => {
    const file = tempFile();
    const good = serialiseRecord({
      receivedAt: '2026-01-01T00:00:00.000Z',
      type: 'status',
      path: '/status',
      headers: {},
      body: JSON.stringify(buildStatus()),
    });
    writeFileSync(file, [good, 'nope', '', '{"path":"/status"}', good].join('\n'));
    const target = await startRawServer();
    try {
      const report = await replay(file, target.url);
      expect(report.items.map((item) => [item.line, item.ok])).toEqual([
        [1, true],
        [2, false],
        [4, false],
        [5, true],
      ]);
      expect(report.items[1]!.error).toMatch(/^line 2: invalid JSON/);
      expect(report.items[2]!.error).toMatch(/^line 4: not a capture record \((receivedAt|body)/);
      expect(target.requests).toHaveLength(2);
    } finally {
      await target.close();
    }
  });

  it('reads hand-written { type, payload } lines as captures of those payloads', async () => {
    const file = tempFile();
    const status = buildStatus();
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'status', payload: status }),
        JSON.stringify({ payload: fixtures.event.USER_PREFERENCE }),
        JSON.stringify({ type: 'nope', payload: {} }),
      ].join('\n'),
    );
    const target = await startRawServer();
    try {
      const report = await replay(file, target.url);
      expect(report.items.map((item) => [item.line, item.path, item.status])).toEqual([
        [1, '/status', 200],
        [2, '/', 200],
        [3, undefined, undefined],
      ]);
      expect(report.items[2]!.error).toMatch(/^line 3: not a capture record \(type: /);
      expect(JSON.parse(target.requests[0]!.body.toString('utf8'))).toEqual(status);
    } finally {
      await target.close();
    }
  });

  it("stops at the first unanswered item with stopOn: 'network-error'", async () => {
    const target = await startRawServer();
    const url = target.url;
    await target.close();
    const items = [1, 2, 3].map(() => ({ type: 'status' as const, payload: buildStatus() }));
    const stopped = await replay(items, url, { stopOn: 'network-error' });
    expect(stopped.stopped).toBe(true);
    expect(stopped.items).toHaveLength(1);
    expect(stopped.items[0]!.error).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
    const all = await replay(items, url);
    expect(all.items).toHaveLength(3);
    expect(all.failed).toBe(3);
  });

  it("stops at the first non-2xx answer with stopOn: 'failure'", async () => {
    const target = await startRawServer((index) => (index === 1 ? 500 : 200));
    try {
      const items = [1, 2, 3].map(() => ({ type: 'status' as const, payload: buildStatus() }));
      const report = await replay(items, target.url, { stopOn: 'failure' });
      expect(report.items.map((item) => item.status)).toEqual([200, 500]);
      expect(report.stopped).toBe(true);
    } finally {
      await target.close();
    }
  });

  it("keeps the captured gaps with pacing 'original', divided by a speed factor", async () => {
    const target = await startRawServer();
    try {
      const records = [statusRecordAt(0), statusRecordAt(300), statusRecordAt(600)];
      const doubled = await replay(records, target.url, { pacing: 2 });
      // 600 ms of captured time at twice the speed cannot finish in under 300 ms.
      expect(doubled.durationMs).toBeGreaterThanOrEqual(290);
      const unpaced = await replay([statusRecordAt(0), statusRecordAt(3_600_000)], target.url, {
        pacing: 'none',
      });
      expect(unpaced.items.every((item) => item.ok)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('stops between items when its signal aborts, even during a paced wait', async () => {
    const target = await startRawServer();
    const controller = new AbortController();
    try {
      const report = await replay(
        [statusRecordAt(0), statusRecordAt(3_600_000), statusRecordAt(7_200_000)],
        target.url,
        {
          pacing: 'original',
          signal: controller.signal,
          onProgress: () => controller.abort(),
        },
      );
      expect(report.stopped).toBe(true);
      expect(report.items).toHaveLength(1);
      expect(target.requests).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('rejects a missing file, a bad URL, bad pacing and a bad source item', async () => {
    await expect(replay(join(dir, 'missing.jsonl'), 'http://127.0.0.1:9')).rejects.toBeInstanceOf(
      CaptureFileError,
    );
    await expect(replay([], 'not a url')).rejects.toBeInstanceOf(ReplayError);
    await expect(replay([], 'ftp://example.test')).rejects.toBeInstanceOf(ReplayError);
    await expect(replay([], 'http://127.0.0.1:9', { pacing: -1 })).rejects.toThrow(TypeError);
    await expect(replay([null as unknown as CaptureRecord], 'http://127.0.0.1:9')).rejects.toThrow(
      'source[0]: expected a capture record or { type?, payload }',
    );
  });
});

describe('createJsonlCapture', () => {
  const record = (overrides: Partial<CaptureRecord> = {}): CaptureRecord => ({
    receivedAt: '2026-01-01T00:00:00.000Z',
    type: 'incoming',
    path: '/incoming',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer x',
      'x-webhook-token': 't',
      'x-trace': '1',
    },
    body: JSON.stringify({ sender: '+27831234567', text: 'secret', nested: { text: 'also' } }),
    ...overrides,
  });

  it('appends one line per record, in order, and flush() resolves once they are written', async () => {
    const file = tempFile();
    const capture = createJsonlCapture({ file });
    capture(record({ path: '/a' }));
    capture(record({ path: '/b', type: undefined }));
    await capture.flush();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.map((line) => (JSON.parse(line) as { path: string }).path)).toEqual(['/a', '/b']);
    expect((JSON.parse(lines[1]!) as { type: unknown }).type).toBeNull();
    expect(capture.written).toBe(2);
    await capture.close();
    capture(record());
    expect(capture.dropped).toBe(1);
  });

  it('removes secret headers by default and leaves the body byte for byte', async () => {
    const file = tempFile();
    const capture = createJsonlCapture({ file });
    const original = record();
    capture(original);
    await capture.close();
    const [line] = await readAll(file);
    expect(line!.record!.headers).toEqual({ 'content-type': 'application/json', 'x-trace': '1' });
    expect(line!.record!.body).toBe(original.body);
  });

  it('masks the configured body fields and headers, or applies a redaction function', async () => {
    const file = tempFile();
    const capture = createJsonlCapture({
      file,
      redact: { bodyFields: ['text'], headers: ['X-Trace'], mask: '***' },
    });
    capture(record());
    await capture.close();
    const [line] = await readAll(file);
    expect(JSON.parse(line!.record!.body)).toEqual({
      sender: '+27831234567',
      text: '***',
      nested: { text: '***' },
    });
    expect(line!.record!.headers).toEqual({ 'content-type': 'application/json' });

    const second = tempFile();
    const filtered = createJsonlCapture({
      file: second,
      redact: (item) => (item.type === 'incoming' ? undefined : item),
    });
    filtered(record());
    filtered(record({ type: 'status', path: '/status' }));
    await filtered.close();
    expect((await readAll(second)).map((item) => item.record?.type)).toEqual(['status']);
  });

  it('reports a file it cannot write through onError and flush()', async () => {
    const errors: Error[] = [];
    // A directory cannot be opened for appending.
    const capture = createJsonlCapture({ file: dir, onError: (error) => errors.push(error) });
    capture(record());
    await expect(capture.flush()).rejects.toThrow();
    expect(errors).toHaveLength(1);
    capture(record());
    expect(capture.dropped).toBeGreaterThanOrEqual(1);
    await expect(capture.close()).rejects.toThrow();
  });

  it('refuses bad options with a TypeError', () => {
    expect(() => createJsonlCapture({ file: '' })).toThrow(TypeError);
    expect(() => createJsonlCapture({ file: tempFile(), maxPendingBytes: 0 })).toThrow(TypeError);
  });
});

describe('replay with concurrency', () => {
  /**
   * A receiver that holds every request until it holds `batch` of them, then answers them all,
   * the last first: it sees how many were in flight at once, and whether one conversation ever
   * had two.
   */
  async function startHoldingServer(batch: number) {
    const arrived: { chat: string; n: number }[] = [];
    let held: { chat: string; res: import('node:http').ServerResponse }[] = [];
    let overlap = false;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { chatParticipantId: chat, n } = JSON.parse(Buffer.concat(chunks).toString()) as {
          chatParticipantId: string;
          n: number;
        };
        arrived.push({ chat, n });
        if (held.some((h) => h.chat === chat)) overlap = true;
        held.push({ chat, res });
        if (held.length < batch) return;
        for (const { res: answer } of held.reverse()) answer.writeHead(200).end('{}');
        held = [];
      });
    });
    await listen(server);
    return { url: urlOf(server), arrived, overlap: () => overlap, close: () => closeServer(server) };
  }
  const items = (chats: number, each: number) =>
    Array.from({ length: chats * each }, (_, i) => ({
      type: 'chatbot' as const,
      payload: { chatParticipantId: `chat-${i % chats}`, n: Math.floor(i / chats) },
    }));

  it('sends `concurrency` at a time, one conversation at a time and in source order', async () => {
    const target = await startHoldingServer(3);
    try {
      const report = await replay(items(3, 4), target.url, { concurrency: 3 });
      expect(report).toMatchObject({ sent: 12, succeeded: 12, failed: 0 });
      expect(report.items.map((item) => item.index)).toEqual([...Array(12).keys()]);
      expect(target.overlap()).toBe(false);
      for (const chat of ['chat-0', 'chat-1', 'chat-2']) {
        expect(target.arrived.filter((a) => a.chat === chat).map((a) => a.n)).toEqual([0, 1, 2, 3]);
      }
    } finally {
      await target.close();
    }
  });

  it('holds a conversation back rather than send two of its items at once', async () => {
    // two conversations, concurrency 4: never more than one item of each in flight
    const target = await startHoldingServer(2);
    try {
      const report = await replay(items(2, 3), target.url, { concurrency: 4 });
      expect(report.succeeded).toBe(6);
      expect(target.overlap()).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('refuses a concurrency that is not a whole number >= 1', async () => {
    await expect(replay([], 'http://127.0.0.1:9', { concurrency: 0 })).rejects.toThrow(
      'concurrency: expected an integer >= 1, got 0',
    );
  });
});
