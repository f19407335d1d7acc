/**
 * Compile-time tests of the bot API: what a handler's context offers in users' editors for each
 * filter, and which registrations do not compile. Checked by `npm run typecheck`; a regression is
 * a type error here (an unused `@ts-expect-error` is one too).
 */
import { expectTypeOf } from 'expect-type';
import {
  Composer,
  createBot,
  type ChatbotContext,
  type Context,
  type EventContext,
  type NextFunction,
  type SessionStore,
  type WebhookType,
} from '../../src/index.js';
import type {
  ChatbotIncomingEventV1,
  ChatbotIncomingEventV2,
  FailedStatusUpdate,
  IncomingMediaMessage,
  IncomingTextMessage,
  ReadStatusUpdate,
  StatusUpdate,
  UserPreferenceEvent,
} from '../../src/schemas/index.js';

type Nullish<T> = T | null | undefined;

const bot = createBot();

// A chatbot TEXT filter: messageText is a string, and a chatbot payload has no latitude.
bot.on('chatbot:INCOMING:TEXT', (ctx) => {
  expectTypeOf(ctx.payload.messageText).toEqualTypeOf<string>();
  expectTypeOf(ctx.payload.messageType).toEqualTypeOf<'TEXT'>();
  expectTypeOf(ctx.payload.direction).toEqualTypeOf<'INCOMING'>();
  expectTypeOf(ctx.payload).toExtend<ChatbotIncomingEventV1 | ChatbotIncomingEventV2>();
  // @ts-expect-error -- no latitude on a chatbot payload
  void ctx.payload.latitude;
  expectTypeOf(ctx.type).toEqualTypeOf<'chatbot'>();
  expectTypeOf(ctx.reply).toBeFunction();
});

// The incoming TEXT filter gives text, and not the LOCATION fields.
bot.on('incoming:TEXT', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<IncomingTextMessage>();
  expectTypeOf(ctx.payload.text).toEqualTypeOf<string>();
  // @ts-expect-error -- latitude is LOCATION only
  void ctx.payload.latitude;
  // @ts-expect-error -- only chatbot events can be answered (they name the chat)
  void ctx.reply;
});
bot.on('incoming:MEDIA', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<IncomingMediaMessage>();
  expectTypeOf(ctx.payload.mediaUrl).toEqualTypeOf<string>();
});
bot.on('chatbot:INCOMING:MEDIA', (ctx) => {
  expectTypeOf(ctx.payload.mediaUrl).toEqualTypeOf<string>();
  expectTypeOf(ctx.payload.messageText).toEqualTypeOf<Nullish<string>>();
});

// A status filter narrows to its status.
bot.on('status:READ', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<ReadStatusUpdate>();
  expectTypeOf(ctx.payload.status).toEqualTypeOf<'READ'>();
});
bot.on('status:FAILED', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<FailedStatusUpdate>();
  expectTypeOf(ctx.payload.errorCode).toEqualTypeOf<string>();
});
bot.on(['status:READ', 'status:FAILED'], (ctx) => {
  expectTypeOf(ctx.payload.status).toEqualTypeOf<'READ' | 'FAILED'>();
});
bot.on('status', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<StatusUpdate>();
});

// A partner event type and a session statusType.
bot.on('event:USER_PREFERENCE', (ctx) => {
  expectTypeOf(ctx.payload).toEqualTypeOf<UserPreferenceEvent>();
  expectTypeOf(ctx.payload.waId).toEqualTypeOf<string>();
});
bot.on('session:disconnected', (ctx) => {
  expectTypeOf(ctx.payload.statusType).toEqualTypeOf<'disconnected'>();
});

// A wrong filter string is a compile error.
// @ts-expect-error -- misspelled direction
bot.on('chatbot:INCOMMING:TEXT', () => undefined);
// @ts-expect-error -- not a content type of incoming messages
bot.on('incoming:IMAGE', () => undefined);
// @ts-expect-error -- Combined is only sent by a bot (OUTGOING)
bot.on('chatbot:INCOMING:Combined', () => undefined);
// @ts-expect-error -- status values are upper case
bot.on('status:read', () => undefined);
bot.on('chatbot:OUTGOING:Combined', () => undefined);

// A composer scoped by on(filter) narrows what follows, and refuses queries it never sees.
const incoming = bot.on('chatbot:INCOMING');
incoming.use((ctx, next) => {
  expectTypeOf(ctx.payload.direction).toEqualTypeOf<'INCOMING'>();
  return next();
});
incoming.on('chatbot', (ctx) => {
  expectTypeOf(ctx.payload.direction).toEqualTypeOf<'INCOMING'>();
});
// @ts-expect-error -- a composer of INCOMING chatbot events sees no status receipt
incoming.on('status', () => undefined);
// @ts-expect-error -- nor OUTGOING events
incoming.on('chatbot:OUTGOING', () => undefined);

// Without a handler, on() returns the scoped composer; with one, the composer itself.
expectTypeOf(bot.on('status:READ', () => undefined)).toEqualTypeOf(bot);

// Root handlers and middleware see every type: ctx.type narrows the payload.
bot.use(async (ctx, next) => {
  expectTypeOf(ctx.type).toEqualTypeOf<WebhookType>();
  expectTypeOf(next).toEqualTypeOf<NextFunction>();
  expectTypeOf(next()).toEqualTypeOf<Promise<void> | undefined>();
  if (ctx.type === 'status') expectTypeOf(ctx.payload).toEqualTypeOf<StatusUpdate>();
  if (ctx.type === 'chatbot') expectTypeOf(ctx.reply).toBeFunction();
  await next();
});
// @ts-expect-error -- a middleware takes (ctx, next); a third parameter is not given
bot.use((_ctx: unknown, _next: NextFunction, _third: string) => undefined);

// hears: a string puts a string on ctx.match, a RegExp its match array; the payload has text.
bot.hears('hi', (ctx) => {
  expectTypeOf(ctx.match).toEqualTypeOf<string>();
  expectTypeOf(ctx.payload.messageText).toEqualTypeOf<string>();
  expectTypeOf(ctx.reply).toBeFunction();
});
bot.hears(/order (\d+)/, (ctx) => {
  expectTypeOf(ctx.match).toEqualTypeOf<RegExpMatchArray>();
});
bot.command('start', (ctx) => {
  expectTypeOf(ctx.match).toEqualTypeOf<string>();
});
// @ts-expect-error -- a handler is not middleware: it gets no next()
bot.hears('hi', (_ctx, _next: NextFunction) => undefined);

// The error handler: the error (unknown: anything can be thrown) and the event's context.
bot.catch((error, ctx) => {
  expectTypeOf(error).toEqualTypeOf<unknown>();
  expectTypeOf(ctx).toEqualTypeOf<Context<WebhookType>>();
  expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
  expectTypeOf(ctx.logger.error).toBeFunction();
  if (ctx.type === 'chatbot') expectTypeOf(ctx.payload.chatParticipantId).toEqualTypeOf<string>();
});
incoming.catch((_error, ctx) => {
  expectTypeOf(ctx.payload.direction).toEqualTypeOf<'INCOMING'>();
});

// A type-guard filter narrows its handlers.
bot.filter(
  (ctx): ctx is ChatbotContext<ChatbotIncomingEventV2, undefined> =>
    ctx.type === 'chatbot' && ctx.payloadVersion === 'v2',
  (ctx) => {
    expectTypeOf(ctx.payload.senderUserId).toEqualTypeOf<string>();
  },
);

// Sessions: typed from initial; present on conversation events, maybe absent on the others.
interface Session {
  step: 'start' | 'asked';
  name: string;
}
const withSession = createBot({ session: { initial: (): Session => ({ step: 'start', name: '' }) } });
withSession.on('chatbot', (ctx) => {
  expectTypeOf(ctx.session).toEqualTypeOf<Session>();
  ctx.session.step = 'asked';
  // @ts-expect-error -- not a step
  ctx.session.step = 'done';
});
withSession.on('status', (ctx) => {
  expectTypeOf(ctx.session).toEqualTypeOf<Session | undefined>();
});
bot.on('chatbot', (ctx) => {
  // Without the session option there is none.
  expectTypeOf(ctx.session).toEqualTypeOf<undefined>();
});

// A composer shares the bot's session type; it mounts with use().
const feature = new Composer<Session>();
feature.hears('name', (ctx) => {
  ctx.session.name = ctx.payload.messageText;
});
withSession.use(feature);
// @ts-expect-error -- a composer of another session type does not mount
withSession.use(new Composer<{ other: number }>());

// The session store interface accepts synchronous and asynchronous stores.
export const asyncStore: SessionStore = {
  read: () => Promise.resolve(undefined),
  write: () => Promise.resolve(true),
};

// Context and EventContext name what handlers receive.
expectTypeOf<Context<'status:READ'>>().toEqualTypeOf<EventContext<'status', ReadStatusUpdate, undefined>>();
expectTypeOf<Context<'chatbot:OUTGOING'>['payload']['direction']>().toEqualTypeOf<'OUTGOING'>();
