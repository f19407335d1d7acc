import type { Logger } from 'pino';
import type { WebhookContext } from '../dispatch/types.js';
import type { AgentMessageChannel, SendAgentMessageRequest, WebhookType } from '../schemas/index.js';
import { CHAT_CHANNEL_VALUES } from '../schemas/index.js';
import type { SessionRecord } from './session.js';
import type { AgentMessagesApi, MediaReplyOptions, ReplyMedia, ReplyOptions } from './types.js';

/** What every context of one bot shares: set once, when the bot is built. */
export interface BotRuntime {
  readonly agentMessages: AgentMessagesApi | undefined;
  /** The channel a reply goes to when `ctx.reply` is not told one. */
  readonly replyChannel: AgentMessageChannel | ((ctx: never) => AgentMessageChannel);
  /** The session's starting value, when sessions are on. */
  readonly initial: (() => unknown) | undefined;
}

/** A session slot's state: its store not yet read, or read. */
export const UNREAD = 0;
const READ = 1;

/** One event's session: its key, the record read, and the value once a handler touched it. */
export interface SessionSlot {
  readonly key: string;
  readonly record: SessionRecord | undefined;
  state: typeof UNREAD | typeof READ;
  value: unknown;
  /** The JSON the value had when it was first read; an unchanged session is not written. */
  baseline: string | undefined;
}

const CHANNELS: ReadonlySet<string> = new Set(CHAT_CHANNEL_VALUES);

/**
 * The context of one event for one attempt: the callback's context (read through, so its logger
 * and Date stay lazy), the payload, the session and what `hears` matched. One class for every
 * filter: the types in ./types.ts say which fields a handler sees.
 */
export class BotEventContext {
  readonly payload: Readonly<Record<string, unknown>>;
  /** What the last matching `hears` or `command` matched. */
  match: unknown = undefined;
  handled = false;
  readonly job: WebhookContext;
  readonly runtime: BotRuntime;
  /** Set by the bot when sessions are on and the event has a session key. */
  slot: SessionSlot | undefined = undefined;

  constructor(payload: Readonly<Record<string, unknown>>, job: WebhookContext, runtime: BotRuntime) {
    this.payload = payload;
    this.job = job;
    this.runtime = runtime;
  }

  get type(): WebhookType {
    return this.job.type;
  }
  get receivedAt(): Date {
    return this.job.receivedAt;
  }
  get requestId(): string {
    return this.job.requestId;
  }
  get logger(): Logger {
    return this.job.logger;
  }
  get attempt(): number {
    return this.job.attempt;
  }
  get dedupeKey(): string | undefined {
    return this.job.dedupeKey;
  }
  get orderingKey(): string {
    return this.job.orderingKey;
  }
  get payloadVersion(): WebhookContext['payloadVersion'] {
    return this.job.payloadVersion;
  }
  get delivery(): WebhookContext['delivery'] {
    return this.job.delivery;
  }

  /** The session, parsed (or started from `initial`) on first read: an untouched one costs nothing. */
  get session(): unknown {
    const slot = this.slot;
    if (slot === undefined) return undefined;
    if (slot.state === UNREAD) {
      slot.state = READ;
      if (slot.record === undefined) {
        slot.value = this.runtime.initial!();
        slot.baseline = serialise(slot.value);
      } else {
        try {
          slot.value = JSON.parse(slot.record.data);
          slot.baseline = slot.record.data;
        } catch {
          // A record no handler can read would fail every event of the conversation, for good.
          // Not logged with the parser's message: it quotes the stored text.
          this.logger.error('session record is not valid JSON: the session starts again from initial');
          slot.value = this.runtime.initial!();
          slot.baseline = undefined;
        }
      }
    }
    return slot.value;
  }

  set session(value: unknown) {
    const slot = this.slot;
    if (slot === undefined) {
      throw new TypeError(
        this.runtime.initial === undefined
          ? 'ctx.session: sessions are off; give createBot({ session: { initial } })'
          : `ctx.session: ${this.type} events have no session (getSessionKey gave none)`,
      );
    }
    if (slot.state === UNREAD) {
      slot.state = READ;
      slot.baseline = slot.record?.data;
    }
    slot.value = value;
  }

  async reply(text: string, options?: ReplyOptions): Promise<unknown> {
    if (typeof text !== 'string' || text === '') {
      throw new TypeError(`ctx.reply: expected a non-empty text, got ${JSON.stringify(text)}`);
    }
    const api = this.#api('reply');
    return api.send({ ...this.#target('reply', options), text });
  }

  async replyWithMedia(media: ReplyMedia, options?: MediaReplyOptions): Promise<unknown> {
    const api = this.#api('replyWithMedia');
    const target = this.#target('replyWithMedia', options);
    if (typeof media !== 'object' || media === null) {
      throw new TypeError('ctx.replyWithMedia: expected { data, fileName } or { mediaUrl }');
    }
    const mediaUrl = 'mediaUrl' in media ? media.mediaUrl : (await api.uploadMedia(media)).mediaUrl;
    const caption = options?.caption;
    return api.send({ ...target, mediaUrl, ...(caption === undefined ? {} : { caption }) });
  }

  #api(method: string): AgentMessagesApi {
    const api = this.runtime.agentMessages;
    if (api === undefined) {
      throw new TypeError(
        `ctx.${method}: the bot has no agentMessages; give createBot({ agentMessages: client.agentMessages })`,
      );
    }
    return api;
  }

  /** The chat and channel a reply goes to: only chatbot events name a chat (chatParticipantId). */
  #target(
    method: string,
    options: ReplyOptions | undefined,
  ): Pick<SendAgentMessageRequest, 'chatParticipantId' | 'channel'> {
    if (this.type !== 'chatbot') {
      throw new TypeError(`ctx.${method}: only chatbot events can be answered, not ${this.type} events`);
    }
    const configured = this.runtime.replyChannel;
    const channel =
      options?.channel ?? (typeof configured === 'function' ? configured(this as never) : configured);
    if (!CHANNELS.has(channel)) {
      throw new TypeError(
        `ctx.${method}: expected a channel of ${CHAT_CHANNEL_VALUES.join(', ')}, got ${JSON.stringify(channel)}`,
      );
    }
    return { chatParticipantId: this.payload.chatParticipantId as string, channel };
  }
}

/** A session value as JSON; throws a TypeError for a value JSON cannot hold. */
export function serialise(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const data = JSON.stringify(value) as string | undefined;
  if (data === undefined) {
    throw new TypeError(
      `ctx.session: expected a JSON value (an object, array, string, number or boolean), got a ${typeof value}`,
    );
  }
  return data;
}
