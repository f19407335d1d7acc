import express from 'express';
import type { AddressInfo } from 'node:net';
import { createEmulator, DEFAULT_API_KEYS } from '../../src/emulator/index.js';
import { createWebhookRouter } from '../../src/index.js';

/* The example of docs/emulator.md ("In a jest test"), kept runnable. */

it('answers a customer (docs/emulator.md example)', async () => {
  const received: unknown[] = [];
  const router = createWebhookRouter({ onIncoming: (message) => void received.push(message) });
  const app = express().use('/webhooks', router);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  const emulator = createEmulator({ retry: { attempts: 1 } });
  const api = await emulator.listen();

  await fetch(`${api}/Messaging/MessagingClientWebHook`, {
    method: 'POST',
    headers: { authorization: DEFAULT_API_KEYS.supervisor, 'content-type': 'application/json' },
    body: JSON.stringify({ incomingMessageURL: `${receiver}/incoming` }),
  });

  emulator.customerMessage({ number: '+27820000001', from: '+27831234567', text: 'Hi' });
  await emulator.idle();
  await router.idle();

  expect(received).toEqual([expect.objectContaining({ text: 'Hi', sender: '+27831234567' })]);
  await emulator.close();
  await router.close();
  await new Promise((resolve) => server.close(resolve));
});
