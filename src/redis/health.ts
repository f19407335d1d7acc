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
