/**
 * The receiver in a Fastify app: the plugin serves the webhook endpoints under /webhooks with
 * its own body parsing (the app's other routes keep Fastify's JSON parser), `app.webhooks` holds
 * the controls, and Fastify's `close()` waits for queued callbacks.
 *
 * Run (with a TypeScript runner): WEBHOOK_TOKEN=change-me PORT=3000 npx tsx examples/fastify.ts
 * Webhook URLs: https://<your host>/webhooks/<WEBHOOK_TOKEN>/<type>, e.g. .../webhooks/change-me/chatbot
 *
 * In your app, import from 'messaging-webhooks/fastify' instead of '../src/...'.
 */
import Fastify from 'fastify';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { webhooksPlugin } from 'messaging-webhooks/fastify';

/** Builds the app: the webhook plugin under /webhooks and a health route reading its stats. */
export async function createFastifyApp(token: string) {
  // One pino logger for Fastify and the receiver.
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
  const app = Fastify({ loggerInstance: logger });
  await app.register(webhooksPlugin, {
    prefix: '/webhooks',
    token,
    logger,
    // How long app.close() waits for queued callbacks.
    closeTimeoutMs: 10_000,
    onChatbot: async (event, ctx) => {
      ctx.logger.info({ direction: event.direction, version: ctx.payloadVersion }, 'chatbot event');
    },
    onIncoming: async (message, ctx) => {
      ctx.logger.info({ contentType: message.messageContentType }, 'incoming message');
    },
  });
  app.get('/healthz', async () => ({ ok: true, stats: app.webhooks.stats().total }));
  return app;
}

async function main(): Promise<void> {
  const token = process.env.WEBHOOK_TOKEN;
  if (token === undefined || token === '') {
    process.exitCode = 1;
    process.stderr.write('set WEBHOOK_TOKEN: the secret that appears in your webhook URLs\n');
    return;
  }
  const app = await createFastifyApp(token);
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: '0.0.0.0' });
  // Fastify stops taking connections, then the plugin's onClose hook drains the queue.
  const stop = (): void => void app.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// Run only when executed directly, not when a test imports the module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
