import type { WebhookCallback, WebhookContext, WebhookHandlers } from '../dispatch/types.js';
import {
  CHAT_CHANNEL_VALUES,
  WEBHOOK_TYPES,
  type AgentMessageChannel,
  type WebhookType,
} from '../schemas/index.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import { BotEventContext, serialise, UNREAD, type BotRuntime, type SessionSlot } from './context.js';
import {
  compileComposer,
  Composer,
  currentGeneration,
  handledTypesOf,
  isThenable,
  runCompiled,
  type Compiled,
} from './composer.js';
import {
  createMemorySessionStore,
  SessionConflictError,
  type SessionRecord,
  type SessionStore,
} from './session.js';
import type { AgentMessagesApi, ChatbotContext, Context } from './types.js';
import type { ChatbotEvent } from '../schemas/index.js';

/** Conversation state: what `ctx.session` starts from, where it is kept, and under which key. */
export interface SessionOptions<S> {
  /**
   * The state of a conversation that has none yet (called once per such conversation and event;
   * return a fresh object). Must be a JSON value: sessions are stored as JSON.
   */
  readonly initial: () => S;
  /**
   * Where sessions live. `createRedisSessionStore` (`messaging-webhooks/redis`) shares them between
   * instances and keeps them across restarts. @default createMemorySessionStore() (this process, 10_000 sessions, 7 days)
   */
  readonly store?: SessionStore | undefined;
  /**
   * The key of an event's session; undefined gives the event no session. Keep the default unless
   * you know why: the ordering key is what the dispatch runs one at a time, in order, so two
   * events of one session never race (with another key they may: a write that lost the race fails
   * with `SessionConflictError` and the event is retried).
   * @default chatbot and incoming events: `ctx.orderingKey` (`chatbot:<chatParticipantId>`,
   * `incoming:<sender>:<receiver>`); status, session and partner events: none
   */
  readonly getSessionKey?: ((ctx: Context<WebhookType>) => string | undefined) | undefined;
}

/** Options of {@link createBot}. */
export interface BotOptions<S = undefined> {
  /**
   * The platform operations `ctx.reply` and `ctx.replyWithMedia` answer with: a platform client's
   * `agentMessages`, or any object with `send` and `uploadMedia` (a fake in unit tests).
   * @default undefined (`ctx.reply` rejects with a TypeError saying so)
   */
  readonly agentMessages?: AgentMessagesApi | undefined;
  /**
   * The channel of a reply, when `ctx.reply` is not given one: a value, or a function of the event.
   * The chatbot payload carries no channel; chatbot flows run on messaging numbers (the payload's
   * senderMsisdn and receiverMsisdn are phone numbers), so 'MESSAGING'. A bot that also serves web
   * or social chats reads the chat's channel from its own records (or the live-chat API) here.
   * @default 'MESSAGING'
   */
  readonly replyChannel?:
    AgentMessageChannel | ((ctx: ChatbotContext<ChatbotEvent, S>) => AgentMessageChannel) | undefined;
  /** Per-conversation state in `ctx.session`. @default undefined (no sessions; `ctx.session` is undefined) */
  readonly session?: SessionOptions<S> | undefined;
}

const BOT_OPTION_KEYS = optionKeys<BotOptions>()(['agentMessages', 'replyChannel', 'session']);
const SESSION_OPTION_KEYS = optionKeys<SessionOptions<unknown>>()(['initial', 'store', 'getSessionKey']);

/** The callback each webhook type is handed to. */
const CALLBACK_NAMES = {
  incoming: 'onIncoming',
  status: 'onStatus',
  session: 'onSession',
  event: 'onEvent',
  chatbot: 'onChatbot',
} as const satisfies Record<WebhookType, keyof WebhookHandlers>;

/** The default session key: the conversation the dispatch orders by, on conversation events. */
const conversationKey = (ctx: {
  readonly type: WebhookType;
  readonly orderingKey: string;
}): string | undefined => (ctx.type === 'chatbot' || ctx.type === 'incoming' ? ctx.orderingKey : undefined);

/** Sessions as the bot runs them. */
interface Sessions {
  readonly store: SessionStore;
  readonly keyOf: (ctx: BotEventContext) => string | undefined;
}

/**
 * A bot: a {@link Composer} that the receiver runs. `bot.handlers()` gives the receiver's callbacks
 * (`onChatbot`, `onIncoming`, ...), each running the event through the bot's handlers as one job:
 * ordered per conversation, deduplicated, retried and dead-lettered as a callback is.
 */
export class Bot<S = undefined> extends Composer<S> {
  readonly #runtime: BotRuntime;
  readonly #sessions: Sessions | undefined;
  #compiled = new Map<WebhookType, Compiled>();
  #generation = -1;

  /** Use {@link createBot}. */
  constructor(options: BotOptions<S> = {}) {
    super();
    checkOptions('createBot', options, BOT_OPTION_KEYS);
    const { agentMessages, replyChannel = 'MESSAGING', session } = options;
    if (
      agentMessages !== undefined &&
      (typeof agentMessages !== 'object' ||
        agentMessages === null ||
        typeof agentMessages.send !== 'function' ||
        typeof agentMessages.uploadMedia !== 'function')
    ) {
      throw new TypeError(
        'agentMessages: expected an object with send() and uploadMedia() (a platform client’s agentMessages)',
      );
    }
    if (
      typeof replyChannel !== 'function' &&
      !(CHAT_CHANNEL_VALUES as readonly string[]).includes(replyChannel)
    ) {
      throw new TypeError(
        `replyChannel: expected ${CHAT_CHANNEL_VALUES.join(', ')} or a function, got ${JSON.stringify(replyChannel)}`,
      );
    }
    if (session !== undefined) {
      if (typeof session !== 'object' || session === null) {
        throw new TypeError(
          `session: expected an object ({ initial, store?, getSessionKey? }), got ${String(session)}`,
        );
      }
      checkNestedKeys('createBot', 'session', session, SESSION_OPTION_KEYS);
      if (typeof session.initial !== 'function') {
        throw new TypeError(
          `session.initial: expected a function returning the starting state, got ${typeof session.initial}`,
        );
      }
      const { store, getSessionKey } = session;
      if (
        store !== undefined &&
        (typeof store !== 'object' ||
          store === null ||
          typeof store.read !== 'function' ||
          typeof store.write !== 'function')
      ) {
        throw new TypeError('session.store: expected a session store (read() and write())');
      }
      if (getSessionKey !== undefined && typeof getSessionKey !== 'function') {
        throw new TypeError(`session.getSessionKey: expected a function, got ${typeof getSessionKey}`);
      }
      this.#sessions = {
        store: store ?? createMemorySessionStore(),
        keyOf:
          (getSessionKey as ((ctx: BotEventContext) => string | undefined) | undefined) ?? conversationKey,
      };
    }
    this.#runtime = {
      agentMessages,
      replyChannel: replyChannel,
      initial: session?.initial,
    };
  }

  /**
   * The receiver's callbacks: one per webhook type some handler can run for (a type none can is not
   * queued at all, as without its callback). Spread them into any adapter's options or the BullMQ
   * worker's `handlers`; `onError`, `onDeadLetter` and `onInvalid` go beside them. Register every
   * handler first: the types are read now (handlers registered later for these types still run).
   *
   * @example
   * app.use('/webhooks', createWebhookRouter({ token, ...bot.handlers(), onDeadLetter }));
   */
  handlers(): WebhookHandlers {
    const handlers: Partial<Record<(typeof CALLBACK_NAMES)[WebhookType], WebhookCallback<never>>> = {};
    const types = handledTypesOf(this);
    for (const type of WEBHOOK_TYPES) {
      if (!types.has(type)) continue;
      handlers[CALLBACK_NAMES[type]] = (payload: unknown, ctx: WebhookContext) =>
        this.#dispatch(type, payload, ctx);
    }
    return handlers as WebhookHandlers;
  }

  /** Runs one event through the handlers: one attempt of its job. */
  #dispatch(type: WebhookType, payload: unknown, job: WebhookContext): Promise<unknown> | undefined {
    if (this.#generation !== currentGeneration()) {
      this.#compiled = new Map();
      this.#generation = currentGeneration();
    }
    let compiled = this.#compiled.get(type);
    if (compiled === undefined) {
      compiled = compileComposer(this, type);
      this.#compiled.set(type, compiled);
    }
    const ctx = new BotEventContext(payload as BotEventContext['payload'], job, this.#runtime);
    const sessions = this.#sessions;
    if (sessions === undefined) return runCompiled(ctx, compiled);
    const key = sessions.keyOf(ctx);
    if (key === undefined) return runCompiled(ctx, compiled);
    if (typeof key !== 'string')
      throw new TypeError(`session.getSessionKey: expected a string or undefined, got ${typeof key}`);
    const record = sessions.store.read(key);
    return isThenable(record)
      ? Promise.resolve(record).then((read) => this.#runWithSession(ctx, compiled, sessions, key, read))
      : this.#runWithSession(ctx, compiled, sessions, key, record);
  }

  #runWithSession(
    ctx: BotEventContext,
    compiled: Compiled,
    sessions: Sessions,
    key: string,
    record: SessionRecord | undefined,
  ): Promise<unknown> | undefined {
    const slot: SessionSlot = { key, record, state: UNREAD, value: undefined, baseline: undefined };
    ctx.slot = slot;
    const result = runCompiled(ctx, compiled);
    return result === undefined ? save(sessions.store, slot) : result.then(() => save(sessions.store, slot));
  }
}

/**
 * Writes a session the chain read or assigned, unless it is unchanged; a write that finds the
 * record changed since it was read fails the job with {@link SessionConflictError}.
 */
function save(store: SessionStore, slot: SessionSlot): Promise<unknown> | undefined {
  if (slot.state === UNREAD) return undefined;
  const data = serialise(slot.value);
  if (data === slot.baseline || (data === undefined && slot.record === undefined)) return undefined;
  const written = store.write(slot.key, data, slot.record?.version);
  if (isThenable(written)) {
    return Promise.resolve(written).then((ok) => {
      if (!ok) throw new SessionConflictError();
    });
  }
  if (!written) throw new SessionConflictError();
  return undefined;
}

/**
 * Creates a bot: register handlers by filter (`on('chatbot:INCOMING:TEXT', ...)`), text
 * (`hears`, `command`), middleware (`use`), a catch-all (`otherwise`) and an error handler
 * (`catch`); mount it on any receiver with `bot.handlers()`.
 *
 * @example
 * const bot = createBot({
 *   agentMessages: client.agentMessages,
 *   session: { initial: () => ({ name: undefined as string | undefined }) },
 * });
 * bot.command('start', (ctx) => ctx.reply('Welcome! What is your name?'));
 * bot.hears(/^bye\b/i, (ctx) => ctx.reply('Goodbye!'));
 * bot.on('chatbot:INCOMING:TEXT', async (ctx) => {
 *   ctx.session.name ??= ctx.payload.messageText;
 *   await ctx.reply(`Thanks, ${ctx.session.name}`);
 * });
 * app.use('/webhooks', createWebhookRouter({ token, ...bot.handlers() }));
 */
export function createBot<S>(options: BotOptions<S> & { readonly session: SessionOptions<S> }): Bot<S>;
export function createBot(options?: BotOptions): Bot;
export function createBot<S>(options: BotOptions<S> = {}): Bot<S> {
  return new Bot<S>(options);
}
