// Readiness in Redis mode, against a PRIVATE redis-server on its own port: killed and restarted,
// then stopped (SIGSTOP, a hung Redis that keeps its connections open) and resumed.
import express from 'express';
import request from 'supertest';
import { createHealthHandler, createWebhookRouter, type WebhookRouter } from '../../src/receiver/index.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  createWorker,
  type BullMQDispatcher,
  type RedisDedupeStore,
  type WebhookWorker,
} from '../../src/redis/index.js';
import {
  describeWithRedis,
  freePort,
  startRedisServer,
  uniqueName,
  waitFor,
  type RedisServerProcess,
} from '../redis/helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

// Polled, not timed: how long a probe takes to see the change is the client's business.
const UNTIL = 15_000;
const polled = (check: () => boolean): Promise<boolean> => waitFor(async () => check(), UNTIL);

describeRedis('health() in Redis mode (private redis-server)', () => {
  const queueName = uniqueName('health');
  let port: number;
  let server: RedisServerProcess | undefined;
  let store: RedisDedupeStore;
  let dispatcher: BullMQDispatcher;
  let router: WebhookRouter;
  let worker: WebhookWorker;

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    port = await freePort();
    server = await startRedisServer(port);
    const connection = { host: '127.0.0.1', port };
    store = createRedisDedupeStore({ connection, prefix: `${queueName}:dedupe:`, commandTimeoutMs: 300 });
    dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 1, commandTimeoutMs: 300 });
    router = createWebhookRouter({ onChatbot: () => undefined, dedupe: { store }, dispatcher });
    worker = createWorker({ connection, queueName, partitions: 1, handlers: { onChatbot: () => undefined } });
    await Promise.all([store.ready(), dispatcher.ready(), worker.ready()]);
  }, 20_000);

  afterAll(async () => {
    server?.resume();
    await worker?.close(1000);
    await router?.close(1000);
    await server?.stop();
  });

  const probes = () =>
    express()
      .get('/healthz', createHealthHandler(router))
      .get('/worker/healthz', createHealthHandler(worker));

  it('is ready while Redis answers, not ready with redis_unreachable once it is killed, ready again after a restart', async () => {
    const app = probes();
    expect(await polled(() => router.health().ready && worker.health().ready)).toBe(true);
    await request(app).get('/healthz').expect(200);
    expect((await request(app).get('/worker/healthz').expect(200)).body).toEqual({
      ready: true,
      reasons: [],
      running: true,
    });

    await server!.stop();
    // Each client notices the outage on its own (the store's and the dispatcher's connections
    // fail at different moments): waited for all four, not for the first that made the router not ready.
    expect(
      await polled(
        () =>
          !store.health().ready &&
          !dispatcher.health().ready &&
          !router.health().ready &&
          !worker.health().ready,
      ),
    ).toBe(true);
    expect(store.health()).toEqual({ ready: false, reasons: ['redis_unreachable'] });
    expect(dispatcher.health()).toEqual({ ready: false, reasons: ['redis_unreachable'] });
    // The store and the dispatcher both report it: once in the router's reasons.
    expect((await request(app).get('/healthz').expect(503)).body).toMatchObject({
      ready: false,
      reasons: ['redis_unreachable'],
      closing: false,
    });
    // The worker keeps running (it waits the outage out); only Redis is the reason.
    expect((await request(app).get('/worker/healthz').expect(503)).body).toEqual({
      ready: false,
      reasons: ['redis_unreachable'],
      running: true,
    });

    server = await startRedisServer(port);
    expect(await polled(() => router.health().ready && worker.health().ready)).toBe(true);
    await request(app).get('/healthz').expect(200);
    await request(app).get('/worker/healthz').expect(200);
  }, 60_000);

  it('sees a hung Redis (SIGSTOP: connections open, no answers) and its recovery (SIGCONT)', async () => {
    expect(await polled(() => router.health().ready && worker.health().ready)).toBe(true);
    server!.pause();
    try {
      expect(await polled(() => !router.health().ready && !worker.health().ready)).toBe(true);
      expect(router.health().reasons).toEqual(['redis_unreachable']);
      expect(worker.health().reasons).toEqual(['redis_unreachable']);
    } finally {
      server!.resume();
    }
    expect(await polled(() => router.health().ready && worker.health().ready)).toBe(true);
  }, 60_000);
});

describeRedis('worker health(): worker_not_running', () => {
  const queueName = uniqueName('health-worker');
  const connection = { host: '127.0.0.1', port: 6379 };

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
  });

  it('is not running before run() with autorun off, running after, not running once closed', async () => {
    const worker = createWorker({
      connection,
      queueName,
      partitions: 2,
      autorun: false,
      handlers: { onChatbot: () => undefined },
    });
    try {
      await worker.ready();
      expect(worker.health()).toEqual({ ready: false, reasons: ['worker_not_running'], running: false });
      await worker.run();
      expect(worker.health()).toEqual({ ready: true, reasons: [], running: true });
    } finally {
      await worker.close(1000);
    }
    const closed = worker.health();
    expect(closed.ready).toBe(false);
    expect(closed.reasons).toContain('worker_not_running');
  }, 20_000);
});
