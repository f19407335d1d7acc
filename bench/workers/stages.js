// Where the receiver's time goes, in its own process (pinned by the orchestrator): the pipeline
// driven in-process, without sockets, one stage added at a time, on the same realistic bodies
// as scenario 1. Each figure is CPU µs per request, the least of 5 repetitions interleaved across the
// variants (the least is the estimate least disturbed by other processes on a shared machine).
//
//   JSON.parse        Buffer → string → JSON.parse (what the raw node:http ceiling does too)
//   validate          + parseWebhook (zod) of that type
//   head              pipeline.head(): route, token check (none), content type, x-request-id or randomUUID
//   accept, no callback      head + accept() when no callback is registered for the type (parse, validate, ack)
//   accept, dedupe off       + enqueue on the in-memory dispatcher and run an instant callback
//   accept, full             + dedupe (key, LRU claim): the receiver as configured in scenario 1
//   child logger      the per-job pino child logger of the callback context (runner.ts contextOf)
//
// Two what-ifs price proposed changes with the pipeline's own options, src/ untouched:
//   full, free logger        the full pipeline given a logger whose child() and levels cost nothing
//                            (the upper bound of making ctx.logger lazy)
//   full, plain dispatcher   the full pipeline given a minimal in-memory dispatcher (a running
//                            counter and a FIFO per conversation, no p-queue), same ordering
import { pino } from 'pino';
import { createWebhookPipeline } from '../../dist/index.js';
import { REDACT_PATHS } from '../../dist/logger.js';
import { parseWebhook } from '../../dist/schemas/index.js';
import { WEBHOOK_PATHS } from '../../dist/schemas/index.js';
import { createBodyFactory, WEBHOOK_TYPES } from '../lib/bodies.js';
import { serveCommands } from '../lib/proc.js';

const REPEATS = 5;

const instant = async () => {};
const callbacks = {
  onIncoming: instant,
  onStatus: instant,
  onSession: instant,
  onEvent: instant,
  onChatbot: instant,
};

/** A logger whose every call is a no-op and whose children are itself. */
const freeLogger = {
  level: 'silent',
  child() {
    return freeLogger;
  },
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
};

/**
 * A minimal in-memory dispatcher: at most `concurrency` callbacks at once, one conversation at
 * a time in arrival order, no retries (the bench's callbacks never fail).
 */
function createPlainDispatcher(runner, concurrency = 16) {
  const conversations = new Map();
  const ready = [];
  let running = 0;
  let size = 0;
  let idleWaiters = [];
  const start = () => {
    while (running < concurrency && ready.length > 0) {
      const job = ready.shift();
      running += 1;
      runner.run(job, 1).then(
        () => finish(job),
        () => finish(job),
      );
    }
  };
  const finish = (job) => {
    running -= 1;
    size -= 1;
    const list = conversations.get(job.orderingKey);
    list.shift();
    if (list.length > 0) ready.push(list[0]);
    else conversations.delete(job.orderingKey);
    start();
    if (size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };
  return {
    enqueue(job) {
      size += 1;
      const list = conversations.get(job.orderingKey);
      if (list) list.push(job);
      else {
        conversations.set(job.orderingKey, [job]);
        ready.push(job);
        start();
      }
      return 'accepted';
    },
    idle: () => (size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    close: async () => true,
    counts: () => ({ queued: 0, running }),
  };
}

const headers = { 'content-type': 'application/json', 'content-length': '500' };
const header = (name) => headers[name];

/**
 * CPU µs per call of `body(i)` over `count` calls (awaiting `settle` at the end). CPU time, not
 * wall time: on a shared machine the process is descheduled now and then, and wall time would
 * count those pauses as the pipeline's.
 */
async function timeOnce(count, body, settle) {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const pending = body(i);
    if (pending instanceof Promise) await pending;
  }
  if (settle) await settle();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

/**
 * Times every variant REPEATS times, interleaved (a, b, c, a, b, c, ...) so a burst of load from
 * elsewhere hits all of them alike; keeps the least time of each.
 */
async function timeInterleaved(count, variants) {
  const best = Object.fromEntries(Object.keys(variants).map((name) => [name, Infinity]));
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    for (const [name, [body, settle]] of Object.entries(variants)) {
      best[name] = Math.min(best[name], await timeOnce(count, body, settle));
    }
  }
  return best;
}

async function stages({ count = 4000 }) {
  const out = {};
  for (const type of WEBHOOK_TYPES) {
    const nextBody = createBodyFactory(type);
    // Every body taken is a fresh one (enough for the warm-up, 6 body-reading variants × REPEATS
    // and the status check), so that no dedupe claim is a hit.
    const bodies = Array.from({ length: 5 * 2000 + 6 * count * REPEATS + 10 }, () => Buffer.from(nextBody()));
    let cursor = 0;
    const take = () => {
      if (cursor === bodies.length) throw new Error('stages: ran out of fresh bodies');
      return bodies[cursor++];
    };
    const url = `/${WEBHOOK_PATHS[type]}`;
    const request = { method: 'POST', url, header };
    const pipelines = {
      noCallback: createWebhookPipeline({}),
      dedupeOff: createWebhookPipeline({ ...callbacks, dedupe: false }),
      full: createWebhookPipeline({ ...callbacks }),
      freeLogger: createWebhookPipeline({ ...callbacks, logger: freeLogger }),
      plainDispatcher: createWebhookPipeline({
        ...callbacks,
        dispatcher: (runner) => createPlainDispatcher(runner),
      }),
    };
    const accept = (pipeline) => () => pipeline.accept(pipeline.head(request), { raw: take() });
    // Warm every path first.
    for (const pipeline of Object.values(pipelines)) {
      for (let i = 0; i < 2000; i += 1) await accept(pipeline)();
      await pipeline.idle();
    }
    const parsed = bodies.slice(-count).map((body) => JSON.parse(body.toString('utf8')));
    const result = await timeInterleaved(count, {
      jsonParse: [() => JSON.parse(take().toString('utf8'))],
      validate: [(i) => parseWebhook(type, parsed[i])],
      head: [() => pipelines.full.head(request)],
      acceptNoCallback: [accept(pipelines.noCallback)],
      acceptDedupeOff: [accept(pipelines.dedupeOff), () => pipelines.dedupeOff.idle()],
      acceptFull: [accept(pipelines.full), () => pipelines.full.idle()],
      acceptFreeLogger: [accept(pipelines.freeLogger), () => pipelines.freeLogger.idle()],
      acceptPlainDispatcher: [accept(pipelines.plainDispatcher), () => pipelines.plainDispatcher.idle()],
    });
    const statuses = new Set();
    for (let i = 0; i < 10; i += 1) statuses.add((await accept(pipelines.full)()).status);
    result.statuses = [...statuses];
    for (const pipeline of Object.values(pipelines)) await pipeline.close(1000);
    out[type] = result;
  }
  const base = pino({ level: 'silent' }).child(
    { lib: 'messaging-webhooks' },
    { redact: { paths: [...REDACT_PATHS], censor: '[redacted]' } },
  );
  out.childLogger = (
    await timeInterleaved(20_000, {
      child: [
        (i) => base.child({ requestId: `req-${i}`, type: 'chatbot', dedupeKey: `chatbot:${i}`, attempt: 1 }),
      ],
    })
  ).child;
  return out;
}

serveCommands({ stages });
process.send({ ready: true });
