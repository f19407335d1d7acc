import { Cluster, Redis } from 'ioredis';
import { pino } from 'pino';
import { createBullMQDispatcher, createDeadLetterQueue, createWorker } from '../../src/redis/index.js';
import { partitionOf } from '../../src/redis/queues.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';
import {
  conversations,
  createRunLog,
  deliver,
  describeAnswers,
  drain,
  expectNoLoss,
  expectRecovered,
  keysOn,
  runFailover,
  withAndWithoutReplicaAck,
  startReceiverInstance,
  startRecordingWorker,
  tally,
  type FailoverResult,
  type FaultTarget,
  type ReceiverInstance,
  type ScenarioTopology,
} from './failover.js';
import { chatbotEvent, quitQuietly, SHARED_REDIS_PORT, uniqueName, waitFor } from './helpers.js';
import { describeWithRedisServer, startRedisCluster, type LocalRedisCluster } from './servers.js';

const { describe: describeCluster, missing } = describeWithRedisServer('the Redis Cluster tests');
const silent = pino({ level: 'silent' });

const PARTITIONS = 8;
/** cluster-node-timeout: a primary unreachable this long is failed over. */
const NODE_TIMEOUT_MS = 500;

/** `{ 30001: 3, 30002: 3, 30003: 2 }`: partition queues per primary, as the cluster places them. */
async function partitionsPerShard(
  cluster: LocalRedisCluster,
  client: Cluster,
  queueName: string,
  partitions: number,
): Promise<Record<number, string[]>> {
  const shards: Record<number, string[]> = {};
  const ownerOf = await cluster.owners();
  for (let i = 0; i < partitions; i++) {
    const name = `{${queueName}-${i}}`;
    const owner = ownerOf(Number(await client.cluster('KEYSLOT', name))) ?? 0;
    (shards[owner] ??= []).push(name);
  }
  return shards;
}

describeCluster('Redis Cluster: 3 primaries with a replica each, on loopback', () => {
  let cluster: LocalRedisCluster;
  /** The app's own ioredis Cluster, given to a receiver and a worker as an instance. */
  let appCluster: Cluster;
  let shared: Redis;
  const receivers: ReceiverInstance[] = [];

  beforeAll(async () => {
    if (missing !== undefined) throw new Error(missing);
    const started = Date.now();
    cluster = await startRedisCluster({ primaries: 3, replicas: 1, nodeTimeoutMs: NODE_TIMEOUT_MS });
    process.stdout.write(`cluster test: 6 nodes up in ${Date.now() - started} ms\n`);
    appCluster = new Cluster([...cluster.nodes]);
    shared = new Redis({ port: SHARED_REDIS_PORT, lazyConnect: true, maxRetriesPerRequest: 1 });
    shared.on('error', () => undefined);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    if (appCluster !== undefined) await quitQuietly(appCluster as unknown as Redis);
    if (shared !== undefined) await quitQuietly(shared);
    await cluster?.stop();
  }, 30_000);

  it('spreads the partition queues over the shards, runs each conversation in order and each duplicate once, given cluster nodes or an ioredis Cluster', async () => {
    const topology: ScenarioTopology = {
      queueName: uniqueName('cluster'),
      partitions: PARTITIONS,
      dedupePrefix: `${uniqueName('cluster')}:dedupe:`,
    };
    // One receiver given the nodes, one given the app's Cluster instance, as two instances behind a
    // load balancer; the worker given the instance too.
    receivers.push(
      await startReceiverInstance({ nodes: cluster.nodes }, topology),
      await startReceiverInstance(appCluster, topology),
    );
    const [byNodes, byInstance] = receivers.slice(-2) as [ReceiverInstance, ReceiverInstance];
    const log = createRunLog();
    const worker = startRecordingWorker(appCluster, topology, log);
    try {
      const all = conversations(topology.queueName, 24, 6);
      const delivery = await deliver([byNodes, byInstance], all, { deadlineMs: 20_000 });
      await drain(byNodes.dispatcher, delivery, log);
      const result = tally(all, delivery, log);

      // Where the queues really are: on the cluster, over more than one shard; nothing on the
      // standalone Redis at 6379 (where a silently ignored Cluster instance used to write).
      const shards = await partitionsPerShard(cluster, appCluster, topology.queueName, PARTITIONS);
      const jobKeys = await keysOn(appCluster, `bull:{${topology.queueName}-*`);
      // The dedupe claims: BullMQ deduplication ids set by the adds, in their partitions' slots.
      const dedupeKeys = await keysOn(appCluster, `bull:{${topology.queueName}-*}:de:*`);
      const keysPerShard: Record<number, number> = {};
      const ownerOf = await cluster.owners();
      for (const key of jobKeys) {
        const owner = ownerOf(Number(await appCluster.cluster('KEYSLOT', key))) ?? 0;
        keysPerShard[owner] = (keysPerShard[owner] ?? 0) + 1;
      }
      const onShared = (await shared.connect().then(
        () => keysOn(shared, `*${topology.queueName}*`),
        () => [],
      )) as string[];
      process.stdout.write(
        `cluster test: ${all.length} conversations × 6 events, each to both receivers; answers ${describeAnswers(delivery.answers)}; ` +
          `acked ${result.acked}, ran ${result.ran}, lost ${result.lost}, twice ${result.twice}, out of order ${result.outOfOrder}; ` +
          `partitions per shard ${JSON.stringify(Object.fromEntries(Object.entries(shards).map(([port, names]) => [port, names.length])))}, ` +
          `BullMQ keys per shard ${JSON.stringify(keysPerShard)}, ${dedupeKeys.length} dedupe keys on the cluster, ${onShared.length} keys on 6379\n`,
      );

      expect(onShared).toEqual([]);
      expect(Object.keys(shards).length).toBeGreaterThan(1);
      expect(Object.keys(keysPerShard).length).toBeGreaterThan(1);
      expect(dedupeKeys.length).toBe(all.length * 6);
      expect(delivery.unanswered).toEqual([]);
      expect([...delivery.answers.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect(result).toEqual({ acked: 144, ran: 144, lost: 0, queued: 0, twice: 0, outOfOrder: 0 });
      // A given client is the caller's: closing the library's parts leaves it open.
      await byInstance.close();
      receivers.splice(receivers.indexOf(byInstance), 1);
      expect(appCluster.status).toBe('ready');
    } finally {
      await worker.close(2000);
    }
    expect(appCluster.status).toBe('ready');
  }, 60_000);

  it('lists and redrives dead letters on the cluster: createDeadLetterQueue and the dlq CLI with --cluster', async () => {
    assertBuilt();
    const queueName = uniqueName('clusterdlq');
    const topology = { queueName, partitions: 4 };
    const connection = { nodes: cluster.nodes };
    const dispatcher = createBullMQDispatcher({ connection, ...topology, logger: silent });
    const dlq = createDeadLetterQueue({ connection, ...topology, logger: silent });
    // Broken for each event's first run (dead-lettered: one attempt), fixed for its redrive.
    const failed = new Set<string>();
    const ran: string[] = [];
    const worker = createWorker({
      connection,
      ...topology,
      logger: silent,
      retry: { attempts: 1 },
      handlers: {
        onChatbot: (event) => {
          if (!failed.has(event.eventId)) {
            failed.add(event.eventId);
            throw new Error(`handler broken for ${event.eventId}`);
          }
          ran.push(event.eventId);
        },
      },
    });
    try {
      for (const [i, eventId] of ['d1', 'd2', 'd3'].entries()) {
        await dispatcher.enqueue({
          type: 'chatbot',
          payload: chatbotEvent(eventId, `conversation-${i}`),
          requestId: `req-${eventId}`,
          receivedAt: Date.now(),
          orderingKey: `chatbot:conversation-${i}`,
          dedupeKey: `chatbot:${eventId}`,
          payloadVersion: 'v1',
        });
      }
      expect(await waitFor(async () => (await dlq.count()) === 3, 15_000)).toBe(true);
      const entries = await dlq.list();
      for (const entry of entries) expect(entry.partition).toMatch(new RegExp(`^\\{${queueName}-[0-3]\\}$`));

      // The CLI reaches the whole cluster through any one node.
      const seed = `redis://127.0.0.1:${cluster.nodes[2]!.port}`;
      const redrive = await runCli([
        'dlq',
        'redrive',
        '--all',
        '--redis',
        seed,
        '--cluster',
        '--queue-name',
        queueName,
        '--partitions',
        '4',
      ]);
      expect(redrive.stderr).toBe('');
      for (const entry of entries)
        expect(redrive.stdout).toContain(`redriven: ${entry.id} (chatbot) → ${entry.partition}`);
      expect(redrive.stdout).toContain('3 dead letters redriven.');
      expect(await waitFor(async () => ran.length === 3, 15_000)).toBe(true);
      expect([...ran].sort()).toEqual(['d1', 'd2', 'd3']);
      expect(await dlq.count()).toBe(0);
    } finally {
      await Promise.all([worker.close(2000), dispatcher.close(), dlq.close()]);
    }
  }, 60_000);

  describe('failover: a primary SIGKILLed mid-burst, its replica promoted (cluster-node-timeout 0.5 s), with and without the replica acknowledgement side by side', () => {
    const results: FailoverResult[] = [];

    /** The primary serving the most partition queues of `topology`, and its replica. */
    async function target(topology: ScenarioTopology): Promise<FaultTarget> {
      const shards = await partitionsPerShard(cluster, appCluster, topology.queueName, topology.partitions);
      const [port, names] = Object.entries(shards).sort(([, a], [, b]) => b.length - a.length)[0]!;
      const primary = Number(port);
      const replica = await cluster.replicaOf(primary);
      if (replica === undefined) throw new Error(`primary ${primary} has no replica`);
      const slot = Number(await appCluster.cluster('KEYSLOT', names[0]!));
      const onPrimary = new Set(names);
      return {
        primary: cluster.node(primary),
        replica: cluster.node(replica),
        partitionsOnPrimary: names.length,
        // The claims live with the jobs: conversations on the other primaries are accepted
        // throughout, and are not what the outage is about.
        affects: (participant) =>
          onPrimary.has(
            `{${topology.queueName}-${partitionOf(`chatbot:${participant}`, topology.partitions)}}`,
          ),
        async promoted() {
          const moved = await waitFor(async () => {
            try {
              return (await cluster.ownerOf(slot)) !== primary;
            } catch {
              return false;
            }
          }, 20_000);
          if (!moved) throw new Error(`no replica took over slot ${slot} from ${primary}`);
        },
        // Its nodes.conf makes it rejoin, learn it was failed over, and follow the new primary.
        rejoin: () => cluster.node(primary).restart(),
        healthy: () => cluster.healthy(),
      };
    }

    afterAll(() => {
      if (results.length > 0)
        process.stdout.write(`cluster failover table:\n${results.map((r) => `  ${r.line}`).join('\n')}\n`);
    });

    it('SIGKILL with workers running: 503 (never 200) while it cannot enqueue, recovers by itself; with waitForReplicas every event answered 200 runs, in order', async () => {
      const variants = withAndWithoutReplicaAck('cluster-kill', PARTITIONS);
      const [plain, acked] = await runFailover({
        connection: { nodes: cluster.nodes },
        variants,
        fault: 'kill',
        workersDuring: true,
        target: () => target(variants[0]!.topology),
      });
      results.push(plain!, acked!);
      expectRecovered(plain!, true);
      expectRecovered(acked!, true);
      expectNoLoss(acked!);
    }, 60_000);

    it('a replica cut off 0.3 s, then its primary SIGKILLed: the default loses what the primary acked meanwhile, waitForReplicas loses nothing', async () => {
      const variants = withAndWithoutReplicaAck('cluster-lag', PARTITIONS);
      const [plain, acked] = await runFailover({
        connection: { nodes: cluster.nodes },
        variants,
        fault: 'pause-replica-then-kill',
        workersDuring: false,
        target: () => target(variants[0]!.topology),
      });
      results.push(plain!, acked!);
      expectRecovered(plain!, false);
      expectRecovered(acked!, false);
      expect(plain!.lost).toBeGreaterThan(0);
      expectNoLoss(acked!);
    }, 60_000);
  });
});
