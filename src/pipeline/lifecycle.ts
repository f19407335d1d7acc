import type { DeadLetterJsonl } from '../capture/jsonl.js';
import type { DedupeStore } from '../dedupe/index.js';
import type { DeadLetter, Dispatcher } from '../dispatch/index.js';
import type { StoreCalls } from './calls.js';
import type { PipelineState } from './state.js';
import type { WebhookStats } from './stats.js';
import type { WebhookHealth } from './types.js';

/** What the lifecycle stage needs besides the shared state. */
export interface LifecycleSettings {
  readonly store: DedupeStore | undefined;
  readonly dispatcher: Dispatcher;
  /** Dead letters to a replayable file (`deadLetterSink`); undefined when not set. */
  readonly deadLetters: DeadLetterJsonl | undefined;
  /** Unfinished events at which readiness turns false; undefined when not applied. */
  readonly queueThreshold: number | undefined;
}

/** A pipeline's life beyond single requests: dead letters kept, readiness, close and hand-over. */
export interface Lifecycle {
  /** Writes a dead letter to `deadLetterSink` and forgets its claim, so a replay of the file runs it. */
  readonly keepDeadLetter: (deadLetter: DeadLetter) => void;
  /**
   * Stops accepting (503 from now on); waits up to `timeoutMs` for accepted events; true when all
   * ran. On a timeout, the events not run yet are handed over first (see {@link Lifecycle}).
   */
  readonly close: (timeoutMs?: number) => Promise<boolean>;
  readonly health: () => WebhookHealth;
  /** The counters, with each type's queued and running events as the dispatcher counts them. */
  readonly stats: () => WebhookStats;
}

export function createLifecycle(
  state: PipelineState,
  calls: StoreCalls,
  settings: LifecycleSettings,
): Lifecycle {
  const { options, logger, stats } = state;
  const { store, dispatcher, deadLetters, queueThreshold } = settings;
  /** Claims being forgotten for dead letters: close() waits for them before closing the store. */
  const forgetting = new Set<Promise<unknown>>();

  const snapshot = (): WebhookStats => stats.snapshot((type) => dispatcher.counts(type));

  function keepDeadLetter(deadLetter: DeadLetter): void {
    const { job } = deadLetter;
    if (!deadLetters!(deadLetter)) {
      logger.error(
        { requestId: job.requestId, type: job.type, file: deadLetters!.file },
        'dead letter not written',
      );
      return;
    }
    if (job.dedupeKey === undefined) return;
    const forgotten = calls.forget(job.dedupeKey);
    if (!(forgotten instanceof Promise)) return;
    forgetting.add(forgotten);
    void forgotten.finally(() => forgetting.delete(forgotten));
  }

  /**
   * After a close that timed out: the accepted events not run yet go to `onUnfinished` (awaited,
   * so a spill file is on disk before close resolves). Without `onUnfinished` they stay queued
   * and keep running while the process lives; the count is logged either way.
   */
  async function handOverUnfinished(): Promise<void> {
    const onUnfinished = options.onUnfinished;
    const { total } = snapshot();
    if (onUnfinished === undefined || dispatcher.withdraw === undefined) {
      logger.warn(
        { queued: total.queued, running: total.running },
        'close timed out: accepted events not finished (set onUnfinished to keep them)',
      );
      return;
    }
    const jobs = dispatcher.withdraw();
    logger.warn(
      { unfinished: jobs.length, running: total.running },
      'close timed out: events not run handed to onUnfinished; running callbacks may still finish',
    );
    if (jobs.length === 0) return;
    // Forget their claims: a replay of the spill, or the sender's redelivery, must run them.
    const releases: Promise<unknown>[] = [];
    for (const { job } of jobs) {
      if (job.dedupeKey === undefined) continue;
      const released = calls.forget(job.dedupeKey);
      if (released instanceof Promise) releases.push(released);
    }
    await Promise.all(releases);
    try {
      await onUnfinished(jobs);
    } catch (error) {
      logger.error({ err: error, unfinished: jobs.length }, 'onUnfinished failed: these events are lost');
    }
  }

  async function close(timeoutMs?: number): Promise<boolean> {
    state.closing = true;
    const drained = await dispatcher.close(timeoutMs);
    if (!drained) await handOverUnfinished();
    await deadLetters?.close().catch((error: unknown) => {
      logger.error({ err: error, file: deadLetters.file }, 'dead-letter file failed');
    });
    await Promise.all(forgetting);
    await store?.close?.();
    return drained;
  }

  function health(): WebhookHealth {
    const { total } = snapshot();
    const unfinished = total.queued + total.running;
    const reasons: string[] = [];
    if (state.closing) reasons.push('closing');
    // Turns false before the queue is full, so a load balancer drains this instance before it
    // has to answer 503.
    if (queueThreshold !== undefined && unfinished >= queueThreshold) reasons.push('queue_over_threshold');
    // A store or dispatcher with a health() of its own (the Redis ones: `redis_unreachable`).
    for (const part of [store, dispatcher]) {
      const more: unknown = part?.health?.().reasons;
      // a store or dispatcher of the user's may answer anything: strings only, each once
      if (!Array.isArray(more)) continue;
      for (const reason of more as unknown[]) {
        if (typeof reason === 'string' && !reasons.includes(reason)) reasons.push(reason);
      }
    }
    return { ready: reasons.length === 0, reasons, closing: state.closing, unfinished, queueThreshold };
  }

  return { keepDeadLetter, close, health, stats: snapshot };
}
