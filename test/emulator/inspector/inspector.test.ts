import request from 'supertest';
import { inspectorView } from '../../../src/emulator/inspector/index.js';
import { createEmulator, type DeliveryLogEntry } from '../../../src/emulator/index.js';
import { SEED, startHarness, WEBHOOK_API, type Harness } from '../harness.js';

// Without a browser: content negotiation (JSON unchanged for everything but a browser), the
// resend API (JS and HTTP), the delivery log's change feed and the scope reasons of the view.

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterEach(() => harness.reset());
afterAll(() => harness.close());

describe('content negotiation', () => {
  it('answers HTML to a browser at / and /_emulator, with a CSP that allows only the emulator', async () => {
    for (const path of ['/', '/_emulator']) {
      const response = await harness.api().get(path).set('accept', BROWSER_ACCEPT);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.text).toContain('<h1>Emulator inspector</h1>');
    }
  });

  it('keeps the JSON answers for anything else (curl, fetch, clients)', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0']) {
      const root = request(harness.emulator.listener).get('/');
      const control = request(harness.emulator.listener).get('/_emulator');
      if (accept !== undefined) {
        void root.set('accept', accept);
        void control.set('accept', accept);
      }
      const [rootResponse, controlResponse] = await Promise.all([root, control]);
      expect(rootResponse.status).toBe(404);
      expect(rootResponse.body).toMatchObject({ status: 'ERROR', code: 'NOT_FOUND' });
      expect(controlResponse.status).toBe(200);
      expect(controlResponse.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(controlResponse.body).toEqual({
        ...JSON.parse(JSON.stringify(harness.emulator.describe())),
        clock: expect.any(Number),
        routes: expect.any(Array),
      });
    }
  });

  it('serves its script and stylesheet, and names a bad log query', async () => {
    const script = await harness.api().get('/_emulator/inspector/app.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('EventSource');
    const bad = await harness.api().get('/_emulator/inspector/log?state=lost');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', field: 'state' });
    const unknown = await harness.api().get('/_emulator/inspector/deliveries/nope');
    expect(unknown.status).toBe(404);
    // a malformed percent-encoding is an unknown delivery too, not a 500
    const malformed = await harness.api().get('/_emulator/inspector/deliveries/%E0%A4%A');
    expect(malformed.status).toBe(404);
    expect(malformed.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('closing with a page open', () => {
  it('refuses a reconnecting event stream once closed (204), so the server can finish closing', async () => {
    const { createEmulator } = await import('../../../src/emulator/index.js');
    const { createInspector } = await import('../../../src/emulator/inspector/index.js');
    const { createServer } = await import('node:http');
    const emulator = createEmulator({ seed: 'empty' });
    const inspector = createInspector(emulator);
    const server = createServer((req, res) => inspector.handle(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const events = `http://127.0.0.1:${port}/_emulator/inspector/events`;
    const open = await fetch(events);
    expect(open.status).toBe(200);
    const reader = open.body!.getReader();
    await reader.read(); // the retry line: the stream is open
    inspector.close(); // the emulator's close() begins: open streams end
    expect((await reader.read()).done).toBe(true);
    // the page's EventSource reconnects while the emulator waits for its deliveries
    const reconnect = await fetch(events);
    expect(reconnect.status).toBe(204);
    await new Promise((resolve) => server.close(resolve));
    await emulator.close();
  });
});

describe('resend', () => {
  async function oneIncoming(): Promise<DeliveryLogEntry> {
    await harness.createConfig({ incomingMessageURL: harness.urls('a').incomingMessageURL });
    harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Hi' });
    await harness.settle();
    const [original] = harness.emulator.deliveries();
    if (original === undefined) throw new Error('no delivery');
    return original;
  }

  it('re-sends the same body in JS: a new entry marked as a resend, answered as a duplicate', async () => {
    const original = await oneIncoming();
    expect(original.responseBody).toBe(JSON.stringify({ received: true }));
    const resent = harness.emulator.resend(original.id);
    await harness.settle();
    expect(resent).toMatchObject({ resendOf: original.id, url: original.url, payload: original.payload });
    expect(resent.id).not.toBe(original.id);
    expect(resent.state).toBe('delivered');
    expect(JSON.parse(resent.responseBody ?? '')).toEqual({ received: true, duplicate: true });
    // the receiver ran its callback once: the second was its duplicate
    expect(harness.calls.map((call) => call.type)).toEqual(['incoming']);
  });

  it('re-sends over HTTP, and answers 404 naming an unknown delivery', async () => {
    const original = await oneIncoming();
    const response = await harness.api().post(`/_emulator/deliveries/${original.id}/resend`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ resendOf: original.id, payload: original.payload });
    await harness.settle();
    expect(harness.emulator.deliveries()).toHaveLength(2);
    const missing = await harness.api().post('/_emulator/deliveries/nope/resend');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('nope');
    expect(() => harness.emulator.resend('nope')).toThrow('No delivery nope');
  });
});

it('feeds every change of the delivery log to subscribers until they unsubscribe', async () => {
  const seen: (string | null)[] = [];
  const unsubscribe = harness.emulator.subscribeDeliveries((entry) => seen.push(entry && entry.state));
  await harness.createConfig({ incomingMessageURL: harness.urls('a').incomingMessageURL });
  harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Hi' });
  await harness.settle();
  harness.emulator.clearDeliveries();
  unsubscribe();
  harness.emulator.customerMessage({ number: SEED.lite.msisdn, from: '+27831234567', text: 'Again' });
  await harness.settle();
  expect(seen).toEqual(['queued', 'delivering', 'delivered', null]);
});

describe('scope table view model (rules 1-4 and 8)', () => {
  const routeOf = (msisdn: string, type: 'incoming' | 'status' | 'session' | 'chatbot') =>
    inspectorView(harness.emulator).numbers.find((n) => n.msisdn === msisdn)?.routes[type];

  it('says why, for each situation', async () => {
    // a fresh emulator: worded for someone who has configured nothing yet
    expect(routeOf(SEED.lite.msisdn, 'incoming')).toEqual({ url: null, reason: 'nothing configured yet' });
    const a = harness.urls('a');
    const b = harness.urls('b');
    const byDefault = await harness.createConfig({
      incomingMessageURL: a.incomingMessageURL,
      statusUpdateURL: '',
    });
    expect(routeOf(SEED.cloud.msisdn, 'incoming')).toEqual({
      url: a.incomingMessageURL,
      reason: 'client default',
    });
    expect(routeOf(SEED.cloud.msisdn, 'status')?.reason).toBe('disabled by client default (rule 4)');
    expect(routeOf(SEED.cloud.msisdn, 'chatbot')?.reason).toBe('not set in client default');
    expect(routeOf(SEED.cloud.msisdn, 'session')?.reason).toBe('Cloud number: no session events');
    const override = await harness.createConfig({
      messagingNumberId: SEED.lite.id,
      incomingMessageURL: b.incomingMessageURL,
      statusUpdateURL: '',
    });
    expect(routeOf(SEED.lite.msisdn, 'incoming')).toEqual({ url: b.incomingMessageURL, reason: 'override' });
    expect(routeOf(SEED.lite.msisdn, 'status')?.reason).toBe('disabled by override (rule 4)');
    expect(routeOf(SEED.lite.msisdn, 'session')?.reason).toBe('not set in override');
    expect(routeOf(SEED.foreign.msisdn, 'incoming')?.reason).toBe('nothing configured yet');
    await harness
      .api()
      .delete(`${WEBHOOK_API}/${String(byDefault.id)}`)
      .set('authorization', SEED.supervisorKey);
    expect(routeOf(SEED.cloud.msisdn, 'incoming')?.reason).toBe('no client default and no override (rule 8)');
    expect(routeOf(SEED.lite.msisdn, 'incoming')?.reason).toBe('override');
    await harness
      .api()
      .delete(`${WEBHOOK_API}/${String(override.id)}`)
      .set('authorization', SEED.supervisorKey);
    expect(routeOf(SEED.lite.msisdn, 'incoming')?.reason).toBe('nothing configured yet');
  });
});

describe('API keys on the page', () => {
  it('lists the seed’s keys only: a key set later is not shown', async () => {
    const before = await harness.api().get('/_emulator/inspector/view');
    const keys = (before.body as { keys: { apiKey: string }[] }).keys.map((k) => k.apiKey);
    expect(keys).toContain(SEED.supervisorKey);
    // the deprecated update takes a credential-bearing body: the supervisor sets a new key
    const changed = await harness
      .api()
      .put('/Messaging/SystemUsers')
      .set('authorization', SEED.supervisorKey)
      .send({ id: SEED.users.supervisor, apiKey: 'sk_live_set_later' });
    expect(changed.status).toBe(200);
    const after = await harness
      .api()
      .get('/_emulator/inspector/view')
      .set('authorization', 'sk_live_set_later');
    const shown = JSON.stringify(after.body);
    expect(shown).not.toContain('sk_live_set_later');
    const page = await harness.api().get('/').set('accept', BROWSER_ACCEPT);
    expect(page.text).not.toContain('sk_live_set_later');
  });
});

describe('the configuration form', () => {
  it('calls the path the configuration routes serve, a trailing slash of the prefix or not', async () => {
    for (const messagingPrefix of ['/api', '/api/']) {
      const emulator = createEmulator({ messagingPrefix });
      const page = await request(emulator.listener).get('/').set('accept', BROWSER_ACCEPT);
      const api = /data-api="([^"]+)"/.exec(page.text)?.[1];
      expect(api).toBe(`/api${WEBHOOK_API}`);
      const list = await request(emulator.listener)
        .get(`${api}/list`)
        .set('authorization', SEED.supervisorKey);
      expect(list.status).toBe(200);
    }
  });
});
