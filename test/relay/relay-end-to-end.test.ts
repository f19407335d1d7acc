import express from 'express';
import { mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { createWebhookRouter, type WebhookRouter } from '../../src/receiver/index.js';
import {
  createRelay,
  createRelayListener,
  createRelayServer,
  type ForwardReport,
  type Relay,
  type RelayListener,
} from '../../src/relay/index.js';
import { readCapture } from '../../src/testing/capture.js';
import { replay } from '../../src/testing/replay.js';
import { SEED } from '../emulator/harness.js';

// Real platform traffic on this machine: the emulator delivers to a relay (real sockets, port 0),
// a listener streams the relay's events to an app; the listener is stopped while the app holds
// its requests and events keep coming, then a new listener takes over.

const SECRET = 'relay-secret-0123456789';
const PLATFORM_TOKEN = 'platform-token';
const APP_TOKEN = 'app-token';

/** Waits until `done()` holds, checking every 20 ms, failing after `ms` (a loaded machine is slow). */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface App {
  readonly url: string;
  readonly router: WebhookRouter;
  /** Callbacks run: one per event the app accepted (duplicates are answered, not run). */
  readonly runs: { type: string; payload: Record<string, unknown> }[];
  /** Requests the app received, duplicates included. */
  requests: number;
  /** While set, the app holds every request until it resolves. */
  gate: Promise<void> | undefined;
  close(): Promise<void>;
}

async function startApp(): Promise<App> {
  const runs: App['runs'] = [];
  const record = (type: string) => (payload: unknown) =>
    void runs.push({ type, payload: payload as Record<string, unknown> });
  const router = createWebhookRouter({
    token: APP_TOKEN,
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onChatbot: record('chatbot'),
  });
  const app: App = {
    url: '',
    router,
    runs,
    requests: 0,
    gate: undefined,
    close: async () => undefined,
  };
  const express_ = express();
  express_.use(
    '/webhooks',
    (_req, _res, next) => {
      app.requests += 1;
      void (app.gate ?? Promise.resolve()).then(() => next());
    },
    router,
  );
  const server = express_.listen(0, '127.0.0.1');
  await once(server, 'listening');
  Object.assign(app, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close: async () => {
      await router.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
  return app;
}

describe('relay → listener → app, with the listener stopped and restarted mid-stream', () => {
  let emulator: Emulator;
  let relay: Relay;
  let relayServer: Server;
  let relayUrl: string;
  let app: App;
  const listeners: RelayListener[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mw-relay-'));

  beforeAll(async () => {
    app = await startApp();
    relay = createRelay({ secret: SECRET, token: PLATFORM_TOKEN, maxBuffered: 1000 });
    relayServer = createRelayServer(relay);
    relayUrl = await listen(relayServer);
    emulator = createEmulator({ retry: { attempts: 1 }, deliveryConcurrency: 8 });
    await emulator.listen(0, '127.0.0.1');
    const url = (path: string) => `${relayUrl}/${path}?token=${PLATFORM_TOKEN}`;
    const configured = await fetch(`${emulator.url}/Messaging/MessagingClientWebHook`, {
      method: 'POST',
      headers: { authorization: SEED.supervisorKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        incomingMessageURL: url('incoming'),
        statusUpdateURL: url('status'),
        chatbotWebhookURL: url('chatbot'),
        chatbotPayloadVersion: 'v2',
        chatbotIncludeOutgoing: true,
      }),
    });
    expect(configured.status).toBe(200);
  });
  afterAll(async () => {
    for (const listener of listeners) await listener.stop(100);
    await emulator.close();
    await relay.close();
    relayServer.closeAllConnections();
    await new Promise((resolve) => relayServer.close(resolve));
    await app.close();
  });

  const customers = ['+27831000001', '+27831000002', '+27831000003'];
  const send = (from: string, text: string): void =>
    void emulator.customerMessage({ number: SEED.lite.msisdn, from, text });

  it('loses nothing within the buffer, keeps each conversation in order, and answers duplicates once', async () => {
    const reports: ForwardReport[] = [];
    const capture = join(dir, 'relay.jsonl');
    const start = (): RelayListener => {
      const listener = createRelayListener({
        relay: relayUrl,
        secret: SECRET,
        forwardTo: app.url,
        token: APP_TOKEN,
        capture,
        backoff: { type: 'fixed', delay: 50 },
        onForward: (report) => reports.push(report),
      });
      listeners.push(listener);
      return listener;
    };

    // 1. the first listener forwards the first messages; one of them the platform sends twice
    const first = start();
    await first.connected;
    emulator.injectFault({ kind: 'duplicate' }, { type: 'incoming' });
    for (const [i, from] of customers.entries()) send(from, `message 1 of ${i}`);
    await emulator.idle();
    await until(() => app.runs.filter((r) => r.type === 'incoming').length === 3, 'the first messages');

    // 2. the app holds its requests; more messages come; the listener is stopped with them in flight
    let open: () => void = () => undefined;
    app.gate = new Promise((resolve) => (open = resolve));
    const held = app.requests;
    for (let round = 2; round <= 4; round += 1) {
      for (const [i, from] of customers.entries()) send(from, `message ${round} of ${i}`);
    }
    await emulator.idle();
    await until(() => app.requests > held, 'a forward held by the app');
    await first.stop(50);
    await until(() => !relay.stats().listening, 'the relay to see the listener gone');

    // 3. while no listener is connected, the relay buffers what keeps coming
    for (const [i, from] of customers.entries()) send(from, `message 5 of ${i}`);
    await emulator.idle();
    expect(relay.stats().buffered).toBeGreaterThanOrEqual(customers.length);

    // 4. the app answers again; a new listener receives everything not acknowledged
    app.gate = undefined;
    open();
    const second = start();
    await second.connected;
    const stats = relay.stats();
    await until(() => relay.stats().buffered === 0, 'every event acknowledged');
    await app.router.idle();

    // nothing lost: every event the relay accepted ran once in the app
    const incoming = app.runs.filter((r) => r.type === 'incoming');
    const chatbot = app.runs.filter((r) => r.type === 'chatbot');
    expect(incoming).toHaveLength(customers.length * 5);
    expect(chatbot).toHaveLength(customers.length * 5);
    expect(new Set(chatbot.map((r) => r.payload.eventId)).size).toBe(chatbot.length);
    // order kept per conversation
    for (const [i, from] of customers.entries()) {
      expect(incoming.filter((r) => r.payload.sender === from).map((r) => r.payload.text)).toEqual(
        [1, 2, 3, 4, 5].map((round) => `message ${round} of ${i}`),
      );
    }
    // the platform's duplicate was answered by the relay as a duplicate and never forwarded
    const log = emulator.deliveries({ type: 'incoming' });
    const copy = log.find((entry) => entry.duplicateOf !== null);
    expect(copy?.responseStatus).toBe(200);
    expect(copy?.responseBody).toMatch(/"duplicate":\s*true/);
    // events the stopped listener had in flight reached the app twice, and ran once
    const relayed = reports.filter((r) => r.status !== undefined);
    const answeredAsDuplicate = relayed.filter((r) => r.duplicate);
    expect(relayed.length).toBe(stats.received + answeredAsDuplicate.length);
    expect(answeredAsDuplicate.length).toBeGreaterThan(0);
    expect(first.stats().received + second.stats().received).toBeGreaterThan(stats.received);

    // the capture file holds every event, in the format replay reads
    await second.stop(1000);
    const lines: string[] = [];
    for await (const line of readCapture(capture))
      if (line.record !== undefined) lines.push(line.record.path);
    expect(new Set(lines)).toEqual(new Set(['/incoming', '/chatbot']));
    const again = await replay(capture, `${app.url}`, { token: APP_TOKEN });
    expect(again.failed).toBe(0);
  });
});

describe('the relay on its own (its fetch handler, no server)', () => {
  const post = (relay: Relay, path: string, body: unknown, headers: Record<string, string> = {}) =>
    relay(
      new Request(`http://relay.test${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    );
  const message = (n: number) => ({
    sender: '+27831234567',
    receiver: '+27820000001',
    text: `hello ${n}`,
    messageType: 'CONVERSATION',
    messageContentType: 'TEXT',
    gstId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    timestamp: 1_767_261_600_000 + n,
  });

  it('keeps at most maxBuffered events, drops the oldest and tells the listener how many', async () => {
    const relay = createRelay({ secret: SECRET, token: false, maxBuffered: 3 });
    for (let n = 1; n <= 5; n += 1) expect((await post(relay, '/incoming', message(n))).status).toBe(200);
    expect(relay.stats()).toMatchObject({ received: 5, buffered: 3, dropped: 2, listening: false });
    const stream = await relay(
      new Request('http://relay.test/_relay/events', { headers: { authorization: `Bearer ${SECRET}` } }),
    );
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('hello 5')) text += (await reader.read()).value ?? '';
    expect(text).toMatch(/event: dropped\ndata: \{"dropped":2\}/);
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([3, 4, 5]);
    expect(text).not.toContain('hello 2');
    await reader.cancel();
    await relay.close();
  });

  it('refuses a wrong secret, a bad acknowledgement, and the platform without its token', async () => {
    const relay = createRelay({ secret: SECRET, token: PLATFORM_TOKEN });
    const stream = await relay(
      new Request('http://relay.test/_relay/events', { headers: { authorization: 'Bearer nope' } }),
    );
    expect(stream.status).toBe(401);
    const ack = await post(relay, '/_relay/ack', { ids: ['x'] }, { authorization: `Bearer ${SECRET}` });
    expect(ack.status).toBe(400);
    expect(((await ack.json()) as { message: string }).message).toMatch(/^ids\.0: /);
    expect((await post(relay, '/incoming', message(1))).status).toBe(401);
    expect((await post(relay, `/incoming?token=${PLATFORM_TOKEN}`, message(1))).status).toBe(200);
    expect((await post(relay, `/incoming?token=${PLATFORM_TOKEN}`, { text: 1 })).status).toBe(400);
    expect(relay.stats().received).toBe(1);
    await relay.close();
  });

  it('runs as a Hono route (a web-standard runtime), and a listener refused by it says why', async () => {
    const { Hono } = await import('hono');
    const relay = createRelay({ secret: SECRET, token: false });
    const hono = new Hono();
    hono.all('*', (c) => relay(c.req.raw));
    const answer = await hono.request('/chatbot', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        eventId: '00000000-0000-4000-8000-000000000001',
        direction: 'INCOMING',
        timestamp: 1_767_261_600_000,
        chatParticipantId: '00000000-0000-4000-8000-000000000002',
        messageId: 'm1',
        messageType: 'TEXT',
        messageText: 'hi',
        senderMsisdn: '+27831234567',
        receiverMsisdn: '+27820000001',
        clientRef: 'demo',
        conversationStatus: 'OPEN',
        conversationClosed: false,
      }),
    });
    expect(answer.status).toBe(200);
    expect(relay.stats().received).toBe(1);
    const server = createRelayServer(relay);
    const url = await listen(server);
    const listener = createRelayListener({
      relay: url,
      secret: 'wrong-secret-0000',
      forwardTo: 'http://127.0.0.1:9/x',
    });
    await expect(listener.connected).rejects.toThrow(/refused the secret \(401\)/);
    await listener.stop(10);
    await relay.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
