// One measured load against a running server: the load generator's exact latencies plus the
// server's CPU time over the run (probed before and after) and the CPU the rest of the machine
// used meanwhile (so a noisy neighbour shows in the results instead of hiding in them).
import { machineBusySeconds } from './cpu.js';

/** measure(load, server, { path, type, seconds, conversations, rate }) with these defaults. */
export function createMeasure({ connections, seconds: defaultSeconds }) {
  return async function measure(load, srv, { path, type, seconds = defaultSeconds, conversations, rate }) {
    const before = await srv.call('probe');
    const busyBefore = machineBusySeconds();
    const wallBefore = process.hrtime.bigint();
    const run = await load.call(
      'run',
      {
        url: `http://127.0.0.1:${srv.hello.port}${path}`,
        type,
        connections,
        durationSec: seconds,
        conversations,
        rate,
      },
      (seconds + 30) * 1000,
    );
    // The probes bracket the whole load call (connection set-up and wind-down included), so the
    // CPU shares divide by that wall time, not by autocannon's duration.
    const wallSec = Number(process.hrtime.bigint() - wallBefore) / 1e9;
    const busyAfter = machineBusySeconds();
    const after = await srv.call('probe');
    const serverCpuSec = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1e6;
    return {
      ...run,
      serverCpuShare: serverCpuSec / wallSec,
      serverCpuUsPerRequest: (serverCpuSec * 1e6) / run.answered,
      otherCpuCores:
        busyBefore === undefined
          ? undefined
          : Math.max(0, (busyAfter - busyBefore - serverCpuSec - run.loadCpuSec) / wallSec),
      serverStats: after.stats?.[type] ?? after.stats?.total,
      serverHeapUsed: after.memory.heapUsed,
    };
  };
}
