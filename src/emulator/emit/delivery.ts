import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhookType } from '../../schemas/index.js';
import type { FaultKind, ResolvedFault } from './faults.js';

/** Retry schedule of failed deliveries (not shown in the documentation: an emulator choice). */
export interface RetryOptions {
  /**
   * Total attempts per delivery, the first included. `1` turns retries off.
   * @default 3
   */
  readonly attempts?: number;
  /**
   * Real milliseconds to wait before attempt `n + 1` after attempt `n` failed: a number (the
   * same wait every time) or a function of `n` (1-based).
   * @default (n) => 1000 * 2 ** (n - 1)  (1 s, 2 s, ...)
   */
  readonly backoffMs?: number | ((failedAttempt: number) => number);
}

/** Where a delivery is in its life. */
export type DeliveryState = 'queued' | 'held' | 'delivering' | 'delivered' | 'failed';

/** One delivery: one payload POSTed (with retries) to one URL. Duplicates get their own entry. */
export interface DeliveryLogEntry {
  /** Unique id of this delivery. */
  readonly id: string;
  /** Order of creation, from 1. */
  readonly sequence: number;
  readonly type: WebhookType;
  readonly url: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The client number the event belongs to. */
  readonly messagingNumber: string;
  /** Emulator time (Unix ms) when the event was emitted. */
  readonly emittedAt: number;
  /** Faults injected into this delivery. */
  readonly faults: readonly FaultKind[];
  /** For a duplicate: the id of the delivery it duplicates. */
  readonly duplicateOf: string | null;
  /** True when a trigger opted out of the documented contract (`undocumented: true`). */
  readonly undocumented: boolean;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** HTTP status of the last attempt, or null when it got none. */
  responseStatus: number | null;
  /** Real duration of the last attempt, milliseconds. */
  latencyMs: number | null;
  /** Why the last attempt failed, or null. */
  error: string | null;
}

/** What the emitter hands to the deliverer. */
export interface DeliveryRequest {
  readonly type: WebhookType;
  readonly url: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly messagingNumber: string;
  readonly emittedAt: number;
  readonly faults: readonly ResolvedFault[];
  /** Drift simulation (see {@link DeliveryLogEntry.undocumented}). @default false */
  readonly undocumented?: boolean;
}

/** Options of {@link createDeliverer}. */
export interface DelivererOptions {
  readonly logger: Logger;
  readonly retry: Required<RetryOptions>;
  /** Per-attempt timeout, real milliseconds. */
  readonly timeoutMs: number;
  /** Extra headers on every delivery. */
  readonly headers: Readonly<Record<string, string>>;
  /** Most log entries kept; the oldest finished ones are dropped beyond it. */
  readonly logLimit: number;
}

/** Delivers payloads one at a time, in emission order, and keeps the delivery log. */
export interface Deliverer {
  enqueue(request: DeliveryRequest): DeliveryLogEntry;
  /** Resolves when nothing is queued, held or in flight (held deliveries are released first). */
  idle(): Promise<void>;
  log(): readonly DeliveryLogEntry[];
  clearLog(): void;
}

/**
 * Creates the deliverer. Deliveries run one at a time in emission order, so that order is the
 * baseline a receiver sees and `outOfOrder` faults are visible as such.
 */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const entries: DeliveryLogEntry[] = [];
  let sequence = 0;
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  let held: { entry: DeliveryLogEntry; faults: readonly ResolvedFault[] }[] = [];

  function schedule(entry: DeliveryLogEntry, faults: readonly ResolvedFault[]): void {
    pending += 1;
    chain = chain
      .then(() => run(entry, faults))
      .catch((error: unknown) => {
        options.logger.error({ err: error, deliveryId: entry.id }, 'delivery crashed');
      })
      .finally(() => {
        pending -= 1;
        trim();
      });
  }

  /** A long-running emulator must not grow without bound: drops the oldest finished entries. */
  function trim(): void {
    while (entries.length > options.logLimit) {
      const finished = entries.findIndex((e) => e.state === 'delivered' || e.state === 'failed');
      if (finished < 0) return;
      entries.splice(finished, 1);
    }
  }

  function createEntry(request: DeliveryRequest, duplicateOf: string | null): DeliveryLogEntry {
    sequence += 1;
    const entry: DeliveryLogEntry = {
      id: randomUUID(),
      sequence,
      type: request.type,
      url: request.url,
      payload: request.payload,
      messagingNumber: request.messagingNumber,
      emittedAt: request.emittedAt,
      faults: request.faults.map((fault) => fault.kind),
      duplicateOf,
      undocumented: request.undocumented ?? false,
      state: 'queued',
      attempts: 0,
      responseStatus: null,
      latencyMs: null,
      error: null,
    };
    entries.push(entry);
    trim();
    return entry;
  }

  async function run(entry: DeliveryLogEntry, faults: readonly ResolvedFault[]): Promise<void> {
    const log = options.logger.child({ deliveryId: entry.id, type: entry.type });
    for (const fault of faults) if (fault.kind === 'delay') await sleep(fault.ms);
    const failFault = faults.find((fault) => fault.kind === 'fail');
    const injectedFailures =
      failFault?.kind === 'fail' ? (failFault.attempts ?? Number.POSITIVE_INFINITY) : 0;
    entry.state = 'delivering';
    for (let attempt = 1; attempt <= options.retry.attempts; attempt += 1) {
      entry.attempts = attempt;
      if (attempt <= injectedFailures) {
        entry.responseStatus = null;
        entry.latencyMs = 0;
        entry.error = 'Injected failure (fault injection)';
      } else {
        const started = performance.now();
        const outcome = await post(entry.url, entry.payload, options.timeoutMs, options.headers);
        entry.latencyMs = Math.round(performance.now() - started);
        entry.responseStatus = outcome.status;
        entry.error = outcome.error;
        if (outcome.error === null) {
          entry.state = 'delivered';
          log.debug({ attempt, status: outcome.status }, 'delivered');
          return;
        }
      }
      log.debug({ attempt, error: entry.error }, 'delivery attempt failed');
      if (attempt < options.retry.attempts) await sleep(backoff(options.retry.backoffMs, attempt));
    }
    entry.state = 'failed';
  }

  return {
    enqueue(request) {
      const entry = createEntry(request, null);
      const isHeld = request.faults.some((fault) => fault.kind === 'outOfOrder');
      const released = held;
      held = [];
      if (isHeld) {
        entry.state = 'held';
        held.push({ entry, faults: request.faults });
      } else {
        schedule(entry, request.faults);
      }
      // a held delivery goes out right after the next one: that is the reordering
      for (const item of released) schedule(item.entry, item.faults);
      if (request.faults.some((fault) => fault.kind === 'duplicate')) {
        const copy = createEntry(
          { ...request, faults: request.faults.filter((fault) => fault.kind !== 'duplicate') },
          entry.id,
        );
        if (isHeld) {
          copy.state = 'held';
          held.push({ entry: copy, faults: [] });
        } else {
          schedule(copy, []);
        }
      }
      return entry;
    },
    async idle() {
      while (pending > 0 || held.length > 0) {
        const released = held;
        held = [];
        for (const item of released) schedule(item.entry, item.faults);
        await chain;
      }
    },
    log: () => entries,
    clearLog() {
      entries.length = 0;
    },
  };
}

function backoff(schedule: Required<RetryOptions>['backoffMs'], failedAttempt: number): number {
  const ms = typeof schedule === 'number' ? schedule : schedule(failedAttempt);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * POSTs a JSON body with a timeout. A 2xx answer is success; anything else (other status,
 * network error, timeout) is a failure with a reason. No keep-alive: every attempt is a fresh
 * connection, so closing a test receiver is never held up by the emulator.
 */
function post(
  url: string,
  payload: unknown,
  timeoutMs: number,
  headers: Readonly<Record<string, string>>,
): Promise<{ status: number | null; error: string | null }> {
  return new Promise((resolve) => {
    const body = JSON.stringify(payload);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ status: null, error: `Invalid URL ${url}` });
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (outcome: { status: number | null; error: string | null }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(target, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'messaging-webhooks-emulator',
        connection: 'close',
      },
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`Timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => {
        finish({ status, error: status >= 200 && status < 300 ? null : `Receiver answered ${status}` });
      });
      res.on('error', (error) => finish({ status, error: error.message }));
    });
    req.on('error', (error) => finish({ status: null, error: error.message }));
    req.end(body);
  });
}
