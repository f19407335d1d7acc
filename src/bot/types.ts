import type { WebhookContext } from '../dispatch/types.js';
import type {
  AgentMessageChannel,
  SendAgentMessageRequest,
  UploadMediaRequest,
  UploadMediaResponse,
  WebhookType,
} from '../schemas/index.js';
import type { FilteredPayload, FilterQuery, FilterType, Narrow } from './filters.js';

/**
 * The two platform operations a bot answers with, as the typed client's `agentMessages` provides
 * them: Send an agent message (v2) and Upload media for an agent message (v2). Any object with
 * these two methods will do (a test's in-memory fake, a client of your own).
 */
export interface AgentMessagesApi {
  /** Sends a message into the chat as the agent the API key resolves to. */
  send(input: SendAgentMessageRequest): Promise<unknown>;
  /** Uploads a file; send the returned `mediaUrl`. */
  uploadMedia(input: UploadMediaRequest): Promise<UploadMediaResponse>;
}

/**
 * `ctx.session` for events of type `T`: the session on chatbot and incoming events; on the other
 * types (keyed by a message, a number) there is none by default, unless `getSessionKey` gives one.
 */
export type SessionOf<T extends WebhookType, S> = [S] extends [undefined]
  ? undefined
  : // chatbot and incoming events: their ordering key is a conversation (the chat participant;
    // the customer and your number)
    T extends 'chatbot' | 'incoming'
    ? S
    : S | undefined;

/**
 * What a handler receives: everything a callback's context has (`logger`, `attempt`,
 * `orderingKey`, `delivery`, ...), plus the payload, narrowed to the handler's filter, and the
 * conversation's session.
 */
export interface EventContext<T extends WebhookType, P, S> extends WebhookContext<T> {
  /** The webhook payload, narrowed to what the filter matched. */
  readonly payload: P;
  /**
   * The conversation's state (`createBot({ session })`): read and change it, or assign a new
   * value (`null` or `undefined` deletes it). Saved once the handler chain succeeded; an attempt
   * that fails saves nothing, and its retry sees the state as it was.
   */
  session: SessionOf<T, S>;
  /**
   * True once a handler (`on`, `hears`, `command`, `filter`) ran for this event; `otherwise`
   * handlers run only while it is false.
   */
  readonly handled: boolean;
}

/** Options of `ctx.reply`. */
export interface ReplyOptions {
  /** The chat's channel. @default the bot's `replyChannel` ('MESSAGING') */
  readonly channel?: AgentMessageChannel | undefined;
}

/** Media to answer with: a file to upload first, or the `mediaUrl` of one uploaded before. */
export type ReplyMedia = UploadMediaRequest | { readonly mediaUrl: string };

/** Options of `ctx.replyWithMedia`. */
export interface MediaReplyOptions extends ReplyOptions {
  /** Text shown under the media. */
  readonly caption?: string | undefined;
}

/** The context of a chatbot event: it can answer the customer. */
export interface ChatbotContext<P, S> extends EventContext<'chatbot', P, S> {
  /**
   * Answers in this chat: one Send an agent message (v2) with the event's `chatParticipantId`,
   * the channel and `text`, through the bot's `agentMessages`. Resolves with what the platform
   * answered (the client's `AgentMessage`).
   */
  reply(text: string, options?: ReplyOptions): Promise<unknown>;
  /**
   * Answers with media: uploads `media` (Upload media for an agent message (v2)) unless it is
   * already a `mediaUrl`, then sends the returned `mediaUrl` with the optional caption.
   */
  replyWithMedia(media: ReplyMedia, options?: MediaReplyOptions): Promise<unknown>;
}

/** The context for webhook type `T` with payload `P`. */
export type ContextOf<T extends WebhookType, P, S> = T extends 'chatbot'
  ? ChatbotContext<P, S>
  : EventContext<T, P, S>;

/**
 * The context a handler of query `Q` receives; a union of queries gives a union of contexts,
 * which `ctx.type` (and the payload's own discriminators) narrow.
 */
export type Context<Q extends FilterQuery, S = undefined> = Q extends FilterQuery
  ? ContextOf<FilterType<Q>, FilteredPayload<Q>, S>
  : never;

/**
 * The context of `hears` and `command`: an INCOMING chatbot event with text, and `match`, what the
 * trigger matched (the text for a string, the match array for a RegExp, the arguments after a
 * command).
 */
export type TextContext<Q extends FilterQuery, S, M> = ChatbotContext<
  FilteredPayload<Narrow<Q, 'chatbot:INCOMING'>> & { readonly messageText: string },
  S
> & { readonly match: M };

/** A handler: runs when its filter matches; its returned promise is awaited. */
export type Handler<C> = (ctx: C) => unknown;

/**
 * Continues with what was registered after the middleware. Returns a promise when anything after
 * it is asynchronous: `await next()`.
 */
export type NextFunction = () => Promise<void> | undefined;

/** Middleware: runs for every event of its scope, around what was registered after it. */
export type Middleware<C> = (ctx: C, next: NextFunction) => unknown;

/**
 * An error handler (`catch`): receives the error and the context of the event (payload, session,
 * logger, attempt). Returning handles the error; throwing (the same error or another) fails the job.
 */
export type ErrorHandler<C> = (error: unknown, ctx: C) => unknown;
