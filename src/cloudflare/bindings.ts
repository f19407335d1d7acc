/*
 * The parts of the Workers runtime's bindings this entry uses, as structural types, so that its
 * declarations need neither @cloudflare/workers-types nor wrangler's generated types: the
 * runtime's own objects (and workers-types' declarations of them) satisfy them.
 */

/** Options of a Queues `send`. */
export interface QueueSendOptions {
  /** How the body is serialised; the dispatcher sends `json`. */
  readonly contentType?: 'json' | 'text' | 'bytes' | 'v8' | undefined;
  readonly delaySeconds?: number | undefined;
}

/** A Cloudflare Queues producer binding (`env.WEBHOOKS`, a `[[queues.producers]]` entry of wrangler.toml). */
export interface QueueProducer {
  send(body: unknown, options?: QueueSendOptions): Promise<unknown>;
}

/** One message of a batch handed to a Worker's `queue` handler. */
export interface QueueMessage {
  readonly id: string;
  readonly timestamp: Date;
  readonly body: unknown;
  /** Deliveries of this message so far, this one included (1 on the first). */
  readonly attempts: number;
  /** Marks the message delivered: it is not delivered again, whatever happens to the batch. */
  ack(): void;
  /** Delivers the message again later; past the consumer's `max_retries`, to its dead-letter queue. */
  retry(options?: { readonly delaySeconds?: number }): void;
}

/** What a Worker's `queue(batch, env, ctx)` handler receives. */
export interface QueueBatch {
  /** The queue's name. */
  readonly queue: string;
  readonly messages: readonly QueueMessage[];
}

/** A Durable Object id, as the namespace makes it (opaque here). */
export interface DurableObjectIdLike {
  toString(): string;
}

/** A stub of one Durable Object; this entry talks to it through `fetch`. */
export interface DurableObjectStubLike {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (`env.DEDUPE`, a `[[durable_objects.bindings]]` entry). */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): DurableObjectIdLike;
  get(id: DurableObjectIdLike): DurableObjectStubLike;
}

/** The storage of one Durable Object: the parts its key-value API the dedupe object uses. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(scheduledTime: number): Promise<void>;
}

/** The state the runtime hands a Durable Object's constructor. */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
}
