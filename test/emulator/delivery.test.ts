import request from 'supertest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { SEED, T0, startCaptureServer, startHarness, type CaptureServer } from './harness.js';

/*
 * Delivery: real HTTP POST with a JSON body, timeout, the retry schedule option, the delivery
 * log (JS and HTTP) and fault injection (duplicate, out of order, delay, fail; per call, queued
 * or random with a seed).
 */

let capture: CaptureServer;
let emulator: Emulator;
beforeAll(async () => {
  capture = await startCaptureServer();
});
afterAll(async () => {
  await capture.close();
});
beforeEach(() => {
  capture.requests.length = 0;
  capture.respond = () => 200;
});
afterEach(async () => {
  await emulator.close();
});

const CUSTOMER = '+27831118888';

/** An emulator whose demo default sends incoming messages (and chatbot events) to the capture server. */
async function start(options: EmulatorOptions = {}, chatbot = false): Promise<Emulator> {
  emulator = createEmulator({ retry: { attempts: 1 }, clock: T0, ...options });
  const response = await request(emulator.listener)
    .post('/Messaging/MessagingClientWebHook')
    .set('authorization', SEED.supervisorKey)
    .send({
      incomingMessageURL: `${capture.url}/incoming`,
      ...(chatbot ? { chatbotWebhookURL: `${capture.url}/chatbot` } : {}),
    });
  expect(response.status).toBe(200);
  return emulator;
}

const say = (text: string, extra: Record<string, unknown> = {}) =>
  emulator.customerMessage({ number: SEED.cloud.msisdn, from: CUSTOMER, text, ...extra });
const texts = () =>
  capture.requests.map(
    (r) =>
      (r.body as { text?: string; messageText?: string }).text ??
      (r.body as { messageText?: string }).messageText,
  );

describe('HTTP delivery', () => {
  it('POSTs the JSON payload to the configured URL and logs the outcome', async () => {
    await start({}, false);
    const result = say('hello');
    await emulator.idle();
    expect(capture.requests).toHaveLength(1);
    expect(capture.requests[0]).toMatchObject({
      path: '/incoming',
      body: result.payloads.incoming,
      headers: expect.objectContaining({ 'content-type': 'application/json' }),
    });
    expect(emulator.deliveries()).toEqual([
      expect.objectContaining({
        type: 'incoming',
        url: `${capture.url}/incoming`,
        payload: result.payloads.incoming,
        messagingNumber: SEED.cloud.msisdn,
        emittedAt: T0,
        state: 'delivered',
        attempts: 1,
        responseStatus: 200,
        latencyMs: expect.any(Number),
        error: null,
        faults: [],
        duplicateOf: null,
      }),
    ]);
  });

  it('retries a non-2xx answer on the configured schedule, with the same body', async () => {
    const backoffCalls: number[] = [];
    const backoffMs = (failedAttempt: number): number => {
      backoffCalls.push(failedAttempt);
      return 0;
    };
    await start({ retry: { attempts: 3, backoffMs } });
    capture.respond = (_path, index) => (index < 2 ? 503 : 200);
    say('retry me');
    await emulator.idle();
    expect(capture.requests.map((r) => r.body)).toEqual([
      capture.requests[0]?.body,
      capture.requests[0]?.body,
      capture.requests[0]?.body,
    ]);
    expect(backoffCalls).toEqual([1, 2]);
    expect(emulator.deliveries()[0]).toMatchObject({
      state: 'delivered',
      attempts: 3,
      responseStatus: 200,
      error: null,
    });
  });

  it('with retry { attempts: 1 } a failure is final', async () => {
    await start({ retry: { attempts: 1 } });
    capture.respond = () => 500;
    say('once');
    await emulator.idle();
    expect(capture.requests).toHaveLength(1);
    expect(emulator.deliveries()[0]).toMatchObject({
      state: 'failed',
      attempts: 1,
      responseStatus: 500,
      error: 'Receiver answered 500',
    });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    await start({ timeoutMs: 50 });
    capture.respond = () => 'hang';
    say('slow');
    await emulator.idle();
    expect(emulator.deliveries()[0]).toMatchObject({
      state: 'failed',
      responseStatus: null,
      error: expect.stringMatching(/timed out after 50 ms/i),
    });
  });

  it('records a connection error', async () => {
    emulator = createEmulator({ retry: { attempts: 1 } });
    await request(emulator.listener)
      .post('/Messaging/MessagingClientWebHook')
      .set('authorization', SEED.supervisorKey)
      // port 9 (discard) on 127.0.0.1 is closed on test machines
      .send({ incomingMessageURL: 'http://127.0.0.1:9/x' });
    say('nobody home');
    await emulator.idle();
    expect(emulator.deliveries()[0]).toMatchObject({
      state: 'failed',
      responseStatus: null,
      error: expect.any(String),
    });
  });

  it('sends the deliveryHeaders option on every delivery', async () => {
    await start({ deliveryHeaders: { 'x-webhook-token': 's3cret' } });
    say('with token');
    await emulator.idle();
    expect(capture.requests[0]?.headers['x-webhook-token']).toBe('s3cret');
  });

  it('the delivery log is readable and clearable over HTTP, filtered by type and state', async () => {
    await start({}, true);
    say('one');
    const { body: idle } = await request(emulator.listener).post('/_emulator/idle');
    expect(idle).toEqual({ deliveries: 2, idle: true, pending: [] });
    const all = await request(emulator.listener).get('/_emulator/deliveries');
    expect((all.body as { items: { type: string }[] }).items.map((d) => d.type)).toEqual([
      'incoming',
      'chatbot',
    ]);
    const chatbot = await request(emulator.listener).get(
      '/_emulator/deliveries?type=chatbot&state=delivered',
    );
    expect((chatbot.body as { items: unknown[] }).items).toEqual([
      expect.objectContaining({
        type: 'chatbot',
        url: `${capture.url}/chatbot`,
        attempts: 1,
        responseStatus: 200,
      }),
    ]);
    const bad = await request(emulator.listener).get('/_emulator/deliveries?type=nope');
    expect(bad.status).toBe(400);
    expect((await request(emulator.listener).delete('/_emulator/deliveries')).status).toBe(204);
    expect(emulator.deliveries()).toEqual([]);
  });

  it('keeps at most deliveryLogLimit entries, dropping the oldest finished ones', async () => {
    await start({ deliveryLogLimit: 2 });
    for (const text of ['1', '2', '3']) say(text);
    await emulator.idle();
    expect(texts()).toEqual(['1', '2', '3']);
    expect(emulator.deliveries().map((d) => (d.payload as { text?: string }).text)).toEqual(['2', '3']);
  });

  it('rejects bad retry and timeout options at construction', () => {
    expect(() => createEmulator({ retry: { attempts: 0 } })).toThrow(TypeError);
    expect(() => createEmulator({ retry: { backoffMs: -1 } })).toThrow(TypeError);
    expect(() => createEmulator({ timeoutMs: 0 })).toThrow(TypeError);
    expect(() => createEmulator({ deliveryLogLimit: 0 })).toThrow(TypeError);
    expect(() => createEmulator({ faults: { duplicate: 2 } })).toThrow(/faults\.duplicate/);
  });
});

describe('fault injection', () => {
  it('duplicate: the same body twice, logged as a duplicate', async () => {
    await start();
    emulator.injectFault({ kind: 'duplicate' });
    say('twice');
    say('once');
    await emulator.idle();
    expect(texts()).toEqual(['twice', 'twice', 'once']);
    expect(capture.requests[0]?.body).toEqual(capture.requests[1]?.body);
    const [first, copy] = emulator.deliveries();
    expect(first?.faults).toEqual(['duplicate']);
    expect(copy?.duplicateOf).toBe(first?.id);
  });

  it('outOfOrder: the delivery goes out after the next one', async () => {
    await start();
    emulator.injectFault({ kind: 'outOfOrder' });
    say('1');
    say('2');
    say('3');
    await emulator.idle();
    expect(texts()).toEqual(['2', '1', '3']);
  });

  it('outOfOrder on the last event: idle() still releases it', async () => {
    await start();
    say('1');
    say('2', { faults: [{ kind: 'outOfOrder' }] });
    expect(emulator.deliveries().map((d) => d.state)).toContain('held');
    await emulator.idle();
    expect(texts()).toEqual(['1', '2']);
  });

  it('delay: delivered after the delay, with the fault logged', async () => {
    await start();
    say('later', { faults: [{ kind: 'delay', ms: 20 }] });
    await emulator.idle();
    expect(emulator.deliveries()[0]).toMatchObject({ state: 'delivered', faults: ['delay'] });
  });

  it('fail: the first attempts fail without being sent, then the retry schedule delivers', async () => {
    await start({ retry: { attempts: 3, backoffMs: 0 } });
    say('flaky', { faults: [{ kind: 'fail', attempts: 2 }] });
    say('dead', { faults: [{ kind: 'fail' }] });
    await emulator.idle();
    expect(texts()).toEqual(['flaky']);
    expect(emulator.deliveries().map((d) => [d.state, d.attempts])).toEqual([
      ['delivered', 3],
      ['failed', 3],
    ]);
    expect(emulator.deliveries()[1]?.error).toMatch(/injected/i);
  });

  it('per call: faults given to a trigger apply to each of its deliveries; queued faults can target a type', async () => {
    await start({}, true);
    say('both', { faults: [{ kind: 'duplicate' }] });
    await emulator.idle();
    expect(capture.requests.map((r) => r.path)).toEqual(['/incoming', '/incoming', '/chatbot', '/chatbot']);
    capture.requests.length = 0;
    await request(emulator.listener)
      .post('/_emulator/faults')
      .send({ fault: { kind: 'duplicate' }, type: 'chatbot', count: 1 });
    say('bot twice');
    say('plain');
    await emulator.idle();
    expect(capture.requests.map((r) => r.path)).toEqual([
      '/incoming',
      '/chatbot',
      '/chatbot',
      '/incoming',
      '/chatbot',
    ]);
  });

  it('probabilities with a seed replay the same faults; clearing turns them off', async () => {
    const run = async (): Promise<string[]> => {
      capture.requests.length = 0;
      emulator.reset();
      await request(emulator.listener)
        .post('/Messaging/MessagingClientWebHook')
        .set('authorization', SEED.supervisorKey)
        .send({ incomingMessageURL: `${capture.url}/incoming` });
      const response = await request(emulator.listener)
        .put('/_emulator/faults/probabilities')
        .send({ duplicate: 0.5, seed: 42 });
      expect(response.status).toBe(200);
      for (let i = 0; i < 12; i += 1) say(String(i));
      await emulator.idle();
      return texts().map(String);
    };
    await start();
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    expect(first.length).toBeGreaterThan(12);
    expect(first.length).toBeLessThan(24);

    await request(emulator.listener).delete('/_emulator/faults');
    capture.requests.length = 0;
    say('clean');
    await emulator.idle();
    expect(texts()).toEqual(['clean']);
  });

  it('rejects malformed faults with a 400 naming the field', async () => {
    await start();
    const response = await request(emulator.listener)
      .post('/_emulator/faults')
      .send({ fault: { kind: 'explode' } });
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('fault.kind');
    const probability = await request(emulator.listener)
      .put('/_emulator/faults/probabilities')
      .send({ fail: 2 });
    expect(probability.body.field).toBe('fail');
  });
});

describe('through the real receiver', () => {
  it('an out-of-order status receipt arrives late and the receiver does not move the state back', async () => {
    const seen: [string, boolean | undefined][] = [];
    const h = await startHarness(
      {},
      {
        onStatus: (payload, ctx) => {
          seen.push([String(payload.status), ctx.delivery?.applied]);
        },
      },
    );
    try {
      await h.createConfig({ statusUpdateURL: h.urls('a').statusUpdateURL });
      const { message } = h.emulator.sendMessage({ number: SEED.cloud.msisdn, to: CUSTOMER });
      await h.settle();
      h.emulator.updateMessageStatus({
        gstId: message.gstId,
        status: 'SENT',
        faults: [{ kind: 'outOfOrder' }],
      });
      h.emulator.updateMessageStatus({ gstId: message.gstId, status: 'DELIVERED' });
      await h.settle();
      expect(seen).toEqual([
        ['ACCEPTED', true],
        ['DELIVERED', true],
        ['SENT', false],
      ]);
    } finally {
      await h.close();
    }
  });

  it('a duplicated chatbot event reaches the callback once (the receiver dedupes on eventId)', async () => {
    const h = await startHarness({ deliveryHeaders: { 'x-webhook-token': 'tok' } }, { token: 'tok' });
    try {
      await h.createConfig({ chatbotWebhookURL: h.urls('a').chatbotWebhookURL });
      h.emulator.customerMessage({
        number: SEED.cloud.msisdn,
        from: CUSTOMER,
        text: 'dup',
        faults: [{ kind: 'duplicate' }],
      });
      await h.settle();
      expect(h.emulator.deliveries().map((d) => [d.state, d.responseStatus])).toEqual([
        ['delivered', 200],
        ['delivered', 200],
      ]);
      expect(h.calls.map((call) => call.payload.messageText)).toEqual(['dup']);
    } finally {
      await h.close();
    }
  });
});
