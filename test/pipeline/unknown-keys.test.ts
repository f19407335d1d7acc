import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPlatformClient } from '../../src/client/index.js';
import { createMemoryDedupeStore } from '../../src/dedupe/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { createWebhookPipeline } from '../../src/pipeline/index.js';
import { createNodeHandler, createWebhookRouter } from '../../src/receiver/index.js';
import { createBullMQDispatcher, createRedisDedupeStore, createWorker } from '../../src/redis/index.js';
import { createJsonlCapture, replay } from '../../src/testing/index.js';
import { errorOf, js } from './helpers.js';

// Nothing here reaches Redis: a factory that rejects its options throws before it connects.
const connection = { host: '127.0.0.1', port: 6379, lazyConnect: true };
const dir = mkdtempSync(path.join(tmpdir(), 'mw-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noop = (): void => undefined;

interface Row {
  readonly factory: string;
  readonly build: () => unknown;
  readonly message: string;
}

const misspelledTopLevel: readonly Row[] = [
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ onIncomming: noop })),
    message: 'createWebhookRouter: unknown option onIncomming: did you mean onIncoming?',
  },
  {
    factory: 'createNodeHandler',
    build: () => createNodeHandler(js({ basepath: '/webhooks', onIncoming: noop })),
    message: 'createNodeHandler: unknown option basepath: did you mean basePath?',
  },
  {
    factory: 'createNodeHandler',
    build: () => createNodeHandler(js({ basePath: '/webhooks', onChatBot: noop })),
    message: 'createNodeHandler: unknown option onChatBot: did you mean onChatbot?',
  },
  {
    factory: 'createWebhookPipeline',
    build: () => createWebhookPipeline(js({ bodyLimt: 1024 })),
    message: 'createWebhookPipeline: unknown option bodyLimt: did you mean bodyLimit?',
  },
  {
    factory: 'createEmulator',
    build: () => createEmulator(js({ deliveryHeader: { 'x-webhook-token': 't' } })),
    message: 'createEmulator: unknown option deliveryHeader: did you mean deliveryHeaders?',
  },
  {
    factory: 'createPlatformClient',
    build: () => createPlatformClient(js({ baseURL: 'http://127.0.0.1:4010', apiKey: 'k' })),
    message: 'createPlatformClient: unknown option baseURL: did you mean baseUrl?',
  },
  {
    factory: 'createWorker',
    build: () => createWorker(js({ connection, handlers: {}, partition: 4, autorun: false })),
    message: 'createWorker: unknown option partition: did you mean partitions?',
  },
  {
    factory: 'createBullMQDispatcher',
    build: () => createBullMQDispatcher(js({ connection, keepCompleted: 60_000 })),
    message: 'createBullMQDispatcher: unknown option keepCompleted: did you mean keepCompletedMs?',
  },
  {
    factory: 'createRedisDedupeStore',
    build: () => createRedisDedupeStore(js({ connection, ttl: 60_000 })),
    message: 'createRedisDedupeStore: unknown option ttl: did you mean ttlMs?',
  },
  {
    factory: 'createMemoryDedupeStore',
    build: () => createMemoryDedupeStore(js({ maxKeys: 10 })),
    message: 'createMemoryDedupeStore: unknown option maxKeys (known options: max, ttlMs)',
  },
  {
    factory: 'createJsonlCapture',
    build: () => createJsonlCapture(js({ file: path.join(dir, 'a.jsonl'), maxPendingByte: 1024 })),
    message: 'createJsonlCapture: unknown option maxPendingByte: did you mean maxPendingBytes?',
  },
  {
    factory: 'replay',
    build: () => replay([], 'http://127.0.0.1:9', js({ timeout: 100 })),
    message: 'replay: unknown option timeout: did you mean timeoutMs?',
  },
];

const misspelledNested: readonly Row[] = [
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ dedupe: { ttl: 60_000 } })),
    message: 'createWebhookRouter: unknown option dedupe.ttl: did you mean dedupe.ttlMs?',
  },
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ dedupe: { types: { chatbots: false } } })),
    message: 'createWebhookRouter: unknown option dedupe.types.chatbots: did you mean dedupe.types.chatbot?',
  },
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ dedupe: { keys: { incomming: () => 'k' } } })),
    message: 'createWebhookRouter: unknown option dedupe.keys.incomming: did you mean dedupe.keys.incoming?',
  },
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ retry: { attemps: 2 } })),
    message: 'createWebhookRouter: unknown option retry.attemps: did you mean retry.attempts?',
  },
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ retry: { backoff: { delayMs: 10 } } })),
    message: 'createWebhookRouter: unknown option retry.backoff.delayMs: did you mean retry.backoff.delay?',
  },
  {
    factory: 'createWebhookRouter',
    build: () => createWebhookRouter(js({ statusTracking: { size: 10 } })),
    message: 'createWebhookRouter: unknown option statusTracking.size (known options of statusTracking: max)',
  },
  {
    factory: 'createNodeHandler',
    build: () => createNodeHandler(js({ dedupe: { onStoreErorr: 'dispatch' } })),
    message: 'createNodeHandler: unknown option dedupe.onStoreErorr: did you mean dedupe.onStoreError?',
  },
  {
    factory: 'createEmulator',
    build: () => createEmulator(js({ retry: { backoff: 10 } })),
    message: 'createEmulator: unknown option retry.backoff: did you mean retry.backoffMs?',
  },
  {
    factory: 'createEmulator',
    build: () => createEmulator(js({ faults: { duplicates: 0.5 } })),
    message: 'createEmulator: unknown option faults.duplicates: did you mean faults.duplicate?',
  },
  {
    factory: 'createWorker',
    build: () => createWorker(js({ connection, handlers: { onIncomming: noop }, autorun: false })),
    message: 'createWorker: unknown option handlers.onIncomming: did you mean handlers.onIncoming?',
  },
  {
    factory: 'createWorker',
    build: () => createWorker(js({ connection, handlers: {}, retry: { attempt: 2 }, autorun: false })),
    message: 'createWorker: unknown option retry.attempt: did you mean retry.attempts?',
  },
  {
    factory: 'createJsonlCapture',
    build: () => createJsonlCapture(js({ file: path.join(dir, 'b.jsonl'), redact: { bodyField: ['text'] } })),
    message: 'createJsonlCapture: unknown option redact.bodyField: did you mean redact.bodyFields?',
  },
];

describe('a misspelled option throws at construction, naming it and the closest known name', () => {
  it.each(misspelledTopLevel)('$message', async ({ build, message }) => {
    const error = await errorOf(build);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
  });
});

describe('a misspelled key of a nested option object throws too', () => {
  it.each(misspelledNested)('$message', async ({ build, message }) => {
    const error = await errorOf(build);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
  });
});

describe('an options argument that is not an object', () => {
  it.each([
    ['createWebhookRouter', () => createWebhookRouter(js(undefined)), 'undefined'],
    ['createNodeHandler', () => createNodeHandler(js(null)), 'null'],
    ['createPlatformClient', () => createPlatformClient(js('http://127.0.0.1:4010')), 'a string'],
    ['createWorker', () => createWorker(js([connection])), 'an array'],
  ] as const)('%s throws a TypeError saying it expected an object', async (factory, build, got) => {
    const error = await errorOf(build);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(`${factory}: expected an options object, got ${got}`);
  });
});

describe('an unknown option with no close known name', () => {
  it('lists the known options instead of guessing', async () => {
    const error = await errorOf(() => createPlatformClient(js({ baseUrl: 'http://h', apiKey: 'k', x: 1 })));
    expect((error as TypeError).message).toBe(
      'createPlatformClient: unknown option x (known options: baseUrl, apiKey, messagingPrefix, chatPrefix, pathOverrides, fetch)',
    );
  });
});

describe('the existing value checks keep their messages', () => {
  it.each([
    {
      message: 'bodyLimit: expected a positive integer, got 0',
      build: () => createWebhookRouter({ bodyLimit: 0 }),
    },
    {
      message: 'onIncoming: expected a function, got string',
      build: () => createNodeHandler({ onIncoming: js('save') }),
    },
    {
      message: 'deliveryLogLimit must be an integer >= 1, got 0',
      build: () => createEmulator({ deliveryLogLimit: 0 }),
    },
    {
      message: 'baseUrl must be an http(s) URL, got "ftp://h"',
      build: () => createPlatformClient({ baseUrl: 'ftp://h', apiKey: 'k' }),
    },
    {
      message: 'partitions: expected an integer from 1 to 1024, got 0',
      build: () => createWorker({ connection, handlers: {}, partitions: 0 }),
    },
    {
      message: 'keepFailedMs: expected a number >= 1000, got 10',
      build: () => createBullMQDispatcher({ connection, keepFailedMs: 10 }),
    },
    {
      message: 'leaseMs: expected a positive number, got -1',
      build: () => createRedisDedupeStore({ connection, leaseMs: -1 }),
    },
  ])('$message', async ({ build, message }) => {
    const error = await errorOf(build);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
  });
});
