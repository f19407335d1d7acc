import http from 'node:http';
import { Redis } from 'ioredis';
import { createWorker, type WebhookWorker } from '../../src/redis/index.js';
import {
  chatbotEvent,
  describeWithRedis,
  freePort,
  pool,
  post,
  quitQuietly,
  startRedisServer,
  startReceiver,
  uniqueName,
  waitFor,
  type ReceiverProcess,
  type RedisServerProcess,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const ENQUEUE_TIMEOUT_MS = 2000;
// "Within the deadline", generously: the pipeline's deadline plus a second for a loaded machine.
const ANSWER_BOUND_MS = ENQUEUE_TIMEOUT_MS + 1000;
const PER_PHASE = 20;

describeRedis('outage: a private redis-server is killed and restarted under a live receiver', () => {
  const queueName = uniqueName('outage');
  const dedupePrefix = `${queueName}:dedupe:`;
  const runsKey = `${queueName}:runs`;
  let port: number;
  let server: RedisServerProcess | undefined;
  let receiver: ReceiverProcess | undefined;
  let worker: WebhookWorker | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    port = await freePort();
    server = await startRedisServer(port);
  }, 15_000);

  afterAll(async () => {
    agent.destroy();
    await receiver?.stop('SIGKILL');
    await worker?.close(1000);
    await server?.stop(); // a private, unpersisted server: its keys go with it
  });

  async function runsOf(): Promise<Record<string, string>> {
    const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    try {
      return await client.hgetall(runsKey);
    } finally {
      client.disconnect();
    }
  }

  it('answers 503 within the deadline while Redis is down and accepts again once it is back, without a restart', async () => {
    receiver = await startReceiver({
      redisPort: port,
      queueName,
      partitions: 2,
      dedupePrefix,
      enqueueTimeoutMs: ENQUEUE_TIMEOUT_MS,
    });
    const recorder = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
    recorder.on('error', () => undefined);
    worker = createWorker({
      connection: { host: '127.0.0.1', port },
      queueName,
      partitions: 2,
      handlers: {
        onChatbot: async (event) => {
          await recorder.hincrby(runsKey, event.eventId, 1);
        },
      },
    });
    const live = receiver;
    const send = async (
      label: string,
    ): Promise<{ ids: string[]; statuses: (number | 'error')[]; slowest: number }> => {
      const ids = Array.from({ length: PER_PHASE }, (_, i) => `${queueName}-${label}-${i}`);
      const statuses: (number | 'error')[] = [];
      let slowest = 0;
      await pool(ids, 8, async (id) => {
        const result = await post(agent, live.port, '/chatbot', chatbotEvent(id));
        statuses.push(result.status);
        slowest = Math.max(slowest, result.ms);
      });
      return { ids, statuses, slowest };
    };

    try {
      const before = await send('before');
      expect(before.statuses.filter((status) => status !== 200)).toEqual([]);
      // Checked before the outage: the run counts live in this Redis, which restarts empty.
      const beforeRan = await waitFor(async () => {
        const runs = await runsOf();
        return before.ids.every((id) => runs[id] === '1');
      }, 10_000);
      expect(beforeRan).toBe(true);
      expect(Object.values(await runsOf()).filter((count) => count !== '1')).toEqual([]); // none twice

      await server!.stop();
      const during = await send('during');
      expect(during.statuses.filter((status) => status !== 503)).toEqual([]);
      expect(during.slowest).toBeLessThan(ANSWER_BOUND_MS);

      server = await startRedisServer(port); // same port, empty data
      // The receiver reconnects on its own: the same process answers 200 again.
      const recovered = await waitFor(
        async () =>
          (await post(agent, live.port, '/chatbot', chatbotEvent(`${queueName}-probe`))).status === 200,
        15_000,
      );
      expect(recovered).toBe(true);
      const after = await send('after');
      expect(after.statuses.filter((status) => status !== 200)).toEqual([]);
      // ...and the worker, also not restarted, runs them.
      const ran = await waitFor(async () => {
        const runs = await runsOf();
        return after.ids.every((id) => runs[id] === '1');
      }, 15_000);
      expect(ran).toBe(true);
      expect(live.child.exitCode).toBeNull();

      // A hung Redis (process stopped, connections open): commands time out, still 503 in time.
      server.pause();
      let hung: Awaited<ReturnType<typeof send>>;
      try {
        hung = await send('hung');
      } finally {
        server.resume();
      }
      expect(hung.statuses.filter((status) => status !== 503)).toEqual([]);
      expect(hung.slowest).toBeLessThan(ANSWER_BOUND_MS);
      const resumed = await send('resumed');
      expect(resumed.statuses.filter((status) => status !== 200)).toEqual([]);
      const resumedRan = await waitFor(async () => {
        const runs = await runsOf();
        return resumed.ids.every((id) => runs[id] === '1');
      }, 15_000);
      expect(resumedRan).toBe(true);
      // A 503 during the hang may still have been queued once Redis resumed (the sender's retry
      // would then be a duplicate), but nothing ever runs twice.
      expect(Object.values(await runsOf()).filter((count) => count !== '1')).toEqual([]);
      process.stdout.write(
        `outage test: ${PER_PHASE} events before (200), ${PER_PHASE} during the outage (all 503, slowest ` +
          `${Math.round(during.slowest)} ms, bound ${ANSWER_BOUND_MS} ms), ${PER_PHASE} after the restart ` +
          `(200, run once each by the same worker); ${PER_PHASE} while Redis hung (all 503, slowest ` +
          `${Math.round(hung.slowest)} ms), ${PER_PHASE} after it resumed (200, run once each); none ran twice\n`,
      );
    } finally {
      await quitQuietly(recorder);
    }
  }, 50_000);
});
