// The server of the dedupe-flood scenario (bench/scenarios/dedupe-flood.js), in its own process:
// createNodeHandler with the servers' usual callbacks (servers/options.js) and a full dedupe store
// (DEFAULT_DEDUPE_MAX keys shaped as the pipeline's: every new event evicts one). argv[2] is a
// JSON config: { kind }, `table` for the default in-memory store (the seeded table), `lru` for the
// same store written on lru-cache (a key string per entry, `has` + `set`), the simpler candidate.
import http from 'node:http';
import { LRUCache } from 'lru-cache';
import { createMemoryDedupeStore, createNodeHandler } from '../../dist/index.js';
import { DEFAULT_DEDUPE_MAX, DEFAULT_DEDUPE_TTL_MS } from '../../dist/dedupe/memory.js';
import { digestDedupeKey } from '../../dist/dedupe/keys.js';
import { serveCommands } from '../lib/proc.js';
import { callbacksOf } from '../servers/options.js';

/** The in-memory store's contract on lru-cache: insertion order (a duplicate does not refresh it), TTL checked on claim. */
export function createLruDedupeStore({ max = DEFAULT_DEDUPE_MAX, ttlMs = DEFAULT_DEDUPE_TTL_MS } = {}) {
  const cache = new LRUCache({ max, ttl: ttlMs });
  return {
    claim(key) {
      if (cache.has(key)) return false;
      cache.set(key, true);
      return true;
    },
    release(key) {
      cache.delete(key);
    },
  };
}

const config = JSON.parse(process.argv[2] ?? '{}');
if (config.kind !== 'table' && config.kind !== 'lru') throw new Error(`unknown store kind ${config.kind}`);
const store = config.kind === 'lru' ? createLruDedupeStore() : createMemoryDedupeStore();
for (let i = 0; i < DEFAULT_DEDUPE_MAX; i += 1) store.claim(digestDedupeKey('incoming', `["prefill-${i}"]`));
const receiver = createNodeHandler({ basePath: '/webhooks', ...callbacksOf(), dedupe: { store } });
const server = http.createServer(receiver);
server.listen(0, '127.0.0.1', () => {
  serveCommands({
    probe: () => ({
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      stats: receiver.stats(),
      at: process.hrtime.bigint().toString(),
    }),
  });
  process.send({ ready: true, port: server.address().port });
});
