import { createServer } from 'node:http';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { createNodeHandler, createWebhookRouter, type WebhookRouterOptions } from '../../src/index.js';
import { parseWebhook, WEBHOOK_PATHS, type WebhookType } from '../../src/schemas/index.js';
import { allFixtures, FIXTURE_PARTIES, type NamedFixture } from '../../src/testing/index.js';

/**
 * Gap 6 of issue 16: no phone number, BSUID, message text or token in the logs, at any level,
 * with default options. Every string field of every fixture carries a marker (where the schema
 * still accepts the marked value; enum fields then become "unlisted" values), and the
 * payloads go through both adapters on the success, duplicate, callback failure (retry and dead
 * letter) and invalid paths with a trace-level logger. The marker and the fixtures' personal
 * values must appear nowhere in what was logged, the users' `ctx.logger` lines included.
 */
const MARKER = 'Zq9xMARKx';
const TOKEN = 'tok-Zq9xMARKx-secret';
const PERSONAL: readonly string[] = [
  MARKER,
  TOKEN,
  FIXTURE_PARTIES.businessNumber,
  FIXTURE_PARTIES.customerNumber,
  FIXTURE_PARTIES.customerWaId,
  FIXTURE_PARTIES.customerUserId,
  FIXTURE_PARTIES.customerName,
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every string leaf's path in `value`. */
function stringPaths(value: Json, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...at, index]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => stringPaths(inner, [...at, key]));
  }
  return [];
}

function setAt(root: Json, path: (string | number)[], next: string): void {
  let node = root as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[path[path.length - 1]!] = next;
}

function getAt(root: Json, path: (string | number)[]): string {
  let node = root;
  for (const key of path) node = (node as Record<string | number, Json>)[key]!;
  return node as string;
}

/** The payload with the marker in every string field the schema accepts marked. */
function marked(fixture: NamedFixture): { payload: Json; marks: number } {
  const payload = structuredClone(fixture.payload) as unknown as Json;
  let marks = 0;
  for (const path of stringPaths(payload)) {
    const original = getAt(payload, path);
    for (const candidate of [`${original}${MARKER}`, `${MARKER}${original}`, MARKER]) {
      setAt(payload, path, candidate);
      if (parseWebhook(fixture.type, payload).success) {
        marks += 1;
        break;
      }
      setAt(payload, path, original);
    }
  }
  return { payload, marks };
}

/** The marked payload with one string field turned into a number, so that its schema fails. */
function invalidVariant(type: WebhookType, payload: Json): Json {
  for (const path of stringPaths(payload)) {
    const copy = structuredClone(payload);
    setAt(copy, path, 42 as unknown as string);
    if (!parseWebhook(type, copy).success) return copy;
  }
  throw new Error(`no invalid variant of a ${type} payload`);
}

const FIXTURES = allFixtures().map((fixture) => ({ ...fixture, ...marked(fixture) }));

/** A pino logger at trace level writing to memory. */
function memoryLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

type Adapter = 'express' | 'node';

function receiver(adapter: Adapter, options: WebhookRouterOptions) {
  if (adapter === 'express') {
    const router = createWebhookRouter(options);
    const app = express();
    app.use('/webhooks', router);
    return { target: app, controls: router, base: '/webhooks' };
  }
  const handler = createNodeHandler(options);
  return { target: createServer(handler), controls: handler, base: '' };
}

/** Handlers for every type that log through ctx.logger (the payload included) and then `outcome`. */
function handlers(outcome: () => void): WebhookRouterOptions {
  const callback = (payload: unknown, ctx: { logger: pino.Logger }) => {
    ctx.logger.info('callback ran');
    ctx.logger.debug({ payload }, 'payload received');
    outcome();
  };
  return {
    onIncoming: callback,
    onStatus: callback,
    onSession: callback,
    onEvent: callback,
    onChatbot: callback,
  };
}

/** Lines carrying a marked or personal value: how many, and the first two (a readable failure). */
function leaked(lines: readonly string[]): { count: number; first: string[] } {
  const found = lines.filter((line) => PERSONAL.some((value) => line.includes(value)));
  return { count: found.length, first: found.slice(0, 2) };
}

describe.each<Adapter>(['express', 'node'])('logs of the %s adapter with default options', (adapter) => {
  it('marks most string fields of the fixtures (the test would prove little otherwise)', () => {
    expect(FIXTURES.length).toBeGreaterThan(20);
    const total = FIXTURES.reduce((sum, fixture) => sum + fixture.marks, 0);
    expect(total).toBeGreaterThan(FIXTURES.length * 5);
    for (const type of ['incoming', 'status', 'session', 'event', 'chatbot'] as WebhookType[]) {
      expect(FIXTURES.some((fixture) => fixture.type === type && fixture.marks > 0)).toBe(true);
    }
  });

  it('carry no marked value on the success and duplicate paths, ctx.logger included', async () => {
    const { logger, lines } = memoryLogger();
    let ran = 0;
    const { target, controls, base } = receiver(adapter, {
      logger,
      token: TOKEN,
      ...handlers(() => {
        ran += 1;
      }),
    });
    for (const fixture of FIXTURES) {
      const path = `${base}/${TOKEN}/${WEBHOOK_PATHS[fixture.type]}`;
      for (let delivery = 0; delivery < 2; delivery += 1) {
        const res = await request(target)
          .post(path)
          .send(fixture.payload as object);
        expect(res.status).toBe(200);
      }
    }
    await controls.idle();
    expect(ran).toBeGreaterThan(0);
    expect(controls.stats().total.duplicates).toBeGreaterThan(0);
    expect(controls.stats().total.unlistedEnumValues).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('callback ran'))).toBe(true);
    expect(lines.some((line) => line.includes('duplicate webhook acknowledged'))).toBe(true);
    expect(lines.some((line) => line.includes('undocumented enum value accepted'))).toBe(true);
    expect(leaked(lines)).toEqual({ count: 0, first: [] });
    await controls.close();
  });

  it('carry no marked value when callbacks fail, are retried and dead-lettered', async () => {
    const { logger, lines } = memoryLogger();
    let deadLetters = 0;
    const { target, controls, base } = receiver(adapter, {
      logger,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      ...handlers(() => {
        throw new Error('callback failed on purpose');
      }),
      onDeadLetter: () => {
        deadLetters += 1;
      },
    });
    for (const fixture of FIXTURES) {
      const res = await request(target)
        .post(`${base}/${WEBHOOK_PATHS[fixture.type]}`)
        .send(fixture.payload as object);
      expect(res.status).toBe(200);
    }
    await controls.idle();
    expect(deadLetters).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('webhook callback failed'))).toBe(true);
    expect(lines.some((line) => line.includes('webhook dead-lettered'))).toBe(true);
    expect(leaked(lines)).toEqual({ count: 0, first: [] });
    await controls.close();
  });

  it('carry no marked value on the invalid paths (wrong schema, broken JSON, bad token)', async () => {
    const { logger, lines } = memoryLogger();
    let invalid = 0;
    const { target, controls, base } = receiver(adapter, {
      logger,
      token: TOKEN,
      ...handlers(() => undefined),
      onInvalid: () => {
        invalid += 1;
      },
    });
    for (const fixture of FIXTURES) {
      const res = await request(target)
        .post(`${base}/${TOKEN}/${WEBHOOK_PATHS[fixture.type]}`)
        .send(invalidVariant(fixture.type, fixture.payload) as object);
      expect(res.status).toBe(400);
      const broken = JSON.stringify(fixture.payload).slice(0, -2);
      const res2 = await request(target)
        .post(`${base}/${TOKEN}/${WEBHOOK_PATHS[fixture.type]}`)
        .set('content-type', 'application/json')
        .send(broken);
      expect(res2.status).toBe(400);
    }
    const res3 = await request(target)
      .post(`${base}/${TOKEN}x/${WEBHOOK_PATHS.chatbot}`)
      .send(FIXTURES[0]!.payload as object);
    expect([401, 404]).toContain(res3.status);
    expect(invalid).toBe(FIXTURES.length * 2);
    expect(lines.some((line) => line.includes('invalid webhook payload'))).toBe(true);
    expect(leaked(lines)).toEqual({ count: 0, first: [] });
    await controls.close();
  });
});

describe('logs of a failing dedupe store', () => {
  it('carry no key even when the store error echoes it (as the Redis store\u2019s pending-claim error does)', async () => {
    const { logger, lines } = memoryLogger();
    const router = createWebhookRouter({
      logger,
      ...handlers(() => undefined),
      dedupe: {
        store: {
          claim: (key) => Promise.reject(new Error(`Event ${key} is being enqueued by another request`)),
          release: () => undefined,
        },
      },
    });
    const app = express().use('/webhooks', router);
    for (const fixture of FIXTURES) {
      const res = await request(app)
        .post(`/webhooks/${WEBHOOK_PATHS[fixture.type]}`)
        .send(fixture.payload as object);
      expect(res.status).toBe(503);
    }
    expect(lines.some((line) => line.includes('dedupe store failed'))).toBe(true);
    expect(lines.some((line) => line.includes('is being enqueued by another request'))).toBe(true);
    expect(leaked(lines)).toEqual({ count: 0, first: [] });
    await router.close();
  });
});
