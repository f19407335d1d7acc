import type { DedupeStore } from '../dedupe/types.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../dedupe/memory.js';
import { CLAIM_PENDING_CODE } from '../pipeline/calls.js';
import { checkOptions, optionKeys, positiveNumber } from '../util/options.js';
import type { DurableObjectNamespaceLike, DurableObjectStateLike } from './bindings.js';

/**
 * How long a claim whose event is not yet enqueued blocks redeliveries: longer than the pipeline's
 * `enqueueTimeoutMs` (2 s by default), after which the pipeline releases the claim itself, and
 * short enough that a Worker that died between claim and enqueue does not make the sender's next
 * retries duplicates.
 */
export const DEFAULT_DURABLE_OBJECT_LEASE_MS = 3_000;
const MIN_LEASE_MS = 100;

/** Options of {@link createDurableObjectDedupeStore}. */
export interface DurableObjectDedupeStoreOptions {
  /**
   * The namespace binding of the {@link WebhookDedupeObject} class (`env.DEDUPE` for a
   * `[[durable_objects.bindings]]` entry with `name = "DEDUPE"` and
   * `class_name = "WebhookDedupeObject"`, exported from the Worker's main module).
   */
  readonly namespace: DurableObjectNamespaceLike;
  /** How long an accepted event is remembered, in milliseconds; covers the sender's retries. @default 3 days */
  readonly ttlMs?: number | undefined;
  /**
   * How long a fresh claim, not yet confirmed, holds off redeliveries (they are answered 503
   * `claim_held`, and the sender retries): keep it above the pipeline's `enqueueTimeoutMs`.
   * @default 3_000
   */
  readonly leaseMs?: number | undefined;
}

/** The keys of {@link DurableObjectDedupeStoreOptions}; anything else throws at construction. */
const DURABLE_OBJECT_DEDUPE_STORE_OPTION_KEYS = optionKeys<DurableObjectDedupeStoreOptions>()([
  'namespace',
  'ttlMs',
  'leaseMs',
]);

/**
 * A redelivery arrived while another request's claim of the same event awaits its enqueue. The
 * pipeline recognises its `code` and answers 503 `claim_held`: the sender retries.
 */
export class DurableObjectClaimPendingError extends Error {
  override readonly name = 'DurableObjectClaimPendingError';
  readonly code = CLAIM_PENDING_CODE;
  constructor() {
    super('the event is being enqueued by another request; retry later');
  }
}

/** The Durable Object dedupe store: a {@link DedupeStore} every isolate of the Worker shares. */
export interface DurableObjectDedupeStore extends DedupeStore {
  claim(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  confirm(key: string): Promise<void>;
  forget(key: string): Promise<void>;
}

/** What one dedupe object stores under {@link RECORD}: a lease with its token, or a confirmed claim. */
type Claim =
  | { readonly state: 'lease'; readonly token: string; readonly until: number }
  | { readonly state: 'done'; readonly until: number };

/** A request from the store to one object. */
interface Command {
  readonly op: 'claim' | 'release' | 'confirm' | 'forget';
  readonly token?: string | undefined;
  readonly ms?: number | undefined;
}

type Outcome = 'claimed' | 'duplicate' | 'held' | 'done';

const RECORD = 'claim';
const isCommand = (value: unknown): value is Command =>
  typeof value === 'object' &&
  value !== null &&
  ['claim', 'release', 'confirm', 'forget'].includes((value as { op?: unknown }).op as string);

/**
 * The Durable Object class behind {@link createDurableObjectDedupeStore}: one object per event
 * (its dedupe key is the object's name), holding that event's claim. A Durable Object runs one
 * request at a time and its storage reads and writes are atomic between them, so of two
 * concurrent claims of one event, in any isolates anywhere, exactly one wins: strongly consistent,
 * where Workers KV (eventually consistent) would let both through. Claims of different events go
 * to different objects and never wait for each other. An alarm at the claim's expiry deletes the
 * object's storage, so objects of old events cost nothing.
 *
 * Export it from the Worker's main module under the `class_name` of its binding, and declare it in
 * a migration (`new_sqlite_classes`, or `new_classes`: it uses only the key-value storage API).
 *
 * @example
 * export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';
 */
export class WebhookDedupeObject {
  readonly #state: DurableObjectStateLike;

  /** Called by the runtime, with the object's state (and the Worker's env, which it does not use). */
  constructor(state: DurableObjectStateLike) {
    this.#state = state;
  }

  /** Answers the store's commands (POST, a JSON body); anything else is 400. */
  async fetch(request: Request): Promise<Response> {
    let command: unknown;
    try {
      command = await request.json();
    } catch {
      command = undefined;
    }
    if (request.method !== 'POST' || !isCommand(command)) {
      return Response.json({ error: 'expected a POST of { op, token?, ms? }' }, { status: 400 });
    }
    return Response.json({ outcome: await this.#apply(command) });
  }

  /** Deletes an expired claim (and with it the object's storage); re-arms for a live one. */
  async alarm(): Promise<void> {
    const { storage } = this.#state;
    const claim = (await storage.get(RECORD)) as Claim | undefined;
    if (claim === undefined || claim.until <= Date.now()) await storage.deleteAll();
    else await storage.setAlarm(claim.until);
  }

  async #apply({ op, token, ms }: Command): Promise<Outcome> {
    const { storage } = this.#state;
    const now = Date.now();
    const stored = (await storage.get(RECORD)) as Claim | undefined;
    const claim = stored !== undefined && stored.until > now ? stored : undefined;
    switch (op) {
      case 'claim': {
        if (claim !== undefined) return claim.state === 'done' ? 'duplicate' : 'held';
        const until = now + (ms ?? DEFAULT_DURABLE_OBJECT_LEASE_MS);
        await storage.put(RECORD, { state: 'lease', token: token ?? '', until } satisfies Claim);
        await storage.setAlarm(until);
        return 'claimed';
      }
      case 'confirm': {
        // The event is enqueued: recorded whatever became of the lease.
        const until = now + (ms ?? DEFAULT_DEDUPE_TTL_MS);
        await storage.put(RECORD, { state: 'done', until } satisfies Claim);
        await storage.setAlarm(until);
        return 'done';
      }
      case 'release':
        // Only this claim's own lease: never a confirmed event, never a later claim's lease.
        if (claim?.state === 'lease' && claim.token === token) await storage.deleteAll();
        return 'done';
      case 'forget':
        if (claim?.state === 'done') await storage.deleteAll();
        return 'done';
    }
  }
}

/**
 * Creates a dedupe store on Durable Objects ({@link WebhookDedupeObject}): one event is accepted
 * once across every isolate and location of the Worker. Like the Redis store, a claim is first a
 * lease (`leaseMs`), confirmed for `ttlMs` once the event is enqueued, released (only by the
 * request that holds it) when the enqueue failed; a redelivery during a lease is answered 503
 * `claim_held`. When the object cannot be reached, `claim` rejects and the pipeline's
 * `dedupe.onStoreError` decides (default `reject`: 503).
 *
 * Nothing is done at construction, so the store can be made at module scope or in the handler.
 *
 * @example
 * createFetchHandler({ dedupe: { store: createDurableObjectDedupeStore({ namespace: env.DEDUPE }) }, ... });
 */
export function createDurableObjectDedupeStore(
  options: DurableObjectDedupeStoreOptions,
): DurableObjectDedupeStore {
  checkOptions('createDurableObjectDedupeStore', options, DURABLE_OBJECT_DEDUPE_STORE_OPTION_KEYS);
  const { namespace } = options;
  if (
    typeof namespace !== 'object' ||
    namespace === null ||
    typeof namespace.idFromName !== 'function' ||
    typeof namespace.get !== 'function'
  ) {
    throw new TypeError(
      `createDurableObjectDedupeStore: namespace: expected a Durable Object namespace binding (with idFromName() and get()), got ${namespace === null ? 'null' : typeof namespace}`,
    );
  }
  const ttlMs = Math.ceil(positiveNumber('ttlMs', options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS));
  const leaseMs = Math.ceil(positiveNumber('leaseMs', options.leaseMs ?? DEFAULT_DURABLE_OBJECT_LEASE_MS));
  if (leaseMs < MIN_LEASE_MS)
    throw new TypeError(`leaseMs: expected at least ${MIN_LEASE_MS}, got ${leaseMs}`);
  // The tokens of the leases this store holds, by key: a release deletes only its own lease.
  const held = new Map<string, string>();
  // Drawn at the first claim: a Worker may not generate random values at module scope.
  let storeId: string | undefined;
  let claims = 0;

  async function send(key: string, command: Command): Promise<Outcome> {
    const stub = namespace.get(namespace.idFromName(key));
    const response = await stub.fetch('https://dedupe.invalid/', {
      method: 'POST',
      body: JSON.stringify(command),
    });
    if (!response.ok) {
      throw new Error(`dedupe object answered ${response.status} to ${command.op}`);
    }
    return ((await response.json()) as { outcome: Outcome }).outcome;
  }

  return {
    async claim(key) {
      claims += 1;
      const token = `${(storeId ??= crypto.randomUUID())}:${claims.toString(36)}`;
      const outcome = await send(key, { op: 'claim', token, ms: leaseMs });
      if (outcome === 'claimed') {
        held.set(key, token);
        return true;
      }
      if (outcome === 'duplicate') return false;
      throw new DurableObjectClaimPendingError();
    },
    async release(key) {
      const token = held.get(key);
      if (token === undefined) return;
      held.delete(key);
      await send(key, { op: 'release', token });
    },
    async confirm(key) {
      held.delete(key);
      await send(key, { op: 'confirm', ms: ttlMs });
    },
    async forget(key) {
      await send(key, { op: 'forget' });
    },
  };
}
