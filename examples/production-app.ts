/**
 * A production-style receiver: Express, token auth, a pino logger, a health endpoint, optional
 * capture of raw requests for later replay, and a graceful shutdown on SIGTERM that stops
 * accepting, lets queued callbacks finish, spills the acknowledged events that could not run in
 * time to a JSONL file (replay it after the restart), then exits.
 *
 * Run (with a TypeScript runner): WEBHOOK_TOKEN=change-me PORT=3000 npx tsx examples/production-app.ts
 * Configure the platform's webhook URLs as https://<your host>/webhooks/<WEBHOOK_TOKEN>/<type>,
 * e.g. .../webhooks/change-me/incoming (the platform does not sign requests: the token in the
 * URL is what authenticates them).
 *
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * (and jest's moduleNameMapper) point them at src/.
 */
import express from 'express';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { pino, type Logger } from 'pino';
import { createWebhookRouter, spillToJsonl, type WebhookRouter } from 'messaging-webhooks';
import { createJsonlCapture, type JsonlCapture } from 'messaging-webhooks/testing';

/** What the app needs from its environment. */
export interface ProductionAppOptions {
  /** Shared secret(s) in the webhook URLs; several during a rotation. */
  readonly token: string | readonly string[];
  readonly logger: Logger;
  /** Capture every request to this JSONL file (for `messaging-webhooks replay`). */
  readonly captureFile?: string | undefined;
  /**
   * Where a shutdown that times out writes the acknowledged events that did not run (capture
   * format). After the restart: `npx messaging-webhooks replay <file> --to <url>`.
   * @default '.spill/unfinished.jsonl'
   */
  readonly spillFile?: string | undefined;
}

/** The app and the parts its shutdown needs. */
export interface ProductionApp {
  readonly app: express.Express;
  readonly router: WebhookRouter;
  readonly capture: JsonlCapture | undefined;
}

/** Builds the Express app: the webhook router under /webhooks and a health endpoint. */
export function createProductionApp(options: ProductionAppOptions): ProductionApp {
  const { logger } = options;
  const capture =
    options.captureFile === undefined ? undefined : createJsonlCapture({ file: options.captureFile });
  const router = createWebhookRouter({
    token: options.token,
    logger,
    ...(capture === undefined ? {} : { capture }),
    // close() timing out hands every acknowledged event not run yet to this file, before resolving.
    onUnfinished: spillToJsonl(options.spillFile ?? '.spill/unfinished.jsonl'),
    // Callbacks run after the 200 is sent, one conversation at a time; a throw is retried.
    onIncoming: async (message, ctx) => {
      ctx.logger.info({ contentType: message.messageContentType }, 'incoming message');
    },
    onStatus: async (receipt, ctx) => {
      // ctx.delivery is the forward-only state: a late SENT after DELIVERED arrives with applied: false.
      if (ctx.delivery?.applied === false) return;
      ctx.logger.info({ status: receipt.status }, 'delivery status');
    },
    onSession: async (session, ctx) => {
      if (session.statusType === 'disconnected')
        ctx.logger.warn('session disconnected: reconnect with the QR code');
    },
    onEvent: async (event, ctx) => {
      if (
        event.eventType === 'USER_PREFERENCE' &&
        'preferenceValue' in event &&
        event.preferenceValue === 'stop'
      ) {
        ctx.logger.info('marketing opt-out: stop marketing messages to this user');
      }
    },
    onChatbot: async (event, ctx) => {
      ctx.logger.info({ direction: event.direction, version: ctx.payloadVersion }, 'chatbot event');
    },
    onDeadLetter: ({ job, attempts }) => {
      logger.error(
        { type: job.type, requestId: job.requestId, attempts },
        'callback failed on every attempt',
      );
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, stats: router.stats().total });
  });
  app.use('/webhooks', router);
  return { app, router, capture };
}

/**
 * Stops in order: no new connections, queued callbacks drain (up to `timeoutMs`) and what could
 * not run in time is spilled to the spill file, the capture file is flushed. Resolves true when
 * every accepted event's callback ran; false when some were spilled (or still running).
 */
export async function shutdown(server: Server, parts: ProductionApp, timeoutMs = 10_000): Promise<boolean> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // The router answers 503 + Retry-After from now on, so the platform redelivers anything new.
  const drained = await parts.router.close(timeoutMs);
  await parts.capture?.close();
  await closed;
  return drained;
}

async function main(): Promise<void> {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
  const token = process.env.WEBHOOK_TOKEN;
  if (token === undefined || token === '') {
    logger.fatal('set WEBHOOK_TOKEN: the secret that appears in your webhook URLs');
    process.exitCode = 1;
    return;
  }
  const parts = createProductionApp({
    token,
    logger,
    captureFile: process.env.CAPTURE_FILE,
    spillFile: process.env.SPILL_FILE,
  });
  const port = Number(process.env.PORT ?? 3000);
  const server = parts.app.listen(port, () => logger.info({ port }, 'listening for webhooks on /webhooks'));
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'shutting down');
    shutdown(server, parts).then(
      (drained) => {
        logger.info({ drained }, 'stopped');
        process.exitCode = drained ? 0 : 1;
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// Run only when executed directly, not when a test imports the module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
