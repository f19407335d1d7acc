import { z } from 'zod';
import {
  emulatorErrorResponseSchema,
  errorResponseSchema,
  messagingClientNumberPageSchema,
  userResponsePageSchema,
  webhookConfigPageSchema,
} from '../contract/index.js';
import {
  chatbotEventV1Schema,
  chatbotEventV2Schema,
  chatbotV1IncomingSchema,
  chatbotV1OutgoingSchema,
  chatbotV1UnlistedSchema,
  chatbotV2IncomingSchema,
  chatbotV2OutgoingSchema,
  chatbotV2UnlistedSchema,
} from '../schemas/chatbot.js';
import {
  incomingButtonSchema,
  incomingCarouselSchema,
  incomingContactSchema,
  incomingInteractiveSchema,
  incomingLocationSchema,
  incomingMediaSchema,
  incomingMessageSchema,
  incomingReactionSchema,
  incomingTextSchema,
  incomingUnlistedSchema,
} from '../schemas/incoming.js';
import {
  partnerEventSchema,
  partnerUnlistedSchema,
  phoneQualityChangedSchema,
  templateComponentsChangedSchema,
  templateQualityChangedSchema,
  templateStatusChangedSchema,
  userChangedNumberSchema,
  userPreferenceSchema,
} from '../schemas/partner.js';
import {
  agentChatLimitSchema,
  availabilityChangeSchema,
  chatParticipantSchema,
  chatParticipantTerminateSchema,
  chatParticipantViewSchema,
  clientSchema,
  messageResponseSchema,
  messagingClientNumberSchema,
  pageSchema,
  passwordChangeSchema,
  systemUserCreateSchema,
  systemUserSchema,
  systemUserUpdateSchema,
  userCreateSchema,
  userCreatedResponseSchema,
  userCreditsSchema,
  userResponseSchema,
  userSummarySchema,
  usersForClientPageSchema,
  userUpdateSchema,
} from '../schemas/resources.js';
import { sessionStatusSchema } from '../schemas/session.js';
import {
  statusAcceptedSchema,
  statusDeliveredSchema,
  statusFailedSchema,
  statusPlayedSchema,
  statusReadSchema,
  statusSentSchema,
  statusUnlistedSchema,
  statusUpdateSchema,
} from '../schemas/status.js';
import {
  webhookConfigCreateSchema,
  webhookConfigSchema,
  webhookConfigUpdateSchema,
} from '../schemas/webhook-config.js';

/** What the contract registry knows of one named schema. */
export interface ContractMeta {
  /** The component name in the OpenAPI document (`#/components/schemas/<id>`). */
  readonly id: string;
  readonly description: string;
  /**
   * The file name (without `.json`) of its standalone JSON Schema under `schemas/json/`: set
   * for each webhook payload type and each documented resource.
   */
  readonly file?: string;
}

/**
 * The named schemas of the contract: the zod schemas of src/schemas under the names the document
 * uses. Only the names live here; every shape comes from the schemas themselves. A local
 * registry, not `.meta({ id })` on the schemas, so naming the contract changes no schema.
 */
export const CONTRACT = z.registry<ContractMeta>();

const entries: ContractMeta[] = [];
/** Every entry of {@link CONTRACT}, in registration order (a registry cannot be listed). */
export const CONTRACT_ENTRIES: readonly ContractMeta[] = entries;

function add(schema: z.ZodType, meta: ContractMeta): void {
  CONTRACT.add(schema, meta);
  entries.push(meta);
}

// Webhook payloads (section Events): one component per branch, so the union reads as a list of $refs.
add(incomingMessageSchema, {
  id: 'IncomingMessage',
  file: 'incoming-message',
  description:
    'Incoming message payload (incomingMessageURL): one branch per documented messageContentType, ' +
    'each with its key fields required, plus a branch for a content type the documentation does not list.',
});
add(incomingTextSchema, { id: 'IncomingTextMessage', description: 'TEXT: a text message.' });
add(incomingMediaSchema, {
  id: 'IncomingMediaMessage',
  description: 'MEDIA: image, video, audio, document or sticker (mediaUrl, caption, fileExtension).',
});
add(incomingLocationSchema, {
  id: 'IncomingLocationMessage',
  description: 'LOCATION: a location shared (latitude, longitude, label, address).',
});
add(incomingButtonSchema, {
  id: 'IncomingButtonMessage',
  description: 'BUTTON: a template button tapped (buttonText, buttonPayload).',
});
add(incomingInteractiveSchema, {
  id: 'IncomingInteractiveMessage',
  description: 'INTERACTIVE: a quick reply, list item or flow button (buttonText, buttonPayload).',
});
add(incomingContactSchema, {
  id: 'IncomingContactMessage',
  description: 'CONTACT: a contact card, text formatted as "Contact: <name>, Phone: <number>".',
});
add(incomingReactionSchema, {
  id: 'IncomingReactionMessage',
  description:
    'REACTION: text is the emoji, gstId the reacted-to message; empty or null text means the reaction was removed.',
});
add(incomingCarouselSchema, {
  id: 'IncomingCarouselMessage',
  description: 'CAROUSEL: a carousel card interaction (buttonText, buttonPayload).',
});
add(incomingUnlistedSchema, {
  id: 'UnlistedIncomingMessage',
  description:
    'An incoming message whose messageContentType the documentation does not list: accepted, with only sender required.',
});

add(statusUpdateSchema, {
  id: 'StatusUpdate',
  file: 'status-update',
  description:
    'Status update payload (statusUpdateURL), emitted on each change of an outbound message delivery status.',
});
add(statusAcceptedSchema, { id: 'AcceptedStatusUpdate', description: 'ACCEPTED: received by the provider.' });
add(statusSentSchema, { id: 'SentStatusUpdate', description: "SENT: sent to the customer's number." });
add(statusDeliveredSchema, {
  id: 'DeliveredStatusUpdate',
  description: "DELIVERED: arrived on the customer's phone.",
});
add(statusReadSchema, { id: 'ReadStatusUpdate', description: 'READ: the customer opened the message.' });
add(statusPlayedSchema, {
  id: 'PlayedStatusUpdate',
  description: 'PLAYED: the recipient played a voice note (voice messages only).',
});
add(statusFailedSchema, {
  id: 'FailedStatusUpdate',
  description: 'FAILED: could not be delivered; errorCode and errorCodeString are set. Terminal, no retry.',
});
add(statusUnlistedSchema, {
  id: 'UnlistedStatusUpdate',
  description:
    'A status receipt whose status the documentation does not list: accepted, with only gstId required.',
});

add(sessionStatusSchema, {
  id: 'SessionStatus',
  file: 'session-status',
  description: 'Session status payload (sessionStatusURL; Lite numbers only).',
});

add(partnerEventSchema, {
  id: 'PartnerEvent',
  file: 'partner-event',
  description:
    'Partner event payload (eventWebhookURL): one branch per documented eventType, with only the fields ' +
    'relevant to the event, plus a branch for an eventType the documentation does not list.',
});
add(phoneQualityChangedSchema, { id: 'PhoneQualityChangedEvent', description: 'PHONE_QUALITY_CHANGED.' });
add(templateStatusChangedSchema, {
  id: 'TemplateStatusChangedEvent',
  description: 'TEMPLATE_STATUS_CHANGED; rejectedReason only when REJECTED.',
});
add(templateQualityChangedSchema, {
  id: 'TemplateQualityChangedEvent',
  description: 'TEMPLATE_QUALITY_CHANGED.',
});
add(templateComponentsChangedSchema, {
  id: 'TemplateComponentsChangedEvent',
  description: 'TEMPLATE_COMPONENTS_CHANGED.',
});
add(userPreferenceSchema, {
  id: 'UserPreferenceEvent',
  description: 'USER_PREFERENCE; on stop the receiver must stop marketing messages to that user.',
});
add(userChangedNumberSchema, { id: 'UserChangedNumberEvent', description: 'USER_CHANGED_NUMBER.' });
add(partnerUnlistedSchema, {
  id: 'UnlistedPartnerEvent',
  description: 'A partner event whose eventType the documentation does not list: accepted.',
});

add(chatbotEventV1Schema, {
  id: 'ChatbotEventV1',
  file: 'chatbot-event-v1',
  description:
    'Chatbot conversation payload v1 (chatbotWebhookURL, chatbotPayloadVersion v1, omitted or null). ' +
    'eventId is the deduplication key.',
});
add(chatbotV1IncomingSchema, { id: 'ChatbotEventV1Incoming', description: 'v1, INCOMING: customer to bot.' });
add(chatbotV1OutgoingSchema, { id: 'ChatbotEventV1Outgoing', description: 'v1, OUTGOING: bot to customer.' });
add(chatbotV1UnlistedSchema, {
  id: 'UnlistedChatbotEventV1',
  description: 'v1, a direction the documentation does not list: accepted.',
});
add(chatbotEventV2Schema, {
  id: 'ChatbotEventV2',
  file: 'chatbot-event-v2',
  description:
    'Chatbot conversation payload v2 (chatbotPayloadVersion v2): a strict superset of v1 adding team, ' +
    'quote and BSUID fields. eventId is the deduplication key.',
});
add(chatbotV2IncomingSchema, {
  id: 'ChatbotEventV2Incoming',
  description: 'v2, INCOMING: senderUserId (the customer BSUID) is always present.',
});
add(chatbotV2OutgoingSchema, {
  id: 'ChatbotEventV2Outgoing',
  description: 'v2, OUTGOING: recipientUserId (the customer BSUID) is always present.',
});
add(chatbotV2UnlistedSchema, {
  id: 'UnlistedChatbotEventV2',
  description: 'v2, a direction the documentation does not list: accepted, no BSUID rule applies.',
});

// Resources (section Resources and their fields).
add(chatParticipantSchema, {
  id: 'ChatParticipant',
  file: 'chat-participant',
  description:
    'A customer conversation record. assignedTo is a SystemUser; the fields inside lastAssignedAgent are not shown.',
});
add(systemUserSchema, {
  id: 'SystemUser',
  file: 'system-user',
  description:
    'The credential-bearing user record of the deprecated operations and of ChatParticipant.assignedTo; password is masked.',
});
add(clientSchema, {
  id: 'Client',
  file: 'client',
  description:
    'The client (nested in SystemUser.client); smsPassword and headerKeyPairsJson are credentials.',
});
add(userResponseSchema, {
  id: 'UserResponse',
  file: 'user-response',
  description:
    'A credential-free user record. Its fields are not shown in the documentation; those named here are the ' +
    "SystemUser fields that are not credentials (the emulator's choice) and all optional.",
});
add(userCreatedResponseSchema, {
  id: 'UserCreatedResponse',
  description:
    'A UserResponse plus the one-time temporary password, returned once at creation. The field name is the emulator’s choice.',
});
add(userSummarySchema, {
  id: 'UserSummary',
  file: 'user-summary',
  description: 'A lean user record: id, name, email, role, live-chat role, avatar and availability.',
});
add(webhookConfigSchema, {
  id: 'MessagingClientWebHook',
  file: 'messaging-client-webhook',
  description:
    'A webhook configuration as List returns it: messagingNumberId null for the client default, set for a per-number override.',
});
add(messagingClientNumberSchema, {
  id: 'MessagingClientNumberResponse',
  file: 'messaging-client-number',
  description:
    'A number lookup row. id is the client-number link id; messagingNumber.id is the value to send as messagingNumberId.',
});
add(pageSchema(z.unknown()), {
  id: 'Page',
  file: 'page',
  description: 'A paged list: content, totalElements, totalPages, number (zero-based page index) and size.',
});
add(errorResponseSchema, {
  id: 'ErrorResponse',
  file: 'error-response',
  description: 'The 401 body of every documented endpoint (section Errors).',
});
add(emulatorErrorResponseSchema, {
  id: 'EmulatorErrorResponse',
  description:
    "The emulator's error body: the 401 body plus code and, on a 400, field (the request field at fault). The " +
    'platform’s 403, 409 and other error bodies are not shown in the documentation.',
});
add(chatParticipantViewSchema, {
  id: 'ChatParticipantView',
  description:
    'A ChatParticipant as the non-deprecated operations return it: assignedTo and lastAssignedAgent are credential-free ' +
    'UserResponse records (Authentication point 7).',
});
add(userCreditsSchema, {
  id: 'UserCredits',
  description:
    "The caller's credit balance. Its shape is not shown; the emulator answers the balances of the caller's Client.",
});

// Pages of one resource, request bodies and the other responses.
add(webhookConfigPageSchema, {
  id: 'MessagingClientWebHookPage',
  description: 'A Page of webhook configurations: the default first, then overrides ordered by phone number.',
});
add(messagingClientNumberPageSchema, {
  id: 'MessagingClientNumberPage',
  description: 'A Page of number lookup rows.',
});
add(userResponsePageSchema, { id: 'UserResponsePage', description: 'A Page of UserResponse.' });
add(usersForClientPageSchema, {
  id: 'UsersForClientPage',
  description:
    'The getUsersForClient page: content (SystemUser, credential-bearing), totalElements, totalPages.',
});
add(messageResponseSchema, { id: 'MessageResponse', description: 'A `{ message }` answer.' });
add(webhookConfigCreateSchema, {
  id: 'WebhookConfigCreate',
  description:
    'Create body: the configuration without id. Omit messagingNumberId (or null) for the client default; set it ' +
    '(the nested messagingNumber.id, not the link id) for a per-number override. Only the URLs wanted need be given.',
});
add(webhookConfigUpdateSchema, {
  id: 'WebhookConfigUpdate',
  description:
    'Update body: the configuration including id. An empty string in a URL field disables that type; ' +
    'messagingNumberId is ignored (scope rule 7).',
});
add(userCreateSchema, {
  id: 'UserCreate',
  description:
    'Create a user: no password and no credential field; clientRef defaults to the caller’s client.',
});
add(userUpdateSchema, {
  id: 'UserUpdate',
  description: 'Update a user, identified by id; no credential field.',
});
add(passwordChangeSchema, {
  id: 'PasswordChange',
  description: 'Old password, new password and confirmation.',
});
add(availabilityChangeSchema, {
  id: 'AvailabilityChange',
  description: 'Toggles when empty; availabilityStatus sets the value (the emulator’s extension).',
});
add(agentChatLimitSchema, {
  id: 'AgentChatLimitChange',
  description: 'The agent, the limit, and optionally the client (default: the caller’s).',
});
add(systemUserCreateSchema, {
  id: 'SystemUserCreate',
  description: 'Deprecated create: accepts credential-bearing SystemUser fields.',
});
add(systemUserUpdateSchema, {
  id: 'SystemUserUpdate',
  description:
    'Deprecated update: accepts credential-bearing fields; the masked password leaves it unchanged.',
});
add(chatParticipantTerminateSchema, {
  id: 'ChatParticipantTerminate',
  description:
    'A ChatParticipant with every field optional but id. Merge rules: non-null strings and objects are merged; ' +
    'assignedTo omitted or null clears the assignment; conversationClosed, missedConversation, afterHoursConversation, ' +
    'sendRatingWidget and chatBotConversation are always copied (omitted is false).',
});
