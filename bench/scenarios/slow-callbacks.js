// Scenario 2: ack latency while callbacks take 30 s, and 503s once the bounded queue is full.
//
// The router in Express (servers/express.js), chatbot events over 1000 conversations. Every
// callback returns at once or takes 30 s (longer than the run: 16 run, the rest wait). A fresh
// server per run, so no run inherits a backlog; the two conditions alternate over three rounds and
// the target compares their median ack p99. A last run with maxQueueSize 200 and 30-second
// callbacks counts the answers accepted before the first 503 and the share of 503s after it.
import { non2xx } from '../lib/interleaved.js';
import { fixed, int, median, percent, ratio, table } from '../lib/table.js';

const CONVERSATIONS = 1000;
const MAX_QUEUE_SIZE = 200;

export async function run(bench) {
  const { load, startServer, stop, measure, target, log, quick, connections } = bench;
  const seconds = quick ? 1 : 3;
  log(`router in Express, chatbot, ${CONVERSATIONS} conversations, ${seconds} s per run`);
  const server = (config) => startServer('servers/serve.js', { kind: 'express-router', ...config });
  const path = '/webhooks/chatbot';
  const rows = [];
  const p99 = { instant: [], slow: [] };
  const raw = [];
  // Three rounds: the verdict compares medians, and a p99 of a few thousand samples on a busy
  // machine moves with every pause of the server.
  const rounds = quick ? 1 : 3;
  for (let round = 1; round <= rounds; round += 1) {
    for (const callbacks of round % 2 === 1 ? ['instant', 'slow'] : ['slow', 'instant']) {
      const srv = await server({ callbacks, callbackMs: 30_000, maxQueueSize: 1_000_000 });
      await load.call('run', {
        url: `http://127.0.0.1:${srv.hello.port}${path}`,
        type: 'chatbot',
        connections,
        durationSec: quick ? 1 : 2,
        conversations: CONVERSATIONS,
      });
      const run = await measure(load, srv, { path, type: 'chatbot', seconds, conversations: CONVERSATIONS });
      await stop(srv);
      p99[callbacks].push(run.latencyOk.p99);
      raw.push({ round, callbacks, ...run });
      rows.push([
        round,
        callbacks === 'slow' ? 'callbacks take 30 s' : 'instant callbacks',
        int(run.okPerSec),
        fixed(run.latencyOk.p50),
        fixed(run.latencyOk.p99),
        non2xx(run),
        int(run.serverStats?.running),
        int(run.serverStats?.queued),
        fixed(run.serverHeapUsed / 2 ** 20, 0),
      ]);
    }
  }
  // Bounded queue: 30-second callbacks and a small maxQueueSize, so the queue fills early in the run.
  const srv = await server({ callbacks: 'slow', callbackMs: 30_000, maxQueueSize: MAX_QUEUE_SIZE });
  const full = await measure(load, srv, { path, type: 'chatbot', seconds, conversations: CONVERSATIONS });
  await stop(srv);
  raw.push({ round: 0, callbacks: 'slow', maxQueueSize: MAX_QUEUE_SIZE, ...full });
  log(
    table(
      ['round', 'callbacks', 'req/s', 'ack p50 ms', 'ack p99 ms', 'failed', 'running', 'queued', 'heap MiB'],
      rows,
    ),
  );
  const slowP99 = median(p99.slow);
  const instantP99 = median(p99.instant);
  const slowdown = slowP99 / instantP99;
  log(
    `ack p99: ${fixed(slowP99)} ms with 30 s callbacks vs ${fixed(instantP99)} ms instant → ${ratio(slowdown)}`,
  );
  log(
    `bounded queue (maxQueueSize ${MAX_QUEUE_SIZE}, 30 s callbacks): ${full.answeredBeforeFill} accepted before the first 503; ` +
      `then ${percent(full.rejectedShareAfterFill)} of answers were 503; p99 of all answers ${fixed(full.latencyAll.p99)} ms; ` +
      `statuses ${JSON.stringify(full.statusCounts)}`,
  );
  target(
    'ack p99 with 30 s callbacks ÷ instant callbacks',
    slowdown,
    '≤ 2×',
    slowdown <= 2,
    `${fixed(slowP99)} ms vs ${fixed(instantP99)} ms`,
  );
  return {
    ackP99SlowMs: slowP99,
    ackP99InstantMs: instantP99,
    ratio: slowdown,
    boundedQueue: {
      maxQueueSize: MAX_QUEUE_SIZE,
      acceptedBeforeFirst503: full.answeredBeforeFill,
      rejectedShareAfterFill: full.rejectedShareAfterFill,
      p99AllAnswersMs: full.latencyAll.p99,
      statusCounts: full.statusCounts,
    },
    runs: raw,
  };
}
