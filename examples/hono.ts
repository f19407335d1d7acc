/**
 * The receiver in a Hono app, through the web-standard fetch handler. The same `app` runs on
 * Node (@hono/node-server, below), Bun (`export default app`), Deno (`Deno.serve(app.fetch)`) and
 * Cloudflare Workers (`export default app`, with the `nodejs_compat` flag).
 *
 * Mount it with `app.all` so that a GET gets the receiver's 405 rather than Hono's 404. On
 * Workers, hand the handler `c.executionCtx`: its `waitUntil` keeps the isolate alive until the
 * callbacks of each request have run.
 *
 * Run (with a TypeScript runner): WEBHOOK_TOKEN=change-me PORT=3000 npx tsx examples/hono.ts
 *
 * In your app, import from 'messaging-webhooks' instead of '../src/...'.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { pathToFileURL } from 'node:url';
import { createFetchHandler, type FetchWebhookHandler } from 'messaging-webhooks';

/** The Hono app and the webhook handler behind it (for its stats and close). */
export function createHonoApp(token: string): { app: Hono; webhooks: FetchWebhookHandler } {
  const webhooks = createFetchHandler({
    basePath: '/webhooks',
    token,
    onChatbot: async (event, ctx) => {
      ctx.logger.info({ direction: event.direction }, 'chatbot event');
    },
  });
  const app = new Hono();
  app.all('/webhooks/*', (c) => webhooks(c.req.raw));
  // On Workers instead: app.all('/webhooks/*', (c) => webhooks(c.req.raw, c.executionCtx));
  app.get('/healthz', (c) => c.json({ ok: true, stats: webhooks.stats().total }));
  return { app, webhooks };
}

function main(): void {
  const token = process.env.WEBHOOK_TOKEN;
  if (token === undefined || token === '') {
    process.exitCode = 1;
    process.stderr.write('set WEBHOOK_TOKEN: the secret that appears in your webhook URLs\n');
    return;
  }
  const { app, webhooks } = createHonoApp(token);
  const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
  const stop = (): void => {
    // Stop taking connections, then let queued callbacks finish (503 + Retry-After meanwhile).
    server.close();
    void webhooks.close(10_000);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
