// `npm run reliability` (docs/reliability figures in the README): fuzzed requests over real
// sockets, hostile inputs, slow clients under normal load, and 1 MB dedupe identities in a 128 MB
// heap. All traffic goes to 127.0.0.1 on ports chosen by the OS; every loop is bounded in count
// and in time, and a watchdog stops the run past 4 minutes. Prints a table per part and writes
// everything to bench/results/reliability-<timestamp>.json (git-ignored).
//
//   npm run reliability                           # build, then node bench/reliability.js
//   node bench/reliability.js --only=1,hostile    # some parts only, by number or name
//   node bench/reliability.js --fuzz=4000         # fewer fuzzed requests (a smoke test)
//
// Each part is a module of bench/reliability/ exporting `async function run({ seed, fuzz })`;
// the servers of parts 3 and 4 run in child processes (reliability/slow-server.js,
// reliability/identities-server.js).
import { createProgram, integer, parseArgs } from './lib/args.js';
import { writeResults } from './lib/results.js';
import { fixed } from './lib/table.js';

const PARTS = [
  { id: 1, name: 'fuzz', key: 'fuzz', module: './reliability/fuzz.js' },
  { id: 2, name: 'hostile', key: 'hostile', module: './reliability/hostile.js' },
  { id: 3, name: 'slow-clients', key: 'slowClients', module: './reliability/slow-clients.js' },
  { id: 4, name: 'identities', key: 'identities', module: './reliability/identities.js' },
];

const options = parseArgs(
  createProgram(
    'reliability',
    'Fuzz, hostile inputs, slow clients and 1 MB identities (README, Reliability).',
    {
      registry: PARTS,
      what: 'part',
    },
  )
    .option('--seed <n>', 'fast-check seed of the fuzz (the Express run uses seed + 1)', integer(0), 162026)
    .option('--fuzz <n>', 'fuzzed requests, split between the two adapters', integer(), 24_000),
);

const watchdog = setTimeout(() => {
  console.error('reliability: watchdog, past 4 minutes: stopping');
  process.exit(2);
}, 240_000);
watchdog.unref();
const started = new Date();
const results = { started: started.toISOString(), node: process.version, seed: options.seed };
for (const part of PARTS) {
  if (options.only && !options.only.has(part.id)) continue;
  const { run } = await import(part.module);
  results[part.key] = await run(options);
}
results.seconds = (Date.now() - started.getTime()) / 1000;
const file = writeResults(results, { prefix: 'reliability-', startedAt: results.started });
console.log(`\n${fixed(results.seconds, 1)} s; results in ${file}`);
process.exit(0);
