import { newId } from '../ids.js';
// not the global: a test that fakes timers must not freeze a cut answer's abort
import { setImmediate } from 'node:timers';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import { backoffDelay } from '../../dispatch/backoff.js';
import type { WebhookType } from '../../schemas/index.js';
import type { FaultKind, ResolvedFault } from './faults.js';
import { SELF_DELIVERY_HEADER, type SelfDeliveryGuard } from './self-delivery.js';

/** Retry schedule of failed deliveries (not shown in the documentation: an emulator choice). */
export interface DeliveryRetryOptions {
  /**
   * Total attempts per delivery, the first included. `1` turns retries off.
   * @default 3
   */
  readonly attempts?: number;
  /**
   * Real milliseconds to wait before attempt `n + 1` after attempt `n` failed: a number (the
   * same wait every time) or a function of `n` (1-based).
   * @default the dispatcher's exponential backoff from 1 s: 1 s, 2 s, ... (src/dispatch/backoff.ts)
   */
  readonly backoffMs?: number | ((failedAttempt: number) => number) | undefined;
}

/** One finished delivery attempt, as `onDeliveryAttempt` (and `emulator --verbose`) sees it. */
export interface DeliveryAttempt {
  readonly id: string;
  readonly type: WebhookType;
  readonly url: string;
  readonly attempt: number;
  /** HTTP status, or null when there was none (connection error, timeout, injected failure). */
  readonly status: number | null;
  /** Real duration of the attempt, milliseconds. */
  readonly ms: number;
  readonly error: string | null;
  readonly undocumented: boolean;
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
  /** For a resend (`emulator.resend`): the id of the delivery whose body it sends again. */
  readonly resendOf: string | null;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** HTTP status of the last attempt, or null when it got none. */
  responseStatus: number | null;
  /** Real duration of the last attempt, milliseconds. */
  latencyMs: number | null;
  /** Why the last attempt failed, or null. */
  error: string | null;
  /**
   * The receiver's answer to the last attempt when it answered JSON (`application/json` or a
   * `+json` type): its first 1024 bytes. Null for any other answer (an
   * HTML page, text) or none: a delivery URL may name any local service, whose answers the log
   * must not make readable.
   */
  responseBody: string | null;
}

/** What the emitter hands to the deliverer. */
interface DeliveryRequest extends Pick<
  DeliveryLogEntry,
  'type' | 'url' | 'payload' | 'messagingNumber' | 'emittedAt'
> {
  readonly faults: readonly ResolvedFault[];
  /**
   * Deliveries with the same key go out one at a time, in emission order (one conversation's
   * events to one URL). @default the URL and the messaging number
   */
  readonly orderKey?: string;
  /** Drift simulation (see {@link DeliveryLogEntry.undocumented}). @default false */
  readonly undocumented?: boolean;
  /** See {@link DeliveryLogEntry.resendOf}. @default null */
  readonly resendOf?: string | null;
}

/** Options of {@link createDeliverer}. */
export interface DelivererOptions {
  readonly logger: Logger;
  readonly retry: { readonly attempts: number; readonly backoffMs?: DeliveryRetryOptions['backoffMs'] };
  /** Per-attempt timeout, real milliseconds. */
  readonly timeoutMs: number;
  /** Extra headers on every delivery. */
  readonly headers: Readonly<Record<string, string>>;
  /** Most log entries kept; the oldest finished ones are dropped beyond it. */
  readonly logLimit: number;
  /** Deliveries in flight at once (across order keys). */
  readonly concurrency: number;
  /** Called after every attempt. */
  readonly onAttempt?: ((attempt: DeliveryAttempt) => void) | undefined;
  /** Longest `idle()` and `close()` wait for deliveries to finish, real milliseconds. */
  readonly settleTimeoutMs: number;
  /**
   * The emulator's own address guard: a URL it names is refused without sending, and every
   * delivery carries its id (see self-delivery.ts).
   */
  readonly self?: Pick<SelfDeliveryGuard, 'id' | 'selfTarget'> | undefined;
}

/** What `idle()` saw when it returned. */
export interface DeliveryIdleReport {
  /** True when nothing was queued, held or in flight any more; false when the bound came first. */
  readonly idle: boolean;
  /** The deliveries still queued, held or in flight at the bound (they go on); empty when idle. */
  readonly pending: readonly DeliveryLogEntry[];
}

/** What `close()` dropped. */
export interface DeliveryCloseReport {
  /**
   * The deliveries not finished within the bound: each left queued, held or in flight, now
   * `failed` with `error` saying it was dropped. Empty when every delivery finished.
   */
  readonly dropped: readonly DeliveryLogEntry[];
}

/** Delivers payloads, in emission order per order key, and keeps the delivery log. */
export interface Deliverer {
  enqueue(request: DeliveryRequest): DeliveryLogEntry;
  /**
   * Resolves when nothing is queued, held or in flight (held deliveries are released first), or
   * after `timeoutMs` (default `settleTimeoutMs`) with what is still pending: a delivery loop, a
   * receiver that never answers, cannot hold it forever.
   */
  idle(timeoutMs?: number): Promise<DeliveryIdleReport>;
  log(): readonly DeliveryLogEntry[];
  clearLog(): void;
  /**
   * The change feed of the log: `listener` is called with each entry created or changed (state,
   * attempt), and with null when the log is cleared. Returns the unsubscribe function.
   */
  subscribe(listener: (entry: DeliveryLogEntry | null) => void): () => void;
  /**
   * Waits for deliveries up to `timeoutMs` (default `settleTimeoutMs`), then drops what is left
   * (in-flight requests aborted, retries and delays cancelled, queued deliveries failed) and
   * closes the keep-alive connections; resolves with what it dropped. A later delivery reopens.
   */
  close(timeoutMs?: number): Promise<DeliveryCloseReport>;
}

interface Job {
  readonly entry: DeliveryLogEntry;
  readonly faults: readonly ResolvedFault[];
  readonly key: string;
  /** Scheduling order: lane heads start lowest first, so concurrency 1 is emission order. */
  order: number;
}

/**
 * Creates the deliverer: up to `concurrency` deliveries in flight over keep-alive connections
 * (an undici Agent), while deliveries sharing an order key (one conversation to one URL) go
 * out one at a time in emission order, as a receiver expects. Waiting deliveries start in
 * emission order, so `concurrency: 1` is the global emission order. Each attempt has its own
 * timeout; failed attempts are retried with the dispatcher's backoff.
 */
export function createDeliverer(options: DelivererOptions): Deliverer {
  const entries: DeliveryLogEntry[] = [];
  let sequence = 0;
  let scheduled = 0;
  let pending = 0;
  let active = 0;
  let held: Job[] = [];
  /** Per order key: its jobs, the head one running or waiting in `ready`. */
  const lanes = new Map<string, Job[]>();
  /** The lane heads waiting for a free slot, by `order` (a new lane's head goes last). */
  const ready: Job[] = [];
  const makeReady = (job: Job): void => {
    let [low, high] = [0, ready.length];
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((ready[middle] as Job).order < job.order) low = middle + 1;
      else high = middle;
    }
    ready.splice(low, 0, job);
  };
  let idleWaiters: (() => void)[] = [];
  let agent: Agent | undefined;
  const listeners = new Set<(entry: DeliveryLogEntry | null) => void>();
  const changed = (entry: DeliveryLogEntry | null): void => {
    if (listeners.size === 0) return;
    for (const listener of listeners) {
      // a subscriber's bug must not stop a delivery half-way
      try {
        listener(entry);
      } catch (error) {
        options.logger.error({ err: error }, 'delivery log subscriber failed');
      }
    }
  };
  const headers = {
    ...options.headers,
    'content-type': 'application/json',
    'user-agent': 'messaging-webhooks-emulator',
    ...(options.self === undefined ? {} : { [SELF_DELIVERY_HEADER]: options.self.id }),
  };
  /** Set while close() drops what is left: attempts, retries and delays stop at once. */
  let dropping = false;
  /** Sleeps (retry backoff, delay faults) that close() cuts short. */
  const sleeping = new Set<{ readonly timer: NodeJS.Timeout; readonly wake: () => void }>();
  function sleep(ms: number): Promise<void> {
    if (ms <= 0 || dropping) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          sleeping.delete(entry);
          resolve();
        }, ms),
        wake: resolve,
      };
      sleeping.add(entry);
    });
  }
  const DROPPED = 'Dropped: the emulator closed before this delivery finished';
  const unfinished = (): DeliveryLogEntry[] =>
    entries.filter((e) => e.state === 'queued' || e.state === 'held' || e.state === 'delivering');

  function schedule(job: Job): void {
    pending += 1;
    scheduled += 1;
    job.order = scheduled;
    const lane = lanes.get(job.key);
    if (lane === undefined) {
      lanes.set(job.key, [job]);
      makeReady(job);
    } else {
      lane.push(job);
    }
    pump();
  }

  function pump(): void {
    while (active < options.concurrency && ready.length > 0) {
      active += 1;
      void drive(ready.shift() as Job);
    }
  }

  async function drive(job: Job): Promise<void> {
    try {
      await run(job);
    } catch (error) {
      options.logger.error({ err: error, deliveryId: job.entry.id }, 'delivery crashed');
    }
    active -= 1;
    pending -= 1;
    const lane = lanes.get(job.key) as Job[];
    lane.shift();
    const next = lane[0];
    if (next === undefined) lanes.delete(job.key);
    else makeReady(next);
    trim();
    pump();
    notifyIfIdle();
  }

  function notifyIfIdle(): void {
    if (pending !== 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** A long-running emulator must not grow without bound: drops the oldest finished entries. */
  function trim(): void {
    while (entries.length > options.logLimit) {
      const finished = entries.findIndex((e) => e.state === 'delivered' || e.state === 'failed');
      if (finished < 0) return;
      // usually the oldest: shift() is cheap where splice(0, 1) copies the whole log (docs/bench.md)
      if (finished === 0) entries.shift();
      else entries.splice(finished, 1);
    }
  }

  function createEntry(request: DeliveryRequest, duplicateOf: string | null): DeliveryLogEntry {
    sequence += 1;
    const entry: DeliveryLogEntry = {
      id: newId(),
      sequence,
      type: request.type,
      url: request.url,
      payload: request.payload,
      messagingNumber: request.messagingNumber,
      emittedAt: request.emittedAt,
      faults: request.faults.map((fault) => fault.kind),
      duplicateOf,
      undocumented: request.undocumented ?? false,
      resendOf: request.resendOf ?? null,
      state: 'queued',
      attempts: 0,
      responseStatus: null,
      latencyMs: null,
      error: null,
      responseBody: null,
    };
    entries.push(entry);
    trim();
    changed(entry);
    return entry;
  }

  function waitBeforeRetry(failedAttempt: number): number {
    const schedule = options.retry.backoffMs;
    const ms =
      typeof schedule === 'function'
        ? schedule(failedAttempt)
        : backoffDelay(
            schedule === undefined
              ? { type: 'exponential', delay: 1000, maxDelay: Number.POSITIVE_INFINITY }
              : { type: 'fixed', delay: schedule, maxDelay: Number.POSITIVE_INFINITY },
            failedAttempt,
          );
    return Number.isFinite(ms) && ms > 0 ? ms : 0;
  }

  async function run({ entry, faults }: Job): Promise<void> {
    const self = options.self?.selfTarget(entry.url);
    if (self !== undefined) {
      // never sent: a delivery to the emulator itself would cause the next one
      entry.attempts = 0;
      entry.error = `Refused, not sent: ${entry.url} is ${self}`;
      entry.state = 'failed';
      changed(entry);
      return;
    }
    for (const fault of faults) if (fault.kind === 'delay') await sleep(fault.ms);
    const failFault = faults.find((fault) => fault.kind === 'fail');
    const injectedFailures =
      failFault?.kind === 'fail' ? (failFault.attempts ?? Number.POSITIVE_INFINITY) : 0;
    const body = JSON.stringify(entry.payload);
    entry.state = 'delivering';
    changed(entry);
    for (let attempt = 1; attempt <= options.retry.attempts; attempt += 1) {
      if (dropping) break;
      entry.attempts = attempt;
      const started = performance.now();
      const injected = attempt <= injectedFailures;
      const outcome = injected ? INJECTED_FAILURE : await post(entry.url, body);
      entry.latencyMs = injected ? 0 : Math.round(performance.now() - started);
      entry.responseStatus = outcome.status;
      entry.error = outcome.error;
      entry.responseBody = outcome.body;
      // the report is built only for someone who reads it (verbose, a debug logger)
      if (options.onAttempt !== undefined || options.logger.isLevelEnabled('debug')) {
        const { id, type, url, latencyMs: ms, error, undocumented } = entry;
        const report: DeliveryAttempt = {
          id,
          type,
          url,
          attempt,
          status: outcome.status,
          ms,
          error,
          undocumented,
        };
        options.logger.debug(report, error === null ? 'delivered' : 'delivery attempt failed');
        try {
          options.onAttempt?.(report);
        } catch (error) {
          // the user's callback must not leave the delivery stuck in `delivering`
          options.logger.error({ err: error }, 'onDeliveryAttempt failed');
        }
      }
      if (outcome.error === null) {
        entry.state = 'delivered';
        changed(entry);
        return;
      }
      changed(entry);
      if (attempt < options.retry.attempts) await sleep(waitBeforeRetry(attempt));
    }
    if (dropping) entry.error = entry.error === null ? DROPPED : `${DROPPED} (${entry.error})`;
    entry.state = 'failed';
    changed(entry);
  }

  /**
   * One POST over the keep-alive pool: 2xx is success; any other status, error or timeout fails.
   * undici's dispatch with a handler, not `request()`: no response stream nor body mixin per
   * delivery, less CPU per POST (figures: docs/bench.md).
   */
  function post(url: string, body: string): Promise<Outcome> {
    if (dropping) return Promise.resolve(DROPPED_OUTCOME);
    // the timeout: no response headers, or no body progress, within timeoutMs (undici's own timers)
    const { timeoutMs } = options;
    agent ??= new Agent({
      connections: options.concurrency,
      keepAliveTimeout: 4000,
      // whole milliseconds: undici's Client refuses a fractional timeout, which the option allows
      headersTimeout: Math.ceil(timeoutMs),
      bodyTimeout: Math.ceil(timeoutMs),
    });
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let kept = 0;
      let status = 0;
      let json = false;
      const answered = (): void => {
        const error = status >= 200 && status < 300 ? null : `Receiver answered ${status}`;
        resolve({ status, error, body: json ? decodeHead(chunks, kept) : null });
      };
      const failed = (error: Error & { code?: unknown }): void => {
        const timedOut = error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT';
        const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
        resolve({
          status: null,
          error: timedOut ? `Timed out after ${timeoutMs} ms` : error.message + cause,
          body: null,
        });
      };
      try {
        const { origin, pathname, search } = new URL(url);
        (agent as Agent).dispatch(
          { origin, path: pathname + search, method: 'POST', headers, body },
          {
            onRequestStart: () => undefined, // the new handler interface: undici wraps it (required)
            onResponseStart(_controller, statusCode, responseHeaders) {
              status = statusCode;
              json = isJson(responseHeaders['content-type']);
            },
            onResponseData(controller, chunk) {
              if (size > RESPONSE_READ_BYTES) return; // cut already: the rest is not read
              size += chunk.length;
              if (json && kept <= RESPONSE_BODY_BYTES) {
                chunks.push(chunk);
                kept += chunk.length;
              }
              if (size > RESPONSE_READ_BYTES) {
                answered();
                // The log keeps the first bytes. Aborted a turn later: an answer already buffered
                // completes in this parse and keeps its keep-alive connection (an abort now would
                // close it); only an answer still arriving is cut, dropping its connection.
                setImmediate(() => controller.abort(new Error('Answer head read')));
              }
            },
            onResponseEnd: answered,
            onResponseError: (_controller, error) => failed(error),
          },
        );
      } catch (error) {
        failed(error as Error); // a URL the log kept but undici refuses
      }
    });
  }

  function releaseHeld(): void {
    const released = held;
    held = [];
    for (const job of released) schedule(job);
  }

  const deliverer: Deliverer = {
    enqueue(request) {
      const key = request.orderKey ?? `${request.url} ${request.messagingNumber}`;
      const entry = createEntry(request, null);
      const isHeld = request.faults.some((fault) => fault.kind === 'outOfOrder');
      const released = held;
      held = [];
      const place = (job: Job): void => {
        if (!isHeld) return schedule(job);
        job.entry.state = 'held';
        changed(job.entry);
        held.push(job);
      };
      place({ entry, faults: request.faults, key, order: 0 });
      // a held delivery goes out right after the next one: that is the reordering
      for (const job of released) schedule(job);
      if (request.faults.some((fault) => fault.kind === 'duplicate')) {
        const copy = createEntry(
          { ...request, faults: request.faults.filter((fault) => fault.kind !== 'duplicate') },
          entry.id,
        );
        place({ entry: copy, faults: [], key, order: 0 });
      }
      return entry;
    },
    async idle(timeoutMs = options.settleTimeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      let late = false;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          late = true;
          resolve();
        }, timeoutMs);
        timer.unref();
      });
      try {
        while ((pending > 0 || held.length > 0) && !late) {
          releaseHeld();
          if (pending === 0) continue;
          let waiter: (() => void) | undefined;
          const settled = new Promise<void>((resolve) => {
            waiter = resolve;
            idleWaiters.push(resolve);
          });
          await Promise.race([settled, bound]);
          // a waiter the bound beat is not kept: an emulator that never settles must not grow
          idleWaiters = idleWaiters.filter((resolve) => resolve !== waiter);
        }
      } finally {
        clearTimeout(timer);
      }
      if (pending === 0 && held.length === 0) return { idle: true, pending: [] };
      const still = unfinished();
      options.logger.warn(
        { pending: still.length, timeoutMs },
        'deliveries still pending when idle() returned (a delivery loop, or a receiver that does not answer?)',
      );
      return { idle: false, pending: still };
    },
    log: () => entries,
    clearLog() {
      entries.length = 0;
      changed(null);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close(timeoutMs = options.settleTimeoutMs) {
      const { idle } = await deliverer.idle(timeoutMs);
      if (idle) {
        const open = agent;
        agent = undefined;
        await open?.close();
        return { dropped: [] };
      }
      // Drop what is left: queued and held deliveries fail at once, sleeps wake, in-flight
      // requests are aborted (their attempt fails, and no retry follows).
      dropping = true;
      const dropped = unfinished();
      const drop = (job: Job): void => {
        job.entry.error = DROPPED;
        job.entry.state = 'failed';
        changed(job.entry);
      };
      for (const job of held) drop(job);
      held = [];
      const waitingHeads = new Set(ready);
      ready.length = 0;
      for (const [key, lane] of lanes) {
        // a running head finishes on its own (below); everything behind it never starts
        const running = lane[0] !== undefined && !waitingHeads.has(lane[0]);
        for (const job of lane.splice(running ? 1 : 0)) {
          drop(job);
          pending -= 1;
        }
        if (lane.length === 0) lanes.delete(key);
      }
      notifyIfIdle();
      for (const entry of sleeping) {
        clearTimeout(entry.timer);
        entry.wake();
      }
      sleeping.clear();
      const open = agent;
      agent = undefined;
      await open?.destroy(new Error(DROPPED)).catch(() => undefined);
      // the jobs still running end now: no sleep, no attempt, no request left to wait for
      if (pending > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      dropping = false;
      options.logger.warn({ dropped: dropped.length }, 'deliveries dropped at close');
      return { dropped };
    },
  };
  return deliverer;
}

/** How much of a receiver's answer is read before the rest is cut (the connection then dropped). */
const RESPONSE_READ_BYTES = 4096;
/** How much of a receiver's JSON answer the log keeps. */
const RESPONSE_BODY_BYTES = 1024;

/** Whether a `content-type` is JSON (`application/json`, `application/problem+json`, ...). */
function isJson(contentType: string | string[] | undefined): boolean {
  const value = (Array.isArray(contentType) ? contentType[0] : contentType) ?? '';
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || /^[a-z]+\/[a-z0-9.+-]+\+json$/.test(type);
}

interface Outcome {
  readonly status: number | null;
  readonly error: string | null;
  readonly body: string | null;
}
const INJECTED_FAILURE: Outcome = { status: null, error: 'Injected failure (fault injection)', body: null };
const DROPPED_OUTCOME: Outcome = { status: null, error: 'Not sent: the emulator is closing', body: null };
const utf8 = new TextDecoder();

/** The answer's text, cut at `RESPONSE_BODY_BYTES` (an incomplete last character dropped). */
function decodeHead(chunks: readonly Buffer[], size: number): string {
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  if (size <= RESPONSE_BODY_BYTES) return utf8.decode(bytes);
  return new TextDecoder().decode(bytes.subarray(0, RESPONSE_BODY_BYTES), { stream: true });
}
