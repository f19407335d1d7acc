/** The five webhook types, one per URL field of the webhook configuration. */
export const WEBHOOK_TYPES = ['incoming', 'status', 'session', 'event', 'chatbot'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** The webhook configuration's URL field for each webhook type (section Events). */
export const WEBHOOK_URL_FIELDS = {
  incoming: 'incomingMessageURL',
  status: 'statusUpdateURL',
  session: 'sessionStatusURL',
  event: 'eventWebhookURL',
  chatbot: 'chatbotWebhookURL',
} as const satisfies Record<WebhookType, string>;
export type WebhookUrlField = (typeof WEBHOOK_URL_FIELDS)[WebhookType];

/** The receiver's sub-path for each webhook type. */
export const WEBHOOK_PATHS = {
  incoming: 'incoming',
  status: 'status',
  session: 'session',
  event: 'events',
  chatbot: 'chatbot',
} as const satisfies Record<WebhookType, string>;

export function isWebhookType(value: unknown): value is WebhookType {
  return typeof value === 'string' && (WEBHOOK_TYPES as readonly string[]).includes(value);
}
