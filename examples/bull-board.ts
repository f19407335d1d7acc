/**
 * The receiver's BullMQ queues in bull-board: a receiver on Express with the Redis dedupe store
 * and the BullMQ dispatcher, and `@bull-board/express` mounted at /admin/queues over the
 * dispatcher's queues (the partition queues, then `<queueName>-dead`, the dead letters). A worker
 * process can mount the same over `worker.queues()`.
 *
 * The queues are shown read-only: a job added, retried or promoted by hand would skip the
 * receiver's dedupe and ordering. Redrive dead letters with `messaging-webhooks dlq redrive`
 * (conversation order kept, each job once). bull-board has no authentication of its own: put it
 * behind yours.
 *
 * Run (with a TypeScript runner): REDIS_URL=redis://127.0.0.1:6379 PORT=3000 npx tsx examples/bull-board.ts
 * Needs the devDependencies `@bull-board/api` and `@bull-board/express` (install them in your app).
 *
 * The imports name the package as an app does; inside this repository tsconfig.json `paths`
 * (and jest's moduleNameMapper) point them at src/.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express from 'express';
import { pathToFileURL } from 'node:url';
import { createWebhookRouter, type WebhookRouter } from 'messaging-webhooks';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  type BullMQDispatcher,
} from 'messaging-webhooks/redis';

/** Mounts bull-board at `basePath` of `app`, over `queues` (read-only). */
export function mountBullBoard(
  app: express.Express,
  queues: readonly Queue[],
  basePath = '/admin/queues',
): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    // Install the @bull-board/api version your @bull-board/express depends on (one copy), or
    // the two copies' types do not match here.
    serverAdapter,
  });
  app.use(basePath, serverAdapter.getRouter());
}

/** The receiver app with bull-board mounted. */
export interface BullBoardApp {
  readonly app: express.Express;
  readonly router: WebhookRouter;
  readonly dispatcher: BullMQDispatcher;
}

/** A receiver in Redis mode whose queues are visible in bull-board at /admin/queues. */
export function createBullBoardApp(redisUrl: string, queueName?: string): BullBoardApp {
  const dispatcher = createBullMQDispatcher({ connection: redisUrl, queueName });
  const router = createWebhookRouter({
    onChatbot: () => undefined, // declares the type as handled: enqueued here, run by the worker
    dedupe: { store: createRedisDedupeStore({ connection: redisUrl }) },
    dispatcher,
  });
  const app = express();
  app.use('/webhooks', router);
  mountBullBoard(app, dispatcher.queues());
  return { app, router, dispatcher };
}

function main(): void {
  const { app, router } = createBullBoardApp(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const server = app.listen(Number(process.env.PORT ?? 3000));
  process.once('SIGTERM', () => {
    server.close();
    void router.close(10_000).then(() => process.exit(0));
  });
}

// Run only when executed directly, not when a test imports the module.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
