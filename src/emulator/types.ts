import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { PlatformClient } from '../client/client.js';
import type { PathOverrides } from '../contract/index.js';
import type { DeliveryStatus, WebhookConfig, WebhookType } from '../schemas/index.js';
import type { EmulatorClock } from './clock.js';
import type { EmulatorPrefixes, RouteGroup } from './context.js';
import type {
  DeliveryAttempt,
  DeliveryCloseReport,
  DeliveryIdleReport,
  DeliveryLogEntry,
  DeliveryState,
  DeliveryRetryOptions,
} from './emit/delivery.js';
import type { Fault, FaultProbabilities } from './emit/faults.js';
import type { EmulatorFetch } from './http/in-process.js';
import type { Router } from './http/router.js';
import type {
  EmulatorChatParticipant,
  EmulatorSeed,
  EmulatorSnapshot,
  EmulatorSnapshotInput,
  EmulatorState,
  OutboundMessage,
  RetentionOptions,
} from './state/index.js';
import type { Triggers } from './triggers.js';

/*
 * The emulator's public types: its options and the Emulator interface. They live apart from
 * createEmulator (emulator.ts) so that the modules it wires together (the inspector, the control
 * routes) can name the Emulator without importing the module that imports them.
 */

/** Options of {@link createEmulator}. */
export interface EmulatorOptions {
  /**
   * Initial state. `'default'`: the zero-config seed (see {@link createDefaultSeed}; its API
   * keys are in `emulator.describe()`); `'empty'`: nothing; or a seed of your own.
   * @default 'default'
   */
  readonly seed?: EmulatorSeed | 'default' | 'empty';
  /**
   * Start from a snapshot instead of a seed (`emulator.snapshot()`, or a file the CLI's
   * --save-state wrote): every record and the clock. Validated; a bad one throws a TypeError
   * naming the field. Not together with `seed`. `reset()` comes back to it.
   * @default none (the seed)
   */
  readonly state?: EmulatorSnapshotInput;
  /**
   * How many closed chats, outbound messages and rating widgets a long run keeps (the oldest
   * go first); open chats, users, numbers and configurations are always kept, and the delivery
   * log has `deliveryLogLimit`.
   * @default { closedChats: 10000, messages: 100000, ratingWidgets: 10000, media: 1000, mediaBytes: 268435456 }
   */
  readonly retention?: RetentionOptions;
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
   * The emulator clock, or the start time of a new manual clock (Unix ms), or `'manual'` (a
   * manual clock from now), or `'real-time'`: a clock that runs with real time (the CLI's
   * default), so events seconds apart get different timestamps; `advanceClock` still moves it.
   * Payload timestamps, sentTime/deliveryTime/... and flag periods read it. A manual clock only
   * moves with `advanceClock`/`setClock`, so tests are deterministic.
   * @default a manual clock starting at the wall-clock time
   */
  readonly clock?: EmulatorClock | number | 'manual' | 'real-time';
  /**
   * Retry schedule of failed deliveries (not documented by the platform).
   * `{ attempts: 1 }` turns retries off.
   * @default { attempts: 3 } with the dispatcher's exponential backoff from 1 s (1 s, 2 s, ...)
   */
  readonly retry?: DeliveryRetryOptions;
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
  /** Route groups added after the platform API's operations (for extensions). @default [] */
  readonly routeGroups?: readonly RouteGroup[];
  /**
   * Check every answer of the platform API against its operation's response schema (the
   * schema the typed client checks and the OpenAPI document publishes) and the credential rule
   * (only deprecated operations return credential fields, at any depth): an answer that fails
   * becomes a 500 naming the operation and the field. On by default under a test runner, so a
   * test never passes on an answer the platform's contract does not allow.
   * @default true when `NODE_ENV` is `'test'` (jest and vitest set it), else false
   */
  readonly checkResponses?: boolean;
  /**
   * Longest `idle()` and `close()` wait for deliveries to finish, real milliseconds: a delivery
   * loop (a receiver that triggers the emulator on every event), a duplicate storm or a receiver
   * that never answers cannot hold them forever. At the bound `idle()` resolves with what is
   * still pending, and `close()` drops it (see {@link Emulator.close}).
   * @default 30000
   */
  readonly idleTimeoutMs?: number;
  /** Logger. @default pino({ level: 'silent' }) */
  readonly logger?: Logger;
  /**
   * More names the emulator answers to (e.g. `'emulator'`, a container's service name). Against
   * DNS rebinding, a request whose `Host` header names anything but `localhost`, `127.0.0.1`,
   * `[::1]`, the address the emulator listens on or one of these is refused with a 403. A port
   * in an entry is ignored.
   * @default []
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Paths of your own for the operations whose path the documentation does not show (v2
   * terminate and reopen, Send an agent message, Upload media for an agent message), each under
   * its prefix: `{ sendAgentMessage: '/v2/agent-messages' }`. Give your client the same
   * (`emulator.client()` does).
   * @default the operations table's paths
   */
  readonly pathOverrides?: PathOverrides;
  /** How Send an agent message (v2) and its media upload behave where the documentation is silent. */
  readonly agentMessages?: AgentMessageOptions;
}

/** The `agentMessages` option of {@link createEmulator}. */
export interface AgentMessageOptions {
  /**
   * The status receipts a sent agent message goes through, in order, each emitted to the status
   * URL: a documented path from ACCEPTED (SENT, DELIVERED, READ; FAILED after SENT). `[]` sends
   * none (the message stays ACCEPTED; move it with `updateMessageStatus`).
   * @default ['SENT', 'DELIVERED']
   */
  readonly receipts?: readonly DeliveryStatus[];
  /**
   * Largest media upload, in bytes: a larger one is a 413 with a JSON body.
   * @default 5242880 (5 MiB)
   */
  readonly maxMediaBytes?: number;
}

/** What {@link Emulator.idle} saw when it returned: `idle`, and the deliveries still `pending`. */
export type EmulatorIdleReport = DeliveryIdleReport;

/** What {@link Emulator.close} dropped: the deliveries not finished within the bound. */
export type EmulatorCloseReport = DeliveryCloseReport;

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
  /** The `pathOverrides` option: the paths moved, `{}` when none (the served OpenAPI document uses them). */
  readonly pathOverrides: PathOverrides;
  /** The node:http request listener, to mount the emulator in a server of your own. */
  readonly listener: RequestListener;
  /**
   * The HTTP API (platform operations and control surface) as a `fetch`, in process: no port,
   * no `listen()`. Same authentication, validation, answers and errors as over HTTP (the same
   * Express app reads the same bytes); the URL's origin is ignored and the DNS-rebinding check
   * of the Host header does not apply.
   *
   * @example
   * const platform = createPlatformClient({ baseUrl: 'http://emulator.local', apiKey, fetch: emulator.fetch });
   */
  readonly fetch: EmulatorFetch;
  /**
   * A typed client of the platform API ({@link PlatformClient}) served in process by
   * {@link Emulator.fetch}, with this emulator's prefixes.
   */
  client(apiKey: string): PlatformClient;
  /** The route table (add routes before listening). */
  readonly router: Router;
  /** Starts the HTTP server on 127.0.0.1 (by default); resolves with the base URL. @default port 0 */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Waits for deliveries (up to `timeoutMs`, default the `idleTimeoutMs` option), then stops the
   * server. Deliveries not finished by then are dropped (requests aborted, retries cancelled,
   * each logged `failed` with an error saying so) and listed in the report.
   */
  close(options?: { readonly timeoutMs?: number }): Promise<EmulatorCloseReport>;
  /**
   * Clears state, delivery log and faults, puts the clock back to its start time (unless the
   * clock was passed in), then loads `seed` (default: the constructor's seed, or its `state`).
   */
  reset(seed?: EmulatorSeed | 'default' | 'empty'): void;
  /**
   * The whole state as JSON: clients, teams, users (credentials included), numbers and their
   * sessions, webhook configurations, chats, outbound messages, rating widgets, and the clock.
   * Not the delivery log or the faults. `restore()` or `createEmulator({ state })` take it back.
   */
  snapshot(): EmulatorSnapshot;
  /**
   * Replaces the state with a snapshot's (and sets the clock to its `clock`); the delivery log
   * and faults are left as they are. Validated first: a bad snapshot throws a TypeError
   * (`SnapshotError`) naming the field, and changes nothing.
   */
  restore(snapshot: EmulatorSnapshotInput): void;
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
  /**
   * Resolves when no delivery is queued, held or in flight (`{ idle: true }`), or after
   * `timeoutMs` (default the `idleTimeoutMs` option) with `{ idle: false, pending }`: the
   * deliveries still queued, held or in flight, which go on.
   */
  idle(options?: { readonly timeoutMs?: number }): Promise<EmulatorIdleReport>;
  /** Scope rules 1–3: the configuration that applies to events on a number (msisdn or id). */
  webhookConfigFor(number: string): WebhookConfig | undefined;
  chatParticipant(id: string): Readonly<EmulatorChatParticipant> | undefined;
  chatParticipants(): readonly Readonly<EmulatorChatParticipant>[];
  message(gstId: string): Readonly<OutboundMessage> | undefined;
}
