// The emulator at the size of real traffic (issue 23), as a scenario module of `npm run bench`:
//
//   1. Cost that does not grow: µs per `customerMessage` from a new customer, no webhook
//      configured, measured after 1,000 and after 20,000 distinct customers in one process (the
//      median of 7 samples of 400 messages per point, the points' samples interleaved).
//      Targets: the 20,000 ÷ 1,000 ratio ≤ 1.5×, and ≤ 25 µs/message at 20,000.
//   Fan-out with many customers is scenario 7 (5,000 distinct customers).
//
// `run(bench)` takes the toolbox bench/run.js builds in main() (log, target, quick, startServer,
// stop). This file is also the child process of part 1 (pinned to the load CPU, like the
// emulator of scenario 7): run as a script, it answers the `scale` command.
import { fileURLToPath } from 'node:url';
import { LOAD_CPU, serveCommands, startChild } from '../lib/proc.js';
import { fixed, int, table } from '../lib/table.js';

const NUMBER = '+27820000001';
/** Distinct customers before each sample is taken. */
const POINTS = [1000, 20_000];
/** Samples per point, and messages per sample (each sample from customers never seen before). */
const SAMPLES = 7;
const SAMPLE = 400;

const customer = (n) => `+2784${String(n).padStart(7, '0')}`;

/**
 * Child: one emulator per point, each grown to its number of customers, then samples of
 * `sample` messages from new customers (then the same customers again, their chats open) taken
 * from each in turn, the order alternating per round: both points meet the same JIT and the
 * same heap, so their ratio is the state's size alone. The median sample is the figure (a
 * sample that met a garbage collection is not the typical message); the mean is kept beside it.
 */
async function scale({ points = POINTS, samples = SAMPLES, sample = SAMPLE }) {
  const { createEmulator } = await import('../../dist/emulator/index.js');
  const subjects = [];
  for (const point of points) {
    const emulator = createEmulator({ retry: { attempts: 1 } });
    const grow = process.hrtime.bigint();
    for (let n = 0; n < point; n += 1)
      emulator.customerMessage({ number: NUMBER, from: customer(n), text: 'hi' });
    const growSec = Number(process.hrtime.bigint() - grow) / 1e9;
    subjects.push({ point, emulator, next: point, growSec, fresh: [], returning: [] });
  }
  const time = (emulator, first) => {
    const started = process.hrtime.bigint();
    for (let n = first; n < first + sample; n += 1) {
      emulator.customerMessage({ number: NUMBER, from: customer(n), text: `Order ${n}` });
    }
    return Number(process.hrtime.bigint() - started) / 1e3 / sample;
  };
  globalThis.gc?.(); // the growth's garbage is no sample's (the child runs with --expose-gc)
  for (let round = 0; round < samples; round += 1) {
    for (const subject of round % 2 === 0 ? subjects : [...subjects].reverse()) {
      const first = subject.next;
      subject.fresh.push(time(subject.emulator, first));
      subject.returning.push(time(subject.emulator, first));
      subject.next += sample;
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const rows = subjects.map((subject) => ({
    customers: subject.point,
    newUs: median(subject.fresh),
    newMeanUs: mean(subject.fresh),
    returningUs: median(subject.returning),
    samplesUs: subject.fresh,
    growSec: subject.growSec,
    chats: subject.emulator.state.chatParticipants.size,
  }));
  for (const subject of subjects) await subject.emulator.close();
  return { samples, sample, heapUsed: process.memoryUsage().heapUsed, rows };
}

/** Runs the scenario: `bench` is the toolbox of bench/run.js's main(). */
export async function run(bench) {
  const { log, target } = bench;
  log(`\n## Emulator at scale: µs per customerMessage after ${POINTS.map(int).join(' and ')} customers`);
  const child = await startChild('scenarios/emulator-scale.js', {
    cpu: LOAD_CPU,
    nodeArgs: ['--expose-gc'],
    name: 'emulator-scale',
  });
  let scaled;
  try {
    scaled = await child.call('scale', {}, 600_000);
  } finally {
    await child.stop();
  }
  const [small, large] = scaled.rows;
  const growth = large.newUs / small.newUs;
  log(
    table(
      ['customers', 'new customer µs/msg (median)', '(mean)', 'returning µs/msg', 'chats after', 'grow s'],
      scaled.rows.map((row) => [
        int(row.customers),
        fixed(row.newUs, 1),
        fixed(row.newMeanUs, 1),
        fixed(row.returningUs, 1),
        int(row.chats),
        fixed(row.growSec, 2),
      ]),
    ),
  );
  target(
    'emulator customerMessage at 20,000 ÷ 1,000 customers',
    growth,
    '≤ 1.5×',
    growth <= 1.5,
    `new customers, no webhook; ${fixed(small.newUs, 1)} → ${fixed(large.newUs, 1)} µs/message`,
  );
  target(
    'emulator customerMessage µs/message at 20,000 customers',
    large.newUs,
    '≤ 25 µs',
    large.newUs <= 25,
    'a new customer each, no webhook configured',
  );

  return { scale: scaled, growth };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serveCommands({ scale });
  process.send({ ready: true });
}
