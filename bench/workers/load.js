// The load generator, in its own process (pinned by the orchestrator): autocannon, with every
// response's latency taken exactly rather than from autocannon's histogram.
//
// Latency method: autocannon stamps each request with process.hrtime() just before writing it to
// the socket and computes the float duration when the response's last byte is parsed; it then
// rounds that into a whole-millisecond histogram. The `setupClient` hook subscribes to each
// client's 'response' event, which carries the unrounded duration, and keeps every sample; the
// percentiles are read from the sorted samples (nearest rank), so p50/p99 have microsecond
// resolution.
import autocannon from 'autocannon';
import { createRequestFactory, MIXED } from '../lib/bodies.js';
import { serveCommands } from '../lib/proc.js';

/** A growable list of float64 samples. */
class Samples {
  constructor() {
    this.values = new Float64Array(1 << 16);
    this.length = 0;
  }
  push(value) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  sorted() {
    return this.values.slice(0, this.length).sort();
  }
}

/** Nearest-rank percentile of sorted samples; undefined when there are none. */
const percentile = (sorted, p) =>
  sorted.length === 0
    ? undefined
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const summary = (samples) => {
  const sorted = samples.sorted();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? undefined : sorted[sorted.length - 1],
  };
};

/**
 * Runs one load: `connections` keep-alive connections POSTing `type` bodies to `url` for
 * `durationSec`, as fast as answered or at `rate` requests/s. `type` may be `mixed`: the five
 * types in turn, each to its own path under /webhooks (the path of `url` is then not used).
 * Returns throughput, exact latency percentiles of 2xx answers (and of all answers), status
 * counts, and the share of 503s after the first 503.
 */
async function run({ url, type, connections, durationSec, conversations, rate }) {
  const nextRequest = createRequestFactory(type, { conversations });
  const ok = new Samples();
  const all = new Samples();
  const statusCounts = {};
  let firstRejection = -1;
  let answered = 0;
  let rejectedAfterFirst = 0;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url,
    connections,
    duration: durationSec,
    // A fixed offered rate (requests/s over all connections) instead of as fast as answered.
    ...(rate === undefined ? {} : { overallRate: rate }),
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest(request) {
          const next = nextRequest();
          request.body = next.body;
          if (type === MIXED) request.path = next.path;
          return request;
        },
      },
    ],
    setupClient(client) {
      client.on('response', (statusCode, _bytes, durationMs) => {
        statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
        all.push(durationMs);
        if (statusCode >= 200 && statusCode < 300) ok.push(durationMs);
        if (statusCode === 503 && firstRejection === -1) firstRejection = answered;
        if (firstRejection !== -1 && statusCode === 503) rejectedAfterFirst += 1;
        answered += 1;
      });
    },
  });
  const elapsedSec = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    type,
    connections,
    durationSec: result.duration,
    answered,
    requestsPerSec: answered / result.duration,
    okPerSec: ok.length / result.duration,
    latencyOk: summary(ok),
    latencyAll: summary(all),
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    // Share of 503s among the answers from the first 503 on (the queue is full from then).
    rejectedShareAfterFill:
      firstRejection === -1 ? undefined : rejectedAfterFirst / (answered - firstRejection),
    answeredBeforeFill: firstRejection === -1 ? answered : firstRejection,
    // Load generator CPU use: near 1.0 means the generator, not the server, was the limit.
    loadCpuShare: (cpu.user + cpu.system) / 1e6 / elapsedSec,
    loadCpuSec: (cpu.user + cpu.system) / 1e6,
    autocannonP99RoundedMs: result.latency.p99,
  };
}

serveCommands({ run });
process.send({ ready: true });
