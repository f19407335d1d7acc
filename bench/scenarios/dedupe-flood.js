// Scenario 14: hash flooding of the in-memory dedupe store (issue 24), in one run.
//
//   1. The store alone (dedupe-flood-store.js, its own process): CPU ns per new-key claim into a
//      full store (DEFAULT_DEDUPE_MAX keys, each new key evicts one), for 100 000 event ids ground
//      offline against the table's published hash to land in a quarter of its cells, ÷ the same
//      for random ids. The table's hash is seeded per process, so the ground ids land anywhere.
//
//        crafted ÷ random, new-key claim, full store                         target ≤ 1.50×
//
//   2. The request path with a full store (dedupe-flood-server.js): createNodeHandler with the
//      seeded table ÷ with the same store on lru-cache, server CPU µs per request, each type on
//      its own, interleaved (bench/lib/interleaved.js). The simpler store (lru-cache) is kept
//      unless the table saves at least 5 % CPU per request (lru ÷ table ≥ 1.05×): reported.
import { measureInterleaved, medianCell } from '../lib/interleaved.js';
import { WEBHOOK_TYPES } from '../lib/bodies.js';
import { fixed, geomean, int, ratio, table } from '../lib/table.js';

/** Crafted ÷ random claim cost at most. */
const FLOOD_LIMIT = 1.5;
/** lru-cache ÷ table CPU per request from which the table is worth keeping. */
const KEEP_TABLE_FROM = 1.05;

export async function run(bench) {
  const { startWorker, stop, target, log, quick } = bench;
  log(
    '1. the store alone, full (100 000 keys): crafted ids (ground against the published hash) and random ids',
  );
  const worker = await startWorker('scenarios/dedupe-flood-store.js', { cpu: 'server' });
  const store = await worker.call('measure', { rounds: quick ? 1 : 3 }, 300_000);
  await stop(worker);
  const newRatio = store.crafted.newNs / store.random.newNs;
  const duplicateRatio = store.crafted.duplicateNs / store.random.duplicateNs;
  log(
    table(
      ['claim, full store', 'crafted ns', 'random ns', 'crafted ÷ random'],
      [
        [
          'new key (miss, insert, eviction)',
          fixed(store.crafted.newNs, 0),
          fixed(store.random.newNs, 0),
          ratio(newRatio),
        ],
        [
          'duplicate (hit)',
          fixed(store.crafted.duplicateNs, 0),
          fixed(store.random.duplicateNs, 0),
          ratio(duplicateRatio),
        ],
      ],
    ),
  );
  log(
    `ground ${int(store.grind.keys)} ids from ${int(store.grind.tried)} candidates in ${fixed(store.grind.cpuSeconds, 2)} s CPU`,
  );
  target(
    'dedupe table: crafted ÷ random new-key claim, full store',
    newRatio,
    `≤ ${FLOOD_LIMIT.toFixed(2)}×`,
    newRatio <= FLOOD_LIMIT,
    `duplicates ${ratio(duplicateRatio)}; ${fixed(store.crafted.newNs, 0)} against ${fixed(store.random.newNs, 0)} ns`,
  );

  log('2. the request path, full store: node handler with the seeded table, and with the store on lru-cache');
  const runs = await measureInterleaved(bench, 'scenarios/dedupe-flood-server.js', ['table', 'lru']);
  const cell = medianCell(runs);
  const rows = [];
  const cpu = [];
  for (const type of WEBHOOK_TYPES) {
    const seeded = cell('table', type);
    const lru = cell('lru', type);
    cpu.push(lru.cpuUs / seeded.cpuUs);
    rows.push(
      [type, 'seeded table', int(seeded.requestsPerSec), fixed(seeded.cpuUs, 1), ''],
      [type, 'lru-cache', int(lru.requestsPerSec), fixed(lru.cpuUs, 1), ratio(cpu.at(-1))],
    );
  }
  log(table(['type', 'store', 'req/s', 'CPU µs/req', 'lru ÷ table CPU'], rows));
  const overall = geomean(cpu);
  const keep = overall >= KEEP_TABLE_FROM ? 'the seeded table' : 'lru-cache (the simpler)';
  target(
    'full-store request path: lru-cache ÷ seeded table, CPU per request',
    overall,
    `keep the table from ${KEEP_TABLE_FROM.toFixed(2)}×`,
    undefined,
    `geometric mean over the five types (each ${cpu.map((value) => value.toFixed(2)).join(', ')}): keep ${keep}`,
  );
  return {
    store,
    newRatio,
    duplicateRatio,
    requestPath: { lruOverTableCpu: overall, perType: cpu, keep, runs },
  };
}
