// The measuring half of the bot-dispatch scenario (bench/scenarios/bot-dispatch.js), in its own
// process pinned to the server CPU. One event at a time is what a receiver's dispatch runs; here
// batches of events, each of its own conversation (distinct chatParticipantIds, so every job is a
// new ordering key, as with many customers), go through the in-memory dispatcher and the job
// runner the receiver uses, once with a single callback and once with a bot's callback, and the
// CPU µs per event of each is compared. Rounds alternate which variant goes first; each figure is
// the least over the rounds (the estimate least disturbed by other processes on a shared machine,
// as in workers/stages.js).
//
//   callback         onChatbot: async (payload) => work(payload.messageText)
//   bot              createBot(): two middlewares that pass the event on ((ctx, next) => next()),
//                    19 handlers whose chatbot filters the event does not match (every other
//                    INCOMING messageType, every OUTGOING one), and the one that matches,
//                    on('chatbot:INCOMING:TEXT', async (ctx) => work(ctx.payload.messageText)):
//                    20 filters tested per event. What the library adds to the user's code.
//   async middleware the same with two async middlewares (async (ctx, next) => { await next(); }):
//                    adds what V8's async functions cost the user (a promise and a turn each) and
//                    what keeps an un-awaited next() safe; reported, no target
//   bot + session    the bot with an in-memory session store, the handler counting in
//                    ctx.session (a read and a write per event); reported, no target
import { pino } from 'pino';
import { createBot } from '../../dist/index.js';
import { createJobRunner, createMemoryDispatcher } from '../../dist/dispatch/index.js';
import { createStatsRecorder } from '../../dist/pipeline/stats.js';
import { buildChatbotEvent } from '../../dist/testing/index.js';
import { serveCommands } from '../lib/proc.js';

const INCOMING_TYPES = [
  'LOCATION',
  'MEDIA',
  'BUTTON',
  'ALL',
  'INTERACTIVE',
  'REACTION',
  'CAROUSEL',
  'USER_ACTION',
  'CONTACT',
];
const OUTGOING_TYPES = [
  'TEXT',
  'LOCATION',
  'MEDIA',
  'BUTTON',
  'ALL',
  'INTERACTIVE',
  'REACTION',
  'CAROUSEL',
  'USER_ACTION',
  'CONTACT',
];

let sink = 0;
/** The handler's own work, the same in every variant. */
const work = (text) => {
  sink += text.length;
};

const passOn = (_ctx, next) => next();
const asyncPassOn = async (_ctx, next) => {
  await next();
};

function botHandlers({ session = false, middleware = passOn }) {
  const bot = createBot(session ? { session: { initial: () => ({ turns: 0 }) } } : {});
  bot.use(middleware);
  bot.use(middleware);
  for (const type of INCOMING_TYPES)
    bot.on(`chatbot:INCOMING:${type}`, async (ctx) => work(String(ctx.payload.messageType)));
  for (const type of OUTGOING_TYPES)
    bot.on(`chatbot:OUTGOING:${type}`, async (ctx) => work(String(ctx.payload.messageType)));
  bot.on('chatbot:INCOMING:TEXT', async (ctx) => {
    if (session) ctx.session.turns += 1;
    work(ctx.payload.messageText);
  });
  return bot.handlers();
}

const VARIANTS = {
  callback: () => ({ onChatbot: async (payload) => work(payload.messageText) }),
  bot: () => botHandlers({}),
  botAsync: () => botHandlers({ middleware: asyncPassOn }),
  botSession: () => botHandlers({ session: true }),
};

function dispatcherOf(handlers) {
  const runner = createJobRunner({
    handlers,
    logger: pino({ level: 'silent' }),
    stats: createStatsRecorder(),
  });
  return createMemoryDispatcher({ runner, maxQueueSize: 1_000_000 });
}

/** Jobs as the pipeline makes them, one conversation each. */
function jobsOf(count, round) {
  return Array.from({ length: count }, (_, i) => {
    const chatParticipantId = `chat-${round}-${i}`;
    const payload = buildChatbotEvent({
      chatParticipantId,
      messageType: 'TEXT',
      messageText: `message ${i}`,
    });
    return {
      type: 'chatbot',
      payload,
      requestId: `request-${i}`,
      receivedAt: Date.now(),
      orderingKey: `chatbot:${chatParticipantId}`,
      dedupeKey: undefined,
      payloadVersion: 'v2',
    };
  });
}

/** CPU µs per event to enqueue and run `jobs` through `dispatcher`, waiting until idle. */
async function cost(dispatcher, jobs) {
  const start = process.cpuUsage();
  for (const job of jobs) dispatcher.enqueue(job);
  await dispatcher.idle();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / jobs.length;
}

async function measure({ events = 20_000, rounds = 9 }) {
  const names = Object.keys(VARIANTS);
  const dispatchers = Object.fromEntries(names.map((name) => [name, dispatcherOf(VARIANTS[name]())]));
  // Warm-up: every variant's code paths optimised before anything is measured.
  for (const name of names) await cost(dispatchers[name], jobsOf(events, `warm-${name}`));
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const jobs = Object.fromEntries(names.map((name) => [name, jobsOf(events, `${round}-${name}`)]));
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) runs[name].push(await cost(dispatchers[name], jobs[name]));
  }
  const least = (name) => Math.min(...runs[name]);
  return {
    events,
    rounds,
    callbackUs: least('callback'),
    botUs: least('bot'),
    botAsyncUs: least('botAsync'),
    botSessionUs: least('botSession'),
    differenceUs: least('bot') - least('callback'),
    asyncDifferenceUs: least('botAsync') - least('callback'),
    sessionDifferenceUs: least('botSession') - least('callback'),
    runs,
    sink,
  };
}

serveCommands({ measure });
process.send({ ready: true });
