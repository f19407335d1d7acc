import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import {
  createClock,
  createRealTimeClock,
  emulatorTimeSchema,
  MAX_EMULATOR_TIME,
  type EmulatorClock,
} from './clock.js';
import type { EmulatorPrefixes, PlatformContext } from './context.js';
import { createDeliverer, type DeliveryRetryOptions } from './emit/delivery.js';
import { createChatEvents, receiptSequenceProblem } from './emit/chat-events.js';
import { createEmitter } from './emit/emitter.js';
import { createSelfDeliveryGuard, type ListenAddress } from './emit/self-delivery.js';
import {
  createFaultPlanner,
  faultProbabilitiesSchema,
  queuedFaultSchema,
  type FaultProbabilities,
} from './emit/faults.js';
import { createPlatformClient } from '../client/client.js';
import { clientErrorAnswer, createEmulatorApp } from './http/app.js';
import { checkAllowedHosts, createHostCheck } from './http/hosts.js';
import { createInProcessFetch } from './http/in-process.js';
import { createInspector } from './inspector/index.js';
import { createRouter } from './http/router.js';
import { parseBody } from './http/validate.js';
import { createSeededRandom } from './random.js';
import { controlRoutes } from './routes/control.js';
import { DEFAULT_MAX_MEDIA_BYTES, MEDIA_PATH, serveMedia } from './routes/agent-messages.js';
import { registerPlatformOperations } from './routes/index.js';
import { operationsWithPaths } from '../contract/index.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../schemas/index.js';
import { toWebhookConfigRow } from './routes/webhook-config.js';
import { BadRequestError, NotFoundError } from './errors.js';
import {
  applySeed,
  createDefaultSeed,
  createEmptyState,
  findNumber,
  loadSnapshot,
  parseSnapshot,
  resolveRetention,
  SeedError,
  snapshotRecords,
  takeSnapshot,
  type EmulatorSeed,
  type EmulatorSnapshot,
  type EmulatorState,
  type RetentionOptions,
} from './state/index.js';
import { loadSnapshotState } from './state/snapshot.js';
import { createTriggers } from './triggers.js';
import type { AgentMessageOptions, Emulator, EmulatorOptions } from './types.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import { withSafeErrors } from '../logger.js';

export type { Emulator, EmulatorOptions } from './types.js';

/** The origin `emulator.client()` names (any origin works: `emulator.fetch` ignores it). */
const IN_PROCESS_ORIGIN = 'http://emulator.local';

/** Default of {@link EmulatorOptions.idleTimeoutMs}. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** Default of {@link EmulatorOptions.deliveryConcurrency}. */
export const DEFAULT_DELIVERY_CONCURRENCY = 1;

/** The keys of {@link EmulatorOptions}; anything else throws at construction. */
export const EMULATOR_OPTION_KEYS = optionKeys<EmulatorOptions>()([
  'seed',
  'state',
  'retention',
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
  'checkResponses',
  'logger',
  'allowedHosts',
  'idleTimeoutMs',
  'pathOverrides',
  'agentMessages',
]);
const AGENT_MESSAGE_KEYS = optionKeys<AgentMessageOptions>()(['receipts', 'maxMediaBytes']);
const EMULATOR_RETRY_KEYS = optionKeys<DeliveryRetryOptions>()(['attempts', 'backoffMs']);
const RETENTION_KEYS = optionKeys<RetentionOptions>()([
  'closedChats',
  'messages',
  'ratingWidgets',
  'media',
  'mediaBytes',
]);
const FAULT_PROBABILITY_KEYS = Object.keys(faultProbabilitiesSchema.shape);

function validateOptions(options: EmulatorOptions): void {
  checkOptions('createEmulator', options, EMULATOR_OPTION_KEYS);
  checkNestedKeys('createEmulator', 'retry', options.retry, EMULATOR_RETRY_KEYS);
  checkNestedKeys('createEmulator', 'faults', options.faults, FAULT_PROBABILITY_KEYS);
  checkNestedKeys('createEmulator', 'retention', options.retention, RETENTION_KEYS);
  checkNestedKeys('createEmulator', 'agentMessages', options.agentMessages, AGENT_MESSAGE_KEYS);
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
  if (options.checkResponses !== undefined && typeof options.checkResponses !== 'boolean') {
    throw new TypeError(`checkResponses must be a boolean, got ${JSON.stringify(options.checkResponses)}`);
  }
  if (options.onDeliveryAttempt !== undefined && typeof options.onDeliveryAttempt !== 'function') {
    throw new TypeError(`onDeliveryAttempt must be a function, got ${typeof options.onDeliveryAttempt}`);
  }
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new TypeError(`timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  checkWaitBound('idleTimeoutMs', options.idleTimeoutMs);
  const { clock } = options;
  if (
    clock !== undefined &&
    clock !== 'manual' &&
    clock !== 'real-time' &&
    !(typeof clock === 'number' && emulatorTimeSchema.safeParse(clock).success) &&
    !(typeof clock === 'object' && clock !== null && typeof clock.now === 'function')
  ) {
    throw new TypeError(
      `clock must be 'manual', 'real-time', a start time (Unix ms) or an EmulatorClock, got ${String(JSON.stringify(clock) ?? clock)} (a start time is within ±${MAX_EMULATOR_TIME} ms: what a Date holds)`,
    );
  }
  if (options.seed !== undefined && options.state !== undefined) {
    throw new TypeError('seed and state cannot be given together: a snapshot (state) is a whole state');
  }
  resolveRetention(options.retention);
  for (const name of ['messagingPrefix', 'chatPrefix'] as const) {
    const prefix = options[name];
    if (prefix !== undefined && (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/')))) {
      throw new TypeError(`${name} must be '' or start with '/', got ${JSON.stringify(prefix)}`);
    }
  }
}

/** Default of {@link AgentMessageOptions.receipts}. */
export const DEFAULT_AGENT_MESSAGE_RECEIPTS: readonly DeliveryStatus[] = ['SENT', 'DELIVERED'];

/** The `agentMessages` option checked, with its defaults; a TypeError names what is wrong. */
function resolveAgentMessages(option: AgentMessageOptions | undefined): {
  receipts: readonly DeliveryStatus[];
  maxMediaBytes: number;
} {
  const receipts = option?.receipts ?? DEFAULT_AGENT_MESSAGE_RECEIPTS;
  if (
    !Array.isArray(receipts) ||
    receipts.some((status) => !(DELIVERY_STATUSES as readonly unknown[]).includes(status))
  ) {
    throw new TypeError(
      `agentMessages.receipts must be an array of ${DELIVERY_STATUSES.join(', ')}, got ${JSON.stringify(receipts)}`,
    );
  }
  const problem = receiptSequenceProblem(receipts);
  if (problem !== undefined) {
    throw new TypeError(`agentMessages.receipts must follow the delivery states from ACCEPTED: ${problem}`);
  }
  const maxMediaBytes = option?.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  if (!Number.isInteger(maxMediaBytes) || maxMediaBytes < 1) {
    throw new TypeError(`agentMessages.maxMediaBytes must be an integer >= 1, got ${String(maxMediaBytes)}`);
  }
  return { receipts: [...(receipts as readonly DeliveryStatus[])], maxMediaBytes };
}

/** Largest wait bound a timer holds (setTimeout fires at once past 2^31 - 1 ms). */
const MAX_WAIT_MS = 2_147_483_647;

/** Throws a TypeError naming `name` unless `value` is undefined or a usable wait bound. */
function checkWaitBound(name: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= MAX_WAIT_MS)) {
    throw new TypeError(
      `${name} must be milliseconds from 0 to ${MAX_WAIT_MS}, got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
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

/**
 * The emulator's clock: the given one, or a manual clock (at a number, else the snapshot's time,
 * else now), or a real-time one that starts now, or at the snapshot's time when that is later
 * (time never runs backwards against the timestamps the state holds).
 */
function makeClock(option: EmulatorOptions['clock'], snapshotClock: number | undefined): EmulatorClock {
  if (typeof option === 'object') return option;
  if (option === 'real-time') return createRealTimeClock({ start: Math.max(Date.now(), snapshotClock ?? 0) });
  return createClock({ start: typeof option === 'number' ? option : (snapshotClock ?? 'real') });
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
  const agentMessages = resolveAgentMessages(options.agentMessages);
  // the one error serializer of every library logger: an error's own fields never reach a log line
  const logger = withSafeErrors(options.logger ?? pino({ level: 'silent' }));
  // a snapshot is checked whole before anything is built: a bad one throws a SnapshotError
  const startSnapshot: EmulatorSnapshot | undefined =
    options.state === undefined ? undefined : parseSnapshot(options.state, options.retention);
  const clock = makeClock(options.clock, startSnapshot?.clock);
  const prefixes: EmulatorPrefixes = {
    messaging: options.messagingPrefix ?? '',
    chat: options.chatPrefix ?? '/chat',
  };
  // reset() puts a manual clock the emulator made back to its start; a real-time clock runs on
  const ownsClock = typeof options.clock !== 'object' && options.clock !== 'real-time';
  const startTime = clock.now();
  const state = createEmptyState(options.retention);
  const now = (): Date => new Date(clock.now());
  /** A fresh state holding the starting point (a snapshot, else a seed) or `seed`. */
  const build = (seed: EmulatorSeed | 'default' | 'empty' | undefined, time: Date): EmulatorState => {
    const next = createEmptyState(options.retention);
    if (seed === undefined && startSnapshot !== undefined) {
      // the starting snapshot is kept as given: each start is a copy of it
      loadSnapshot(next, structuredClone(startSnapshot));
    } else {
      applySeed(next, resolveSeed(seed ?? options.seed), time);
    }
    return next;
  };
  /**
   * Replaces the state's records with `next`'s (the state and its Maps stay the same objects).
   * All or nothing: `next` loaded into a state with the same retention already, so this load
   * cannot fail; were it to, the records held before are put back before the error is thrown.
   */
  const adopt = (next: EmulatorState): void => {
    const previous = snapshotRecords(state, clock.now());
    state.clear();
    try {
      loadSnapshot(state, snapshotRecords(next, clock.now()));
    } catch (error) {
      state.clear();
      loadSnapshot(state, previous);
      throw error;
    }
  };
  adopt(build(undefined, now()));
  // The seed's users and keys: the inspector lists these API keys and no other (none made later).
  const seedKeys = (snapshot?: EmulatorSnapshot): Set<string> =>
    new Set(
      snapshot?.seedKeys === undefined
        ? [...state.users.values()].map((u) => `${u.id} ${u.apiKey}`)
        : snapshot.seedKeys.map(({ userId, apiKey }) => `${userId} ${apiKey}`),
    );
  let seeded = seedKeys(startSnapshot);

  // where listen() bound, for the self-delivery guard (none before listen(), or when embedded)
  let bound: ListenAddress | undefined;
  const allowedHosts = checkAllowedHosts(options.allowedHosts);
  const self = createSelfDeliveryGuard(() => bound, allowedHosts);
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
    settleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    self,
  });
  const emitter = createEmitter(state, clock, faults, deliverer);
  const chatEvents = createChatEvents(state, clock, emitter);
  const triggers = createTriggers(state, clock, emitter, chatEvents);
  const operations = operationsWithPaths(options.pathOverrides, 'createEmulator');

  const context: PlatformContext = {
    state,
    clock,
    logger,
    prefixes,
    now,
    refuseSelfDelivery: (body) => self.refuseConfigUrls(body),
    chatEvents,
    agentMessages,
  };
  const router = createRouter();
  // The Express app. Extension point: `http.extensions.use(...)` (e.g. the inspector's pages)
  // runs before the API routes and the JSON 404/405; see http/app.ts.
  // the names of the address listen() was given and bound (before listen(): none)
  let listening: readonly string[] = [];
  const hostAllowed = createHostCheck(allowedHosts, () => listening);
  const http = createEmulatorApp({
    router,
    state,
    logger,
    now,
    hostAllowed,
    refuseOwnDelivery: (headers) => self.refuseOwnDelivery(headers),
    rawBodyLimit: agentMessages.maxMediaBytes,
  });
  const inspector = createInspector({
    state,
    clock,
    deliveries: () => deliverer.log(),
    subscribeDeliveries: (l) => deliverer.subscribe(l),
    isSeedKey: (userId, apiKey) => seeded.has(`${userId} ${apiKey}`),
    prefixes,
  });
  http.extensions.use((req, res, next) => inspector.handle(req, res, next));
  // uploaded media at the mediaUrl the upload answered (routes/agent-messages.ts)
  http.extensions.get(`${MEDIA_PATH}/:id{/:name}`, serveMedia(state));
  const inProcess = createInProcessFetch(http.listener);
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
    pathOverrides: { ...options.pathOverrides },
    listener: http.listener,
    fetch: inProcess.fetch,
    client: (apiKey) =>
      createPlatformClient({
        baseUrl: IN_PROCESS_ORIGIN,
        apiKey,
        messagingPrefix: prefixes.messaging,
        chatPrefix: prefixes.chat,
        ...(options.pathOverrides === undefined ? {} : { pathOverrides: options.pathOverrides }),
        fetch: inProcess.fetch,
      }),
    router,
    async listen(port = 0, host = '127.0.0.1') {
      if (server !== undefined) throw new Error('The emulator is already listening');
      const created = createServer(http.listener);
      // a request node:http cannot parse is answered in JSON too (Node's own answer has no body),
      // but not while an answer to an earlier request on the socket is being written (as Node's own)
      created.on('clientError', (error: Error & { code?: unknown }, socket) => {
        if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage) {
          socket.end(clientErrorAnswer(error));
        } else {
          socket.destroy();
        }
      });
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
      listening = [host, shownHost];
      bound = { address: address.address, port: address.port };
      return url;
    },
    async close(closeOptions = {}) {
      checkWaitBound('close: timeoutMs', closeOptions.timeoutMs);
      inspector.close();
      await inProcess.close();
      const report = await deliverer.close(closeOptions.timeoutMs);
      const running = server;
      server = undefined;
      url = undefined;
      listening = [];
      bound = undefined;
      if (running !== undefined) {
        await new Promise<void>((resolve, reject) => {
          running.close((error) => (error === undefined ? resolve() : reject(error)));
          running.closeIdleConnections();
        });
      }
      return report;
    },
    reset(seed) {
      // a clock the emulator made goes back to its start; an injected clock is the caller's
      const resetTime = ownsClock ? startTime : clock.now();
      // build the fresh state first: a bad seed is refused before anything is cleared
      let next: EmulatorState;
      try {
        next = build(seed, new Date(resetTime));
      } catch (error) {
        if (error instanceof SeedError)
          throw new BadRequestError(error.message, { field: 'seed', cause: error });
        throw error;
      }
      deliverer.clearLog();
      faults.clear();
      clock.set(resetTime);
      faults.setProbabilities(initialProbabilities);
      adopt(next);
      seeded = seedKeys(seed === undefined ? startSnapshot : undefined);
    },
    snapshot() {
      const seedKeys = [...seeded].map((pair) => {
        const [userId = '', apiKey = ''] = pair.split(' ');
        return { userId, apiKey };
      });
      return { ...takeSnapshot(state, clock.now()), seedKeys };
    },
    restore(input) {
      // validated whole on a scratch state with this emulator's retention, then swapped in: a
      // snapshot that fails anywhere leaves the emulator exactly as it was
      const { snapshot, state: next } = loadSnapshotState(input, options.retention);
      // the clock first: an injected clock may refuse the time, and then nothing has changed
      if (snapshot.clock !== undefined) clock.set(snapshot.clock);
      adopt(next);
      seeded = seedKeys(snapshot);
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
    async idle(idleOptions = {}) {
      checkWaitBound('idle: timeoutMs', idleOptions.timeoutMs);
      return deliverer.idle(idleOptions.timeoutMs);
    },
    webhookConfigFor(numberRef) {
      const number = findNumber(state, numberRef);
      const config = number === undefined ? undefined : emitter.configFor(number);
      return config === undefined ? undefined : toWebhookConfigRow(config);
    },
    chatParticipant: (id) => state.chatParticipants.get(id),
    chatParticipants: () => [...state.chatParticipants.values()],
    message: (gstId) => state.messages.get(gstId),
  };

  registerPlatformOperations(router, context, operations, {
    checkResponses: options.checkResponses ?? process.env.NODE_ENV === 'test',
  });
  for (const group of options.routeGroups ?? []) group(router, context);
  controlRoutes(router, emulator, triggers, (userId, apiKey) => seeded.has(`${userId} ${apiKey}`));
  return emulator;
}
