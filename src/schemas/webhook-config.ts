import * as z from 'zod';
import { CHATBOT_PAYLOAD_VERSIONS, type ChatbotDirection, type ChatbotPayloadVersion } from './chatbot.js';
import { WEBHOOK_URL_FIELDS, type WebhookType, type WebhookUrlField } from './webhook-types.js';

/**
 * Control characters (C0, DEL, C1), the line and paragraph separators and the bidirectional
 * overrides and isolates: `URL.canParse` accepts a URL carrying them (it strips tabs and newlines,
 * percent-encodes the rest), but the string as stored is what a log, a terminal or a page shows,
 * where they rewrite the line around them.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const URL_CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A URL field of the webhook configuration: the empty string (that webhook type is disabled,
 * scope rule 4) or an absolute http(s) URL without control characters or surrounding spaces. Any
 * host is accepted, `localhost` and IP addresses included, so a test receiver on 127.0.0.1 can be
 * configured.
 */
export const webhookUrlSchema = z
  .string()
  .refine((value) => !URL_CONTROL_CHARACTERS.test(value) && value.trim() === value, {
    message: 'Expected a URL without control characters or surrounding spaces',
  })
  .refine(
    (value) => {
      if (value === '') return true;
      if (!URL.canParse(value)) return false;
      const { protocol, hostname } = new URL(value);
      return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
    },
    { message: 'Expected an empty string or an absolute http(s) URL' },
  );

/** chatbotPayloadVersion: v1 or v2; omitted or null means v1 (section Versioning). */
export const chatbotPayloadVersionSchema = z.enum(CHATBOT_PAYLOAD_VERSIONS).nullish();

/** The URL field names, in documentation order. */
export const WEBHOOK_CONFIG_URL_FIELDS = [
  'incomingMessageURL',
  'statusUpdateURL',
  'sessionStatusURL',
  'eventWebhookURL',
  'chatbotWebhookURL',
] as const satisfies readonly WebhookUrlField[];

/**
 * The configurable fields shared by create and update. "Only the URLs wanted need be given";
 * null in a URL field is read as "not given".
 */
const configurableShape = {
  incomingMessageURL: webhookUrlSchema.nullish(),
  statusUpdateURL: webhookUrlSchema.nullish(),
  sessionStatusURL: webhookUrlSchema.nullish(),
  eventWebhookURL: webhookUrlSchema.nullish(),
  chatbotWebhookURL: webhookUrlSchema.nullish(),
  chatbotIncludeOutgoing: z.boolean().nullish(),
  chatbotStopOnAgentAssignment: z.boolean().nullish(),
  chatbotPayloadVersion: chatbotPayloadVersionSchema,
};

/**
 * Body of Create (POST {messaging_prefix}/Messaging/MessagingClientWebHook): the configuration
 * without id. messagingNumberId omitted or null creates the client default; set, a per-number
 * override (it must be the nested number id, not the client-number link id).
 */
export const webhookConfigCreateSchema = z.object({
  messagingNumberId: z.string().min(1, 'Expected a non-empty string or null').nullish(),
  ...configurableShape,
});
export type WebhookConfigCreate = z.infer<typeof webhookConfigCreateSchema>;

/**
 * Body of Update (PUT {messaging_prefix}/Messaging/MessagingClientWebHook): the configuration
 * including id. messagingNumberId is accepted and ignored (scope rule 7).
 */
export const webhookConfigUpdateSchema = z.object({
  id: z.string().min(1, 'Expected the id of the configuration'),
  messagingNumberId: z.unknown().optional(),
  ...configurableShape,
});
export type WebhookConfigUpdate = z.infer<typeof webhookConfigUpdateSchema>;

/** A stored configuration, as returned in list rows (MessagingClientWebHook). */
export const webhookConfigSchema = z.object({
  id: z.string(),
  /** null: the client default; set: the nested messaging number id of the override. */
  messagingNumberId: z.string().nullable(),
  /** The override's phone number; null for the default. */
  messagingNumberMsisdn: z.string().nullable(),
  incomingMessageURL: webhookUrlSchema.optional(),
  statusUpdateURL: webhookUrlSchema.optional(),
  sessionStatusURL: webhookUrlSchema.optional(),
  eventWebhookURL: webhookUrlSchema.optional(),
  chatbotWebhookURL: webhookUrlSchema.optional(),
  chatbotIncludeOutgoing: z.boolean(),
  chatbotStopOnAgentAssignment: z.boolean(),
  chatbotPayloadVersion: z.enum(CHATBOT_PAYLOAD_VERSIONS).nullable(),
});
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** The configurable fields of a stored configuration (what Update may change). */
export type WebhookConfigSettings = Omit<WebhookConfig, 'id' | 'messagingNumberId' | 'messagingNumberMsisdn'>;

/** True for the client default (scope rule 1: messagingNumberId null or omitted). */
export function isDefaultWebhookConfig(config: Pick<WebhookConfig, 'messagingNumberId'>): boolean {
  return config.messagingNumberId === null;
}

/**
 * Scope rules 1–3: the configuration that applies to an event on `messagingNumberId`: its
 * override if one exists, otherwise the client default, otherwise none. `configs` are one
 * client's configurations. Rule 8 follows: with the override deleted the default applies
 * again; with the default deleted, numbers without an override get none.
 */
export function resolveWebhookConfig<C extends Pick<WebhookConfig, 'messagingNumberId'>>(
  configs: Iterable<C>,
  messagingNumberId: string,
): C | undefined {
  let fallback: C | undefined;
  for (const config of configs) {
    if (config.messagingNumberId === messagingNumberId) return config;
    if (config.messagingNumberId === null) fallback = config;
  }
  return fallback;
}

/**
 * The URL a webhook type is sent to under a configuration, or undefined when that type is
 * disabled: the URL field is missing, empty (scope rule 4) or blank (chatbotWebhookURL: "unset
 * or blank = no chatbot webhooks").
 */
export function webhookUrlFor(
  config: Partial<Pick<WebhookConfig, WebhookUrlField>> | undefined,
  type: WebhookType,
): string | undefined {
  const url = config?.[WEBHOOK_URL_FIELDS[type]];
  return typeof url === 'string' && url.trim() !== '' ? url : undefined;
}

/** The chatbot payload version a configuration selects: v1 when omitted or null. */
export function chatbotPayloadVersionOf(
  config: Pick<WebhookConfig, 'chatbotPayloadVersion'> | undefined,
): ChatbotPayloadVersion {
  return config?.chatbotPayloadVersion ?? 'v1';
}

/** What the chatbot flags need to know about one chatbot event. */
export interface ChatbotEmissionContext {
  readonly direction: ChatbotDirection;
  /** True when the participant has an agent assigned (assignedAgentId would be set). */
  readonly agentAssigned: boolean;
}

/**
 * The chatbot flags table: whether a chatbot event is emitted under a configuration.
 * No chatbotWebhookURL (unset or blank): never. OUTGOING: only with chatbotIncludeOutgoing.
 * chatbotStopOnAgentAssignment: nothing while an agent is assigned.
 */
export function shouldEmitChatbotEvent(
  config:
    | Pick<WebhookConfig, 'chatbotWebhookURL' | 'chatbotIncludeOutgoing' | 'chatbotStopOnAgentAssignment'>
    | undefined,
  event: ChatbotEmissionContext,
): boolean {
  if (config === undefined || webhookUrlFor(config, 'chatbot') === undefined) return false;
  if (event.direction === 'OUTGOING' && !config.chatbotIncludeOutgoing) return false;
  if (config.chatbotStopOnAgentAssignment && event.agentAssigned) return false;
  return true;
}

/**
 * Scope rule 5: the existing configuration a new one would collide with (the client default
 * for a default, the number's override for an override), or undefined.
 */
export function findScopeConflict<C extends Pick<WebhookConfig, 'messagingNumberId'>>(
  configs: Iterable<C>,
  messagingNumberId: string | null,
): C | undefined {
  for (const config of configs) if (config.messagingNumberId === messagingNumberId) return config;
  return undefined;
}

/**
 * The List order: the default first, then overrides ordered by their phone number
 * (messagingNumberMsisdn).
 */
export function compareWebhookConfigsForList(
  a: Pick<WebhookConfig, 'messagingNumberId' | 'messagingNumberMsisdn'>,
  b: Pick<WebhookConfig, 'messagingNumberId' | 'messagingNumberMsisdn'>,
): number {
  if (a.messagingNumberId === null) return b.messagingNumberId === null ? 0 : -1;
  if (b.messagingNumberId === null) return 1;
  const ma = a.messagingNumberMsisdn ?? '';
  const mb = b.messagingNumberMsisdn ?? '';
  return ma < mb ? -1 : ma > mb ? 1 : 0;
}

/**
 * Applies a Create or Update body to stored settings. URL fields and flags given replace the
 * stored ones; ones not given are kept (on create: unset / false / null). An empty string is
 * stored as given: it disables that type (scope rule 4).
 */
export function applyWebhookConfigSettings(
  current: WebhookConfigSettings | undefined,
  body: Omit<WebhookConfigCreate, 'messagingNumberId'>,
): WebhookConfigSettings {
  const next: WebhookConfigSettings = {
    chatbotIncludeOutgoing: body.chatbotIncludeOutgoing ?? current?.chatbotIncludeOutgoing ?? false,
    chatbotStopOnAgentAssignment:
      body.chatbotStopOnAgentAssignment ?? current?.chatbotStopOnAgentAssignment ?? false,
    // null switches back to v1 (the documented default), so null replaces a stored value
    chatbotPayloadVersion:
      body.chatbotPayloadVersion === undefined
        ? (current?.chatbotPayloadVersion ?? null)
        : body.chatbotPayloadVersion,
  };
  for (const field of WEBHOOK_CONFIG_URL_FIELDS) {
    const value = body[field] ?? current?.[field];
    if (value !== undefined) next[field] = value;
  }
  return next;
}

/** Why an event goes where it goes: see {@link explainWebhookRoute}. */
export type WebhookRouteReason =
  | 'override'
  | 'client default'
  | 'disabled by override (rule 4)'
  | 'disabled by client default (rule 4)'
  | 'not set in override'
  | 'not set in client default'
  | 'no default (rule 8)';

/**
 * Scope rules 1–4 and 8 made visible: the URL an event of `type` on `messagingNumberId` goes to
 * ({@link resolveWebhookConfig}, then {@link webhookUrlFor}: what the emulator itself does) and
 * why. An override is used whole: a URL field it leaves unset does not fall back to the default.
 */
export function explainWebhookRoute<
  C extends Pick<WebhookConfig, 'messagingNumberId'> & Partial<Pick<WebhookConfig, WebhookUrlField>>,
>(
  configs: Iterable<C>,
  messagingNumberId: string,
  type: WebhookType,
): { readonly url: string | undefined; readonly reason: WebhookRouteReason; readonly config: C | undefined } {
  const config = resolveWebhookConfig(configs, messagingNumberId);
  if (config === undefined) return { url: undefined, reason: 'no default (rule 8)', config };
  const url = webhookUrlFor(config, type);
  const scope = config.messagingNumberId === null ? 'client default' : 'override';
  if (url !== undefined) return { url, reason: scope, config };
  const field = config[WEBHOOK_URL_FIELDS[type]];
  const reason =
    field === undefined ? (`not set in ${scope}` as const) : (`disabled by ${scope} (rule 4)` as const);
  return { url, reason, config };
}
