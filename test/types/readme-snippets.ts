/**
 * The types-you-write examples of the README and docs/receiver.md, type-checked under the
 * repository's strict tsconfig: the Quick start log line, the exhaustive switch that compiles with
 * unlisted values, `WebhookHandlers` with `satisfies`, `WebhookContext<T>`, `CaptureSink`, the
 * payload variant types and `token: false`. Each block is one exported function.
 */
import {
  createNodeHandler,
  type CaptureRecord,
  type CaptureSink,
  type IncomingMessage,
  type WebhookContext,
  type WebhookHandlers,
} from '../../src/index.js';
import type {
  FailedStatusUpdate,
  IncomingTextMessage,
  UnlistedIncomingMessage,
} from '../../src/schemas/index.js';

declare function save(record: CaptureRecord): void;
declare function alertOnFailure(receipt: FailedStatusUpdate): Promise<void>;

/** Quick start: ctx.logger already binds `type` (the webhook type) and `requestId`. */
export const onIncoming = async (
  message: IncomingMessage,
  ctx: WebhookContext<'incoming'>,
): Promise<void> => {
  // README Quick start log line: begin
  ctx.logger.info({ contentType: message.messageContentType }, 'customer message');
  // README Quick start log line: end
};

/** The same line as the README had it: a second `type` key in the same log line. */
export const onIncomingDuplicatingType = async (
  message: IncomingMessage,
  ctx: WebhookContext<'incoming'>,
): Promise<void> => {
  ctx.logger.info({ type: message.messageContentType }, 'customer message');
};

// README: Types you write: begin
export function describeMessage(message: IncomingMessage): string {
  switch (message.messageContentType) {
    case 'TEXT':
    case 'CONTACT':
      return message.text; // a string here; no latitude, no mediaUrl
    case 'MEDIA':
      return `${message.mediaUrl} ${message.caption ?? ''}`;
    case 'LOCATION':
      return `${message.latitude},${message.longitude}`;
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      return message.buttonPayload ?? '';
    case 'REACTION':
      return `reaction to ${message.gstId}`;
    default:
      // A content type the platform added after this version: it arrives here, never as an error.
      // `satisfies` stops compiling if a documented case above is missing.
      message satisfies UnlistedIncomingMessage;
      return `unsupported content type ${String(message.messageContentType)}`;
  }
}

export const handlers = {
  onIncoming: async (message, ctx) => {
    ctx.logger.info({ contentType: message.messageContentType }, 'customer message');
    if (message.messageContentType === 'TEXT') await answer(message, ctx);
  },
  onStatus: async (receipt) => {
    if (receipt.status === 'FAILED') await alertOnFailure(receipt); // FailedStatusUpdate
  },
} satisfies WebhookHandlers;

async function answer(message: IncomingTextMessage, ctx: WebhookContext<'incoming'>): Promise<void> {
  ctx.logger.debug({ length: message.text.length }, 'answering');
}

const capture: CaptureSink = (record) => save(record); // every request, before validation

export const webhooks = createNodeHandler({
  ...handlers,
  capture,
  // Unset, this logs a warning at start-up that the endpoint is open. Behind a gateway that
  // authenticates, say so with `token: false` (no warning).
  token: process.env.WEBHOOK_TOKEN,
});
// README: Types you write: end
