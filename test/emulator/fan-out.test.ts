/*
 * Fan-out: concurrent deliveries over keep-alive (deliveryConcurrency), one conversation's
 * events to one URL one at a time and in order, a slow URL not holding back another URL, the
 * timeout, retries and log under concurrency, and `emulator --verbose` (one line per attempt).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startEmulatorCommand } from '../../src/cli/emulator.js';
import { createEmulator, type DeliveryAttempt, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

interface Receiver {
  readonly url: string;
  /** Bodies received, in arrival order, with the path. */
  readonly received: { path: string; body: { text?: string; sender?: string } }[];
  /** Decides how to answer; may hold the response. */
  handle: (req: IncomingMessage, res: ServerResponse, body: unknown) => void;
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    handle: (_req, res) => res.end('ok'),
    inFlight: 0,
    maxInFlight: 0,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Receiver['received'][number]['body'];
      receiver.received.push({ path: req.url ?? '', body });
      receiver.inFlight += 1;
      receiver.maxInFlight = Math.max(receiver.maxInFlight, receiver.inFlight);
      res.on('close', () => (receiver.inFlight -= 1));
      receiver.handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function configure(emulator: Emulator, body: Record<string, unknown>): Promise<void> {
  const res = await request(emulator.listener)
    .post('/Messaging/MessagingClientWebHook')
    .set('authorization', SEED.supervisorKey)
    .send(body);
  expect(res.status).toBe(200);
}

let receiver: Receiver;
let emulator: Emulator | undefined;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  await receiver.close();
});

describe('deliveryConcurrency', () => {
  it('delivers concurrently, but one conversation in order, one at a time', async () => {
    emulator = createEmulator({ clock: T0, retry: { attempts: 1 }, deliveryConcurrency: 8 });
    await configure(emulator, { incomingMessageURL: `${receiver.url}/in` });
    // hold every response until 8 are in flight (or all are sent), then answer them in reverse:
    // concurrency is visible, and only a per-conversation lane keeps each customer's order
    const waiting: ServerResponse[] = [];
    const flush = (): void => {
      for (const res of waiting.splice(0).reverse()) res.end('ok');
    };
    let answered = 0;
    const total = 8 * 5;
    receiver.handle = (_req, res) => {
      waiting.push(res);
      answered += 1;
      if (waiting.length >= 8 || answered === total) flush();
      else setImmediate(() => waiting.length > 0 && receiver.inFlight === waiting.length && flush());
    };
    const customers = Array.from({ length: 8 }, (_, i) => `+2783100${String(i).padStart(4, '0')}`);
    for (let n = 0; n < 5; n += 1) {
      for (const from of customers)
        emulator.customerMessage({ number: SEED.cloud.msisdn, from, text: String(n) });
    }
    await emulator.idle();
    expect(emulator.deliveries().every((d) => d.state === 'delivered')).toBe(true);
    expect(receiver.received).toHaveLength(total);
    expect(receiver.maxInFlight).toBeGreaterThan(1);
    for (const customer of customers) {
      const texts = receiver.received.filter((r) => r.body.sender === customer).map((r) => r.body.text);
      expect(texts).toEqual(['0', '1', '2', '3', '4']);
    }
  });

  it('a receiver slow for one URL does not hold back another URL; timeout, retries and log still work', async () => {
    emulator = createEmulator({
      clock: T0,
      retry: { attempts: 2, backoffMs: 0 },
      timeoutMs: 200,
      deliveryConcurrency: 4,
    });
    await configure(emulator, {
      incomingMessageURL: `${receiver.url}/slow`,
      chatbotWebhookURL: `${receiver.url}/fast`,
    });
    const fastDone: string[] = [];
    receiver.handle = (req, res) => {
      if (req.url === '/fast') {
        fastDone.push(req.url);
        res.end('ok');
      }
      // /slow never answers: each attempt times out
    };
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831110001', text: 'a' });
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831110002', text: 'b' });
    await emulator.idle();
    const log = emulator.deliveries();
    const slow = log.filter((d) => d.type === 'incoming');
    const fast = log.filter((d) => d.type === 'chatbot');
    expect(fast.map((d) => [d.state, d.attempts, d.responseStatus])).toEqual([
      ['delivered', 1, 200],
      ['delivered', 1, 200],
    ]);
    expect(slow.map((d) => [d.state, d.attempts])).toEqual([
      ['failed', 2],
      ['failed', 2],
    ]);
    for (const entry of slow) expect(entry.error).toMatch(/timed out after 200 ms/i);
    // the fast URL's deliveries arrived before the slow URL's first attempts gave up
    const order = receiver.received.map((r) => r.path);
    expect(order.indexOf('/fast')).toBeLessThan(order.lastIndexOf('/slow'));
    expect(fastDone).toHaveLength(2);
  });

  it('refuses a deliveryConcurrency that is not an integer >= 1', () => {
    expect(() => createEmulator({ deliveryConcurrency: 0 })).toThrow(/deliveryConcurrency/);
    expect(() => createEmulator({ deliveryConcurrency: 1.5 })).toThrow(TypeError);
  });
});

describe('onDeliveryAttempt and emulator --verbose', () => {
  it('reports every attempt: type, URL, status, attempt, milliseconds', async () => {
    const attempts: DeliveryAttempt[] = [];
    emulator = createEmulator({
      clock: T0,
      retry: { attempts: 2, backoffMs: 0 },
      onDeliveryAttempt: (attempt) => attempts.push(attempt),
    });
    await configure(emulator, { incomingMessageURL: `${receiver.url}/in` });
    let calls = 0;
    receiver.handle = (_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 500 : 200;
      res.end();
    };
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831110001', text: 'x' });
    await emulator.idle();
    expect(attempts).toEqual([
      expect.objectContaining({ type: 'incoming', url: `${receiver.url}/in`, status: 500, attempt: 1 }),
      expect.objectContaining({ type: 'incoming', url: `${receiver.url}/in`, status: 200, attempt: 2 }),
    ]);
    for (const attempt of attempts) expect(typeof attempt.ms).toBe('number');
  });

  it('emulator --verbose prints one line per delivery to stderr', async () => {
    const err: string[] = [];
    const io = {
      out: () => undefined,
      err: (line: string) => err.push(line),
      isTty: false,
      status: () => undefined,
    };
    emulator = await startEmulatorCommand({ port: '0', verbose: true }, io);
    await configure(emulator, { incomingMessageURL: `${receiver.url}/in` });
    emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831110001', text: 'x' });
    await emulator.idle();
    expect(err).toEqual([
      expect.stringMatching(new RegExp(`^delivery incoming ${receiver.url}/in 200 attempt 1 \\d+ ms$`)),
    ]);
  });
});
