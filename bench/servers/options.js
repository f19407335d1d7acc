// The options every library receiver of the bench is built with (servers/express.js, node.js,
// fastify.js, hono.js, metrics.js, otel.js): its defaults (validation, in-memory dedupe of 100 000
// keys for 3 days, the in-memory dispatcher with concurrency 16 and maxQueueSize 10 000, delivery
// tracking) and a callback for each of the five types. The config of servers/serve.js changes it:
//
//   callbacks    'instant' (default: an async function that returns at once), 'slow' (settles
//                after `callbackMs`, default 30 000), 'sync' (a plain function)
//   variant      'sync' (as callbacks 'sync'), 'no-callbacks' (none registered: parse, validate, ack), 'no-dedupe' (dedupe:
//                false), 'full-store' (the dedupe store already holding DEFAULT_DEDUPE_MAX keys,
//                the state a long run reaches: every new event evicts one), 'spin' (peers only,
//                servers/peer.js: a busy loop of SPIN_US per request, a known cost to calibrate by:
//                how much of it the load's figures show, docs/bench.md)
//   fullStores   every dedupe store starts full, as a receiver's store is after its first
//                DEFAULT_DEDUPE_MAX events: the library's in-memory store as in 'full-store', a
//                peer's lru-cache with as many keys of its own shape (servers/peer.js). Scenarios
//                1, 8 and 9 set it, so that no side is measured while its store fills
//   maxQueueSize, concurrency    passed through
//   redisPath    Redis mode on that unix socket: createRedisDedupeStore + createBullMQDispatcher
//                (no worker runs: the receiver's side, claim + add, is what is measured)

/** The five callbacks of `config.callbacks`. */
export function callbacksOf(config = {}) {
  const slowMs = config.callbackMs ?? 30_000;
  const handler =
    config.callbacks === 'slow'
      ? () => new Promise((resolve) => setTimeout(resolve, slowMs).unref())
      : config.callbacks === 'sync' || config.variant === 'sync'
        ? () => {}
        : async () => {};
  return {
    onIncoming: handler,
    onStatus: handler,
    onSession: handler,
    onEvent: handler,
    onChatbot: handler,
  };
}

/** The library receiver's options for `config` (see the top of this file). */
export async function receiverOptions(config = {}) {
  const options = config.variant === 'no-callbacks' ? {} : callbacksOf(config);
  if (config.variant === 'no-dedupe') options.dedupe = false;
  if (config.variant === 'full-store' || (config.fullStores && config.variant !== 'no-dedupe'))
    options.dedupe = { store: await fullStore() };
  if (config.maxQueueSize !== undefined) options.maxQueueSize = config.maxQueueSize;
  if (config.concurrency !== undefined) options.concurrency = config.concurrency;
  if (config.redisPath !== undefined) {
    const { createRedisDedupeStore, createBullMQDispatcher } = await import('../../dist/redis/index.js');
    const connection = { path: config.redisPath };
    const store = createRedisDedupeStore({ connection });
    const dispatcher = createBullMQDispatcher({ connection });
    await Promise.all([store.ready(), dispatcher.ready()]);
    options.dedupe = { store };
    options.dispatcher = dispatcher;
  }
  return options;
}

/** The default in-memory store, filled with DEFAULT_DEDUPE_MAX keys shaped as the pipeline's. */
async function fullStore() {
  const { createMemoryDedupeStore } = await import('../../dist/index.js');
  const { DEFAULT_DEDUPE_MAX } = await import('../../dist/dedupe/memory.js');
  const { digestDedupeKey } = await import('../../dist/dedupe/keys.js');
  const store = createMemoryDedupeStore();
  for (let i = 0; i < DEFAULT_DEDUPE_MAX; i += 1)
    store.claim(digestDedupeKey('incoming', `["prefill-${i}"]`));
  return store;
}
