// Scenario 4: the emulator delivering webhooks to a receiver in another process
// (workers/emulator-fanout.js): deliveries/s to raw node:http (the ceiling) and to the router in
// Express. With its default deliveryConcurrency of 1 the emulator delivers one webhook at a time,
// so this is a round-trip rate (scenario 7 measures the concurrent fan-out). Reported, no target.
import { existsSync } from 'node:fs';
import { int, ratio, table } from '../lib/table.js';

export async function run(bench) {
  const { startServer, startWorker, stop, log, longSeconds: seconds } = bench;
  log(`deliveries/s to a receiver in another process, ${seconds} s per receiver`);
  if (!existsSync(new URL('../../dist/emulator/index.js', import.meta.url))) {
    log('skipped: dist/emulator/index.js not built');
    return { skipped: 'dist/emulator/index.js not built' };
  }
  const emulator = await startWorker('workers/emulator-fanout.js', { cpu: 'load' });
  const rows = [];
  const out = {};
  for (const kind of ['node-raw', 'express-router']) {
    const srv = await startServer('servers/serve.js', { kind });
    out[kind] = await emulator.call(
      'fanOut',
      { receiverBase: `http://127.0.0.1:${srv.hello.port}/webhooks`, durationSec: seconds },
      60_000,
    );
    await stop(srv);
    rows.push([
      kind === 'node-raw' ? 'raw node:http (ceiling)' : 'router in Express',
      int(out[kind].deliveriesPerSec),
      out[kind].delivered,
      out[kind].failed,
    ]);
  }
  await stop(emulator);
  log(table(['receiver', 'deliveries/s', 'delivered', 'failed'], rows));
  log(
    `ratio ${ratio(out['express-router'].deliveriesPerSec / out['node-raw'].deliveriesPerSec)} (one delivery at a time: a round-trip rate)`,
  );
  return out;
}
