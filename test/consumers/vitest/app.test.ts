// The app tested with the emulator on Vitest: `npm test` is `vitest run`.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createEmulator, DEFAULT_API_KEYS } from 'messaging-webhooks/emulator';
import { settle } from 'messaging-webhooks/testing';
import { createApp } from './app.js';

const NUMBER = '+27820000001'; // a number of the emulator's default seed
const emulator = createEmulator({ retry: { attempts: 1 } }); // a failed delivery is not retried
const { app, webhooks } = createApp({ token: 'test-token' });
const server = app.listen(0, '127.0.0.1');
let appUrl = '';

beforeAll(async () => {
  // Vitest runs hooks after the module was loaded: the server may be listening already.
  if (!server.listening) await once(server, 'listening');
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api = await emulator.listen(); // port 0 on 127.0.0.1
  // Point the platform's webhook configuration at the app, as you would in production.
  const answer = await fetch(`${api}/Messaging/MessagingClientWebHook`, {
    method: 'POST',
    headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
    body: JSON.stringify({ incomingMessageURL: `${appUrl}/webhooks/test-token/incoming` }),
  });
  expect(answer.status).toBe(200);
});

afterAll(async () => {
  await emulator.close();
  await webhooks.close();
  server.closeAllConnections();
  server.close();
});

async function inboxOf(customer: string): Promise<unknown> {
  return (await fetch(`${appUrl}/inbox/${encodeURIComponent(customer)}`)).json();
}

test('a customer message reaches the inbox', async () => {
  emulator.customerMessage({ number: NUMBER, from: '+27831234567', text: 'Where is my order?' });
  await settle(emulator, webhooks); // delivered, answered, and every callback ran
  expect(await inboxOf('+27831234567')).toEqual(['Where is my order?']);
});

test('a message the platform delivers twice is filed once', async () => {
  emulator.customerMessage({
    number: NUMBER,
    from: '+27831234568',
    text: 'Hi',
    faults: [{ kind: 'duplicate' }],
  });
  await settle(emulator, webhooks);
  const sent = emulator
    .deliveries({ type: 'incoming' })
    .filter((entry) => entry.payload.sender === '+27831234568');
  expect(sent.map((entry) => entry.responseStatus)).toEqual([200, 200]);
  expect(await inboxOf('+27831234568')).toEqual(['Hi']);
});
