// Scenario 5: Redis/BullMQ mode against in-memory. The router in Express with
// createRedisDedupeStore() and createBullMQDispatcher() on the bench's own redis-server (a unix
// socket, pinned to the load CPU) against the same router in memory; chatbot events over 1000
// conversations, alternating rounds. No worker consumes the queue: the receiver's side (claim +
// queue.add before the 200) is what is measured. Reported, no target.
import { existsSync } from 'node:fs';
import { fixed, int, median, ratio, table } from '../lib/table.js';
import { non2xx } from '../lib/interleaved.js';

const CONVERSATIONS = 1000;

export async function run(bench) {
  const { load, startServer, stop, measure, log, quick, connections, longSeconds: seconds, options } = bench;
  log(`router in Express, chatbot, ${CONVERSATIONS} conversations, ${seconds} s per run`);
  if (!existsSync(new URL('../../dist/redis/index.js', import.meta.url))) {
    log('skipped: dist/redis/index.js not built');
    return { skipped: 'dist/redis/index.js not built' };
  }
  const redis = await bench.startRedis();
  if (redis.skipped) {
    log(`skipped: ${redis.skipped}`);
    return redis;
  }
  const path = '/webhooks/chatbot';
  const out = { memory: [], redis: [] };
  try {
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const mode of round % 2 === 1 ? ['memory', 'redis'] : ['redis', 'memory']) {
        const srv = await startServer('servers/serve.js', {
          kind: 'express-router',
          ...(mode === 'redis' ? { redisPath: redis.socket } : {}),
        });
        await load.call('run', {
          url: `http://127.0.0.1:${srv.hello.port}${path}`,
          type: 'chatbot',
          connections,
          durationSec: quick ? 1 : 2,
          conversations: CONVERSATIONS,
        });
        out[mode].push(
          await measure(load, srv, { path, type: 'chatbot', seconds, conversations: CONVERSATIONS }),
        );
        await stop(srv);
      }
    }
  } catch (error) {
    const skipped = `Redis mode failed: ${error.message.split('\n')[0]}`;
    log(`skipped: ${skipped}`);
    return { skipped };
  } finally {
    await stop(redis);
  }
  const summary = (mode) => ({
    requestsPerSec: median(out[mode].map((run) => run.okPerSec)),
    p50: median(out[mode].map((run) => run.latencyOk.p50)),
    p99: median(out[mode].map((run) => run.latencyOk.p99)),
    cpuUs: median(out[mode].map((run) => run.serverCpuUsPerRequest)),
    non2xx: out[mode].reduce((sum, run) => sum + non2xx(run), 0),
  });
  const memory = summary('memory');
  const redisMode = summary('redis');
  const row = (label, s) => [
    label,
    int(s.requestsPerSec),
    fixed(s.p50),
    fixed(s.p99),
    int(s.cpuUs),
    s.non2xx,
  ];
  log(
    table(
      ['mode', 'req/s', 'ack p50 ms', 'ack p99 ms', 'CPU µs/req', 'failed'],
      [row('in-memory', memory), row('Redis/BullMQ', redisMode)],
    ),
  );
  const throughputRatio = redisMode.requestsPerSec / memory.requestsPerSec;
  const p99Ratio = redisMode.p99 / memory.p99;
  log(
    `Redis/in-memory: throughput ${ratio(throughputRatio)}, ack p99 ${ratio(p99Ratio)} (redis-server on the load CPU, no worker consuming)`,
  );
  return { memory, redis: redisMode, throughputRatio, p99Ratio, runs: out };
}
