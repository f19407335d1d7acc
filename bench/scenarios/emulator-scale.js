// The emulator at the size of real traffic (issue 23), as a scenario module of `npm run bench`:
//
//   1. Cost that does not grow: µs per `customerMessage` from a new customer, no webhook
//      configured, measured after 1,000 and after 20,000 distinct customers in one process (the
//      median of 7 samples of 400 messages per point, the points' samples interleaved).
//      Targets: the 20,000 ÷ 1,000 ratio ≤ 1.5×, and ≤ 25 µs/message at 20,000.
//   2. Fan-out with many customers: scenario 7's comparison (bench/emulator-keepalive.js: the
//      emulator's keep-alive deliveries ÷ a bare undici keep-alive loop posting the same bodies,
//      same concurrency, same receiver in another process), with 5,000 distinct customers.
//      Target ≥ 0.6×.
//
// `run(bench)` takes the toolbox bench/run.js builds in main() (log, target, quick, startServer,
// stop). This file is also the child process of part 1 (pinned to the load CPU, like the
// emulator of scenario 7): run as a script, it answers the `scale` command.
import { fileURLToPath } from 'node:url';
import { serveCommands, startChild } from '../lib/proc.js';
import { fixed, int, ratio, table } from '../lib/table.js';

const LOAD_CPU = 1;
const NUMBER = '+27820000001';
/** Distinct customers before each sample is taken. */
const POINTS = [1000, 20_000];
/** Samples per point, and messages per sample (each sample from customers never seen before). */
const SAMPLES = 7;
const SAMPLE = 400;
/** Distinct customers of the fan-out comparison (issue 23: at least 3,000). */
const FANOUT_CUSTOMERS = 5000;
const FANOUT_CONCURRENCY = 32;

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
  global.gc?.(); // the growth's garbage is no sample's (the child runs with --expose-gc)
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
  log(
    `\n## Emulator at scale: µs per customerMessage after ${POINTS.map(int).join(' and ')} customers; fan-out with ${FANOUT_CUSTOMERS} customers`,
  );
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

  const seconds = bench.quick ? 1 : 3;
  const proc = await startChild('emulator-keepalive.js', { cpu: LOAD_CPU, name: 'emulator-keepalive' });
  const srv = await bench.startServer('server.js', { kind: 'node-raw', callbacks: 'instant' });
  let fanout;
  try {
    fanout = await proc.call(
      'compare',
      {
        receiverBase: `http://127.0.0.1:${srv.hello.port}/webhooks`,
        durationSec: seconds,
        concurrency: FANOUT_CONCURRENCY,
        customers: FANOUT_CUSTOMERS,
      },
      180_000,
    );
  } finally {
    await bench.stop(srv);
    await proc.stop();
  }
  log(
    table(
      ['sender', 'deliveries/s', 'delivered', 'failed', 'customers'],
      [
        [
          `emulator (deliveryConcurrency ${FANOUT_CONCURRENCY})`,
          int(fanout.emulator.deliveriesPerSec),
          fanout.emulator.delivered,
          fanout.emulator.failed,
          fanout.emulator.customers,
        ],
        [
          'bare undici keep-alive loop',
          int(fanout.bare.postsPerSec),
          fanout.bare.posted,
          fanout.bare.failed,
          '',
        ],
      ],
    ),
  );
  target(
    `emulator fan-out ÷ bare loop, ${int(FANOUT_CUSTOMERS)} customers`,
    fanout.ratio,
    '≥ 0.6×',
    fanout.ratio >= 0.6,
    `concurrency ${FANOUT_CONCURRENCY} both; ${ratio(fanout.ratio)}`,
  );
  return { scale: scaled, growth, fanout };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  serveCommands({ scale });
  process.send({ ready: true });
}
