import * as z from 'zod';
import { openEnum } from './open-enum.js';

/*
 * The live-chat and user-management resources (sections ChatParticipant, SystemUser, Client,
 * UserResponse/UserSummary): zod schemas for responses and request bodies, and renderers that
 * turn a stored record into the documented shape. The emulator renders with these and the
 * typed client validates with them, so both sides read one definition.
 *
 * Response schemas are lenient on purpose: every documented field except `id` may be absent or
 * null (the documentation does not say which fields the platform always sends), and unknown
 * fields are kept. UserResponse, UserSummary and the other credential-free shapes are the
 * exception: they are plain objects, so a credential field the server might add is stripped.
 */

/**
 * The nine credential fields (section Authentication, point 7). Only the deprecated
 * operations return them; no api/v1 response carries any of them at any depth.
 */
export const CREDENTIAL_FIELDS = [
  'password',
  'tempPassword',
  'apiKey',
  'loginToken',
  'emailVerificationKey',
  'passwordResetKey',
  'applicationKey',
  'smsPassword',
  'headerKeyPairsJson',
] as const;
/** One of {@link CREDENTIAL_FIELDS}. */
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number];

/** What SystemUser.password is rendered as ("a masked value is returned"). */
export const MASKED_PASSWORD = '********';

/** SystemUser.liveChatRole values. */
export const LIVE_CHAT_ROLE_VALUES = ['SUPERVISOR', 'AGENT'] as const;
/** SystemUser.role values (documented enum: CLIENT). */
export const USER_ROLE_VALUES = ['CLIENT'] as const;
/** ChatParticipant.channel values. */
export const CHAT_CHANNEL_VALUES = ['MESSAGING', 'WEB', 'SOCIAL'] as const;
/** ChatParticipant.conversationStatus values seen (the field is a free string). */
export const CONVERSATION_STATUS_VALUES = ['OPEN', 'NEW', 'ACTIVE'] as const;

const str = z.string().nullish();
const num = z.number().nullish();
const int = z.number().int().nullish();
const bool = z.boolean().nullish();
const object = z.record(z.string(), z.unknown()).nullish();

// ---------------------------------------------------------------------------------------------
// Field lists, in documentation order (tests walk them; renderers fill every one)

/** Every documented Client field. */
export const CLIENT_FIELDS = [
  'id',
  'clientRef',
  'accountType',
  'countryCode',
  'countryTimezone',
  'pricingModel',
  'clientPlatformCharge',
  'clientNotificationCharge',
  'clientSession24HourCharge',
  'clientConversationCharge',
  'userInitiatedConversationCharge',
  'businessInitiatedConversationCharge',
  'clientMessagingBalance',
  'clientSMSBalance',
  'primaryEmailAddress',
  'secondaryEmailAddress',
  'clientEmailAddress',
  'upperNotificationLimit',
  'lowerNotificationLimit',
  'upperNotificationLimitMailSent',
  'lowerNotificationLimitMailSent',
  'zeroBalanceNotificationMailSent',
  'lastUpperNotificationMailSentTime',
  'lastLowerNotificationMailSentTime',
  'lastZeroBalanceNotificationMailSentTime',
  'smsMode',
  'smsFallback',
  'smsUserId',
  'smsPassword',
  'smsClientRef',
  'reseller',
  'parentClient',
  'license',
  'useParentNumber',
  'useParentCredit',
  'userInitiatedConversationBalance',
  'businessInitiatedConversationBalance',
  'popiaComplianceEnabled',
  'eligible1000Free',
  'splitConversation',
  'monthlyFundAllocation',
  'useApi',
  'monthlyBusinessInitiatedBalanceAllocation',
  'monthlyUserInitiatedBalanceAllocation',
  'headerKeyPairsJson',
] as const;

/** Every documented SystemUser field. */
export const SYSTEM_USER_FIELDS = [
  'id',
  'email',
  'password',
  'tempPassword',
  'role',
  'liveChatRole',
  'primaryEmailAddress',
  'mobileNumber',
  'sentLowerCreditLimitMail',
  'sentZeroCreditMail',
  'apiKey',
  'disabled',
  'deleted',
  'emailVerificationKey',
  'passwordResetKey',
  'inactivityNodeId',
  'publicHolidayInactivityNodeId',
  'officeClosedInactivityNodeId',
  'autoResponseNodeId',
  'client',
  'clientRef',
  'ticketCount',
  'lastSeen',
  'resetPasswordEmailSent',
  'emailVerified',
  'firstName',
  'lastName',
  'agentChatLimit',
  'availabilityStatus',
  'initialPassword',
  'tempAccount',
  'loginToken',
  'validToken',
  'avatar',
  'shouldGetNotifications',
  'applicationKey',
  'userId',
  'applicationClientId',
  'allowedSharedInbox',
  'allowedUnassignedInbox',
  'assignmentMessage',
] as const;

/** Every documented ChatParticipant field. */
export const CHAT_PARTICIPANT_FIELDS = [
  'id',
  'firstName',
  'lastName',
  'fullName',
  'phoneNumber',
  'userId',
  'username',
  'parentUserId',
  'email',
  'subject',
  'team',
  'messagingClientNumber',
  'conversationClosed',
  'missedConversation',
  'afterHoursConversation',
  'chatBotConversation',
  'sendRatingWidget',
  'clientRef',
  'createdTime',
  'lastMessageTime',
  'customerLastMessageTime',
  'channel',
  'conversationStatus',
  'sender',
  'assignedTo',
  'lastAssignedAgent',
  'openedBy',
  'terminatedBy',
  'unread',
  'rated',
  'expectingRating',
  'companyName',
  'accountNumber',
  'activeFlow',
  'nodeName',
  'botName',
  'timezone',
  'gstn',
  'ctn',
] as const;

/**
 * The five booleans of merge rule 3: always copied from a terminateChatParticipantChat
 * request; an omitted (or null) one becomes false.
 */
export const ALWAYS_COPIED_PARTICIPANT_FLAGS = [
  'conversationClosed',
  'missedConversation',
  'afterHoursConversation',
  'sendRatingWidget',
  'chatBotConversation',
] as const;

// ---------------------------------------------------------------------------------------------
// Response schemas

/** Client (nested in SystemUser.client). smsPassword and headerKeyPairsJson are credentials. */
export const clientSchema = z.looseObject({
  id: z.string(),
  clientRef: str,
  accountType: str,
  countryCode: str,
  countryTimezone: str,
  pricingModel: str,
  clientPlatformCharge: num,
  clientNotificationCharge: num,
  clientSession24HourCharge: num,
  clientConversationCharge: num,
  userInitiatedConversationCharge: num,
  businessInitiatedConversationCharge: num,
  clientMessagingBalance: num,
  clientSMSBalance: num,
  primaryEmailAddress: str,
  secondaryEmailAddress: str,
  clientEmailAddress: str,
  upperNotificationLimit: num,
  lowerNotificationLimit: num,
  upperNotificationLimitMailSent: bool,
  lowerNotificationLimitMailSent: bool,
  zeroBalanceNotificationMailSent: bool,
  lastUpperNotificationMailSentTime: str,
  lastLowerNotificationMailSentTime: str,
  lastZeroBalanceNotificationMailSentTime: str,
  smsMode: str,
  smsFallback: bool,
  smsUserId: str,
  smsPassword: str,
  smsClientRef: str,
  reseller: bool,
  parentClient: object,
  license: object,
  useParentNumber: bool,
  useParentCredit: bool,
  userInitiatedConversationBalance: num,
  businessInitiatedConversationBalance: num,
  popiaComplianceEnabled: bool,
  eligible1000Free: bool,
  splitConversation: bool,
  monthlyFundAllocation: bool,
  useApi: bool,
  monthlyBusinessInitiatedBalanceAllocation: num,
  monthlyUserInitiatedBalanceAllocation: num,
  /** A JSON array of `{ key, value }` objects, as a string. */
  headerKeyPairsJson: str,
});
/** The Client resource. */
export type Client = z.infer<typeof clientSchema>;

/**
 * SystemUser: the credential-bearing user record of the deprecated operations and of
 * ChatParticipant.assignedTo. `password` is masked ({@link MASKED_PASSWORD}).
 */
export const systemUserSchema = z.looseObject({
  id: z.string(),
  email: str,
  password: str,
  tempPassword: str,
  role: openEnum(USER_ROLE_VALUES).nullish(),
  liveChatRole: openEnum(LIVE_CHAT_ROLE_VALUES).nullish(),
  primaryEmailAddress: str,
  mobileNumber: str,
  sentLowerCreditLimitMail: bool,
  sentZeroCreditMail: bool,
  apiKey: str,
  disabled: bool,
  deleted: bool,
  emailVerificationKey: str,
  passwordResetKey: str,
  inactivityNodeId: str,
  publicHolidayInactivityNodeId: str,
  officeClosedInactivityNodeId: str,
  autoResponseNodeId: str,
  client: clientSchema.nullish(),
  clientRef: str,
  ticketCount: int,
  lastSeen: str,
  resetPasswordEmailSent: bool,
  emailVerified: bool,
  firstName: str,
  lastName: str,
  agentChatLimit: int,
  availabilityStatus: bool,
  initialPassword: bool,
  tempAccount: bool,
  loginToken: str,
  validToken: bool,
  avatar: str,
  shouldGetNotifications: bool,
  applicationKey: str,
  userId: str,
  applicationClientId: str,
  allowedSharedInbox: bool,
  allowedUnassignedInbox: bool,
  /** null: the platform sends 'Assigned to <agent name>'. */
  assignmentMessage: str,
});
/** The SystemUser resource. */
export type SystemUser = z.infer<typeof systemUserSchema>;

/**
 * UserResponse: the credential-free user record of the api/v1 operations. Its fields are not
 * shown in the documentation beyond "credential-free"; these are the emulator's choice: the
 * SystemUser fields that are not credentials (the nested client becomes `clientRef`) plus
 * `teamIds`. A plain object schema: anything else, credentials included, is stripped.
 */
export const userResponseSchema = z
  .object(
    // z.object, not looseObject: anything not picked, credentials included, is stripped.
    systemUserSchema.pick({
      id: true,
      email: true,
      firstName: true,
      lastName: true,
      role: true,
      liveChatRole: true,
      primaryEmailAddress: true,
      mobileNumber: true,
      clientRef: true,
      disabled: true,
      deleted: true,
      emailVerified: true,
      agentChatLimit: true,
      availabilityStatus: true,
      initialPassword: true,
      tempAccount: true,
      lastSeen: true,
      ticketCount: true,
      avatar: true,
      shouldGetNotifications: true,
      userId: true,
      applicationClientId: true,
      allowedSharedInbox: true,
      allowedUnassignedInbox: true,
      assignmentMessage: true,
    }).shape,
  )
  .extend({
    /** Emulator extension: the teams the user belongs to (emptied by a delete). */
    teamIds: z.array(z.string()).nullish(),
  });
/** The UserResponse resource. */
export type UserResponse = z.infer<typeof userResponseSchema>;

/**
 * The response of Create a user (POST api/v1/users): the UserResponse plus the one-time
 * temporary password, returned only here ("returned once, at creation"). The field name is not
 * shown in the documentation; it is deliberately not `tempPassword`, the SystemUser credential.
 */
export const userCreatedResponseSchema = userResponseSchema.extend({ temporaryPassword: z.string() });
/** The response of Create a user. */
export type UserCreatedResponse = z.infer<typeof userCreatedResponseSchema>;

/** UserSummary: id, name, email, role, live-chat role, avatar and availability. */
export const userSummarySchema = z.object({
  id: z.string(),
  /** First and last name (the e-mail when both are empty). */
  name: str,
  email: str,
  role: openEnum(USER_ROLE_VALUES).nullish(),
  liveChatRole: openEnum(LIVE_CHAT_ROLE_VALUES).nullish(),
  avatar: str,
  availabilityStatus: bool,
});
/** The UserSummary resource. */
export type UserSummary = z.infer<typeof userSummarySchema>;

/**
 * Get my credits (GET api/v1/users/me/credits and its deprecated twin). The shape is not shown;
 * the emulator answers with the balances of the caller's Client.
 */
export const userCreditsSchema = z.object({
  clientRef: str,
  clientMessagingBalance: num,
  clientSMSBalance: num,
  userInitiatedConversationBalance: num,
  businessInitiatedConversationBalance: num,
});
/** The credit balance of the caller. */
export type UserCredits = z.infer<typeof userCreditsSchema>;

/** Change password response (documented: `message`). */
export const messageResponseSchema = z.object({ message: z.string() });
/** A `{ message }` response. */
export type MessageResponse = z.infer<typeof messageResponseSchema>;

/** ChatParticipant. assignedTo is a SystemUser (credential-bearing); lastAssignedAgent an object. */
export const chatParticipantSchema = z.looseObject({
  id: z.string(),
  firstName: str,
  lastName: str,
  fullName: str,
  phoneNumber: str,
  /** The customer's BSUID. */
  userId: str,
  username: str,
  parentUserId: str,
  email: str,
  subject: str,
  team: str,
  messagingClientNumber: str,
  conversationClosed: bool,
  missedConversation: bool,
  afterHoursConversation: bool,
  chatBotConversation: bool,
  sendRatingWidget: bool,
  clientRef: str,
  createdTime: str,
  lastMessageTime: str,
  customerLastMessageTime: str,
  channel: openEnum(CHAT_CHANNEL_VALUES).nullish(),
  conversationStatus: openEnum(CONVERSATION_STATUS_VALUES).nullish(),
  sender: str,
  assignedTo: systemUserSchema.nullish(),
  /** Fields not shown in the documentation; the emulator renders a SystemUser. */
  lastAssignedAgent: object,
  openedBy: str,
  terminatedBy: str,
  unread: bool,
  rated: bool,
  expectingRating: bool,
  companyName: str,
  accountNumber: str,
  activeFlow: str,
  nodeName: str,
  botName: str,
  timezone: str,
  gstn: str,
  ctn: str,
});
/** The ChatParticipant resource. */
export type ChatParticipant = z.infer<typeof chatParticipantSchema>;

/**
 * The ChatParticipant as the non-deprecated operations return it (GET ChatParticipant, v2
 * terminate and reopen): Authentication point 7 keeps credentials to the deprecated operations,
 * so assignedTo and lastAssignedAgent are credential-free user records ({@link userResponseSchema}).
 * A plain object schema: anything undocumented, credentials included, is stripped.
 */
export const chatParticipantViewSchema = z.object({
  ...chatParticipantSchema.shape,
  assignedTo: userResponseSchema.nullish(),
  lastAssignedAgent: userResponseSchema.nullish(),
});
/** A credential-free ChatParticipant (non-deprecated operations). */
export type ChatParticipantView = z.infer<typeof chatParticipantViewSchema>;

/** A content row of the number lookup (MessagingClientNumberResponse). */
export const messagingClientNumberSchema = z.looseObject({
  /** Client-number link id: not to be used as messagingNumberId. */
  id: z.string(),
  messagingNumber: z.looseObject({
    /** The value to send as messagingNumberId. */
    id: z.string(),
    number: z.string(),
    messagingProvider: str,
  }),
});
/** A number lookup row. */
export type MessagingClientNumber = z.infer<typeof messagingClientNumberSchema>;

/** The Page shape (content, totalElements, totalPages, number, size) around `item`. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    content: z.array(item),
    totalElements: z.number().int(),
    totalPages: z.number().int(),
    number: z.number().int(),
    size: z.number().int(),
  });
}
/** A Page of `T` (a type, not an interface, so it meets the open object {@link pageSchema} reads). */
export type Page<T> = {
  readonly content: T[];
  readonly totalElements: number;
  readonly totalPages: number;
  readonly number: number;
  readonly size: number;
};

/** getUsersForClient response: content (SystemUser), totalElements, totalPages. */
export const usersForClientPageSchema = z.looseObject({
  content: z.array(systemUserSchema),
  totalElements: z.number().int(),
  totalPages: z.number().int(),
});
/** The getUsersForClient page. */
export type UsersForClientPage = z.infer<typeof usersForClientPageSchema>;

// ---------------------------------------------------------------------------------------------
// Request schemas

const forbiddenCredential = z
  .never({ error: 'credential fields are not accepted by this operation' })
  .optional();

/** The nine credential fields, each refused (400 naming the field) by api/v1 bodies. */
const noCredentialsShape = {
  password: forbiddenCredential,
  tempPassword: forbiddenCredential,
  apiKey: forbiddenCredential,
  loginToken: forbiddenCredential,
  emailVerificationKey: forbiddenCredential,
  passwordResetKey: forbiddenCredential,
  applicationKey: forbiddenCredential,
  smsPassword: forbiddenCredential,
  headerKeyPairsJson: forbiddenCredential,
} satisfies Record<CredentialField, z.ZodType>;

const nonEmpty = z.string().min(1, 'Expected a non-empty string');

/** The user fields a create or update may set (no credentials). */
const userSettingsShape = {
  email: z.email('Expected an e-mail address').optional(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  role: z.enum(USER_ROLE_VALUES).optional(),
  liveChatRole: z.enum(LIVE_CHAT_ROLE_VALUES).nullish(),
  primaryEmailAddress: z.string().nullish(),
  mobileNumber: z.string().nullish(),
  avatar: z.string().nullish(),
  agentChatLimit: z.number().int().min(0).optional(),
  availabilityStatus: z.boolean().optional(),
  shouldGetNotifications: z.boolean().optional(),
  allowedSharedInbox: z.boolean().optional(),
  allowedUnassignedInbox: z.boolean().optional(),
  assignmentMessage: z.string().nullish(),
  /** Ids of teams of the user's client. */
  teamIds: z.array(nonEmpty).optional(),
};

/**
 * Create a user (POST api/v1/users): no password (a temporary one is generated); the client is
 * `clientRef`, or the caller's when omitted.
 */
export const userCreateSchema = z.object({
  ...userSettingsShape,
  email: z.email('Expected an e-mail address'),
  clientRef: nonEmpty.optional(),
  ...noCredentialsShape,
});
/** Body of Create a user. */
export type UserCreate = z.input<typeof userCreateSchema>;

/** Update a user (PUT api/v1/users): identified by id; no credentials. */
export const userUpdateSchema = z.object({
  id: nonEmpty,
  ...userSettingsShape,
  ...noCredentialsShape,
});
/** Body of Update a user. */
export type UserUpdate = z.input<typeof userUpdateSchema>;

/** Change my password (and the deprecated changePassword): all three required. */
export const passwordChangeSchema = z.object({
  oldPassword: nonEmpty,
  newPassword: nonEmpty,
  confirmNewPassword: nonEmpty,
});
/** Body of Change my password. */
export type PasswordChange = z.input<typeof passwordChangeSchema>;

/**
 * Change availability: the documentation says it toggles; the emulator also accepts an explicit
 * value. An empty body (or no body) toggles.
 */
export const availabilityChangeSchema = z.object({ availabilityStatus: z.boolean().optional() });
/** Body of Change availability. */
export type AvailabilityChange = z.input<typeof availabilityChangeSchema>;

/** Set agent chat limit: the agent, the limit, and optionally the client (default: the caller's). */
export const agentChatLimitSchema = z.object({
  userId: nonEmpty,
  agentChatLimit: z.number().int().min(0),
  clientRef: nonEmpty.optional(),
});
/** Body of Set agent chat limit. */
export type AgentChatLimitChange = z.input<typeof agentChatLimitSchema>;

const credentialInputShape = {
  password: z.string().min(1, 'Expected a non-empty password').nullish(),
  tempPassword: z.string().nullish(),
  apiKey: nonEmpty.nullish(),
  loginToken: z.string().nullish(),
  emailVerificationKey: z.string().nullish(),
  passwordResetKey: z.string().nullish(),
  applicationKey: z.string().nullish(),
};

/**
 * Deprecated POST SystemUsers: accepts credential-bearing SystemUser fields. A password given is
 * stored; without one a temporary password is generated (returned as tempPassword).
 */
export const systemUserCreateSchema = z.looseObject({
  ...userSettingsShape,
  email: z.email('Expected an e-mail address'),
  clientRef: nonEmpty.nullish(),
  ...credentialInputShape,
});
/** Body of the deprecated Create. */
export type SystemUserCreate = z.input<typeof systemUserCreateSchema>;

/**
 * Deprecated PUT SystemUsers: accepts credential-bearing fields. A password equal to
 * {@link MASKED_PASSWORD} (what a fetched SystemUser carries) leaves the password unchanged.
 */
export const systemUserUpdateSchema = z.looseObject({
  id: nonEmpty,
  ...userSettingsShape,
  ...credentialInputShape,
});
/** Body of the deprecated Update. */
export type SystemUserUpdate = z.input<typeof systemUserUpdateSchema>;

const agentRefSchema = z.looseObject({ id: nonEmpty });

/**
 * Body of terminateChatParticipantChat: a ChatParticipant whose every field is optional
 * except `id` (the participant to change). null and omitted are kept apart: merge rules 1–3
 * treat them differently. assignedTo and lastAssignedAgent are identified by their `id`.
 */
export const chatParticipantTerminateSchema = z.looseObject({
  id: nonEmpty,
  firstName: str,
  lastName: str,
  fullName: str,
  username: str,
  parentUserId: str,
  email: str,
  subject: str,
  team: str,
  conversationClosed: bool,
  missedConversation: bool,
  afterHoursConversation: bool,
  chatBotConversation: bool,
  sendRatingWidget: bool,
  lastMessageTime: str,
  customerLastMessageTime: str,
  channel: z.enum(CHAT_CHANNEL_VALUES).nullish(),
  conversationStatus: str,
  assignedTo: agentRefSchema.nullish(),
  lastAssignedAgent: agentRefSchema.nullish(),
  openedBy: str,
  terminatedBy: str,
  unread: bool,
  rated: bool,
  expectingRating: bool,
  companyName: str,
  accountNumber: str,
  activeFlow: str,
  nodeName: str,
  botName: str,
  timezone: str,
  gstn: str,
  ctn: str,
});
/** Body of terminateChatParticipantChat. */
export type ChatParticipantTerminate = z.input<typeof chatParticipantTerminateSchema>;

// ---------------------------------------------------------------------------------------------
// Renderers: a stored record (any object carrying the documented field names) → the resource

/** A stored record: documented field names with whatever values the store holds. */
export type ResourceRecord = Readonly<Record<string, unknown>>;

function readString(record: ResourceRecord, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' ? value : null;
}
function readNumber(record: ResourceRecord, key: string, fallback: number | null): number | null {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
function readBoolean(record: ResourceRecord, key: string, fallback: boolean): boolean {
  const value = record[key];
  return typeof value === 'boolean' ? value : fallback;
}
function readObject(record: ResourceRecord, key: string): Record<string, unknown> | null {
  const value = record[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : null;
}

/** Renders a Client with every documented field (absent numbers 0 or null, booleans false). */
export function renderClient(record: ResourceRecord & { readonly id: string }): Client {
  const s = (key: string): string | null => readString(record, key);
  const n = (key: string): number => readNumber(record, key, 0) ?? 0;
  const nn = (key: string): number | null => readNumber(record, key, null);
  const b = (key: string): boolean => readBoolean(record, key, false);
  // fields typed as plain `string` are never null: '' when the store has none
  return {
    id: record.id,
    clientRef: s('clientRef'),
    accountType: s('accountType') ?? '',
    countryCode: s('countryCode') ?? '',
    countryTimezone: s('countryTimezone') ?? '',
    pricingModel: s('pricingModel') ?? '',
    clientPlatformCharge: nn('clientPlatformCharge'),
    clientNotificationCharge: n('clientNotificationCharge'),
    clientSession24HourCharge: n('clientSession24HourCharge'),
    clientConversationCharge: n('clientConversationCharge'),
    userInitiatedConversationCharge: nn('userInitiatedConversationCharge'),
    businessInitiatedConversationCharge: n('businessInitiatedConversationCharge'),
    clientMessagingBalance: n('clientMessagingBalance'),
    clientSMSBalance: n('clientSMSBalance'),
    primaryEmailAddress: s('primaryEmailAddress'),
    secondaryEmailAddress: s('secondaryEmailAddress'),
    clientEmailAddress: s('clientEmailAddress'),
    upperNotificationLimit: nn('upperNotificationLimit'),
    lowerNotificationLimit: nn('lowerNotificationLimit'),
    upperNotificationLimitMailSent: b('upperNotificationLimitMailSent'),
    lowerNotificationLimitMailSent: b('lowerNotificationLimitMailSent'),
    zeroBalanceNotificationMailSent: b('zeroBalanceNotificationMailSent'),
    lastUpperNotificationMailSentTime: s('lastUpperNotificationMailSentTime'),
    lastLowerNotificationMailSentTime: s('lastLowerNotificationMailSentTime'),
    lastZeroBalanceNotificationMailSentTime: s('lastZeroBalanceNotificationMailSentTime'),
    smsMode: s('smsMode') ?? '',
    smsFallback: b('smsFallback'),
    smsUserId: s('smsUserId') ?? '',
    smsPassword: s('smsPassword') ?? '',
    smsClientRef: s('smsClientRef') ?? '',
    reseller: b('reseller'),
    parentClient: readObject(record, 'parentClient'),
    license: readObject(record, 'license'),
    useParentNumber: b('useParentNumber'),
    useParentCredit: b('useParentCredit'),
    userInitiatedConversationBalance: n('userInitiatedConversationBalance'),
    businessInitiatedConversationBalance: n('businessInitiatedConversationBalance'),
    popiaComplianceEnabled: b('popiaComplianceEnabled'),
    eligible1000Free: b('eligible1000Free'),
    splitConversation: b('splitConversation'),
    monthlyFundAllocation: b('monthlyFundAllocation'),
    useApi: b('useApi'),
    monthlyBusinessInitiatedBalanceAllocation: n('monthlyBusinessInitiatedBalanceAllocation'),
    monthlyUserInitiatedBalanceAllocation: n('monthlyUserInitiatedBalanceAllocation'),
    headerKeyPairsJson: s('headerKeyPairsJson') ?? '[]',
  };
}

/** A stored user record as the renderers read it. */
export type UserRecord = ResourceRecord & { readonly id: string };

/**
 * Renders a SystemUser (credential-bearing; deprecated operations and assignedTo). The
 * password is masked; the other credentials are returned as stored.
 */
export function renderSystemUser(
  record: UserRecord,
  client: (ResourceRecord & { id: string }) | null,
): SystemUser {
  const s = (key: string): string | null => readString(record, key);
  const b = (key: string, fallback = false): boolean => readBoolean(record, key, fallback);
  const disabled = b('disabled') || b('deleted');
  return {
    id: record.id,
    email: s('email'),
    password: s('password') === null ? null : MASKED_PASSWORD,
    // point 7: a temporary password is returned once, at creation; afterwards it is masked
    tempPassword: s('tempPassword') === null ? null : MASKED_PASSWORD,
    role: s('role') ?? 'CLIENT',
    // a plain `string` (enum SUPERVISOR, AGENT): '' for a user without a live-chat role
    liveChatRole: s('liveChatRole') ?? '',
    primaryEmailAddress: s('primaryEmailAddress'),
    mobileNumber: s('mobileNumber'),
    sentLowerCreditLimitMail: b('sentLowerCreditLimitMail'),
    sentZeroCreditMail: b('sentZeroCreditMail'),
    apiKey: s('apiKey'),
    disabled: b('disabled'),
    deleted: b('deleted'),
    emailVerificationKey: s('emailVerificationKey'),
    passwordResetKey: s('passwordResetKey'),
    inactivityNodeId: s('inactivityNodeId'),
    publicHolidayInactivityNodeId: s('publicHolidayInactivityNodeId'),
    officeClosedInactivityNodeId: s('officeClosedInactivityNodeId'),
    autoResponseNodeId: s('autoResponseNodeId'),
    client: client === null ? null : renderClient(client),
    clientRef: s('clientRef') ?? (client === null ? null : readString(client, 'clientRef')),
    ticketCount: readNumber(record, 'ticketCount', null),
    lastSeen: s('lastSeen'),
    resetPasswordEmailSent: b('resetPasswordEmailSent'),
    emailVerified: b('emailVerified', true),
    firstName: s('firstName') ?? '',
    lastName: s('lastName') ?? '',
    agentChatLimit: readNumber(record, 'agentChatLimit', 0),
    availabilityStatus: b('availabilityStatus'),
    initialPassword: b('initialPassword'),
    tempAccount: b('tempAccount'),
    // a plain `string`, never null: a disabled user's token is dropped to ''
    loginToken: disabled ? '' : (s('loginToken') ?? ''),
    validToken: !disabled,
    avatar: s('avatar') ?? '',
    shouldGetNotifications: b('shouldGetNotifications', true),
    applicationKey: s('applicationKey') ?? '',
    userId: s('userId') ?? record.id,
    applicationClientId: s('applicationClientId') ?? '',
    allowedSharedInbox: b('allowedSharedInbox', true),
    allowedUnassignedInbox: b('allowedUnassignedInbox', true),
    assignmentMessage: s('assignmentMessage'),
  };
}

/**
 * Renders a UserResponse: picked field by field from the SystemUser rendering, so no credential
 * can reach it whatever the record holds.
 */
export function renderUserResponse(record: UserRecord, clientRef: string | null): UserResponse {
  const full = renderSystemUser(record, null);
  const teamIds = record.teamIds;
  return {
    id: full.id,
    email: full.email,
    firstName: full.firstName,
    lastName: full.lastName,
    role: full.role,
    // UserResponse's types are not shown: null, not '', for a user without a live-chat role
    liveChatRole: readString(record, 'liveChatRole'),
    primaryEmailAddress: full.primaryEmailAddress,
    mobileNumber: full.mobileNumber,
    clientRef: full.clientRef ?? clientRef,
    disabled: full.disabled,
    deleted: full.deleted,
    emailVerified: full.emailVerified,
    agentChatLimit: full.agentChatLimit,
    availabilityStatus: full.availabilityStatus,
    initialPassword: full.initialPassword,
    tempAccount: full.tempAccount,
    lastSeen: full.lastSeen,
    ticketCount: full.ticketCount,
    avatar: full.avatar,
    shouldGetNotifications: full.shouldGetNotifications,
    userId: full.userId,
    applicationClientId: full.applicationClientId,
    allowedSharedInbox: full.allowedSharedInbox,
    allowedUnassignedInbox: full.allowedUnassignedInbox,
    assignmentMessage: full.assignmentMessage,
    teamIds: Array.isArray(teamIds) ? teamIds.filter((t): t is string => typeof t === 'string') : [],
  };
}

/** Renders a UserSummary (name: first and last name, else the e-mail). */
export function renderUserSummary(record: UserRecord): UserSummary {
  const first = readString(record, 'firstName') ?? '';
  const last = readString(record, 'lastName') ?? '';
  const name = [first, last].filter((part) => part !== '').join(' ');
  return {
    id: record.id,
    name: name === '' ? readString(record, 'email') : name,
    email: readString(record, 'email'),
    role: readString(record, 'role') ?? 'CLIENT',
    liveChatRole: readString(record, 'liveChatRole'),
    avatar: readString(record, 'avatar'),
    availabilityStatus: readBoolean(record, 'availabilityStatus', false),
  };
}

/**
 * Renders a ChatParticipant with every documented field. `resolveUser` turns the stored agent
 * ids of assignedTo and lastAssignedAgent into user records (null when unknown): SystemUser
 * objects for the deprecated terminate, credential-free UserResponse objects for the other
 * operations (Authentication point 7).
 */
export function renderChatParticipant<U extends SystemUser | UserResponse>(
  record: ResourceRecord & { readonly id: string },
  resolveUser: (userId: string) => U | null,
): Omit<ChatParticipantView, 'assignedTo' | 'lastAssignedAgent'> & {
  assignedTo: U | null;
  lastAssignedAgent: U | null;
} {
  const s = (key: string): string | null => readString(record, key);
  // the table types every field but customerLastMessageTime as a plain `string`: '' when unset
  const t = (key: string): string => readString(record, key) ?? '';
  const b = (key: string): boolean => readBoolean(record, key, false);
  const agent = (key: string): U | null => {
    const userId = s(key);
    return userId === null ? null : resolveUser(userId);
  };
  return {
    id: record.id,
    firstName: t('firstName'),
    lastName: t('lastName'),
    fullName: t('fullName'),
    phoneNumber: t('phoneNumber'),
    userId: t('userId'),
    username: t('username'),
    parentUserId: t('parentUserId'),
    email: t('email'),
    subject: t('subject'),
    team: t('team'),
    messagingClientNumber: t('messagingClientNumber'),
    conversationClosed: b('conversationClosed'),
    missedConversation: b('missedConversation'),
    afterHoursConversation: b('afterHoursConversation'),
    chatBotConversation: b('chatBotConversation'),
    sendRatingWidget: b('sendRatingWidget'),
    clientRef: t('clientRef'),
    createdTime: t('createdTime'),
    lastMessageTime: t('lastMessageTime'),
    customerLastMessageTime: s('customerLastMessageTime'),
    channel: t('channel'),
    conversationStatus: t('conversationStatus'),
    sender: t('sender'),
    assignedTo: agent('assignedTo'),
    lastAssignedAgent: agent('lastAssignedAgent'),
    openedBy: t('openedBy'),
    terminatedBy: t('terminatedBy'),
    unread: b('unread'),
    rated: b('rated'),
    expectingRating: b('expectingRating'),
    companyName: t('companyName'),
    accountNumber: t('accountNumber'),
    activeFlow: t('activeFlow'),
    nodeName: t('nodeName'),
    botName: t('botName'),
    timezone: t('timezone'),
    gstn: t('gstn'),
    ctn: t('ctn'),
  };
}
