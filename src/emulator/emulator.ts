import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { WebhookConfig, WebhookType } from '../schemas/index.js';
import { createClock, type EmulatorClock } from './clock.js';
import type { EmulatorContext, EmulatorPrefixes, RouteGroup } from './context.js';
import {
  createDeliverer,
  type DeliveryAttempt,
  type DeliveryLogEntry,
  type DeliveryState,
  type RetryOptions,
} from './emit/delivery.js';
import { createEmitter } from './emit/emitter.js';
import {
  createFaultPlanner,
  faultProbabilitiesSchema,
  queuedFaultSchema,
  type Fault,
  type FaultProbabilities,
} from './emit/faults.js';
import { createEmulatorApp } from './http/app.js';
import { createInspector } from './inspector/index.js';
import { createRouter, type Router } from './http/router.js';
import { parseBody } from './http/validate.js';
import { createSeededRandom } from './random.js';
import { controlRoutes } from './routes/control.js';
import { API_ROUTE_GROUPS } from './routes/index.js';
import { toWebhookConfigRow } from './routes/webhook-config.js';
import { BadRequestError, NotFoundError } from './errors.js';
import {
  applySeed,
  createDefaultSeed,
  SeedError,
  createEmptyState,
  findNumber,
  type EmulatorChatParticipant,
  type EmulatorSeed,
  type EmulatorState,
  type OutboundMessage,
} from './state.js';
import { createTriggers, type Triggers } from './triggers.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';

/** Options of {@link createEmulator}. */
export interface EmulatorOptions {
  /**
   * Initial state. `'default'`: the zero-config seed (see {@link createDefaultSeed}; its API
   * keys are in `emulator.describe()`); `'empty'`: nothing; or a seed of your own.
   * @default 'default'
   */
  readonly seed?: EmulatorSeed | 'default' | 'empty';
  /**
   * `{messaging_prefix}`: prepended to every `/Messaging/...` path. The documentation does not
   * give its value. Example: `'/api'` serves `/api/Messaging/MessagingClientWebHook`.
   * @default ''
   */
  readonly messagingPrefix?: string;
  /**
   * `{chat_prefix}`: prepended to every `/ChatParticipant...` path (live chat).
   * @default '/chat'
   */
  readonly chatPrefix?: string;
  /**
   * The emulator clock, or the start time of a new manual clock (Unix ms). Payload timestamps,
   * sentTime/deliveryTime/... and flag periods read it; move it with `advanceClock`.
   * @default a manual clock starting at the wall-clock time
   */
  readonly clock?: EmulatorClock | number;
  /**
   * Retry schedule of failed deliveries (not documented by the platform).
   * `{ attempts: 1 }` turns retries off.
   * @default { attempts: 3 } with the dispatcher's exponential backoff from 1 s (1 s, 2 s, ...)
   */
  readonly retry?: RetryOptions;
  /**
   * Deliveries in flight at once, over keep-alive connections. One conversation's events to one
   * URL still go out one at a time, in order (the documentation is silent on concurrency; a
   * receiver expects a conversation in order). The default, `1`, keeps the global emission
   * order across URLs and conversations, which tests and examples assert on; raise it (e.g. 32)
   * for load tests and replays.
   * @default 1
   */
  readonly deliveryConcurrency?: number;
  /** Called after every delivery attempt (`emulator --verbose` prints these). @default none */
  readonly onDeliveryAttempt?: (attempt: DeliveryAttempt) => void;
  /**
   * Per-attempt delivery timeout, real milliseconds ("respond with 200 OK within 5 seconds"): no
   * answer head within it, or a pause that long inside the answer's body (undici's timeouts).
   * @default 5000
   */
  readonly timeoutMs?: number;
  /**
   * Extra headers sent with every delivery, e.g. a token your receiver checks. The platform's
   * signing of webhook requests is not shown in the documentation, so none is added by default.
   * @default {}
   */
  readonly deliveryHeaders?: Readonly<Record<string, string>>;
  /**
   * Most delivery log entries kept (the oldest finished ones are dropped beyond it).
   * @default 10000
   */
  readonly deliveryLogLimit?: number;
  /** Random faults applied to every delivery from the start. @default none */
  readonly faults?: FaultProbabilities;
  /** Route groups added after the built-in ones (for extensions). @default [] */
  readonly routeGroups?: readonly RouteGroup[];
  /** Logger. @default pino({ level: 'silent' }) */
  readonly logger?: Logger;
}

/** Filter of {@link Emulator.deliveries}. */
export interface DeliveryFilter {
  readonly type?: WebhookType | undefined;
  readonly state?: DeliveryState | undefined;
}

/** A summary of the seeded state: what a test needs to call the API (API keys, number ids). */
export interface EmulatorDescription {
  readonly url: string | undefined;
  readonly prefixes: EmulatorPrefixes;
  readonly clock: number;
  readonly clients: readonly { readonly id: string; readonly clientRef: string }[];
  readonly users: readonly {
    readonly id: string;
    readonly clientRef: string;
    readonly email: string;
    readonly apiKey: string;
    readonly role: string;
    readonly liveChatRole: string | null;
    readonly availabilityStatus: boolean;
    readonly agentChatLimit: number;
  }[];
  readonly teams: readonly { readonly id: string; readonly clientRef: string; readonly name: string }[];
  readonly numbers: readonly {
    readonly id: string;
    readonly clientRef: string;
    readonly messagingNumberId: string;
    readonly msisdn: string;
    readonly kind: string;
    readonly session: { readonly statusType: string | null; readonly flaggedUntil: number | null } | null;
  }[];
}

/** An emulator of the platform: its HTTP API, its state and the events it emits. */
export interface Emulator extends Triggers {
  /** The base URL once listening, else undefined. */
  readonly url: string | undefined;
  readonly state: EmulatorState;
  readonly clock: EmulatorClock;
  readonly prefixes: EmulatorPrefixes;
  /** The node:http request listener, to mount the emulator in a server of your own. */
  readonly listener: RequestListener;
  /** The route table (add routes before listening). */
  readonly router: Router;
  /** Starts the HTTP server on 127.0.0.1 (by default); resolves with the base URL. @default port 0 */
  listen(port?: number, host?: string): Promise<string>;
  /** Waits for in-flight deliveries, then stops the server. */
  close(): Promise<void>;
  /**
   * Clears state, delivery log and faults, puts the clock back to its start time (unless the
   * clock was passed in), then loads `seed` (default: the constructor's seed).
   */
  reset(seed?: EmulatorSeed | 'default' | 'empty'): void;
  /** Seeded state summary, API keys included. */
  describe(): EmulatorDescription;
  /** Moves the emulator clock forward; returns the new time (Unix ms). */
  advanceClock(ms: number): number;
  /** Sets the emulator clock (Unix ms). */
  setClock(time: number): number;
  /** The delivery log, oldest first. */
  deliveries(filter?: DeliveryFilter): readonly DeliveryLogEntry[];
  /**
   * Sends a logged delivery's body again to its URL, like `stripe events resend`: a new log entry
   * with `resendOf` set to the original's id. Throws NotFoundError for an unknown id.
   */
  resend(deliveryId: string): DeliveryLogEntry;
  /**
   * The delivery log's change feed: `listener` gets each entry created or changed, and null when
   * the log is cleared. Returns the unsubscribe function.
   */
  subscribeDeliveries(listener: (entry: DeliveryLogEntry | null) => void): () => void;
  clearDeliveries(): void;
  /** Applies `fault` to the next `count` deliveries (of `type`, when given). */
  injectFault(fault: Fault, options?: { readonly type?: WebhookType; readonly count?: number }): void;
  /** Random faults for every delivery (null turns them off). */
  setFaultProbabilities(probabilities: FaultProbabilities | null): void;
  /** Drops queued faults and probabilities. */
  clearFaults(): void;
  /** Resolves when no delivery is queued, held or in flight. */
  idle(): Promise<void>;
  /** Scope rules 1–3: the configuration that applies to events on a number (msisdn or id). */
  webhookConfigFor(number: string): WebhookConfig | undefined;
  chatParticipant(id: string): Readonly<EmulatorChatParticipant> | undefined;
  chatParticipants(): readonly Readonly<EmulatorChatParticipant>[];
  message(gstId: string): Readonly<OutboundMessage> | undefined;
}

/** Default of {@link EmulatorOptions.deliveryConcurrency}. */
export const DEFAULT_DELIVERY_CONCURRENCY = 1;

/** The keys of {@link EmulatorOptions}; anything else throws at construction. */
export const EMULATOR_OPTION_KEYS = optionKeys<EmulatorOptions>()([
  'seed',
  'messagingPrefix',
  'chatPrefix',
  'clock',
  'retry',
  'deliveryConcurrency',
  'onDeliveryAttempt',
  'timeoutMs',
  'deliveryHeaders',
  'deliveryLogLimit',
  'faults',
  'routeGroups',
  'logger',
]);
const EMULATOR_RETRY_KEYS = optionKeys<RetryOptions>()(['attempts', 'backoffMs']);
const FAULT_PROBABILITY_KEYS = Object.keys(faultProbabilitiesSchema.shape);

function validateOptions(options: EmulatorOptions): void {
  checkOptions('createEmulator', options, EMULATOR_OPTION_KEYS);
  checkNestedKeys('createEmulator', 'retry', options.retry, EMULATOR_RETRY_KEYS);
  checkNestedKeys('createEmulator', 'faults', options.faults, FAULT_PROBABILITY_KEYS);
  const { retry, timeoutMs } = options;
  const counts = {
    'retry.attempts': retry?.attempts,
    deliveryConcurrency: options.deliveryConcurrency,
    deliveryLogLimit: options.deliveryLogLimit,
  };
  for (const [name, count] of Object.entries(counts)) {
    if (count !== undefined && (!Number.isInteger(count) || count < 1)) {
      throw new TypeError(`${name} must be an integer >= 1, got ${String(count)}`);
    }
  }
  if (
    retry?.backoffMs !== undefined &&
    typeof retry.backoffMs !== 'function' &&
    (typeof retry.backoffMs !== 'number' || retry.backoffMs < 0)
  ) {
    throw new TypeError(
      `retry.backoffMs must be a number >= 0 or a function, got ${String(retry.backoffMs)}`,
    );
  }
  if (options.onDeliveryAttempt !== undefined && typeof options.onDeliveryAttempt !== 'function') {
    throw new TypeError(`onDeliveryAttempt must be a function, got ${typeof options.onDeliveryAttempt}`);
  }
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new TypeError(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  for (const name of ['messagingPrefix', 'chatPrefix'] as const) {
    const prefix = options[name];
    if (prefix !== undefined && (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/')))) {
      throw new TypeError(`${name} must be '' or start with '/', got ${JSON.stringify(prefix)}`);
    }
  }
}

/** The `faults` option parsed, or a TypeError naming the field. */
function parseFaultOption(probabilities: FaultProbabilities | undefined) {
  if (probabilities === undefined) return null;
  const parsed = faultProbabilitiesSchema.safeParse(probabilities);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new TypeError(
    `faults.${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'} (expected probabilities 0-1, delayMs, seed)`,
  );
}

function resolveSeed(seed: EmulatorSeed | 'default' | 'empty' | undefined): EmulatorSeed {
  if (seed === undefined || seed === 'default') return createDefaultSeed();
  if (seed === 'empty') return {};
  return seed;
}

/**
 * Creates an emulator of the platform: the webhook configuration and number lookup API with
 * its scope rules, and triggers that emit events to the configured URLs over real HTTP.
 *
 * @example
 * const emulator = createEmulator({ retry: { attempts: 1 } });
 * const url = await emulator.listen(); // http://127.0.0.1:<port>
 * // configure a webhook through the API, as a platform user would:
 * await fetch(`${url}/Messaging/MessagingClientWebHook`, {
 *   method: 'POST',
 *   headers: { authorization: 'emu-supervisor-key', 'content-type': 'application/json' },
 *   body: JSON.stringify({ incomingMessageURL: 'http://127.0.0.1:3000/webhooks/incoming' }),
 * });
 * emulator.customerMessage({ number: '+27820000001', from: '+27831234567', text: 'Hi' });
 * await emulator.idle();
 * await emulator.close();
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  validateOptions(options);
  const logger = options.logger ?? pino({ level: 'silent' });
  const clock =
    typeof options.clock === 'object' ? options.clock : createClock({ start: options.clock ?? 'real' });
  const prefixes: EmulatorPrefixes = {
    messaging: options.messagingPrefix ?? '',
    chat: options.chatPrefix ?? '/chat',
  };
  const ownsClock = typeof options.clock !== 'object';
  const startTime = clock.now();
  const state = createEmptyState();
  const now = (): Date => new Date(clock.now());
  applySeed(state, resolveSeed(options.seed), now());
  // The seed's users and keys: the inspector lists these API keys and no other (none made later).
  const seedKeys = (): Set<string> => new Set([...state.users.values()].map((u) => `${u.id} ${u.apiKey}`));
  let seeded = seedKeys();

  const faults = createFaultPlanner(createSeededRandom);
  const initialProbabilities = parseFaultOption(options.faults);
  faults.setProbabilities(initialProbabilities);
  const deliverer = createDeliverer({
    logger: logger.child({ component: 'emulator-delivery' }),
    retry: { attempts: options.retry?.attempts ?? 3, backoffMs: options.retry?.backoffMs },
    timeoutMs: options.timeoutMs ?? 5000,
    headers: options.deliveryHeaders ?? {},
    logLimit: options.deliveryLogLimit ?? 10_000,
    concurrency: options.deliveryConcurrency ?? DEFAULT_DELIVERY_CONCURRENCY,
    onAttempt: options.onDeliveryAttempt,
  });
  const emitter = createEmitter(state, clock, faults, deliverer);
  const triggers = createTriggers(state, clock, emitter);

  const context: EmulatorContext = { state, clock, logger, prefixes, now };
  const router = createRouter();
  // The Express app. Extension point: `http.extensions.use(...)` (e.g. the inspector's pages)
  // runs before the API routes and the JSON 404/405; see http/app.ts.
  const http = createEmulatorApp({ router, state, logger, now });
  const inspector = createInspector({
    state,
    clock,
    deliveries: () => deliverer.log(),
    subscribeDeliveries: (l) => deliverer.subscribe(l),
    isSeedKey: (userId, apiKey) => seeded.has(`${userId} ${apiKey}`),
  });
  http.extensions.use((req, res, next) => inspector.handle(req, res, next));
  let server: Server | undefined;
  let url: string | undefined;

  const emulator: Emulator = {
    ...triggers,
    get url() {
      return url;
    },
    state,
    clock,
    prefixes,
    listener: http.listener,
    router,
    async listen(port = 0, host = '127.0.0.1') {
      if (server !== undefined) throw new Error('The emulator is already listening');
      const created = createServer(http.listener);
      server = created;
      try {
        await once(created.listen(port, host), 'listening'); // rejects on an 'error' (port in use)
      } catch (error) {
        server = undefined;
        throw error;
      }
      const address = created.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${shownHost}:${address.port}`;
      return url;
    },
    async close() {
      inspector.close();
      await deliverer.close();
      const running = server;
      server = undefined;
      url = undefined;
      if (running === undefined) return;
      await new Promise<void>((resolve, reject) => {
        running.close((error) => (error === undefined ? resolve() : reject(error)));
        running.closeIdleConnections();
      });
    },
    reset(seed) {
      // a clock the emulator made goes back to its start; an injected clock is the caller's
      const resetTime = ownsClock ? startTime : clock.now();
      // seed a fresh state first: a bad seed is refused before anything is cleared
      const next = createEmptyState();
      try {
        applySeed(next, resolveSeed(seed ?? options.seed), new Date(resetTime));
      } catch (error) {
        if (error instanceof SeedError)
          throw new BadRequestError(error.message, { field: 'seed', cause: error });
        throw error;
      }
      for (const map of Object.values(state) as Map<string, unknown>[]) map.clear();
      deliverer.clearLog();
      faults.clear();
      clock.set(resetTime);
      faults.setProbabilities(initialProbabilities);
      for (const [key, map] of Object.entries(next)) {
        for (const [id, record] of map as Map<string, unknown>) {
          (state[key as keyof EmulatorState] as Map<string, unknown>).set(id, record);
        }
      }
      seeded = seedKeys();
    },
    describe() {
      const refOf = (clientId: string): string => state.clients.get(clientId)?.clientRef ?? '';
      return {
        url,
        prefixes,
        clock: clock.now(),
        clients: [...state.clients.values()].map(({ id, clientRef }) => ({ id, clientRef })),
        users: [...state.users.values()].map((user) => ({
          id: user.id,
          clientRef: refOf(user.clientId),
          email: user.email,
          apiKey: user.apiKey,
          role: user.role,
          liveChatRole: user.liveChatRole,
          availabilityStatus: user.availabilityStatus,
          agentChatLimit: user.agentChatLimit,
        })),
        teams: [...state.teams.values()].map((team) => ({
          id: team.id,
          clientRef: refOf(team.clientId),
          name: team.name,
        })),
        numbers: [...state.numbers.values()].map((number) => {
          const session = state.sessions.get(number.id);
          return {
            id: number.id,
            clientRef: refOf(number.clientId),
            messagingNumberId: number.messagingNumber.id,
            msisdn: number.messagingNumber.number,
            kind: number.kind,
            session:
              session === undefined
                ? null
                : { statusType: session.statusType, flaggedUntil: session.flaggedUntil },
          };
        }),
      };
    },
    advanceClock: (ms) => clock.advance(ms),
    setClock: (time) => clock.set(time),
    deliveries(filter = {}) {
      return deliverer
        .log()
        .filter(
          (entry) =>
            (filter.type === undefined || entry.type === filter.type) &&
            (filter.state === undefined || entry.state === filter.state),
        );
    },
    clearDeliveries: () => deliverer.clearLog(),
    resend(deliveryId) {
      const original = deliverer.log().find((entry) => entry.id === deliveryId);
      if (original === undefined) throw new NotFoundError(`No delivery ${deliveryId} in the log`);
      const { type, url: target, payload, messagingNumber, undocumented } = original;
      const request = { type, url: target, payload, messagingNumber, undocumented, faults: [] };
      return deliverer.enqueue({ ...request, emittedAt: clock.now(), resendOf: original.id });
    },
    subscribeDeliveries: (listener) => deliverer.subscribe(listener),
    injectFault(fault, faultOptions = {}) {
      faults.queue(parseBody(queuedFaultSchema, { fault, ...faultOptions }));
    },
    setFaultProbabilities(probabilities) {
      faults.setProbabilities(
        probabilities === null ? null : parseBody(faultProbabilitiesSchema, probabilities),
      );
    },
    clearFaults: () => faults.clear(),
    idle: () => deliverer.idle(),
    webhookConfigFor(numberRef) {
      const number = findNumber(state, numberRef);
      const config = number === undefined ? undefined : emitter.configFor(number);
      return config === undefined ? undefined : toWebhookConfigRow(config);
    },
    chatParticipant: (id) => state.chatParticipants.get(id),
    chatParticipants: () => [...state.chatParticipants.values()],
    message: (gstId) => state.messages.get(gstId),
  };

  for (const group of [...API_ROUTE_GROUPS, ...(options.routeGroups ?? [])]) group(router, context);
  controlRoutes(router, emulator, triggers);
  return emulator;
}
