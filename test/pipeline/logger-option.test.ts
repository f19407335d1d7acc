import { pino, type Logger } from 'pino';
import request from 'supertest';
import express from 'express';
import { createEmulator } from '../../src/emulator/index.js';
import { createWebhookPipeline } from '../../src/pipeline/index.js';
import { createNodeHandler, createWebhookRouter } from '../../src/receiver/index.js';
import { createBullMQDispatcher, createRedisDedupeStore, createWorker } from '../../src/redis/index.js';
import { captureLogger } from '../helpers/receiver.js';
import { buildAndRelease, errorOf, js } from './helpers.js';

// lazyConnect: building a Redis-backed factory opens no connection, so these run without Redis.
const connection = { host: '127.0.0.1', port: 6379, lazyConnect: true };

/** Every factory that takes a `logger`, built with nothing but that logger (and what it requires). */
const factories: readonly { readonly factory: string; readonly build: (logger: unknown) => unknown }[] = [
  { factory: 'createWebhookRouter', build: (logger) => createWebhookRouter({ logger: js<Logger>(logger) }) },
  { factory: 'createNodeHandler', build: (logger) => createNodeHandler({ logger: js<Logger>(logger) }) },
  {
    factory: 'createWebhookPipeline',
    build: (logger) => createWebhookPipeline({ logger: js<Logger>(logger) }),
  },
  { factory: 'createEmulator', build: (logger) => createEmulator({ logger: js<Logger>(logger) }) },
  {
    factory: 'createWorker',
    build: (logger) => createWorker({ connection, handlers: {}, autorun: false, logger: js<Logger>(logger) }),
  },
  {
    factory: 'createBullMQDispatcher',
    build: (logger) => createBullMQDispatcher({ connection, logger: js<Logger>(logger) }),
  },
  {
    factory: 'createRedisDedupeStore',
    build: (logger) => createRedisDedupeStore({ connection, logger: js<Logger>(logger) }),
  },
];

const EXPECTED =
  'logger: expected a pino-compatible logger (with child(), level, fatal(), error(), warn(), info(), debug(), trace())';

/** A winston-style logger: child() and level, but no fatal() or trace(). */
const winstonLike = {
  level: 'info',
  child() {
    return winstonLike;
  },
  error() {},
  warn() {},
  info() {},
  debug() {},
};

const rejected = [
  { given: 'console', logger: console, got: 'got an object without child(), level, fatal()' },
  { given: 'a winston-style logger', logger: winstonLike, got: 'got an object without fatal(), trace()' },
  { given: "a level name ('debug')", logger: 'debug', got: 'got string' },
  { given: 'null', logger: null, got: 'got null' },
] as const;

describe.each(factories)('$factory', ({ factory, build }) => {
  it.each(rejected)('throws at construction for $given, naming what it lacks', async ({ logger, got }) => {
    const error = await errorOf(() => build(logger));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(`${factory}: ${EXPECTED}; ${got}`);
  });

  it.each([
    { given: 'pino()', logger: () => pino() },
    { given: "pino({ level: 'silent' })", logger: () => pino({ level: 'silent' }) },
    { given: 'a pino child', logger: () => pino({ level: 'silent' }).child({ service: 'shop' }) },
    { given: 'a child of a child', logger: () => pino({ level: 'silent' }).child({ a: 1 }).child({ b: 2 }) },
  ])('accepts $given', async ({ logger }) => {
    await expect(buildAndRelease(() => build(logger()))).resolves.toBeUndefined();
  });
});

describe('a pino child logger given to the router', () => {
  it('receives the library logs, with its own bindings', async () => {
    const { logger, lines } = captureLogger('warn');
    const router = createWebhookRouter({
      logger: logger.child({ service: 'shop' }),
      onIncoming: () => undefined,
    });
    const app = express().use('/webhooks', router);
    await request(app).post('/webhooks/incoming').send({ not: 'a message' }).expect(400);
    expect(lines).toContainEqual(expect.objectContaining({ service: 'shop', lib: 'messaging-webhooks' }));
    await router.close();
  });
});
