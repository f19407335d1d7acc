/*
 * The deliverer POSTs through undici's dispatch with its own handler: a URL undici refuses must
 * still end as a failed delivery in the log (not one stuck in `delivering`, nor a crash).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createDeliverer } from '../../src/emulator/emit/delivery.js';

const delivererWith = (overrides: Partial<Parameters<typeof createDeliverer>[0]> = {}) =>
  createDeliverer({
    logger: pino({ level: 'silent' }),
    retry: { attempts: 1, backoffMs: 0 },
    timeoutMs: 1000,
    headers: {},
    logLimit: 100,
    concurrency: 1,
    settleTimeoutMs: 30_000,
    ...overrides,
  });
const request = {
  type: 'incoming',
  payload: {},
  messagingNumber: '+27820000001',
  emittedAt: 0,
  faults: [],
} as const;

it('logs a URL undici refuses as a failed delivery with the reason', async () => {
  const deliverer = delivererWith({ retry: { attempts: 2, backoffMs: 0 }, concurrency: 2 });
  deliverer.enqueue({ ...request, url: 'not a url' });
  deliverer.enqueue({ ...request, url: 'ftp://127.0.0.1/in' });
  await deliverer.idle();
  expect(deliverer.log().map((entry) => [entry.state, entry.attempts, entry.responseStatus])).toEqual([
    ['failed', 2, null],
    ['failed', 2, null],
  ]);
  expect(deliverer.log().map((entry) => entry.error)).toEqual([
    expect.stringMatching(/invalid url/i),
    expect.stringMatching(/protocol/i),
  ]);
  await deliverer.close();
});

/*
 * Review of the dispatch rewrite: each case failed on it. A receiver's raw node:http server counts
 * its TCP connections; deliveries run one at a time over the deliverer's keep-alive pool.
 */
describe('answers, connections and options after the dispatch rewrite', () => {
  let server: http.Server;
  let url: string;
  let connections = 0;
  let answer: (res: http.ServerResponse) => void = (res) => res.end('ok');

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    connections = 0;
  });

  it('keeps the connection for a complete answer of 4 KB or more (it was closed and reopened per delivery)', async () => {
    answer = (res) => res.setHeader('content-type', 'application/json').end(`"${'x'.repeat(4998)}"`);
    const deliverer = delivererWith();
    for (let i = 0; i < 5; i += 1) {
      deliverer.enqueue({ ...request, url });
      await deliverer.idle();
    }
    expect(deliverer.log().map((entry) => [entry.state, entry.responseBody?.length])).toEqual(
      Array.from({ length: 5 }, () => ['delivered', 1024]),
    );
    expect(connections).toBe(1);
    await deliverer.close();
  });

  it('drops a character the 1 KB cut splits, and keeps a JSON answer of exactly 1024 bytes whole', async () => {
    const deliverer = delivererWith();
    answer = (res) => {
      res.setHeader('content-type', 'application/json');
      res.write(Buffer.concat([Buffer.alloc(1023, 'a'), Buffer.from('é').subarray(0, 1)]));
      setTimeout(() => res.end(Buffer.concat([Buffer.from('é').subarray(1), Buffer.from('tail')])), 20);
    };
    deliverer.enqueue({ ...request, url });
    await deliverer.idle();
    answer = (res) => res.setHeader('content-type', 'application/json; charset=utf-8').end('b'.repeat(1024));
    deliverer.enqueue({ ...request, url });
    await deliverer.idle();
    expect(deliverer.log().map((entry) => entry.responseBody)).toEqual(['a'.repeat(1023), 'b'.repeat(1024)]);
    await deliverer.close();
  });

  it('delivers with a fractional timeoutMs (undici refuses a fractional Agent timeout)', async () => {
    answer = (res) => res.end('ok');
    const deliverer = delivererWith({ timeoutMs: 1500.5 });
    deliverer.enqueue({ ...request, url });
    await deliverer.idle();
    expect(deliverer.log().map((entry) => [entry.state, entry.error])).toEqual([['delivered', null]]);
    await deliverer.close();
  });

  it('finishes a delivery whose onDeliveryAttempt throws (it stayed in delivering)', async () => {
    answer = (res) => res.end('ok');
    const deliverer = delivererWith({
      onAttempt: () => {
        throw new Error('user bug');
      },
    });
    deliverer.enqueue({ ...request, url });
    await deliverer.idle();
    expect(deliverer.log().map((entry) => entry.state)).toEqual(['delivered']);
    await deliverer.close();
  });
});
