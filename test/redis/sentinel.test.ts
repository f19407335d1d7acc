import {
  expectNoLoss,
  expectRecovered,
  runFailover,
  withAndWithoutReplicaAck,
  type FailoverResult,
  type FaultTarget,
} from './failover.js';
import { waitFor } from './helpers.js';
import { describeWithRedisServer, startRedisSentinel, type LocalRedisSentinel } from './servers.js';

const { describe: describeSentinel, missing } = describeWithRedisServer('the Redis Sentinel tests');

const PARTITIONS = 4;
/** Sentinel down-after-milliseconds: a primary unreachable this long is failed over. */
const DOWN_AFTER_MS = 500;

describeSentinel(
  'Redis Sentinel: a primary, its replica and 3 Sentinels, through ioredis `sentinels`',
  () => {
    let sentinel: LocalRedisSentinel;
    const results: FailoverResult[] = [];

    beforeAll(async () => {
      if (missing !== undefined) throw new Error(missing);
      const started = Date.now();
      sentinel = await startRedisSentinel({ downAfterMs: DOWN_AFTER_MS });
      process.stdout.write(
        `sentinel test: primary, replica and 3 Sentinels up in ${Date.now() - started} ms\n`,
      );
    }, 60_000);

    afterAll(async () => {
      if (results.length > 0) {
        process.stdout.write(`sentinel failover table:\n${results.map((r) => `  ${r.line}`).join('\n')}\n`);
      }
      await sentinel?.stop();
    }, 30_000);

    async function target(): Promise<FaultTarget> {
      const primary = await sentinel.primary();
      const replica = await sentinel.replica();
      if (replica === undefined) throw new Error(`primary ${primary} has no replica in sync`);
      return {
        primary: sentinel.node(primary),
        replica: sentinel.node(replica),
        partitionsOnPrimary: PARTITIONS,
        async promoted() {
          const moved = await waitFor(async () => {
            try {
              return (await sentinel.primary()) !== primary;
            } catch {
              return false;
            }
          }, 20_000);
          if (!moved) throw new Error(`the Sentinels did not promote a replica of ${primary}`);
        },
        // Started as a replica of the new primary, as an operator restores a failed node (the
        // Sentinels would reconfigure a node started as a primary too, but only after their INFO
        // period, ~10 s).
        rejoin: async () =>
          sentinel.node(primary).restart(['--replicaof', '127.0.0.1', String(await sentinel.primary())]),
        healthy: () => sentinel.healthy(),
      };
    }

    it('SIGKILL with workers running: 503 (never 200) while it cannot enqueue, recovers by itself; with waitForReplicas every event answered 200 runs, in order', async () => {
      const [plain, acked] = await runFailover({
        connection: sentinel.connection,
        variants: withAndWithoutReplicaAck('sentinel-kill', PARTITIONS),
        fault: 'kill',
        workersDuring: true,
        target,
      });
      results.push(plain!, acked!);
      expectRecovered(plain!, true);
      expectRecovered(acked!, true);
      expectNoLoss(acked!);
    }, 60_000);

    it('a replica cut off 0.3 s, then its primary SIGKILLed: the default loses what the primary acked meanwhile, waitForReplicas loses nothing', async () => {
      const [plain, acked] = await runFailover({
        connection: sentinel.connection,
        variants: withAndWithoutReplicaAck('sentinel-lag', PARTITIONS),
        fault: 'pause-replica-then-kill',
        workersDuring: false,
        target,
      });
      results.push(plain!, acked!);
      expectRecovered(plain!, false);
      expectRecovered(acked!, false);
      expect(plain!.lost).toBeGreaterThan(0);
      expectNoLoss(acked!);
    }, 60_000);
  },
);
