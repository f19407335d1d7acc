/*
 * The interface documentation's field tables, transcribed row by row in its order (sections
 * "Resources and their fields", "Paged list", the endpoints that give shapes, "Errors"). One
 * entry per documented field: its documented type. "string" is a plain string, never null;
 * "string or null" may be null. Fields the documentation lists without a type are not here.
 */

/** A documented field type. */
type DocumentedType =
  | 'string'
  | 'string or null'
  | 'boolean'
  | 'number'
  | 'number or null'
  | 'integer'
  | 'integer or null'
  | 'object'
  | 'object or null'
  | 'array';

/** A field table: each documented field and its type. */
export type FieldTable = Readonly<Record<string, DocumentedType>>;

/** ChatParticipant (Resources and their fields). */
export const CHAT_PARTICIPANT: FieldTable = {
  id: 'string',
  firstName: 'string',
  lastName: 'string',
  fullName: 'string',
  phoneNumber: 'string',
  userId: 'string',
  username: 'string',
  parentUserId: 'string',
  email: 'string',
  subject: 'string',
  team: 'string',
  messagingClientNumber: 'string',
  conversationClosed: 'boolean',
  missedConversation: 'boolean',
  afterHoursConversation: 'boolean',
  chatBotConversation: 'boolean',
  sendRatingWidget: 'boolean',
  clientRef: 'string',
  createdTime: 'string',
  lastMessageTime: 'string',
  customerLastMessageTime: 'string or null',
  channel: 'string',
  conversationStatus: 'string',
  sender: 'string',
  assignedTo: 'object',
  lastAssignedAgent: 'object',
  openedBy: 'string',
  terminatedBy: 'string',
  unread: 'boolean',
  rated: 'boolean',
  expectingRating: 'boolean',
  companyName: 'string',
  accountNumber: 'string',
  activeFlow: 'string',
  nodeName: 'string',
  botName: 'string',
  timezone: 'string',
  gstn: 'string',
  ctn: 'string',
};

/** SystemUser (credential-bearing). assignmentMessage: "when null it defaults to ..." */
export const SYSTEM_USER: FieldTable = {
  id: 'string',
  email: 'string',
  password: 'string',
  tempPassword: 'string or null',
  role: 'string',
  liveChatRole: 'string',
  primaryEmailAddress: 'string or null',
  mobileNumber: 'string or null',
  sentLowerCreditLimitMail: 'boolean',
  sentZeroCreditMail: 'boolean',
  apiKey: 'string',
  disabled: 'boolean',
  deleted: 'boolean',
  emailVerificationKey: 'string or null',
  passwordResetKey: 'string or null',
  inactivityNodeId: 'string or null',
  publicHolidayInactivityNodeId: 'string or null',
  officeClosedInactivityNodeId: 'string or null',
  autoResponseNodeId: 'string or null',
  client: 'object',
  clientRef: 'string or null',
  ticketCount: 'integer or null',
  lastSeen: 'string or null',
  resetPasswordEmailSent: 'boolean',
  emailVerified: 'boolean',
  firstName: 'string',
  lastName: 'string',
  agentChatLimit: 'integer',
  availabilityStatus: 'boolean',
  initialPassword: 'boolean',
  tempAccount: 'boolean',
  loginToken: 'string',
  validToken: 'boolean',
  avatar: 'string',
  shouldGetNotifications: 'boolean',
  applicationKey: 'string',
  userId: 'string',
  applicationClientId: 'string',
  allowedSharedInbox: 'boolean',
  allowedUnassignedInbox: 'boolean',
  assignmentMessage: 'string or null',
};

/** Client (nested in SystemUser.client). */
export const CLIENT: FieldTable = {
  id: 'string',
  clientRef: 'string',
  accountType: 'string',
  countryCode: 'string',
  countryTimezone: 'string',
  pricingModel: 'string',
  clientPlatformCharge: 'number or null',
  clientNotificationCharge: 'number',
  clientSession24HourCharge: 'number',
  clientConversationCharge: 'number',
  userInitiatedConversationCharge: 'number or null',
  businessInitiatedConversationCharge: 'number',
  clientMessagingBalance: 'number',
  clientSMSBalance: 'number',
  primaryEmailAddress: 'string or null',
  secondaryEmailAddress: 'string or null',
  clientEmailAddress: 'string or null',
  upperNotificationLimit: 'number or null',
  lowerNotificationLimit: 'number or null',
  upperNotificationLimitMailSent: 'boolean',
  lowerNotificationLimitMailSent: 'boolean',
  zeroBalanceNotificationMailSent: 'boolean',
  lastUpperNotificationMailSentTime: 'string or null',
  lastLowerNotificationMailSentTime: 'string or null',
  lastZeroBalanceNotificationMailSentTime: 'string or null',
  smsMode: 'string',
  smsFallback: 'boolean',
  smsUserId: 'string',
  smsPassword: 'string',
  smsClientRef: 'string',
  reseller: 'boolean',
  parentClient: 'object or null',
  license: 'object or null',
  useParentNumber: 'boolean',
  useParentCredit: 'boolean',
  userInitiatedConversationBalance: 'number',
  businessInitiatedConversationBalance: 'number',
  popiaComplianceEnabled: 'boolean',
  eligible1000Free: 'boolean',
  splitConversation: 'boolean',
  monthlyFundAllocation: 'boolean',
  useApi: 'boolean',
  monthlyBusinessInitiatedBalanceAllocation: 'number',
  monthlyUserInitiatedBalanceAllocation: 'number',
  headerKeyPairsJson: 'string',
};

/**
 * Webhook configuration (MessagingClientWebHook). The URL fields are rows' "configured URL
 * fields": present when set. chatbotPayloadVersion: "omitted or null = v1".
 */
export const WEBHOOK_CONFIGURATION: FieldTable = {
  id: 'string',
  messagingNumberId: 'string or null',
  messagingNumberMsisdn: 'string or null',
  incomingMessageURL: 'string',
  statusUpdateURL: 'string',
  sessionStatusURL: 'string',
  eventWebhookURL: 'string',
  chatbotWebhookURL: 'string',
  chatbotIncludeOutgoing: 'boolean',
  chatbotStopOnAgentAssignment: 'boolean',
  chatbotPayloadVersion: 'string or null',
};
/** The configuration fields a row may leave out (the URLs not configured). */
export const WEBHOOK_CONFIGURATION_OPTIONAL = [
  'incomingMessageURL',
  'statusUpdateURL',
  'sessionStatusURL',
  'eventWebhookURL',
  'chatbotWebhookURL',
] as const;

/** Number lookup row (MessagingClientNumberResponse), content item. */
export const NUMBER_ROW: FieldTable = { id: 'string', messagingNumber: 'object' };
/** content.messagingNumber (MessagingNumbers). */
export const MESSAGING_NUMBER: FieldTable = { id: 'string', number: 'string', messagingProvider: 'string' };

/** Paged list (Page). */
export const PAGE: FieldTable = {
  content: 'array',
  totalElements: 'integer',
  totalPages: 'integer',
  number: 'integer',
  size: 'integer',
};
/** Get users for a client, paginated (deprecated): its response. */
export const USERS_FOR_CLIENT_PAGE: FieldTable = {
  content: 'array',
  totalElements: 'integer',
  totalPages: 'integer',
};
/** Change password (deprecated and api/v1): its response. */
export const MESSAGE_RESPONSE: FieldTable = { message: 'string' };
/** 401 response (all documented endpoints). */
export const UNAUTHORIZED: FieldTable = {
  status: 'string',
  message: 'string',
  requestId: 'string',
  timestamp: 'string',
};

/** What a value is, in the documentation's words. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function fits(type: DocumentedType, value: unknown): boolean {
  const actual = typeOf(value);
  const [base, orNull] = type.split(' or ') as [string, string | undefined];
  if (actual === 'null') return orNull === 'null';
  if (base === 'number') return actual === 'number' || actual === 'integer';
  return actual === base;
}

/**
 * Where `value` departs from `table`: a documented field missing (unless `optional`) or of
 * another type, as `path: expected, got` lines.
 */
export function departures(
  table: FieldTable,
  value: unknown,
  path: string,
  optional: readonly string[] = [],
): string[] {
  if (typeOf(value) !== 'object') return [`${path}: expected an object, got ${typeOf(value)}`];
  const record = value as Record<string, unknown>;
  return Object.entries(table).flatMap(([field, type]) => {
    if (!(field in record)) return optional.includes(field) ? [] : [`${path}.${field}: missing (${type})`];
    const got = record[field];
    return fits(type, got) ? [] : [`${path}.${field}: expected ${type}, got ${typeOf(got)}`];
  });
}
