/**
 * The Lambda deployment recipe of docs/receiver.md ("AWS Lambda"): the handler answers 200 once an
 * event is stored in Redis (the Redis dedupe store and the BullMQ dispatcher, as on ElastiCache),
 * and a worker elsewhere runs the callbacks. The worker is a child process running `createWorker`
 * from the built package; it is killed with SIGKILL in the middle of the traffic and restarted,
 * as a process supervisor would. Nothing acknowledged is lost: every event that got a 200 runs,
 * those the killed worker held included (BullMQ hands a job whose lock lapsed to the next worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { createBullMQDispatcher, createRedisDedupeStore } from '../../src/redis/index.js';
import { createLambdaHandler } from '../../src/receiver/lambda.js';
import {
  chatbotEvent,
  cleanUp,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from '../redis/helpers.js';
import { httpApiEvent } from './lambda-events.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const EVENTS = 400;
const KILL_AT = 120; // acknowledged events before the worker is killed
const RESTART_AT = 240; // acknowledged events before it is started again
const PARTITIONS = 4;
const DIST = path.resolve(process.cwd(), 'dist');

/** A worker child: createWorker from the built package, counting each run of an event in Redis. */
function startWorker(config: { queueName: string; runsKey: string }): Promise<ChildProcess> {
  if (!existsSync(path.join(DIST, 'redis', 'index.js')))
    throw new Error('dist/redis/index.js is missing: run `npm run build` before this test');
  const dist = JSON.stringify(pathToFileURL(path.join(DIST, 'redis', 'index.js')).href);
  const script = `
import { Redis } from 'ioredis';
import { createWorker } from ${dist};
const config = JSON.parse(process.env.MW_WORKER);
const connection = { host: '127.0.0.1', port: config.port };
const redis = new Redis(connection);
const worker = createWorker({
  connection,
  queueName: config.queueName,
  partitions: config.partitions,
  // A callback that takes a while, as a bot's reply does: the kill finds work in hand.
  handlers: {
    onChatbot: async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await redis.hincrby(config.runsKey, event.eventId, 1);
    },
  },
});
await worker.ready();
process.stdout.write('READY\\n');
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      MW_WORKER: JSON.stringify({ ...config, port: SHARED_REDIS_PORT, partitions: PARTITIONS }),
    },
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start within 20 s: ${stderr}`));
    }, 20_000);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code ?? signal}) before it was ready: ${stderr}`));
    });
  });
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }
  });

describeRedis('the Lambda recipe: events stored in Redis before the 200, a worker elsewhere', () => {
  const queueName = uniqueName('lambda');
  const dedupePrefix = `${queueName}:dedupe:`;
  const runsKey = `${queueName}:runs`;
  const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
  let redis: Redis;
  const workers: ChildProcess[] = [];

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    await Promise.all(workers.map(killed));
    if (redis) {
      await cleanUp(redis, queueName, dedupePrefix);
      await redis.del(runsKey);
      await redis.quit();
    }
  });

  it('answers 200 without waiting for the worker, and runs every acknowledged event after the worker is SIGKILLed and restarted', async () => {
    // As at a Lambda module's top level: made once per execution environment.
    const store = createRedisDedupeStore({ connection, prefix: dedupePrefix });
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: PARTITIONS });
    await Promise.all([store.ready(), dispatcher.ready()]);
    const handler = createLambdaHandler({ basePath: '/webhooks', dedupe: { store }, dispatcher });

    workers.push(await startWorker({ queueName, runsKey }));
    const acked: string[] = [];
    let answeredWhileDown = 0;
    try {
      /** Invokes the handler for events [from, to), eight at a time (eight warm environments). */
      const traffic = async (from: number, to: number, workerDown: boolean): Promise<void> => {
        let next = from;
        const lane = async (): Promise<void> => {
          while (next < to) {
            const index = next++;
            const event = chatbotEvent(`${queueName}-evt-${index}`, `participant-${index % 40}`);
            const sent = {
              path: '/webhooks/chatbot',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(event),
            };
            const result = await handler(httpApiEvent(sent));
            expect(result.statusCode).toBe(200);
            acked.push(event.eventId);
            if (workerDown) answeredWhileDown += 1;
          }
        };
        await Promise.all(Array.from({ length: 8 }, lane));
      };
      await traffic(0, KILL_AT, false);
      // Killed in the middle of its work: it still has events of the first part to run.
      const ranBeforeKill = await redis.hlen(runsKey);
      await killed(workers[0]!);
      await traffic(KILL_AT, RESTART_AT, true);
      workers.push(await startWorker({ queueName, runsKey }));
      await traffic(RESTART_AT, EVENTS, false);
      expect(workers[0]!.signalCode).toBe('SIGKILL');
      // The answers did not wait for a worker: a third of them came while none ran.
      expect(answeredWhileDown).toBe(RESTART_AT - KILL_AT);
      expect(ranBeforeKill).toBeLessThan(KILL_AT);

      // A job the killed worker held comes back once its lock lapses (BullMQ's stalled check):
      // up to a minute with BullMQ's defaults.
      const allRan = await waitFor(async () => {
        const runs = await redis.hgetall(runsKey);
        return acked.every((id) => runs[id] !== undefined);
      }, 120_000);
      const runs = await redis.hgetall(runsKey);
      expect(acked.filter((id) => runs[id] === undefined)).toEqual([]); // none lost
      expect(allRan).toBe(true);
      // At-least-once: only a job running at the kill may run twice, one per partition at most.
      const twice = Object.entries(runs).filter(([, count]) => count !== '1');
      expect(twice.length).toBeLessThanOrEqual(PARTITIONS);
      expect(Object.keys(runs).sort()).toEqual([...acked].sort()); // nothing ran that was not acknowledged
      process.stdout.write(
        `lambda recipe: ${acked.length} events answered 200, ${answeredWhileDown} while the worker was down; ` +
          `worker SIGKILLed after ${KILL_AT} answers (${ranBeforeKill} run by then) and restarted after ${RESTART_AT}; ` +
          `all ran, ${twice.length} twice (held by the killed worker)\n`,
      );
    } finally {
      await handler.close(5000);
      await dispatcher.close();
      await store.close();
    }
  }, 180_000);
});
