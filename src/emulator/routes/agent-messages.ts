import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { AGENT_MEDIA_TYPES } from '../../contract/index.js';
import type { AgentMessage } from '../../schemas/index.js';
import type { PlatformContext, PlatformHandlers } from '../context.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { newId } from '../ids.js';
import type { EmulatorState, EmulatorUser, OutboundMessage } from '../state/index.js';
import { assertMessagingPossible, numberOfParticipant, participantOfClient } from '../triggers/lookups.js';

/*
 * Reply to a customer from a chatbot webhook (referenced): Send an agent message (v2) and Upload
 * media for an agent message (v2). The documentation names the operations and their fields; the
 * rest is the emulator's choice, written in docs/bots.md ("What the emulator chose").
 */

/** Where the emulator serves an uploaded file: `/_emulator/media/<id>/<fileName>` (no authentication). */
export const MEDIA_PATH = '/_emulator/media';

/** Default of the emulator's `agentMessages.maxMediaBytes`: 5 MiB. */
export const DEFAULT_MAX_MEDIA_BYTES = 5 * 1024 * 1024;

const ACCEPTED_MEDIA_TYPES: ReadonlySet<string> = new Set(AGENT_MEDIA_TYPES);

/** The id of an emulator media URL (`…/_emulator/media/<id>[/<name>]`), else undefined. */
function mediaIdOf(mediaUrl: string): string | undefined {
  const at = mediaUrl.indexOf(`${MEDIA_PATH}/`);
  if (at < 0) return undefined;
  return mediaUrl.slice(at + MEDIA_PATH.length + 1).split(/[/?#]/)[0];
}

/** The origin the caller reached the emulator at: what a mediaUrl it gets back starts with. */
function originOf(headers: IncomingHttpHeaders): string {
  const host = typeof headers.host === 'string' && headers.host !== '' ? headers.host : 'localhost';
  return `http://${host}`;
}

/** The media type of a Content-Type header, without parameters, lower case. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** An agent message as the operation answers it (AgentMessage). */
function renderAgentMessage(message: OutboundMessage, agent: EmulatorUser): AgentMessage {
  const content = message.agentMessage;
  if (content === null || content === undefined) throw new InternalError('Not an agent message');
  return {
    id: message.gstId,
    chatParticipantId: message.chatParticipantId,
    channel: content.channel,
    text: content.text,
    mediaUrl: content.mediaUrl,
    caption: content.caption,
    createdTime: message.sendTime,
    sentBy: { id: agent.id, email: agent.email },
  };
}

/**
 * A mediaUrl of this emulator names a file it keeps, of the caller's client (a 400 naming
 * mediaUrl otherwise); any other URL is taken as it is (the platform would fetch it).
 */
function checkMediaUrl(state: EmulatorState, clientId: string, mediaUrl: string | undefined): void {
  if (mediaUrl === undefined) return;
  const id = mediaIdOf(mediaUrl);
  if (id === undefined) return;
  if (state.media.get(id)?.clientId !== clientId) {
    throw new BadRequestError(`mediaUrl: no uploaded media ${id} for this client (upload it first)`, {
      field: 'mediaUrl',
    });
  }
}

/**
 * - sendAgentMessage: 404 for a chat that is not the caller's client's, 403 for a caller without a
 *   live-chat role (the sender is an agent), 409 CONFLICT for a closed chat (reopen it first) or a
 *   disconnected Lite number, 400 for a channel that is not the chat's. Answers in the chat (the
 *   OUTGOING chatbot event bot-reply emits too), records an outbound message carrying the content
 *   and emits its status receipts (`agentMessages.receipts`, default SENT then DELIVERED).
 * - uploadAgentMessageMedia: 415 for a media type outside AGENT_MEDIA_TYPES, 413 over
 *   `agentMessages.maxMediaBytes`; keeps the file and answers the URL it is served at.
 */
export const agentMessageHandlers = (context: PlatformContext) => {
  const { state } = context;
  return {
    sendAgentMessage({ auth, body }) {
      const participant = participantOfClient(
        state,
        auth.client.id,
        body.chatParticipantId,
        'chatParticipantId',
      );
      if (auth.user.liveChatRole === null) {
        throw new ForbiddenError(
          'Send an agent message requires a live-chat role (AGENT or SUPERVISOR): the API key is the sending agent’s',
        );
      }
      if (participant.conversationClosed) {
        throw new ConflictError(
          `Chat ${participant.id} is closed: reopen it (reopenChatParticipant) before sending to it`,
          { details: { conversationClosed: true } },
        );
      }
      if (body.channel !== participant.channel) {
        throw new BadRequestError(
          `channel: chat ${participant.id} is on ${participant.channel}, not ${body.channel}`,
          {
            field: 'channel',
          },
        );
      }
      const number = numberOfParticipant(state, participant);
      assertMessagingPossible(state, number);
      checkMediaUrl(state, auth.client.id, body.mediaUrl);
      const { message } = context.chatEvents.sendAgentMessage(
        number,
        participant,
        {
          channel: body.channel,
          text: body.text ?? null,
          mediaUrl: body.mediaUrl ?? null,
          caption: body.caption ?? null,
          sentBy: auth.user.id,
          sentByEmail: auth.user.email,
        },
        context.agentMessages.receipts,
      );
      return renderAgentMessage(message, auth.user);
    },

    uploadAgentMessageMedia({ auth, body, query, headers }) {
      const contentType = mediaTypeOf(headers['content-type']);
      if (!ACCEPTED_MEDIA_TYPES.has(contentType)) {
        throw new UnsupportedMediaTypeError(
          `Content-Type ${contentType} is not accepted for agent message media (accepted: ${AGENT_MEDIA_TYPES.join(', ')})`,
          { field: 'content-type', details: { accepted: AGENT_MEDIA_TYPES } },
        );
      }
      const max = context.agentMessages.maxMediaBytes;
      if (body.length > max) {
        throw new PayloadTooLargeError(`Media of ${body.length} bytes exceeds the limit of ${max} bytes`, {
          details: { limit: max },
        });
      }
      const id = newId();
      state.addMedia({
        id,
        clientId: auth.client.id,
        fileName: query.fileName,
        contentType,
        data: body.toString('base64'),
        size: body.length,
        uploadedBy: auth.user.id,
        createdTime: context.now().toISOString(),
      });
      return { mediaUrl: `${originOf(headers)}${MEDIA_PATH}/${id}/${encodeURIComponent(query.fileName)}` };
    },
  } satisfies Partial<PlatformHandlers>;
};

/**
 * Serves an uploaded file at its mediaUrl (GET and HEAD `/_emulator/media/<id>[/<name>]`): the
 * bytes with their Content-Type, no authentication (the URL is the capability, as a media CDN's);
 * 404 JSON for an unknown or dropped file.
 */
export function serveMedia(state: EmulatorState) {
  return function mediaFile(req: Request, res: Response, next: (error?: unknown) => void): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const id = String(req.params.id ?? '');
    const record = state.media.get(id);
    if (record === undefined) {
      next(new NotFoundError(`No media ${id}`));
      return;
    }
    res
      .status(200)
      .type(record.contentType)
      // served from the inspector's origin: the browser takes the type as given, never guesses HTML
      .setHeader('x-content-type-options', 'nosniff')
      .setHeader('content-disposition', `inline; filename="${encodeURIComponent(record.fileName)}"`)
      .send(Buffer.from(record.data, 'base64'));
  };
}
