import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import request from 'supertest';
import { PLATFORM_CLIENT_OPTION_KEYS, type PlatformClientOptions } from '../../src/client/client.js';
import { createPlatformClient } from '../../src/client/index.js';
import {
  createMemoryDedupeStore,
  MEMORY_DEDUPE_STORE_OPTION_KEYS,
  type MemoryDedupeStoreOptions,
} from '../../src/dedupe/index.js';
import { createMemoryDispatcher } from '../../src/dispatch/index.js';
import { EMULATOR_OPTION_KEYS } from '../../src/emulator/emulator.js';
import { createEmulator, type EmulatorOptions } from '../../src/emulator/index.js';
import {
  PIPELINE_OPTION_KEYS,
  type DedupeOptions,
  type WebhookPipelineOptions,
} from '../../src/pipeline/index.js';
import { createNodeHandler, createWebhookRouter, type NodeHandlerOptions } from '../../src/receiver/index.js';
import { REDIS_DEDUPE_STORE_OPTION_KEYS } from '../../src/redis/option-keys.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  createWorker,
  type BullMQDispatcherOptions,
  type RedisDedupeStoreOptions,
  type WebhookWorkerOptions,
} from '../../src/redis/index.js';
import {
  createJsonlCapture,
  fixtures,
  replay,
  type JsonlCaptureOptions,
  type ReplayOptions,
} from '../../src/testing/index.js';
import { buildAndRelease } from './helpers.js';
import { BULLMQ_DISPATCHER_OPTION_KEYS } from '../../src/redis/dispatcher.js';
import { WORKER_OPTION_KEYS } from '../../src/redis/worker.js';
import { JSONL_CAPTURE_OPTION_KEYS } from '../../src/testing/capture.js';
import { REPLAY_OPTION_KEYS } from '../../src/testing/replay.js';

/** Every key of `T`, none optional: a literal of this type names each documented option once. */
type Every<T> = { readonly [K in keyof T]-?: T[K] };

const sorted = (keys: readonly string[]): string[] => [...keys].sort();
const silent = pino({ level: 'silent' });
// lazyConnect: building opens no connection, so these run without Redis.
const connection = { host: '127.0.0.1', port: 6379, lazyConnect: true };
const dir = mkdtempSync(path.join(tmpdir(), 'mw-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const handlers = {
  onIncoming: () => undefined,
  onStatus: () => undefined,
  onSession: () => undefined,
  onEvent: () => undefined,
  onChatbot: () => undefined,
  onError: () => undefined,
  onDeadLetter: () => undefined,
  onInvalid: () => undefined,
};

function everyPipelineOption(onIncoming: () => void): Every<WebhookPipelineOptions> {
  const dedupe: Every<DedupeOptions> = {
    max: 1000,
    ttlMs: 60_000,
    store: createMemoryDedupeStore(),
    types: { incoming: true, status: false },
    keys: { incoming: (message) => message.gstId ?? undefined },
    onStoreError: 'reject',
  };
  return {
    ...handlers,
    onIncoming,
    logger: silent,
    redactLogs: true,
    token: ['secret', 'next-secret'],
    tokenHeader: 'x-webhook-token',
    tokenQueryParam: 'token',
    bodyLimit: 65_536,
    concurrency: 4,
    maxQueueSize: 100,
    healthQueueThreshold: 80,
    retry: { attempts: 2, backoff: { type: 'fixed', delay: 10, maxDelay: 100 } },
    callbackTimeoutMs: 1000,
    dedupe,
    dispatcher: (runner) => createMemoryDispatcher({ runner }),
    enqueueTimeoutMs: 500,
    retryAfterSeconds: 1,
    chatbotPayloadVersion: 'v2',
    statusTracking: { max: 10 },
    capture: () => undefined,
    onUnfinished: () => undefined,
    deadLetterSink: path.join(dir, 'dead-letters.jsonl'),
    bodyTimeoutMs: 5000,
    maxJsonDepth: 16,
    maxJsonKeys: 500,
    maxJsonItems: 500,
  };
}

describe('every documented option is accepted', () => {
  it('createWebhookRouter: the receiver works with each option set', async () => {
    let received = 0;
    const options = everyPipelineOption(() => void (received += 1));
    expect(sorted(Object.keys(options))).toEqual(sorted(PIPELINE_OPTION_KEYS));
    const router = createWebhookRouter(options);
    const app = express().use('/webhooks', router);
    await request(app)
      .post('/webhooks/incoming')
      .set('x-webhook-token', 'secret')
      .send(fixtures.incoming.TEXT)
      .expect(200);
    await router.idle();
    expect(received).toBe(1);
    await router.close();
  });

  it('createNodeHandler: the pipeline options plus basePath', async () => {
    let received = 0;
    const options: Every<NodeHandlerOptions> = {
      ...everyPipelineOption(() => void (received += 1)),
      basePath: '/webhooks',
    };
    expect(sorted(Object.keys(options))).toEqual(sorted([...PIPELINE_OPTION_KEYS, 'basePath']));
    const handler = createNodeHandler(options);
    await request(handler)
      .post('/webhooks/incoming?token=next-secret')
      .send(fixtures.incoming.TEXT)
      .expect(200);
    await handler.idle();
    expect(received).toBe(1);
    await handler.close();
  });

  it('createEmulator', async () => {
    const options: Every<EmulatorOptions> = {
      seed: 'empty',
      state: { version: 1, clock: Date.UTC(2026, 0, 2), clients: [{ id: 'c1', clientRef: 'demo' }] },
      retention: { closedChats: 5, messages: 5, ratingWidgets: 5 },
      messagingPrefix: '/api',
      chatPrefix: '/chat',
      clock: Date.UTC(2026, 0, 1),
      retry: { attempts: 1, backoffMs: 0 },
      deliveryConcurrency: 4,
      onDeliveryAttempt: () => undefined,
      timeoutMs: 1000,
      deliveryHeaders: { 'x-webhook-token': 'secret' },
      deliveryLogLimit: 10,
      faults: { duplicate: 0, outOfOrder: 0, delay: 0, fail: 0, delayMs: 0, seed: 7 },
      routeGroups: [],
      checkResponses: true,
      logger: silent,
      allowedHosts: ['emulator'],
      idleTimeoutMs: 5000,
      pathOverrides: { sendAgentMessage: '/v2/agent-messages' },
      agentMessages: { receipts: ['SENT'], maxMediaBytes: 1024 },
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(EMULATOR_OPTION_KEYS));
    // a seed or a snapshot to start from, not both (a TypeError says so)
    expect(() => createEmulator(options)).toThrow(/seed and state cannot be given together/);
    const { state: _state, ...seeded } = options;
    await buildAndRelease(() => createEmulator(seeded));
    const { seed: _seed, ...restored } = options;
    await buildAndRelease(() => createEmulator(restored));
  });

  it('createPlatformClient', () => {
    const options: Every<PlatformClientOptions> = {
      baseUrl: 'http://127.0.0.1:4010',
      apiKey: 'emu-supervisor-key',
      messagingPrefix: '',
      chatPrefix: '/chat',
      pathOverrides: { sendAgentMessage: '/v2/agent-messages' },
      fetch: (input, init) => fetch(input, init),
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(PLATFORM_CLIENT_OPTION_KEYS));
    expect(createPlatformClient(options).webhooks).toBeDefined();
  });

  it('createWorker', async () => {
    const options: Every<WebhookWorkerOptions> = {
      connection,
      handlers,
      retry: { attempts: 2, backoff: { type: 'exponential', delay: 10, maxDelay: 100 } },
      callbackTimeoutMs: 1000,
      statusTracking: false,
      autorun: false,
      queueName: 'mwtest-options',
      partitions: 2,
      prefix: 'mwtest',
      hashTags: true,
      logger: silent,
      redactLogs: false,
      requirePersistence: false,
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(WORKER_OPTION_KEYS));
    await buildAndRelease(() => createWorker(options));
  });

  it('createBullMQDispatcher', async () => {
    const options: Every<BullMQDispatcherOptions> = {
      connection,
      keepCompletedMs: 60_000,
      keepFailedMs: 60_000,
      commandTimeoutMs: 500,
      waitForReplicas: { replicas: 1, timeoutMs: 200 },
      queueName: 'mwtest-options',
      partitions: 2,
      prefix: 'mwtest',
      hashTags: true,
      logger: silent,
      redactLogs: true,
      requirePersistence: false,
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(BULLMQ_DISPATCHER_OPTION_KEYS));
    await buildAndRelease(() => createBullMQDispatcher(options));
  });

  it('createRedisDedupeStore: every option, `connection` and `client` each in its own build', async () => {
    const client = new Redis({ lazyConnect: true });
    const every: Every<RedisDedupeStoreOptions> = {
      connection,
      client,
      ttlMs: 60_000,
      leaseMs: 5000,
      prefix: 'mwtest:dedupe:',
      commandTimeoutMs: 500,
      logger: silent,
      redactLogs: true,
    };
    expect(sorted(Object.keys(every))).toEqual(sorted(REDIS_DEDUPE_STORE_OPTION_KEYS));
    // The two are exclusive: one names where Redis is, the other is a client already made.
    const { client: _client, ...withConnection } = every;
    const { connection: _connection, ...withClient } = every;
    await buildAndRelease(() => createRedisDedupeStore(withConnection));
    await buildAndRelease(() => createRedisDedupeStore(withClient));
    client.disconnect();
  });

  it('createMemoryDedupeStore', () => {
    const options: Every<MemoryDedupeStoreOptions> = { max: 10, ttlMs: 1000 };
    expect(sorted(Object.keys(options))).toEqual(sorted(MEMORY_DEDUPE_STORE_OPTION_KEYS));
    expect(createMemoryDedupeStore(options).claim('k')).toBe(true);
  });

  it('createJsonlCapture', async () => {
    const options: Every<JsonlCaptureOptions> = {
      file: path.join(dir, 'capture.jsonl'),
      redact: { headers: ['x-api-key'], bodyFields: ['text'], mask: '*' },
      maxPendingBytes: 1024,
      onError: () => undefined,
      fileMode: 0o600,
      directoryMode: 0o700,
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(JSONL_CAPTURE_OPTION_KEYS));
    await buildAndRelease(() => createJsonlCapture(options));
  });

  it('replay', async () => {
    const options: Every<ReplayOptions> = {
      pacing: 'none',
      token: 'secret',
      tokenHeader: 'x-webhook-token',
      basePath: '/webhooks',
      headers: { 'x-extra': '1' },
      forwardHeaders: true,
      timeoutMs: 1000,
      stopOn: 'none',
      concurrency: 4,
      onProgress: () => undefined,
      signal: new AbortController().signal,
    };
    expect(sorted(Object.keys(options))).toEqual(sorted(REPLAY_OPTION_KEYS));
    await expect(replay([], 'http://127.0.0.1:9', options)).resolves.toMatchObject({ sent: 0 });
  });
});
