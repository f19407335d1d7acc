// The store-alone half of the dedupe-flood scenario (bench/scenarios/dedupe-flood.js), in its own
// process pinned to the server CPU: CPU ns per claim in the default in-memory store, full
// (DEFAULT_DEDUPE_MAX keys, every new key evicts one), for keys an attacker ground offline against
// the table's hash as it was published (no seed: issue 24's attack, 100 000 event ids aimed at a
// quarter of the table) and for random keys, both made as the pipeline makes them
// (digestDedupeKey of a chatbot identity). Each measure is taken `rounds` times on a fresh full
// store, crafted and random alternating, and the median kept.
import { createMemoryDedupeStore } from '../../dist/index.js';
import { DEFAULT_DEDUPE_MAX } from '../../dist/dedupe/memory.js';
import { digestDedupeKey } from '../../dist/dedupe/keys.js';
import { fingerprint, FINGERPRINT_WORDS, SEED_WORDS } from '../../dist/dedupe/fingerprints.js';
import { serveCommands } from '../lib/proc.js';
import { median } from '../lib/table.js';

/** The table's hash before issue 24: a fixed initial state, no per-word seed. */
const PUBLIC_SEED = new Int32Array(SEED_WORDS);
PUBLIC_SEED[FINGERPRINT_WORDS] = 0x9e3779b9 | 0;

/** Cells of the store's table when full: a power of two at least twice DEFAULT_DEDUPE_MAX. */
const cellsFor = (slots) => {
  let cells = 2;
  while (cells < slots * 2) cells *= 2;
  return cells;
};

const keyOf = (id) => digestDedupeKey('chatbot', JSON.stringify([id]));

/** `count` keys whose published hash lands in the first quarter of the full table, and the candidates tried. */
function grind(count, tag) {
  const quarter = cellsFor(DEFAULT_DEDUPE_MAX) / 4;
  const mask = cellsFor(DEFAULT_DEDUPE_MAX) - 1;
  const words = new Int32Array(FINGERPRINT_WORDS);
  const keys = [];
  let tried = 0;
  while (keys.length < count) {
    const key = keyOf(`${tag}-${tried}`);
    tried += 1;
    if ((fingerprint(key, words, 0, PUBLIC_SEED) & mask) < quarter) keys.push(key);
  }
  return { keys, tried };
}

const randomKeys = (count, tag) => Array.from({ length: count }, (_, i) => keyOf(`${tag}-${i}`));

const cpuNsSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1000;
};

/** ns per new-key claim into a full store, then per duplicate claim of the same keys. */
function claimCost(keys, fill) {
  const store = createMemoryDedupeStore();
  for (const key of fill) store.claim(key);
  let start = process.cpuUsage();
  let claimed = 0;
  for (const key of keys) if (store.claim(key)) claimed += 1;
  const newNs = cpuNsSince(start) / keys.length;
  start = process.cpuUsage();
  let duplicates = 0;
  for (const key of keys) if (!store.claim(key)) duplicates += 1;
  const duplicateNs = cpuNsSince(start) / keys.length;
  if (claimed !== keys.length || duplicates !== keys.length)
    throw new Error(`expected ${keys.length} claims and duplicates, got ${claimed} and ${duplicates}`);
  return { newNs, duplicateNs };
}

function measure({ rounds = 3 }) {
  const size = DEFAULT_DEDUPE_MAX;
  const grindStart = process.cpuUsage();
  const crafted = grind(size, 'crafted');
  const grindSeconds = cpuNsSince(grindStart) / 1e9;
  const random = randomKeys(size, 'random');
  const fill = randomKeys(size, 'fill');
  // Warm both paths once before measuring.
  claimCost(random.slice(0, 20_000), fill);
  claimCost(crafted.keys.slice(0, 20_000), fill);
  const runs = { crafted: [], random: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['crafted', 'random'] : ['random', 'crafted'];
    for (const which of order) runs[which].push(claimCost(which === 'crafted' ? crafted.keys : random, fill));
  }
  const med = (which, field) => median(runs[which].map((run) => run[field]));
  return {
    size,
    crafted: { newNs: med('crafted', 'newNs'), duplicateNs: med('crafted', 'duplicateNs') },
    random: { newNs: med('random', 'newNs'), duplicateNs: med('random', 'duplicateNs') },
    grind: { keys: crafted.keys.length, tried: crafted.tried, cpuSeconds: grindSeconds },
    runs,
  };
}

serveCommands({ measure });
process.send({ ready: true });
