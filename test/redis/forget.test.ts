import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import { createWebhookRouter } from '../../src/receiver/index.js';
import { createRedisDedupeStore, type RedisDedupeStore } from '../../src/redis/index.js';
import { buildIncoming, replay } from '../../src/testing/index.js';
import { deleteKeys, describeWithRedis, SHARED_REDIS_PORT, uniqueName } from './helpers.js';

// Regression: a dead letter (or a spilled event) replayed into receivers that share a Redis dedupe
// store was answered "duplicate" and never ran, because the store kept the confirmed claim for its
// whole TTL (`release` only deletes a claim's own fresh lease). The store's `forget` deletes it.

const { describe: describeRedis, unreachable } = await describeWithRedis();
const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
const silent = pino({ level: 'silent' });
const EVENTS = 4;
const events = Array.from({ length: EVENTS }, (_, i) =>
  buildIncoming({ gstId: `gst-forget-${i}`, text: `message ${i}`, sender: `2782555100${i}` }),
);

describeRedis('Redis dedupe store: forgetting a confirmed claim', () => {
  const prefix = `${uniqueName('forget')}:`;
  let redis: Redis;
  let dir: string;
  const stores: RedisDedupeStore[] = [];
  const storeOf = (): RedisDedupeStore => {
    const store = createRedisDedupeStore({ connection, prefix });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mw-forget-'));
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await deleteKeys(redis, `${prefix}*`);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('forget deletes a confirmed claim, and never another claim’s fresh lease', async () => {
    const store = storeOf();
    const other = storeOf();
    expect(await store.claim('a')).toBe(true);
    await store.confirm('a');
    expect(await other.claim('a')).toBe(false);
    await other.forget('a');
    expect(await other.claim('a')).toBe(true); // forgotten: a replay is accepted

    // 'a' is now other's fresh lease: forget leaves it alone
    await store.forget('a');
    expect(await redis.get(`${prefix}a`)).not.toBeNull();
    expect(await redis.get(`${prefix}a`)).not.toBe('done');
  });

  it('a dead letter replayed into a fresh receiver on the same Redis store runs once, and only once', async () => {
    const file = join(dir, 'letters.jsonl');
    const broken = createWebhookRouter({
      logger: silent,
      dedupe: { store: storeOf() },
      retry: { attempts: 1 },
      deadLetterSink: file,
      onIncoming: () => {
        throw new Error('callback broken');
      },
    });
    const brokenApp = express().use('/webhooks', broken);
    const sent = await replay(
      events.map((payload) => ({ type: 'incoming' as const, payload })),
      brokenApp,
      { basePath: '/webhooks' },
    );
    expect(sent.succeeded).toBe(EVENTS);
    await broken.idle();
    await broken.close();

    // The restart after the fix: another instance, the same Redis store.
    const ran: string[] = [];
    const fixed = createWebhookRouter({
      logger: silent,
      dedupe: { store: storeOf() },
      onIncoming: (message) => void ran.push(message.gstId ?? ''),
    });
    const fixedApp = express().use('/webhooks', fixed);
    const first = await replay(file, fixedApp, { basePath: '/webhooks' });
    expect(first.succeeded).toBe(EVENTS);
    expect(first.items.filter((item) => item.responseBody?.includes('duplicate'))).toEqual([]);
    await fixed.idle();
    expect(ran.sort()).toEqual(events.map((event) => event.gstId).sort());

    // Handled now: the same file again is answered as duplicates and runs nothing.
    const second = await replay(file, fixedApp, { basePath: '/webhooks' });
    expect(second.items.every((item) => item.responseBody?.includes('"duplicate":true'))).toBe(true);
    await fixed.idle();
    expect(ran).toHaveLength(EVENTS);
    await fixed.close();
  });
});
