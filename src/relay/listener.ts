import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import { backoffDelay } from '../dispatch/backoff.js';
import type { BackoffOptions } from '../dispatch/types.js';
import { createJsonlCapture, type JsonlCapture } from '../capture/jsonl-capture.js';
import { checkOptions, optionKeys } from '../util/options.js';
import { DEFAULT_TOKEN_HEADER } from '../util/token-header.js';
import type { RelayedEvent } from './buffer.js';
import { RELAY_EVENTS, RELAY_PATHS } from './relay.js';
import { readSse } from './sse.js';
import { answeredDuplicate } from '../pipeline/answered-duplicate.js';

/** Options of {@link createRelayListener}. */
export interface RelayListenerOptions {
  /** The relay's base URL, e.g. `https://relay.example.com`. */
  readonly relay: string;
  /** The relay's secret (`messaging-webhooks relay --secret`). */
  readonly secret: string;
  /** The local app's webhook base URL: each event goes to `<forwardTo><its path>` (`/chatbot`, ...). */
  readonly forwardTo: string;
  /** The local app's token, sent in the `x-webhook-token` header (the relay never forwards the platform's). @default none */
  readonly token?: string | undefined;
  /** Also append every event received to this JSONL capture file (`replay` and the testing helpers read it). @default none */
  readonly capture?: string | undefined;
  /** Conversations forwarded at once; one conversation's events always go one at a time, in order. @default 16 */
  readonly concurrency?: number | undefined;
  /** Per-request timeout of a forward, milliseconds. @default 10_000 */
  readonly timeoutMs?: number | undefined;
  /**
   * Attempts of a forward the app answered 5xx, 408 or 429 (then it is reported failed and
   * acknowledged: the capture file keeps it). An app that cannot be reached is retried until the
   * listener stops (it is restarting): the event stays on the relay meanwhile. @default 5
   */
  readonly attempts?: number | undefined;
  /** Waits between forward attempts and between reconnections. @default { delay: 500, maxDelay: 5000 } */
  readonly backoff?: BackoffOptions | undefined;
  /** Each answer of the local app (and each failed attempt). */
  readonly onForward?: ((report: ForwardReport) => void) | undefined;
  /** Connection news, as a line: connected, reconnecting, events dropped by the relay. */
  readonly onNotice?: ((notice: string) => void) | undefined;
}

/** The keys of {@link RelayListenerOptions}. */
const RELAY_LISTENER_OPTION_KEYS = optionKeys<RelayListenerOptions>()([
  'relay',
  'secret',
  'forwardTo',
  'token',
  'capture',
  'concurrency',
  'timeoutMs',
  'attempts',
  'backoff',
  'onForward',
  'onNotice',
]);

/** One forward of an event to the local app: its answer, or why there was none. */
export interface ForwardReport {
  readonly event: RelayedEvent;
  readonly url: string;
  readonly attempt: number;
  /** The app's HTTP status; undefined when it could not be reached. */
  readonly status: number | undefined;
  /** The app answered `{"duplicate": true}` (the receiver had the event already). */
  readonly duplicate: boolean;
  readonly latencyMs: number;
  /** Why the attempt failed (no answer, or a status the listener retries). */
  readonly error: string | undefined;
  /** True when the listener tries again. */
  readonly willRetry: boolean;
}

/** Counts of a listener. */
export interface RelayListenerStats {
  /** Events received from the relay (an event sent again after a reconnection counts again). */
  readonly received: number;
  /** Requests sent to the local app (retries included). */
  readonly forwarded: number;
  /** Events the app answered 2xx. */
  readonly answered: number;
  /** Of those, answered as duplicates. */
  readonly duplicates: number;
  /** Events the app refused (4xx) or kept failing (5xx). */
  readonly failed: number;
  /** Events acknowledged to the relay. */
  readonly acknowledged: number;
  /** Events the relay reports it dropped (buffer full). */
  readonly dropped: number;
}

/** A running listener. */
export interface RelayListener {
  /** Resolves once the first stream is open; rejects when the relay refuses (wrong secret, not a relay). */
  readonly connected: Promise<void>;
  /** Resolves when the listener has stopped (after `stop`), or rejects on a refusal. */
  readonly done: Promise<void>;
  stats(): RelayListenerStats;
  /**
   * Stops: no new event is taken, forwards in flight get up to `timeoutMs` to finish, done ones
   * are acknowledged, the capture file is closed. Unfinished events stay on the relay.
   */
  stop(timeoutMs?: number): Promise<void>;
}

/** Thrown when the relay refuses the listener (a wrong secret, or the URL is not a relay). */
export class RelayRefusedError extends Error {
  override readonly name = 'RelayRefusedError';
  readonly code = 'relay_refused' as const;
}

/** Headers not forwarded: the connection's own (the listener's request has its own). */
const HOP_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'accept-encoding',
]);
/** Statuses the platform would retry, as the listener does (a few times). */
const RETRIED = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/**
 * Connects to a relay ({@link createRelay}) over an outbound event stream and forwards every
 * event to the local app, one conversation in order, reporting each answer; acknowledges each
 * event once answered, so a restarted listener receives again what it had not finished. The
 * `messaging-webhooks listen` command.
 *
 * @example
 * const listener = createRelayListener({
 *   relay: 'https://relay.example.com', secret: process.env.RELAY_SECRET!,
 *   forwardTo: 'http://localhost:3000/webhooks', capture: '.captures/relay.jsonl',
 *   onForward: (r) => console.log(r.event.record.type, r.status),
 * });
 * await listener.connected;
 */
export function createRelayListener(options: RelayListenerOptions): RelayListener {
  checkOptions('createRelayListener', options, RELAY_LISTENER_OPTION_KEYS);
  for (const name of ['relay', 'forwardTo'] as const) {
    const value = options[name];
    if (typeof value !== 'string' || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
      throw new TypeError(`${name}: expected an http(s) URL, got ${JSON.stringify(value)}`);
    }
  }
  if (typeof options.secret !== 'string' || options.secret === '') {
    throw new TypeError('secret: expected the relay secret');
  }
  const relay = options.relay.replace(/\/+$/, '');
  const forwardTo = options.forwardTo.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const attempts = options.attempts ?? 5;
  const backoff: BackoffOptions = options.backoff ?? { delay: 500, maxDelay: 5000 };
  const notice = options.onNotice ?? (() => undefined);
  const capture: JsonlCapture | undefined =
    options.capture === undefined ? undefined : createJsonlCapture({ file: options.capture });
  const queue = new PQueue({ concurrency: options.concurrency ?? 16 });
  const abort = new AbortController();
  const counts = {
    received: 0,
    forwarded: 0,
    answered: 0,
    duplicates: 0,
    failed: 0,
    acknowledged: 0,
    dropped: 0,
  };
  /** Events taken and not finished, by id (a resent one already in hand is not taken twice). */
  const pending = new Set<number>();
  /** Finished events whose acknowledgement has not reached the relay yet. */
  const toAck = new Set<number>();
  /** The last event of each conversation: the next one waits for it. */
  const chains = new Map<string, Promise<void>>();
  let highest = 0;
  let stopping = false;
  let acking: Promise<void> | undefined;
  const authorization = `Bearer ${options.secret}`;

  let markConnected: () => void = () => undefined;
  let failConnected: (error: unknown) => void = () => undefined;
  const connected = new Promise<void>((resolve, reject) => {
    markConnected = resolve;
    failConnected = reject;
  });
  connected.catch(() => undefined);

  async function flushAcks(): Promise<void> {
    while (toAck.size > 0 && acking === undefined) {
      const ids = [...toAck].slice(0, 1000);
      acking = fetch(`${relay}${RELAY_PATHS.ack}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ ids }),
        signal: AbortSignal.timeout(timeoutMs),
      }).then(
        (response) => {
          if (!response.ok) return;
          for (const id of ids) toAck.delete(id);
          counts.acknowledged += ids.length;
        },
        // kept: sent again with the next batch, or covered by Last-Event-ID on reconnection
        () => undefined,
      );
      const sent = acking;
      await sent;
      acking = undefined;
      if (ids.every((id) => toAck.has(id))) return;
    }
  }

  async function forward(event: RelayedEvent): Promise<void> {
    const { record } = event;
    const url = `${forwardTo}${record.path}`;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(record.headers)) {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    headers['content-type'] ??= 'application/json';
    if (options.token !== undefined) headers[DEFAULT_TOKEN_HEADER] = options.token;
    for (let attempt = 1; ; attempt += 1) {
      if (stopping && attempt > 1) return;
      const started = performance.now();
      counts.forwarded += 1;
      let status: number | undefined;
      let text = '';
      let error: string | undefined;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers,
          body: record.body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        text = await response.text();
        if (RETRIED(status)) error = `HTTP ${status}`;
      } catch (failure) {
        const cause = (failure as { cause?: { code?: string } }).cause;
        error = cause?.code === 'ECONNREFUSED' ? 'connection refused' : (failure as Error).message;
      }
      const latencyMs = Math.round(performance.now() - started);
      const unreachable = status === undefined;
      const willRetry = error !== undefined && !stopping && (unreachable || attempt < attempts);
      const duplicate = answeredDuplicate(status ?? null, text);
      options.onForward?.({ event, url, attempt, status, duplicate, latencyMs, error, willRetry });
      if (willRetry) {
        await sleep(backoffDelay(backoff, attempt), undefined, { signal: abort.signal }).catch(
          () => undefined,
        );
        continue;
      }
      if (unreachable) return; // stopping: the relay keeps it
      if (status !== undefined && status < 300) {
        counts.answered += 1;
        if (duplicate) counts.duplicates += 1;
      } else counts.failed += 1;
      toAck.add(event.id);
      void flushAcks();
      return;
    }
  }

  function take(event: RelayedEvent): void {
    highest = Math.max(highest, event.id);
    if (pending.has(event.id) || stopping) return;
    if (toAck.has(event.id)) {
      // done here, its acknowledgement still on the way: acknowledge, do not forward again
      void flushAcks();
      return;
    }
    counts.received += 1;
    pending.add(event.id);
    capture?.(event.record);
    const previous = chains.get(event.orderingKey) ?? Promise.resolve();
    const run = previous
      .then(() => queue.add(() => forward(event)))
      .finally(() => {
        pending.delete(event.id);
        if (chains.get(event.orderingKey) === run) chains.delete(event.orderingKey);
      });
    chains.set(event.orderingKey, run);
  }

  /** What the relay may forget on reconnection: everything below the oldest event still in hand. */
  function lastEventId(): number {
    let oldest = Infinity;
    for (const id of pending) oldest = Math.min(oldest, id);
    return oldest === Infinity ? highest : Math.min(highest, oldest - 1);
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      try {
        const last = lastEventId();
        const response = await fetch(`${relay}${RELAY_PATHS.events}`, {
          headers: {
            authorization,
            accept: 'text/event-stream',
            ...(last > 0 ? { 'last-event-id': String(last) } : {}),
          },
          signal: abort.signal,
        });
        if (response.status === 401 || response.status === 404 || response.status === 405) {
          throw new RelayRefusedError(
            response.status === 401
              ? `the relay at ${relay} refused the secret (401)`
              : `${relay} is not a relay (${response.status} on ${RELAY_PATHS.events})`,
          );
        }
        if (response.status !== 200 || response.body === null)
          throw new Error(`the relay answered ${response.status}`);
        failures = 0;
        markConnected();
        notice(`connected to ${relay}; forwarding to ${forwardTo}`);
        for await (const message of readSse(response.body)) {
          if (message.event === RELAY_EVENTS.webhook) take(JSON.parse(message.data) as RelayedEvent);
          else if (message.event === RELAY_EVENTS.dropped) {
            const { dropped } = JSON.parse(message.data) as { dropped: number };
            if (dropped > counts.dropped)
              notice(`the relay dropped ${dropped} event(s) in all: its buffer was full`);
            counts.dropped = dropped;
          } else if (message.event === RELAY_EVENTS.replaced) {
            notice('another listener connected to the relay: this one stops');
            stopping = true;
          }
        }
        if (!stopping) notice('the relay closed the stream; reconnecting');
      } catch (error) {
        if (error instanceof RelayRefusedError) {
          failConnected(error);
          throw error;
        }
        if (stopping) break;
        failures += 1;
        notice(`relay unreachable (${(error as Error).message}); reconnecting`);
      }
      if (!stopping) {
        await sleep(backoffDelay(backoff, Math.max(1, failures)), undefined, { signal: abort.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  const done = run();
  done.catch(() => undefined);

  return {
    connected,
    done,
    stats: () => ({ ...counts }),
    async stop(timeout = timeoutMs) {
      stopping = true;
      const finished = Promise.allSettled([...chains.values()]);
      const timer = sleep(timeout, undefined, { ref: false });
      await Promise.race([finished, timer]);
      abort.abort();
      await acking;
      await flushAcks();
      await done.catch(() => undefined);
      await capture?.close();
    },
  };
}
