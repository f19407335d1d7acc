import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookRouter, type WebhookRouter } from '../../src/receiver/index.js';

/** A receiver (createWebhookRouter in Express, with a token) on 127.0.0.1 port 0, mounted at /webhooks. */
export interface Receiver {
  readonly url: string;
  readonly router: WebhookRouter;
  readonly calls: { type: string; payload: Record<string, unknown> }[];
  readonly headers: Record<string, string | string[] | undefined>[];
  close(): Promise<void>;
}

export async function startReceiver(token: string): Promise<Receiver> {
  const calls: Receiver['calls'] = [];
  const headers: Receiver['headers'] = [];
  const record = (type: string) => (payload: unknown) =>
    void calls.push({ type, payload: payload as Record<string, unknown> });
  const router = createWebhookRouter({
    token,
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
  });
  const app = express();
  app.use(
    '/webhooks',
    (req, _res, next) => {
      headers.push(req.headers);
      next();
    },
    router,
  );
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    router,
    calls,
    headers,
    async close() {
      await router.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
