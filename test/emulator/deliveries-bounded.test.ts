/*
 * Deliveries: the emulator never delivers to itself, and idle() and close() are bounded whatever
 * the configuration. Before: a webhook configuration whose URL was the emulator's own control
 * surface (`eventWebhookURL` = `/_emulator/partner-events`) looped at hundreds of deliveries a
 * second, forever; idle() and close() never resolved (nor Ctrl+C, --save-state or `trigger`); a
 * delivery to `/_emulator/reset` reset the emulator; any local service's answer (its first 4 KB)
 * was readable through `/_emulator/deliveries`; a URL with control characters was stored.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0, WEBHOOK_API } from './harness.js';

const servers: http.Server[] = [];
const emulators: Emulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close({ timeoutMs: 0 });
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function make(options: Parameters<typeof createEmulator>[0] = {}): Emulator {
  const emulator = createEmulator({ clock: T0, retry: { attempts: 1 }, ...options });
  emulators.push(emulator);
  return emulator;
}

async function serve(handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const partnerEvent = (emulator: Emulator) =>
  emulator.partnerEvent({ eventType: 'PHONE_QUALITY_CHANGED', messagingNumber: SEED.cloud.msisdn });

describe('the configuration API refuses URLs that name the emulator itself', () => {
  it.each([
    ['127.0.0.1', '/_emulator/partner-events'],
    ['localhost', '/_emulator/reset'],
    ['[::1]', '/Messaging/MessagingClientWebHook'],
    ['0.0.0.0', '/anything'],
    ['LOCALHOST', ''],
    ['127.0.0.2', '/x'],
    ['emulator', '/_emulator/partner-events'],
  ])('http://%s:<its port>%s → 400 naming the field', async (host, path) => {
    const emulator = make({ allowedHosts: ['emulator'] });
    const url = await emulator.listen(0, '127.0.0.1');
    const { port } = new URL(url);
    const answer = await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({
        incomingMessageURL: 'http://127.0.0.1:9/in',
        eventWebhookURL: `http://${host}:${port}${path}`,
      });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'BAD_REQUEST', field: 'eventWebhookURL' });
    expect(answer.body.message).toMatch(/does not deliver webhooks to itself/);
    expect(emulator.state.webhookConfigs.size).toBe(0);
  });

  it('refuses it on update too, and accepts another port of the same host', async () => {
    const emulator = make();
    const url = await emulator.listen(0, '127.0.0.1');
    const { port } = new URL(url);
    const created = await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}/events` })
      .expect(200);
    const updated = await request(emulator.listener)
      .put(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ id: created.body.id, chatbotWebhookURL: `http://localhost:${port}/_emulator/bot-reply` });
    expect(updated.status).toBe(400);
    expect(updated.body).toMatchObject({ field: 'chatbotWebhookURL' });
  });

  it('refuses the loopback names when it listens on every interface, and its interface addresses', async () => {
    const emulator = make();
    const url = await emulator.listen(0, '0.0.0.0');
    const { port } = new URL(url);
    for (const host of ['127.0.0.1', 'localhost', '0.0.0.0']) {
      const answer = await request(emulator.listener)
        .post(WEBHOOK_API)
        .set('authorization', SEED.supervisorKey)
        .send({ statusUpdateURL: `http://${host}:${port}/` });
      expect([host, answer.status]).toEqual([host, 400]);
    }
  });

  it.each([
    ['an escape sequence', 'http://127.0.0.1:3000/in\u001b[31mred'],
    ['a newline', 'http://127.0.0.1:3000/in\nX-Injected: 1'],
    ['a C1 control', 'http://127.0.0.1:3000/in\u009b'],
    ['a line separator', 'http://127.0.0.1:3000/in\u2028'],
    ['a bidi override', 'http://127.0.0.1:3000/\u202egnp.exe'],
    ['surrounding spaces', ' http://127.0.0.1:3000/in'],
  ])('refuses a URL with %s (URL.canParse accepts it)', async (_what, url) => {
    const emulator = make();
    const answer = await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ incomingMessageURL: url });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field: 'incomingMessageURL' });
    expect(emulator.state.webhookConfigs.size).toBe(0);
  });
});

describe('a delivery to the emulator itself is never made', () => {
  it('a configuration made before listen() is refused at delivery, not sent: no loop', async () => {
    const emulator = make();
    // before listen(): the port is not known yet, so the configuration API cannot tell
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: 'http://127.0.0.1:1/placeholder' })
      .expect(200);
    const url = await emulator.listen(0, '127.0.0.1');
    const [config] = emulator.state.webhookConfigs.values();
    emulator.state.putWebhookConfig({ ...config!, eventWebhookURL: `${url}/_emulator/partner-events` });
    partnerEvent(emulator);
    expect(await emulator.idle()).toEqual({ idle: true, pending: [] });
    const log = emulator.deliveries();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ state: 'failed', attempts: 0 });
    expect(log[0]?.error).toMatch(/^Refused, not sent: .* is this emulator's own address/);
  });

  it('a URL the address check cannot know (an embedding server) is refused by the emulator’s own id: 403, no reset', async () => {
    const emulator = make({ clock: T0 });
    // the emulator served by a server of the test's own: the emulator does not know this port
    const port = await serve(emulator.listener);
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/_emulator/reset` })
      .expect(200);
    await request(emulator.listener).post('/_emulator/clock/advance').send({ ms: 1000 }).expect(200);
    partnerEvent(emulator);
    expect((await emulator.idle()).idle).toBe(true);
    const log = emulator.deliveries();
    expect(log.map((entry) => [entry.state, entry.responseStatus])).toEqual([['failed', 403]]);
    // not reset: the clock and the configuration are as they were
    expect(emulator.clock.now()).toBe(T0 + 1000);
    expect(emulator.state.webhookConfigs.size).toBe(1);
  });
});

describe('idle() and close() are bounded', () => {
  it('a receiver that never answers: idle() says what is pending, close() drops it and says so', async () => {
    const port = await serve((req) => req.resume()); // never answers
    const emulator = make({ timeoutMs: 600_000, idleTimeoutMs: 100 });
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/events` })
      .expect(200);
    partnerEvent(emulator);
    partnerEvent(emulator);
    const idle = await emulator.idle();
    expect(idle.idle).toBe(false);
    expect(idle.pending.map((entry) => entry.state).sort()).toEqual(['delivering', 'queued']);
    const { dropped } = await emulator.close();
    expect(dropped).toHaveLength(2);
    expect(emulator.deliveries().map((entry) => entry.state)).toEqual(['failed', 'failed']);
    for (const entry of emulator.deliveries()) expect(entry.error).toMatch(/^Dropped: the emulator closed/);
    expect(await emulator.idle()).toEqual({ idle: true, pending: [] });
  });

  it('a receiver that triggers the emulator on every event (a loop, duplicates at 1): both resolve', async () => {
    const loop: { emulator?: Emulator } = {};
    const port = await serve((req, res) => {
      req.resume();
      res.end('{}');
      if (loop.emulator !== undefined) partnerEvent(loop.emulator);
    });
    const emulator = make({ idleTimeoutMs: 200, faults: { duplicate: 1 } });
    loop.emulator = emulator;
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/events` })
      .expect(200);
    partnerEvent(emulator);
    const idle = await emulator.idle();
    expect(idle.idle).toBe(false);
    expect(idle.pending.length).toBeGreaterThan(0);
    const { dropped } = await emulator.close({ timeoutMs: 50 });
    expect(dropped.length).toBeGreaterThan(0);
    // nothing is left running: the log holds only finished deliveries
    expect(
      emulator.deliveries().every((entry) => entry.state === 'delivered' || entry.state === 'failed'),
    ).toBe(true);
  });

  it('refuses a timeoutMs that is not a wait bound', async () => {
    const emulator = make();
    expect(() => createEmulator({ idleTimeoutMs: -1 })).toThrow(/idleTimeoutMs must be milliseconds/);
    await expect(emulator.idle({ timeoutMs: Number.NaN })).rejects.toThrow(TypeError);
  });

  it('POST /_emulator/idle answers within the bound, with the pending ids', async () => {
    const port = await serve((req) => req.resume());
    const emulator = make({ timeoutMs: 600_000, idleTimeoutMs: 100 });
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/events` })
      .expect(200);
    const { deliveries } = partnerEvent(emulator);
    const answer = await request(emulator.listener).post('/_emulator/idle').expect(200);
    expect(answer.body).toEqual({ deliveries: 1, idle: false, pending: [deliveries[0]?.id] });
  });
});

describe('what the delivery log keeps of an answer', () => {
  it.each([
    ['an HTML page', 'text/html', '<html>secret admin page</html>', null],
    ['text', 'text/plain', 'internal token 1234', null],
    ['no content type', undefined, '{"secret":true}', null],
    ['JSON', 'application/json; charset=utf-8', '{"received":true}', '{"received":true}'],
    ['problem+json', 'application/problem+json', '{"title":"bad"}', '{"title":"bad"}'],
  ])('%s → %s', async (_what, type, body, kept) => {
    const port = await serve((req, res) => {
      req.resume();
      if (type !== undefined) res.setHeader('content-type', type);
      res.end(body);
    });
    const emulator = make();
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/events` })
      .expect(200);
    partnerEvent(emulator);
    await emulator.idle();
    expect(emulator.deliveries()[0]?.responseBody).toBe(kept);
    const listed = await request(emulator.listener).get('/_emulator/deliveries').expect(200);
    if (kept === null) expect(JSON.stringify(listed.body)).not.toContain(body);
  });

  it('a JSON answer is kept to its first 1024 bytes', async () => {
    const port = await serve((req, res) => {
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: 'x'.repeat(3000) }));
    });
    const emulator = make();
    await request(emulator.listener)
      .post(WEBHOOK_API)
      .set('authorization', SEED.supervisorKey)
      .send({ eventWebhookURL: `http://127.0.0.1:${port}/events` })
      .expect(200);
    partnerEvent(emulator);
    await emulator.idle();
    expect(emulator.deliveries()[0]?.responseBody).toHaveLength(1024);
  });
});
