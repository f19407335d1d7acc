// Scenario 3, in its own process run with --expose-gc: the memory one remembered eventId costs
// in the default in-memory dedupe store, and the time one check takes.
//
// Method: keys are made exactly as the pipeline makes them: a realistic chatbot body is
// JSON.parse'd, its identity taken with DEFAULT_DEDUPE_KEYS and digested with digestDedupeKey
// (`chatbot:` + 32 characters of SHA-256, src/pipeline/pipeline.ts), so the key string has the
// shape the store really holds. Keys are of fixed length whatever the sender sends, so the store's
// total memory is at most DEFAULT_DEDUPE_MAX × this figure. The heap is
// read after repeated full GCs (--expose-gc) before the store exists and after it holds
// DEFAULT_DEDUPE_MAX keys, with nothing else retained: the difference divided by the count is
// the whole cost of one remembered eventId (its key string, the store's slots and its
// preallocated arrays). A plain Set of the same keys is measured the same way, as the floor of
// any hash-based store, to split the cost between key strings and the LRU's bookkeeping.
import { createMemoryDedupeStore, DEFAULT_DEDUPE_MAX } from '../../dist/dedupe/memory.js';
import { DEFAULT_DEDUPE_KEYS, digestDedupeKey } from '../../dist/dedupe/keys.js';
import { createBodyFactory } from '../lib/bodies.js';
import { serveCommands } from '../lib/proc.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');

// The JS heap and the memory behind ArrayBuffers (typed arrays live outside the heap: the store
// holds its keys in them, and lru-cache held its order links in them).
const heap = () => {
  for (let i = 0; i < 4; i += 1) globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

const nextBody = createBodyFactory('chatbot');
/** The dedupe key of the next realistic chatbot event, as the pipeline builds it. */
const nextKey = () => {
  const payload = JSON.parse(nextBody());
  return digestDedupeKey('chatbot', DEFAULT_DEDUPE_KEYS.chatbot(payload));
};

// Everything measured is held from here, so liveness analysis cannot free it early.
const held = {};

function measureMemory() {
  const size = DEFAULT_DEDUPE_MAX;
  const before = heap();
  held.store = createMemoryDedupeStore();
  const empty = heap();
  for (let i = 0; i < size; i += 1) held.store.claim(nextKey());
  const full = heap();
  // Past the size the least recently seen key is evicted: the footprint must stay flat.
  for (let i = 0; i < size; i += 1) held.store.claim(nextKey());
  const afterEviction = heap();
  held.store = undefined;
  const baseline = heap();
  held.set = new Set();
  for (let i = 0; i < size; i += 1) held.set.add(nextKey());
  const set = heap();
  held.set = undefined;
  return {
    size,
    bytesPerRememberedEventId: (full - before) / size,
    bytesPerRememberedEventIdAfterEviction: (afterEviction - before) / size,
    preallocatedBytesPerSlot: (empty - before) / size,
    plainSetBytesPerKey: (set - baseline) / size,
  };
}

/** CPU ns elapsed since `start` (a process.cpuUsage()), immune to being descheduled. */
const cpuNsSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1000;
};

/** ns per claim at full size: a new key (a miss, an insert and an eviction) and a repeated one (a hit). */
function measureChecks() {
  const size = DEFAULT_DEDUPE_MAX;
  const store = createMemoryDedupeStore();
  for (let i = 0; i < size; i += 1) store.claim(nextKey());
  const fresh = Array.from({ length: 200_000 }, nextKey);
  const repeated = fresh.slice(-50_000);
  // Warm both paths before timing.
  for (let i = 0; i < 20_000; i += 1) store.claim(repeated[i]);
  let start = process.cpuUsage();
  for (let i = 20_000; i < fresh.length - 50_000; i += 1) store.claim(fresh[i]);
  const newNs = cpuNsSince(start) / (fresh.length - 70_000);
  for (let i = 0; i < repeated.length; i += 1) store.claim(repeated[i]);
  const repeats = 1_000_000;
  let duplicates = 0;
  start = process.cpuUsage();
  for (let i = 0; i < repeats; i += 1) if (!store.claim(repeated[i % repeated.length])) duplicates += 1;
  const duplicateNs = cpuNsSince(start) / repeats;
  if (duplicates !== repeats) throw new Error(`expected ${repeats} duplicates, got ${duplicates}`);
  // The key's construction (JSON already parsed), for scale: the identity, then its digest; and
  // the digest alone of the longest default identity (a session's four-part tuple).
  const payloads = Array.from({ length: 100_000 }, () => JSON.parse(nextBody()));
  start = process.cpuUsage();
  let length = 0;
  for (const payload of payloads)
    length += digestDedupeKey('chatbot', DEFAULT_DEDUPE_KEYS.chatbot(payload)).length;
  const keyNs = cpuNsSince(start) / payloads.length;
  const session = JSON.stringify(['+27215550100', 'connected', 1_763_900_000_000, 'Connected']);
  start = process.cpuUsage();
  for (let i = 0; i < payloads.length; i += 1) length += digestDedupeKey('session', session).length;
  const digestNs = cpuNsSince(start) / payloads.length;
  return {
    nsPerNewKeyClaim: newNs,
    nsPerDuplicateClaim: duplicateNs,
    nsPerKeyBuild: keyNs,
    nsPerSessionDigest: digestNs,
    length,
  };
}

serveCommands({ memory: measureMemory, checks: measureChecks });
process.send({ ready: true });
