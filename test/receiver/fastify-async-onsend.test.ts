/**
 * An app-wide async onSend hook delays the end of every reply: a request the plugin refuses in its
 * onRequest hook (any method but POST) must still be answered once, counted once, and never run
 * the route handler after the refusal.
 */
import Fastify from 'fastify';
import { webhooksPlugin } from '../../src/receiver/fastify.js';

it('refuses a GET once when the app has an async onSend hook', async () => {
  const app = Fastify();
  app.addHook('onSend', async (_request, _reply, payload) => {
    await new Promise((resolve) => setImmediate(resolve));
    return payload;
  });
  const warnings: unknown[] = [];
  app.log.warn = (...args: unknown[]) => void warnings.push(args);
  await app.register(webhooksPlugin, { prefix: '/webhooks', token: false, onChatbot: () => undefined });
  const answer = await app.inject({ method: 'GET', url: '/webhooks/chatbot' });
  expect(answer.statusCode).toBe(405);
  expect(answer.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  expect(app.webhooks.stats().total).toMatchObject({ received: 1, rejected: 1 });
  expect(warnings).toEqual([]);
  await app.close();
});
