import express from 'express';
import Fastify from 'fastify';
import request from 'supertest';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
import {
  createFetchHandler,
  createHealthHandler,
  createNodeHandler,
  createWebhookRouter,
} from '../../src/receiver/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { createTestReceiver, deferred } from '../helpers/receiver.js';

describe('health()', () => {
  it('is ready with no reasons on a fresh receiver', () => {
    const { router } = createTestReceiver();
    expect(router.health()).toEqual({
      ready: true,
      reasons: [],
      closing: false,
      unfinished: 0,
      queueThreshold: 8000,
    });
  });

  it('turns not ready at the threshold, before the queue is full, and ready again once it drains', async () => {
    const gate = deferred();
    const { app, router } = createTestReceiver({
      concurrency: 1,
      maxQueueSize: 5,
      onChatbot: () => gate.promise,
    });
    // 80 % of 5, rounded up.
    expect(router.health().queueThreshold).toBe(4);
    const readiness: boolean[] = [];
    for (let i = 0; i < 5; i += 1) {
      await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(200);
      readiness.push(router.health().ready);
    }
    // Not ready from the 4th unfinished event; the 5th was still accepted: drained before any 503.
    expect(readiness).toEqual([true, true, true, false, false]);
    expect(router.health()).toMatchObject({ reasons: ['queue_over_threshold'], unfinished: 5 });
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(503);
    gate.resolve();
    await router.idle();
    expect(router.health()).toMatchObject({ ready: true, reasons: [], unfinished: 0 });
  });

  it('with the default threshold, is not ready before the first 503 queue_full, for every queue size', async () => {
    for (const maxQueueSize of [1, 2, 3, 4, 5, 7, 10, 16]) {
      const gate = deferred();
      const { app, router } = createTestReceiver({
        concurrency: 1,
        maxQueueSize,
        onChatbot: () => gate.promise,
      });
      const threshold = router.health().queueThreshold!;
      expect(threshold).toBeLessThanOrEqual(maxQueueSize);
      let readyBeforeFull: boolean | undefined;
      for (let sent = 0; sent <= maxQueueSize; sent += 1) {
        const before = router.health().ready;
        const answer = await request(app).post('/webhooks/chatbot').send(buildChatbotEvent());
        if (answer.status === 503) {
          expect(answer.body).toMatchObject({ error: { code: 'queue_full' } });
          readyBeforeFull = before;
          break;
        }
        expect(answer.status).toBe(200);
      }
      expect([maxQueueSize, readyBeforeFull]).toEqual([maxQueueSize, false]);
      gate.resolve();
      await router.close(1000);
    }
  });

  it('takes healthQueueThreshold as given', async () => {
    const gate = deferred();
    const { app, router } = createTestReceiver({ healthQueueThreshold: 1, onChatbot: () => gate.promise });
    expect(router.health().ready).toBe(true);
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(200);
    expect(router.health()).toMatchObject({
      ready: false,
      reasons: ['queue_over_threshold'],
      queueThreshold: 1,
    });
    gate.resolve();
    await router.idle();
    expect(router.health().ready).toBe(true);
  });

  it('is not ready while closing, and says so even with the queue empty', async () => {
    const gate = deferred();
    const { app, router } = createTestReceiver({ maxQueueSize: 10, onChatbot: () => gate.promise });
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(200);
    const closed = router.close(10_000);
    expect(router.health()).toMatchObject({ ready: false, reasons: ['closing'], closing: true });
    gate.resolve();
    await closed;
    expect(router.health()).toMatchObject({ ready: false, reasons: ['closing'], unfinished: 0 });
  });

  it('refuses a threshold that is not a positive integer, naming the option', () => {
    expect(() => createWebhookRouter({ healthQueueThreshold: 0 })).toThrow(/healthQueueThreshold/);
    expect(() => createWebhookRouter({ healthQueueThreshold: 1.5 })).toThrow(TypeError);
  });

  it('is on every receiver: node handler, fetch handler and Fastify app.webhooks', async () => {
    const node = createNodeHandler({ onIncoming: () => undefined });
    const fetchHandler = createFetchHandler({ onIncoming: () => undefined });
    const app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', onIncoming: () => undefined });
    await app.ready();
    for (const receiver of [node, fetchHandler, app.webhooks]) expect(receiver.health().ready).toBe(true);
    await app.close();
    expect(app.webhooks.health()).toMatchObject({ ready: false, reasons: ['closing'] });
    await node.close();
    await fetchHandler.close();
    expect(node.health().ready).toBe(false);
    expect(fetchHandler.health().ready).toBe(false);
  });
});

describe('createHealthHandler', () => {
  it('answers 200 with the health when ready and 503 when not', async () => {
    const { router } = createTestReceiver();
    const app = express().get('/healthz', createHealthHandler(router));
    const ready = await request(app).get('/healthz').expect(200);
    expect(ready.body).toMatchObject({ ready: true, reasons: [] });
    expect(ready.headers['cache-control']).toBe('no-store');
    await router.close();
    const closing = await request(app).get('/healthz').expect(503);
    expect(closing.body).toMatchObject({ ready: false, reasons: ['closing'] });
  });

  it('refuses what has no health()', () => {
    expect(() => createHealthHandler({} as never)).toThrow(TypeError);
  });
});
