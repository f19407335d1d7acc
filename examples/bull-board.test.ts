/**
 * The bull-board example against real Redis (127.0.0.1:6379; REQUIRE_REDIS=1 fails instead of
 * skipping when it is not there): the board lists the receiver's partition queues and its
 * dead-letter queue, read-only.
 *
 * Run: REQUIRE_REDIS=1 NODE_OPTIONS=--experimental-vm-modules npx jest examples/bull-board
 */
import { Redis } from 'ioredis';
import request from 'supertest';
import { cleanUp, describeWithRedis, uniqueName } from '../test/redis/helpers.js';
import { createBullBoardApp, type BullBoardApp } from './bull-board.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

describeRedis('examples/bull-board.ts', () => {
  const queueName = uniqueName('board');
  let board: BullBoardApp | undefined;

  afterAll(async () => {
    await board?.router.close(1000);
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    await cleanUp(redis, queueName, `${queueName}:none:`);
    await redis.quit();
  });

  it("lists the receiver's BullMQ queues, partitions and dead letters, read-only", async () => {
    if (unreachable) throw new Error(unreachable);
    board = createBullBoardApp('redis://127.0.0.1:6379', queueName);
    await board.dispatcher.ready();
    const { body } = await request(board.app).get('/admin/queues/api/queues').expect(200);
    const queues = (body as { queues: { name: string; readOnlyMode: boolean }[] }).queues;
    const expected = [...Array.from({ length: 16 }, (_, i) => `${queueName}-${i}`), `${queueName}-dead`];
    expect(queues.map((queue) => queue.name).sort()).toEqual(expected.sort());
    expect(queues.every((queue) => queue.readOnlyMode)).toBe(true);
    // The UI itself is served at the mount point.
    const page = await request(board.app).get('/admin/queues').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  }, 20_000);
});
