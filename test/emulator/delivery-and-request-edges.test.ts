import http from 'node:http';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { SEED, T0 } from './harness.js';

// The emulator at the edges of delivery and of its own HTTP API: a throwing log subscriber does not
// stall a delivery, a receiver's endless answer is not read whole, an undecodable compressed body
// is a 400 (not a 500), empty path segments are ignored, and a cross-site state change is refused.

let emulator: Emulator;
let receiver: http.Server;
afterEach(async () => {
  await emulator.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

async function startWith(handler: http.RequestListener): Promise<void> {
  receiver = http.createServer(handler);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as { port: number };
  emulator = createEmulator({ retry: { attempts: 1 }, clock: T0 });
  await request(emulator.listener)
    .post('/Messaging/MessagingClientWebHook')
    .set('authorization', SEED.supervisorKey)
    .send({ incomingMessageURL: `http://127.0.0.1:${port}/incoming` })
    .expect(200);
}

const say = () => emulator.customerMessage({ number: SEED.cloud.msisdn, from: '+27831118888', text: 'hi' });

it('delivers even when a delivery-log subscriber throws', async () => {
  await startWith((_req, res) => res.end('ok'));
  emulator.subscribeDeliveries(() => {
    throw new Error('subscriber bug');
  });
  say();
  await emulator.idle();
  expect(emulator.deliveries().map((entry) => entry.state)).toEqual(['delivered']);
});

it('keeps the first 1024 bytes of a JSON answer without reading the rest (an endless body)', async () => {
  await startWith((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(65_536);
    const timer = setInterval(() => res.write(chunk), 5); // never ends
    res.on('close', () => clearInterval(timer));
  });
  say();
  await emulator.idle();
  const [entry] = emulator.deliveries();
  expect(entry?.state).toBe('delivered');
  expect(entry?.responseBody).toBe('x'.repeat(1024));
});

it('answers 400, not 500, to a compressed body it cannot decode', async () => {
  await startWith((_req, res) => res.end());
  const bad = await request(emulator.listener)
    .post('/_emulator/clock/advance')
    .set('content-type', 'application/json')
    .set('content-encoding', 'gzip')
    .send('{x}');
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ code: 'BAD_REQUEST' });
  // a body it can decode still works
  const url = await emulator.listen();
  const good = await fetch(`${url}/_emulator/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ ms: 1000 })),
  });
  expect(good.status).toBe(200);
});

it('ignores empty segments and trailing slashes in paths, as before the move to Express', async () => {
  await startWith((_req, res) => res.end());
  for (const path of ['/_emulator/state/', '/_emulator/state//', '/_emulator//state']) {
    const response = await request(emulator.listener).get(path);
    expect([path, response.status]).toEqual([path, 200]);
  }
  const missing = await request(emulator.listener).get('/_emulator/nothing//');
  expect(missing.status).toBe(404);
  expect(missing.body.message).toContain('/_emulator/nothing');
});

it('refuses a state-changing request from another site’s page, and takes its own page’s', async () => {
  await startWith((_req, res) => res.end());
  const url = await emulator.listen();
  const post = (origin: string) =>
    fetch(`${url}/_emulator/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin },
      body: JSON.stringify({ ms: 1000 }),
    });
  const foreign = await post('http://evil.example');
  expect(foreign.status).toBe(403);
  expect(await foreign.json()).toMatchObject({ code: 'FORBIDDEN' });
  expect((await post(new URL(url).origin)).status).toBe(200);
  // API clients send no Origin: unchanged
  const client = await fetch(`${url}/_emulator/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ms: 1000 }),
  });
  expect(client.status).toBe(200);
});
