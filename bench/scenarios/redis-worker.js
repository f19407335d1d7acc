// The worker side of the redis-peer scenario: createWorker against a hand-written BullMQ Worker
// per partition queue (bench/scenarios/redis-worker-child.js), each in its own process pinned to
// the server CPU, draining the same jobs: `JOBS` chatbot jobs over `CONVERSATIONS` conversations,
// as the pipeline builds them, put into 16 partition queues by the library's dispatcher before
// each run (Redis emptied first). Measured: jobs per second per core of the worker process (its
// CPU time from start to the last job) and the conversations whose events ran out of order.
// Interleaved rounds; medians reported.
import { createBullMQDispatcher } from '../../dist/redis/index.js';
import { fixtures } from '../../dist/testing/index.js';
import { int, fixed, median, ratio, table } from '../lib/table.js';

const PARTITIONS = 16;
const QUEUE_NAME = 'webhooks';
const CONVERSATIONS = 500;

/** The pipeline's dedupe digest and ordering key (internal modules of dist/, as the pipeline builds jobs). */
async function keys() {
  try {
    return await import('../../dist/dedupe/keys.js');
  } catch (error) {
    throw new Error(`redis-worker: dist/dedupe/keys.js moved (${error.message})`, { cause: error });
  }
}

/** Fills the partition queues with `perConversation` events of each conversation, in order. */
async function fill(socket, perConversation) {
  const { digestDedupeKey, ORDERING_KEYS } = await keys();
  const dispatcher = createBullMQDispatcher({
    connection: { path: socket },
    partitions: PARTITIONS,
    queueName: QUEUE_NAME,
  });
  await dispatcher.ready();
  try {
    for (let index = 0; index < perConversation; index += 1) {
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, conversation) => {
          const payload = {
            ...fixtures.chatbot.v1.INCOMING,
            eventId: `w-${conversation}-${index}`,
            chatParticipantId: `conversation-${conversation}`,
          };
          const outcome = await dispatcher.enqueue({
            type: 'chatbot',
            payload,
            requestId: `req-${conversation}-${index}`,
            receivedAt: Date.now(),
            orderingKey: ORDERING_KEYS.chatbot(payload),
            dedupeKey: digestDedupeKey('chatbot', payload.eventId),
            payloadVersion: 'v1',
          });
          if (outcome !== 'accepted') throw new Error(`redis-worker: fill refused (${outcome})`);
        }),
      );
    }
  } finally {
    await dispatcher.close();
  }
}

/**
 * Runs the comparison with the runner's toolbox on the scenario's redis-server (`socket`, `admin`
 * an ioredis client on it); returns both sides' medians and the ratio of jobs/s per core.
 */
export async function runWorkers(bench, socket, admin) {
  const { startWorker, stop, log, quick, options } = bench;
  const perConversation = quick ? 4 : 20;
  const total = perConversation * CONVERSATIONS;
  const rounds = options.rounds;
  log(
    `\nworkers: ${total} chatbot jobs over ${CONVERSATIONS} conversations in ${PARTITIONS} partition queues, no-op callback, ${rounds} round(s) per side`,
  );
  const out = { library: [], bullmq: [] };
  for (let round = 1; round <= rounds; round += 1) {
    for (const kind of round % 2 === 1 ? ['library', 'bullmq'] : ['bullmq', 'library']) {
      await admin.flushall();
      await fill(socket, perConversation);
      const child = await startWorker('scenarios/redis-worker-child.js', {
        args: [JSON.stringify({ kind, redisPath: socket, partitions: PARTITIONS, queueName: QUEUE_NAME })],
      });
      try {
        const result = await child.call('start', { total, timeoutMs: 120_000 }, 150_000);
        out[kind].push({
          ...result,
          perCore: result.ran / (result.cpuUs / 1e6),
          perSec: result.ran / (result.wallMs / 1000),
        });
      } finally {
        await stop(child);
      }
      process.stdout.write('.');
    }
  }
  process.stdout.write('\n');
  const summary = (kind) => ({
    perCore: median(out[kind].map((one) => one.perCore)),
    perSec: median(out[kind].map((one) => one.perSec)),
    cpuUsPerJob: median(out[kind].map((one) => one.cpuUs / one.ran)),
    finished: out[kind].every((one) => one.finished && one.ran === total),
    outOfOrder: out[kind].reduce((sum, one) => sum + one.outOfOrder, 0),
  });
  const library = summary('library');
  const bullmq = summary('bullmq');
  log(
    table(
      ['worker', 'jobs/s per core', 'jobs/s', 'CPU µs/job', 'all ran', 'conversations out of order'],
      [
        ['createWorker (messaging-webhooks/redis)', library],
        ['hand-written BullMQ Worker per partition', bullmq],
      ].map(([label, s]) => [
        label,
        int(s.perCore),
        int(s.perSec),
        fixed(s.cpuUsPerJob, 1),
        s.finished ? 'yes' : 'NO',
        s.outOfOrder,
      ]),
    ),
  );
  const perCoreRatio = library.perCore / bullmq.perCore;
  const ordered = library.outOfOrder === 0 && bullmq.outOfOrder === 0 && library.finished && bullmq.finished;
  log(
    `createWorker ÷ hand-written: ${ratio(perCoreRatio)} jobs/s per core; order ${ordered ? 'held on both sides' : 'NOT held'}`,
  );
  return { library, bullmq, perCoreRatio, ordered, total, runs: out };
}
