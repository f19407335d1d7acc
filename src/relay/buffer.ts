import type { CaptureRecord } from '../capture/types.js';

/** One webhook the relay accepted, as it is streamed to the listener. */
export interface RelayedEvent {
  /** Position in the relay's stream, from 1: the SSE `id` and what the listener acknowledges. */
  readonly id: number;
  /**
   * The request as the receiver captured it (the capture format of `replay`): the endpoint path
   * of its type, its headers without secrets, its body exactly as received.
   */
  readonly record: CaptureRecord;
  /** The event's ordering key (one conversation): the listener forwards one key's events in order. */
  readonly orderingKey: string;
  /** The request id the app sees: the platform's `x-request-id`, else the relay's. */
  readonly requestId: string;
}

/** Counts of a relay buffer. */
export interface RelayBufferStats {
  /** Events accepted from the platform. */
  readonly received: number;
  /** Events waiting for the listener's acknowledgement. */
  readonly buffered: number;
  /** Events acknowledged by a listener. */
  readonly acknowledged: number;
  /** Events dropped, oldest first, because `maxBuffered` were waiting. */
  readonly dropped: number;
}

/**
 * The events waiting for a listener: in acceptance order, each kept until acknowledged, at most
 * `max` (the oldest dropped and counted past that). Ids only grow, so "everything up to n" is a
 * prefix of the map's insertion order.
 */
export class RelayBuffer {
  private readonly events = new Map<number, RelayedEvent>();
  private next = 1;
  private counts = { received: 0, acknowledged: 0, dropped: 0 };

  constructor(private readonly max: number) {}

  /** Adds an accepted event; returns it and whether an older one was dropped to make room. */
  push(event: Omit<RelayedEvent, 'id'>): { event: RelayedEvent; dropped: boolean } {
    const added: RelayedEvent = { ...event, id: this.next++ };
    this.events.set(added.id, added);
    this.counts.received += 1;
    let dropped = false;
    if (this.events.size > this.max) {
      const oldest = this.events.keys().next().value;
      if (oldest !== undefined) this.events.delete(oldest);
      this.counts.dropped += 1;
      dropped = true;
    }
    return { event: added, dropped };
  }

  /** Forgets acknowledged events; unknown or already acknowledged ids are ignored. Returns how many went. */
  acknowledge(ids: readonly number[]): number {
    let removed = 0;
    for (const id of ids) if (this.events.delete(id)) removed += 1;
    this.counts.acknowledged += removed;
    return removed;
  }

  /** Forgets every event up to `id` (a reconnecting listener's `Last-Event-ID`: all of those are done). */
  acknowledgeUpTo(id: number): number {
    const done: number[] = [];
    for (const key of this.events.keys()) {
      if (key > id) break;
      done.push(key);
    }
    return this.acknowledge(done);
  }

  /** The waiting events, oldest first. */
  waiting(): RelayedEvent[] {
    return [...this.events.values()];
  }

  stats(): RelayBufferStats {
    return { ...this.counts, buffered: this.events.size };
  }
}
