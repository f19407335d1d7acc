import type { AgentMessagesApi } from '../../src/index.js';
import type { WebhookHandlers } from '../../src/dispatch/types.js';
import { createWebhookPipeline, type WebhookPipelineOptions } from '../../src/pipeline/index.js';
import type {
  AgentMessage,
  SendAgentMessageRequest,
  UploadMediaRequest,
  WebhookType,
} from '../../src/schemas/index.js';
import { WEBHOOK_PATHS } from '../../src/schemas/index.js';

/**
 * A receiver's pipeline over a bot's callbacks, driven as an adapter drives it (head, then accept
 * with the raw body): validation, dedupe, the ordered queue, retries and dead letters are the
 * real ones. Retries wait 1 ms.
 */
export function createReceiver(handlers: WebhookHandlers, options: Partial<WebhookPipelineOptions> = {}) {
  const pipeline = createWebhookPipeline({
    token: false,
    retry: { attempts: 1 },
    ...handlers,
    ...options,
  });
  return {
    pipeline,
    /** Posts one payload to its type's path; resolves with the HTTP status answered. */
    async send(type: WebhookType, payload: unknown): Promise<number> {
      const head = pipeline.head({
        method: 'POST',
        url: `/${WEBHOOK_PATHS[type]}`,
        header: (name) => (name === 'content-type' ? 'application/json' : undefined),
      });
      if (!('requestId' in head)) throw head;
      const answer = await pipeline.accept(head, { raw: JSON.stringify(payload) });
      return answer.status;
    },
    idle: () => pipeline.idle(),
    stats: () => pipeline.stats(),
    close: () => pipeline.close(1000),
  };
}

/** Retries at once (1 ms apart), up to `attempts`. */
export const quickRetry = (attempts: number) => ({ attempts, backoff: { type: 'fixed' as const, delay: 1 } });

/**
 * An in-memory stand-in for the platform's agent-message operations: records what a bot sends
 * and uploads, answers as the client would (an AgentMessage, an uploaded media URL).
 */
export function createFakeAgentMessages(): AgentMessagesApi & {
  readonly sent: SendAgentMessageRequest[];
  readonly uploads: UploadMediaRequest[];
} {
  const sent: SendAgentMessageRequest[] = [];
  const uploads: UploadMediaRequest[] = [];
  return {
    sent,
    uploads,
    send(input) {
      sent.push(input);
      const message: AgentMessage = {
        id: `message-${sent.length}`,
        chatParticipantId: input.chatParticipantId,
        channel: input.channel,
        text: input.text,
        mediaUrl: input.mediaUrl,
        caption: input.caption,
        createdTime: new Date(0).toISOString(),
        sentBy: { id: 'agent-1', email: 'bot@example.com' },
      };
      return Promise.resolve(message);
    },
    uploadMedia(input) {
      uploads.push(input);
      return Promise.resolve({ mediaUrl: `https://media.example/${uploads.length}/${input.fileName}` });
    },
  };
}
