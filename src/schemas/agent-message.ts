import * as z from 'zod';
import { identifier } from './fields.js';
import { CHAT_CHANNEL_VALUES } from './resources.js';

/**
 * Send an agent message (v2) and Upload media for an agent message (v2): the two operations a bot
 * answers a chatbot webhook with ("Reply to a customer from a chatbot webhook (referenced)"). The
 * documentation names their request fields (chatParticipantId, channel, text; the upload returns
 * a mediaUrl) and shows neither path nor response; what is not shown is chosen here and said so.
 */

/** The channel of a chat (ChatParticipant.channel): where the agent message is sent. */
export const agentMessageChannelSchema = z.enum(CHAT_CHANNEL_VALUES);
/** `MESSAGING`, `WEB` or `SOCIAL`. */
export type AgentMessageChannel = z.infer<typeof agentMessageChannelSchema>;

/**
 * Body of Send an agent message (v2). Documented: `chatParticipantId` (from the chatbot payload),
 * `channel` and `text`; media is sent as the `mediaUrl` an upload returned. Chosen where the
 * documentation is silent: a message carries text, media or both (at least one), and `caption`,
 * the text shown under media, only with `mediaUrl`. The sending agent is not a field: the platform
 * resolves it from the API key.
 */
export const sendAgentMessageRequestSchema = z
  .object({
    chatParticipantId: identifier,
    channel: agentMessageChannelSchema,
    text: z.string().min(1, 'Expected a non-empty text').optional(),
    mediaUrl: z.string().min(1, 'Expected a non-empty mediaUrl').optional(),
    caption: z.string().optional(),
  })
  .refine((body) => body.text !== undefined || body.mediaUrl !== undefined, {
    error: 'Expected text, mediaUrl or both',
    path: ['text'],
  })
  .refine((body) => body.caption === undefined || body.mediaUrl !== undefined, {
    error: 'caption is the text under media: it needs mediaUrl',
    path: ['caption'],
  });
/** What Send an agent message (v2) takes. */
export type SendAgentMessageRequest = z.input<typeof sendAgentMessageRequestSchema>;

/** The agent an agent message was sent as (resolved from the API key). */
export const agentMessageSenderSchema = z.object({
  id: z.string(),
  email: z.string().nullish(),
});

/**
 * The response of Send an agent message (v2): not shown in the documentation. Chosen: the message
 * as recorded, with its id, the chat it went to, what it carried, when (ISO 8601, like the
 * ChatParticipant timestamps) and the agent the API key resolved to.
 */
export const agentMessageSchema = z.object({
  id: z.string(),
  chatParticipantId: z.string(),
  channel: agentMessageChannelSchema,
  text: z.string().nullish(),
  mediaUrl: z.string().nullish(),
  caption: z.string().nullish(),
  createdTime: z.string(),
  sentBy: agentMessageSenderSchema,
});
/** An agent message as the platform recorded it. */
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/**
 * A Blob as the upload reads it, of whichever realm made it: the DOM's `Blob` (a `lib: ["dom"]`
 * project) and Node's `buffer.Blob` differ in their declared stream types, so neither is written
 * here; `uploadMedia` checks `instanceof Blob` at run time.
 */
export interface BlobLike {
  readonly size: number;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * Upload media for an agent message (v2): the file's bytes, its name and its media type. How the
 * bytes travel (multipart form, raw body) is the client's and the emulator's business; these are
 * the values a caller gives. `contentType` defaults, where the caller leaves it out, to what the
 * file name's extension says (else `application/octet-stream`).
 */
export const uploadMediaRequestSchema = z.object({
  data: z.union([
    z.custom<BlobLike>((value) => value instanceof Blob, 'Expected a Blob or a Uint8Array'),
    z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'Expected a Blob or a Uint8Array'),
  ]),
  fileName: identifier,
  contentType: z.string().min(1).optional(),
});
/** What Upload media for an agent message (v2) takes. */
export type UploadMediaRequest = z.input<typeof uploadMediaRequestSchema>;

/** The response of Upload media (v2): documented as "the returned mediaUrl". */
export const uploadMediaResponseSchema = z.object({ mediaUrl: z.string().min(1) });
/** What Upload media for an agent message (v2) returns. */
export type UploadMediaResponse = z.infer<typeof uploadMediaResponseSchema>;
