import type { Redis } from 'ioredis';
import type { RedisClient } from './connection.js';
import type { ComponentHealth } from '../dispatch/types.js';
import { withTimeout } from '../util/timeout.js';

export type { ComponentHealth } from '../dispatch/types.js';

const READY: ComponentHealth = Object.freeze({ ready: true, reasons: Object.freeze([]) });
const UNREACHABLE: ComponentHealth = Object.freeze({
  ready: false,
  reasons: Object.freeze(['redis_unreachable']),
});

/** The `health()` of a part whose only reason is its Redis connection (`createRedisProbe`). */
export function redisHealth(reachable: () => boolean): () => ComponentHealth {
  return () => (reachable() ? READY : UNREACHABLE);
}

/** Shortest time between two background PINGs of one client. */
const PING_EVERY_MS = 1000;

/**
 * Whether a client reaches Redis, answered synchronously for a readiness probe: false unless
 * ioredis's `status` is `ready` (a closed or refused connection shows at once), and false while
 * the last background PING failed or did not answer within `timeoutMs` (a hung Redis keeps the
 * connection open and the status `ready`). Each call starts a PING when none is on the wire and
 * the last is older than a second, so the answer is at most one probe behind; the probe itself
 * never waits on Redis.
 */
export function createRedisProbe(client: RedisClient, timeoutMs: number): () => boolean {
  let answered = true;
  let pinging = false;
  let lastPing = 0;
  const noAnswer = (): never => {
    throw new Error('no PING answer');
  };
  return () => {
    if (client.status !== 'ready') return false;
    const now = Date.now();
    if (!pinging && now - lastPing >= PING_EVERY_MS) {
      pinging = true;
      lastPing = now;
      withTimeout(client.ping(), timeoutMs, noAnswer).then(
        () => {
          answered = true;
          pinging = false;
        },
        () => {
          answered = false;
          pinging = false;
        },
      );
    }
    return answered;
  };
}

/** How often the replica probe reads `INFO replication` at most. */
const REPLICAS_EVERY_MS = 1000;
/**
 * A replica counts as present while its link is `online` and it acknowledged the primary's stream
 * within this many seconds (`lag`; replicas acknowledge every second): a stopped or cut-off replica
 * drops out within a couple of seconds though its link may stay up much longer.
 */
const MAX_REPLICA_LAG_S = 1;

/** Replicas of one primary's `INFO replication` that are online and acknowledging. */
function presentReplicas(info: string): number {
  let present = 0;
  for (const match of info.matchAll(/^slave\d+:(.*)$/gm)) {
    const fields = new Map(match[1]!.split(',').map((pair) => pair.split('=') as [string, string]));
    if (fields.get('state') === 'online' && Number(fields.get('lag') ?? Infinity) <= MAX_REPLICA_LAG_S)
      present += 1;
  }
  return present;
}

/** Readiness of the replica acknowledgement: see {@link createReplicaProbe}. */
export interface ReplicaProbe {
  /** False while the latest evidence says some primary lacks `replicas` present replicas. */
  enough(): boolean;
  /** Records the outcome of a replica acknowledgement (`WAIT`): the latest evidence. */
  record(enough: boolean): void;
}

/**
 * Whether every primary has the replicas `waitForReplicas` needs, answered synchronously for a
 * readiness probe from the latest evidence: the outcome of the last acknowledgement an enqueue
 * waited for, or the last background read of `INFO replication` on every primary (at most one a
 * second, started by a call), whichever is newer. A receiver taken out of its load balancer's
 * rotation sends no more `WAIT`s, so the background read is what brings it back once the replicas
 * are.
 */
export function createReplicaProbe(
  servers: () => readonly Redis[],
  replicas: number,
  timeoutMs: number,
): ReplicaProbe {
  let enough = true;
  let reading = false;
  let lastRead = 0;
  let recordedAt = 0;
  const noAnswer = (): never => {
    throw new Error('no INFO answer');
  };
  return {
    enough() {
      const now = Date.now();
      if (!reading && now - lastRead >= REPLICAS_EVERY_MS) {
        reading = true;
        lastRead = now;
        const started = now;
        Promise.all(
          servers().map((server) => withTimeout(server.info('replication'), timeoutMs, noAnswer)),
        ).then(
          (infos) => {
            reading = false;
            // An acknowledgement recorded meanwhile is newer evidence than this read.
            if (recordedAt <= started) enough = infos.every((info) => presentReplicas(info) >= replicas);
          },
          () => {
            reading = false;
          },
        );
      }
      return enough;
    },
    record(outcome) {
      enough = outcome;
      recordedAt = Date.now();
    },
  };
}
