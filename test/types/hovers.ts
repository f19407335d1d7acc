/**
 * What an editor shows on hover: each `hover_<Name>` constant's type must print as `<Name>`
 * (test/types/hovers.test.ts asks the compiler), not as a long anonymous object type.
 */
import type {
  ChatbotEvent,
  IncomingMessage,
  PartnerEvent,
  SessionStatus,
  StatusUpdate,
} from '../../src/schemas/index.js';
import type { WebhookHandlers } from '../../src/index.js';

export function hovers(
  message: IncomingMessage,
  status: StatusUpdate,
  event: PartnerEvent,
  chatbot: ChatbotEvent,
  session: SessionStatus,
): unknown[] {
  const seen: unknown[] = [];
  switch (message.messageContentType) {
    case 'TEXT': {
      const hover_IncomingTextMessage = message;
      seen.push(hover_IncomingTextMessage);
      break;
    }
    case 'LOCATION': {
      const hover_IncomingLocationMessage = message;
      seen.push(hover_IncomingLocationMessage);
      break;
    }
    case 'MEDIA':
    case 'REACTION':
      break;
    default: {
      if (message.messageContentType === 'BUTTON') break;
      if (
        message.messageContentType === 'INTERACTIVE' ||
        message.messageContentType === 'CAROUSEL' ||
        message.messageContentType === 'CONTACT'
      )
        break;
      const hover_UnlistedIncomingMessage = message;
      seen.push(hover_UnlistedIncomingMessage);
    }
  }
  if (status.status === 'FAILED') {
    const hover_FailedStatusUpdate = status;
    seen.push(hover_FailedStatusUpdate);
  }
  if (event.eventType === 'USER_CHANGED_NUMBER') {
    const hover_UserChangedNumberEvent = event;
    seen.push(hover_UserChangedNumberEvent);
  }
  if (chatbot.direction === 'OUTGOING' && 'recipientUserId' in chatbot) {
    const hover_ChatbotOutgoingEventV2 = chatbot;
    seen.push(hover_ChatbotOutgoingEventV2);
  }
  const hover_SessionStatus = session;
  seen.push(hover_SessionStatus);
  return seen;
}

export const handlers = {
  onIncoming(message) {
    const hover_IncomingMessage = message;
    return hover_IncomingMessage;
  },
} satisfies WebhookHandlers;
