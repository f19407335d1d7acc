// A worker process of the redis-peer scenario's worker comparison (bench/scenarios/redis-worker.js),
// pinned to the server CPU. argv[2] is a JSON config { kind, redisPath, partitions, queueName }:
//
//   library   createWorker({ connection, partitions, handlers: { onChatbot } }) of
//             messaging-webhooks/redis (its job runner, context, stats, retries, dead letters)
//   bullmq    what a user would hand-write on BullMQ for ordered conversations over the same
//             partition queues: one `new Worker(name, processor, { concurrency: 1 })` per partition
//             queue, global concurrency 1 on each (so one job of a partition runs at a time across
//             processes), the callback called with `job.data.payload`
//
// Both run the same no-op callback, which only records each event's place in its conversation.
// `start` runs the workers and resolves once `total` jobs ran: the process's CPU time and wall time
// from start to the last job, and the conversations whose events ran out of order.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createWorker } from '../../dist/redis/index.js';
import { serveCommands } from '../lib/proc.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const connection = { path: config.redisPath };
const names = Array.from({ length: config.partitions }, (_, i) => `${config.queueName}-${i}`);

const last = new Map();
const disordered = new Set();
let ran = 0;
let onRun = () => undefined;
/** The callback of both sides: events are `w-<conversation>-<index>`. */
function callback(event) {
  const index = Number(event.eventId.slice(event.eventId.lastIndexOf('-') + 1));
  const conversation = event.chatParticipantId;
  if ((last.get(conversation) ?? -1) >= index) disordered.add(conversation);
  last.set(conversation, index);
  ran += 1;
  onRun();
}

let run;
let close;
if (config.kind === 'library') {
  const worker = createWorker({
    connection,
    queueName: config.queueName,
    partitions: config.partitions,
    autorun: false,
    handlers: { onChatbot: async (event) => callback(event) },
  });
  await worker.ready();
  run = () => worker.run();
  close = () => worker.close(5000);
} else {
  const client = new Redis({ ...connection, maxRetriesPerRequest: null });
  const queues = names.map((name) => new Queue(name, { connection: client }));
  await Promise.all(queues.map((queue) => queue.setGlobalConcurrency(1)));
  await Promise.all(queues.map((queue) => queue.close()));
  const workers = names.map(
    (name) =>
      new Worker(name, async (job) => callback(job.data.payload), {
        connection: client,
        concurrency: 1,
        autorun: false,
      }),
  );
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  run = () => {
    for (const worker of workers) void worker.run();
  };
  close = async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    client.disconnect();
  };
}

serveCommands({
  async start({ total, timeoutMs }) {
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const done = new Promise((resolve) => {
      onRun = () => {
        if (ran >= total) resolve(true);
      };
    });
    const timedOut = new Promise((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    void run();
    const finished = await Promise.race([done, timedOut]);
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    await close();
    return {
      finished,
      ran,
      wallMs,
      cpuUs: used.user + used.system,
      conversations: last.size,
      outOfOrder: disordered.size,
    };
  },
});
process.send({ ready: true });
