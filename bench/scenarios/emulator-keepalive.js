// Scenario 7: the emulator's concurrent keep-alive fan-out ÷ a bare undici POST loop, same
// concurrency, same bodies, same receiver (raw node:http in another process);
// workers/emulator-keepalive.js.
import { existsSync } from 'node:fs';
import { int, ratio, table } from '../lib/table.js';

const CONCURRENCY = 32;

export async function run(bench) {
  const { startServer, startWorker, stop, target, log, longSeconds } = bench;
  const seconds = longSeconds + 1;
  log(`concurrency ${CONCURRENCY}, ${seconds} s each`);
  if (!existsSync(new URL('../../dist/emulator/index.js', import.meta.url))) {
    log('skipped: dist/emulator/index.js not built');
    return { skipped: 'dist/emulator/index.js not built' };
  }
  const proc = await startWorker('workers/emulator-keepalive.js', { cpu: 'load' });
  const srv = await startServer('servers/serve.js', { kind: 'node-raw' });
  const out = await proc.call(
    'compare',
    {
      receiverBase: `http://127.0.0.1:${srv.hello.port}/webhooks`,
      durationSec: seconds,
      concurrency: CONCURRENCY,
    },
    120_000,
  );
  await stop(srv);
  await stop(proc);
  log(
    table(
      ['sender', 'deliveries/s', 'delivered', 'failed'],
      [
        [
          `emulator (deliveryConcurrency ${CONCURRENCY})`,
          int(out.emulator.deliveriesPerSec),
          out.emulator.delivered,
          out.emulator.failed,
        ],
        ['bare undici keep-alive loop', int(out.bare.postsPerSec), out.bare.posted, out.bare.failed],
      ],
    ),
  );
  target(
    'emulator fan-out ÷ bare undici loop',
    out.ratio,
    '≥ 0.6×',
    out.ratio >= 0.6,
    'deliveries/s ÷ POSTs/s',
  );
  log(
    `ratio ${ratio(out.ratio)}; absolute target: >= 5,000 deliveries/s when the bare loop does 8,000 (bare loop here: ${int(out.bare.postsPerSec)}/s)`,
  );
  return out;
}
