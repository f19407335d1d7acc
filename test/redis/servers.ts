// Private Redis topologies for the cluster, failover and Sentinel tests: a Redis Cluster of
// primaries with replicas, or a primary, its replica and Sentinels, all on loopback ports from a
// random free range, data in a temporary directory, no persistence, stopped (SIGKILL) and removed
// afterwards. Nothing here touches the shared Redis on 6379.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { waitFor } from './helpers.js';

const REQUIRED = process.env.REQUIRE_REDIS === '1';

/** Why these tests cannot run here (redis-server or redis-cli missing), or undefined. */
function missingTools(): string | undefined {
  for (const tool of ['redis-server', 'redis-cli']) {
    const found = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    if (found.error !== undefined || found.status !== 0) return `${tool} is not installed`;
  }
  return undefined;
}

/**
 * `describe` when redis-server and redis-cli exist or REQUIRE_REDIS=1 (then the suite fails
 * with the reason); `describe.skip` with a printed reason otherwise.
 */
export function describeWithRedisServer(what: string): {
  describe: jest.Describe;
  missing: string | undefined;
} {
  const missing = missingTools();
  if (missing === undefined || REQUIRED) return { describe, missing };
  process.stdout.write(`skipping ${what}: ${missing} (set REQUIRE_REDIS=1 to fail instead)\n`);
  return { describe: describe.skip, missing };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive free ports from a random base in 30000–39999 (other tests and helpers also
 * start private servers), each with its cluster bus port (+10000) free too when `bus` is set.
 */
async function freePortRange(count: number, bus: boolean): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 30000 + Math.floor(Math.random() * (10000 - count));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const wanted = bus ? [...ports, ...ports.map((port) => port + 10000)] : ports;
    const free = await Promise.all(wanted.map(portFree));
    if (free.every(Boolean)) return ports;
  }
  throw new Error(`no ${count} consecutive free ports found in 30000-39999`);
}

/** One redis-server child process. */
export interface RedisNode {
  readonly port: number;
  readonly running: boolean;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: it keeps its sockets but answers nothing, replicates nothing. */
  pause(): void;
  resume(): void;
  /**
   * Starts it again with the same arguments and data directory (its cluster identity kept), plus
   * `extra` arguments (`--replicaof host port`).
   */
  restart(extra?: readonly string[]): Promise<void>;
}

const children = new Set<ChildProcess>();
// A failed test must not leave servers running: kill them when the test process exits.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function startNode(port: number, args: readonly string[], dir: string): RedisNode {
  let child: ChildProcess;
  let exited: Promise<void>;
  const launch = (extra: readonly string[] = []): void => {
    child = spawn('redis-server', [...args, ...extra], { cwd: dir, stdio: 'ignore' });
    children.add(child);
    child.once('error', () => undefined);
    exited = new Promise((resolve) =>
      child.once('exit', () => {
        children.delete(child);
        resolve();
      }),
    );
  };
  launch();
  const node: RedisNode = {
    port,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    async kill() {
      if (node.running) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      await exited;
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async restart(extra) {
      await node.kill();
      launch(extra);
      if (!(await waitFor(async () => (await ping(port)) === 'PONG', 10_000))) {
        throw new Error(`redis-server on ${port} did not restart`);
      }
    },
  };
  return node;
}

/** PING over a throwaway connection; the reply or the error message. */
async function ping(port: number): Promise<string> {
  const client = new Redis({
    port,
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.ping();
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.disconnect();
  }
}

/** Runs one command on the node at `port` over a short-lived connection. */
export async function command(port: number, name: string, ...args: (string | number)[]): Promise<unknown> {
  const client = new Redis({
    port,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    return await client.call(name, ...args);
  } finally {
    client.disconnect();
  }
}

/**
 * Connections to a topology's nodes, kept for its polls (a fresh connection per poll costs more
 * than the poll): failing fast while a node is down, reconnecting by themselves.
 */
function connections(): {
  call(port: number, name: string, ...args: (string | number)[]): Promise<unknown>;
  close(): void;
} {
  const clients = new Map<number, Redis>();
  return {
    call(port, name, ...args) {
      let client = clients.get(port);
      if (client === undefined) {
        client = new Redis({
          port,
          connectTimeout: 500,
          commandTimeout: 1000,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          retryStrategy: () => 50,
        });
        client.on('error', () => undefined);
        clients.set(port, client);
      }
      if (client.status !== 'ready') return Promise.reject(new Error(`${port} is not connected`));
      return client.call(name, ...args);
    },
    close() {
      for (const client of clients.values()) client.disconnect();
    },
  };
}

/** One line of `CLUSTER NODES` as seen by a node. */
interface ClusterNodeView {
  readonly id: string;
  readonly port: number;
  readonly primary: boolean;
  readonly failed: boolean;
  readonly primaryId: string | undefined;
  readonly slots: readonly (readonly [number, number])[];
  readonly linked: boolean;
}

function parseClusterNodes(text: string): ClusterNodeView[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, primaryId, , , , link, ...slots] = line.split(' ');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address!)?.[1]),
        primary: flags!.includes('master'),
        failed: flags!.includes('fail'),
        primaryId: primaryId === '-' ? undefined : primaryId,
        slots: slots
          .filter((range) => !range.startsWith('['))
          .map((range) => {
            const [from, to = from] = range.split('-').map(Number);
            return [from!, to!] as const;
          }),
        linked: link === 'connected',
      };
    });
}

/** A local Redis Cluster of primaries, each with its replicas. */
export interface LocalRedisCluster {
  /** Seed nodes for ioredis `Cluster` or the library's `{ nodes }`. */
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly node: (port: number) => RedisNode;
  /** The live view of one running node: primaries with their slots, replicas with their primary. */
  view(): Promise<ClusterNodeView[]>;
  /** The port of the primary serving `slot`, as the live nodes see it. */
  ownerOf(slot: number): Promise<number>;
  /** The same for many slots, from one view of the cluster. */
  owners(): Promise<(slot: number) => number | undefined>;
  /** The port of a replica of the primary at `port`, when it has one. */
  replicaOf(port: number): Promise<number | undefined>;
  /** Waits until the cluster is healthy: state ok on every running node, each replica in sync. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `primaries` × (1 + `replicas`) cluster nodes and joins them with `redis-cli --cluster
 * create`. `nodeTimeoutMs` is cluster-node-timeout: how long a primary must be unreachable before
 * its replica is promoted.
 */
export async function startRedisCluster(
  options: { primaries?: number; replicas?: number; nodeTimeoutMs?: number } = {},
): Promise<LocalRedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicas ?? 1;
  const count = primaries * (1 + replicas);
  const ports = await freePortRange(count, true);
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-cluster-'));
  const nodes = new Map<number, RedisNode>();
  for (const port of ports) {
    const nodeDir = path.join(dir, String(port));
    mkdirSync(nodeDir);
    const args = [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--cluster-enabled', 'yes',
      '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 1000),
      '--dir', nodeDir,
      '--save', '',
      '--appendonly', 'no',
      '--maxmemory-policy', 'noeviction',
      // Replicas sync at once (diskless, no 5 s wait for more replicas to join the transfer).
      '--repl-diskless-sync-delay', '0',
      '--logfile', path.join(nodeDir, 'redis.log'),
    ]; // prettier-ignore
    nodes.set(port, startNode(port, args, nodeDir));
  }
  const pool = connections();
  const stop = async (): Promise<void> => {
    pool.close();
    await Promise.all([...nodes.values()].map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      if (!(await waitFor(async () => (await ping(port)) === 'PONG', 10_000))) {
        throw new Error(`redis-server on ${port} did not start`);
      }
    }
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }

  const live = (): RedisNode[] => [...nodes.values()].filter((node) => node.running);
  async function view(): Promise<ClusterNodeView[]> {
    for (const node of live()) {
      try {
        return parseClusterNodes(String(await pool.call(node.port, 'CLUSTER', 'NODES')));
      } catch {
        // Try the next node.
      }
    }
    throw new Error('no cluster node answers');
  }
  const cluster: LocalRedisCluster = {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    node(port) {
      const found = nodes.get(port);
      if (found === undefined) throw new Error(`no cluster node on ${port}`);
      return found;
    },
    view,
    async ownerOf(slot) {
      const owner = (await cluster.owners())(slot);
      if (owner === undefined) throw new Error(`no primary serves slot ${slot}`);
      return owner;
    },
    async owners() {
      const serving = (await view()).filter((entry) => entry.primary && !entry.failed);
      return (slot) =>
        serving.find((entry) => entry.slots.some(([from, to]) => slot >= from && slot <= to))?.port;
    },
    async replicaOf(port) {
      const all = await view();
      const primary = all.find((entry) => entry.port === port);
      return all.find((entry) => entry.primaryId === primary?.id && !entry.failed)?.port;
    },
    async healthy(timeoutMs = 20_000) {
      const ok = await waitFor(async () => {
        try {
          for (const node of live()) {
            const info = String(await pool.call(node.port, 'CLUSTER', 'INFO'));
            if (!info.includes('cluster_state:ok')) return false;
            const replication = String(await pool.call(node.port, 'INFO', 'replication'));
            if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
              return false;
          }
          // Every node has its role settled: as many primaries with slots as were created, each
          // with its replicas, and every running node agreeing.
          const all = await view();
          const serving = all.filter((entry) => entry.primary && !entry.failed && entry.slots.length > 0);
          return (
            serving.length === primaries &&
            serving.every(
              (primary) =>
                all.filter((entry) => entry.primaryId === primary.id && !entry.failed).length >= replicas,
            )
          );
        } catch {
          return false;
        }
      }, timeoutMs);
      if (!ok) throw new Error(`the cluster did not become healthy within ${timeoutMs} ms`);
    },
    stop,
  };
  try {
    await cluster.healthy();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** A primary, its replica and Sentinels watching them, on loopback. */
export interface LocalRedisSentinel {
  /** ioredis Sentinel options: `{ sentinels, name }`. */
  readonly connection: { readonly sentinels: { host: string; port: number }[]; readonly name: string };
  readonly node: (port: number) => RedisNode;
  /** The port of the primary the Sentinels currently name. */
  primary(): Promise<number>;
  /** The port of a replica in sync with the current primary, if any. */
  replica(): Promise<number | undefined>;
  /** Waits until a primary and `replicas` in-sync replicas are known to every Sentinel. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const SENTINEL_MASTER = 'mymaster';

/**
 * Starts a primary, one replica and three Sentinels (quorum 2). `downAfterMs` is the Sentinels'
 * down-after-milliseconds: how long the primary must be unreachable before a failover starts.
 */
export async function startRedisSentinel(
  options: { downAfterMs?: number; failoverTimeoutMs?: number } = {},
): Promise<LocalRedisSentinel> {
  const [primaryPort, replicaPort, ...sentinelPorts] = await freePortRange(5, false);
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-sentinel-'));
  const nodes = new Map<number, RedisNode>();
  const dataArgs = (port: number): string[] => [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', path.join(dir, String(port)),
    '--save', '',
    '--appendonly', 'no',
    '--maxmemory-policy', 'noeviction',
    '--repl-diskless-sync-delay', '0',
    '--logfile', path.join(dir, String(port), 'redis.log'),
  ]; // prettier-ignore
  for (const port of [primaryPort!, replicaPort!]) {
    mkdirSync(path.join(dir, String(port)));
    const args = [
      ...dataArgs(port),
      ...(port === replicaPort ? ['--replicaof', '127.0.0.1', String(primaryPort)] : []),
    ];
    nodes.set(port, startNode(port, args, path.join(dir, String(port))));
  }
  /** Started once the replica is in sync: a Sentinel learns replicas from the primary's INFO, read every 10 s. */
  const startSentinels = (): void => {
    for (const port of sentinelPorts) {
      const sentinelDir = path.join(dir, String(port));
      mkdirSync(sentinelDir);
      const config = path.join(sentinelDir, 'sentinel.conf');
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${sentinelDir}`,
          `logfile ${path.join(sentinelDir, 'sentinel.log')}`,
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${options.downAfterMs ?? 500}`,
          `sentinel failover-timeout ${SENTINEL_MASTER} ${options.failoverTimeoutMs ?? 1000}`,
          `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
          '',
        ].join('\n'),
      );
      nodes.set(port, startNode(port, [config, '--sentinel'], sentinelDir));
    }
  };
  const pool = connections();
  const stop = async (): Promise<void> => {
    pool.close();
    await Promise.all([...nodes.values()].map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  const ask = async (...args: string[]): Promise<unknown> => {
    for (const port of sentinelPorts) {
      if (!nodes.get(port)!.running) continue;
      try {
        return await pool.call(port, 'SENTINEL', ...args);
      } catch {
        // Try the next Sentinel.
      }
    }
    throw new Error('no Sentinel answers');
  };
  const topology: LocalRedisSentinel = {
    connection: {
      sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: SENTINEL_MASTER,
    },
    node(port) {
      const found = nodes.get(port);
      if (found === undefined) throw new Error(`no Redis node on ${port}`);
      return found;
    },
    async primary() {
      const [, port] = (await ask('GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER)) as [string, string];
      return Number(port);
    },
    async replica() {
      const primary = await topology.primary();
      for (const port of [primaryPort!, replicaPort!]) {
        if (port === primary || !nodes.get(port)!.running) continue;
        try {
          const info = String(await pool.call(port, 'INFO', 'replication'));
          if (info.includes(`master_port:${primary}`) && info.includes('master_link_status:up')) return port;
        } catch {
          // Not answering: not a usable replica.
        }
      }
      return undefined;
    },
    async healthy(timeoutMs = 20_000) {
      const ok = await waitFor(async () => {
        try {
          const primary = await topology.primary();
          if (!nodes.get(primary)?.running) return false;
          if ((await topology.replica()) === undefined) return false;
          // Every Sentinel knows the primary, the in-sync replica and the two other Sentinels.
          for (const port of sentinelPorts) {
            const [, named] = (await pool.call(
              port,
              'SENTINEL',
              'GET-MASTER-ADDR-BY-NAME',
              SENTINEL_MASTER,
            )) as [string, string];
            if (Number(named) !== primary) return false;
            const others = (await pool.call(port, 'SENTINEL', 'SENTINELS', SENTINEL_MASTER)) as unknown[];
            if (others.length < sentinelPorts.length - 1) return false;
            const replicas = (await pool.call(port, 'SENTINEL', 'REPLICAS', SENTINEL_MASTER)) as string[][];
            const up = replicas.filter((fields) => {
              const flags = fields[fields.indexOf('flags') + 1] ?? '';
              return !flags.includes('down') && !flags.includes('disconnected');
            });
            if (up.length < 1) return false;
          }
          return true;
        } catch {
          return false;
        }
      }, timeoutMs);
      if (!ok) throw new Error(`the Sentinel topology did not become healthy within ${timeoutMs} ms`);
    },
    stop,
  };
  try {
    for (const port of [primaryPort!, replicaPort!]) {
      if (!(await waitFor(async () => (await ping(port)) === 'PONG', 10_000))) {
        throw new Error(`redis-server on ${port} did not start`);
      }
    }
    const synced = await waitFor(
      async () =>
        String(await command(replicaPort!, 'INFO', 'replication')).includes('master_link_status:up'),
      10_000,
    );
    if (!synced) throw new Error(`the replica on ${replicaPort} did not sync`);
    startSentinels();
    await topology.healthy();
  } catch (error) {
    await stop();
    throw error;
  }
  return topology;
}
