import { randomBytes } from 'node:crypto';
import { newId } from '../ids.js';
import type { z } from 'zod';
import {
  CREDENTIAL_FIELDS,
  userCreditsSchema,
  userUpdateSchema,
  type AgentChatLimitChange,
  type AvailabilityChange,
  type CredentialField,
  type MessageResponse,
  type PasswordChange,
  type SystemUser,
  type UserCredits,
  type UserResponse,
} from '../../schemas/index.js';
import {
  renderClient,
  renderSystemUser,
  renderUserResponse,
  renderUserSummary,
} from '../../schemas/resources.js';
import type { EmulatorContext, PlatformHandlers } from '../context.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { toPage } from '../http/page.js';
import type { AuthContext } from '../http/router.js';
import {
  userSeedSchema,
  type EmulatorClient,
  type EmulatorState,
  type EmulatorUser,
} from '../state/index.js';

/*
 * User management, api/v1. The helpers below are shared with the deprecated SystemUsers
 * operations (routes/system-users.ts), which differ in what they render.
 */

/** The caller's client, or the client named by `clientRef` (Authentication, point 4). */
export function resolveClient(
  state: EmulatorState,
  auth: AuthContext,
  clientRef: string | null | undefined,
): EmulatorClient {
  if (clientRef === undefined || clientRef === null || clientRef === auth.client.clientRef)
    return auth.client;
  if (state.clientByRef(clientRef) === undefined)
    throw new NotFoundError(`No client with clientRef ${clientRef}`, { field: 'clientRef' });
  // reseller hierarchies are not emulated: a user manages only their own client
  throw new ForbiddenError(`clientRef ${clientRef} is not your client`, { field: 'clientRef' });
}

/**
 * A user of a client by id. Unknown ids, another client's users and deleted users are all 404:
 * ids do not leak across clients, and a deleted user's record is kept but no longer served.
 */
export function userOfClient(state: EmulatorState, clientId: string, id: string, field = 'id'): EmulatorUser {
  const user = state.users.get(id);
  if (user?.clientId !== clientId || user.deleted)
    throw new NotFoundError(`No user with id ${id}`, { field });
  return user;
}

/** The client's users that are not deleted, in creation order. */
export function liveUsersOfClient(state: EmulatorState, clientId: string): EmulatorUser[] {
  return [...state.usersOfClient(clientId)].filter((user) => !user.deleted);
}

/** A fresh API key. */
export function generateApiKey(): string {
  return `emu-${newId()}`;
}

/** 409 when `email` is used by another live user (e-mails are login names across the platform). */
function assertEmailFree(state: EmulatorState, email: string, exceptId?: string): void {
  const holder = state.liveUserByEmail(email);
  if (holder !== undefined && holder.id !== exceptId) {
    throw new ConflictError(`A user with e-mail ${email} already exists`, { field: 'email' });
  }
}

/** 409 when `apiKey` belongs to another user. */
export function assertApiKeyFree(state: EmulatorState, apiKey: string, exceptId?: string): void {
  const holder = state.userByApiKey(apiKey);
  if (holder !== undefined && holder.id !== exceptId) {
    throw new ConflictError('That apiKey is already used by another user', { field: 'apiKey' });
  }
}

function assertTeamsOfClient(state: EmulatorState, clientId: string, teamIds: readonly string[]): void {
  teamIds.forEach((teamId, index) => {
    if (state.teams.get(teamId)?.clientId !== clientId) {
      throw new BadRequestError(`teamIds.${index}: no team ${teamId} for this client`, {
        field: `teamIds.${index}`,
      });
    }
  });
}

/** The non-credential settings a create or update may carry. */
type UserSettings = Omit<z.output<typeof userUpdateSchema>, 'id' | CredentialField>;

/** The keys of {@link UserSettings}: what userUpdateSchema accepts, but the id and credentials. */
const USER_SETTING_KEYS = Object.keys(userUpdateSchema.shape).filter(
  (key) => key !== 'id' && !(CREDENTIAL_FIELDS as readonly string[]).includes(key),
) as (keyof UserSettings)[];

/**
 * Applies create/update settings to a user (after validating teams and e-mail uniqueness).
 * Fields not given are kept; null clears the nullable ones.
 */
export function applyUserSettings(state: EmulatorState, user: EmulatorUser, input: UserSettings): void {
  if (input.email !== undefined) assertEmailFree(state, input.email, user.id);
  if (input.teamIds !== undefined) assertTeamsOfClient(state, user.clientId, input.teamIds);
  for (const key of USER_SETTING_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    // the e-mail is indexed (login names are unique): the state changes it
    if (key === 'email') state.setUserEmail(user, value as string);
    else (user as Record<string, unknown>)[key] = Array.isArray(value) ? [...value] : value;
  }
}

/**
 * Creates and stores a user of `client`. Without a password a temporary one is generated: it is
 * both the password and tempPassword, and initialPassword is true until the user changes it.
 * Returns the user and the temporary password (null when a password was given).
 */
export function createUser(
  state: EmulatorState,
  client: EmulatorClient,
  input: UserSettings & { readonly email: string },
  credentials: { readonly apiKey: string; readonly password: string | null },
): { user: EmulatorUser; temporaryPassword: string | null } {
  assertEmailFree(state, input.email);
  assertApiKeyFree(state, credentials.apiKey);
  const temporaryPassword =
    credentials.password === null ? `Tmp-${randomBytes(9).toString('base64url')}` : null;
  const seeded = userSeedSchema.parse({
    clientRef: client.clientRef,
    email: input.email,
    apiKey: credentials.apiKey,
    password: credentials.password ?? temporaryPassword,
    tempPassword: temporaryPassword,
  });
  const user: EmulatorUser = {
    ...seeded,
    id: newId(),
    clientId: client.id,
    initialPassword: temporaryPassword !== null,
    tempAccount: false,
    emailVerified: false,
  };
  applyUserSettings(state, user, input);
  state.addUser(user);
  return { user, temporaryPassword };
}

/**
 * Soft delete (Delete a user): disabled, deleted, signed out (its API key answers 401, see
 * http/auth.ts; loginToken dropped), removed from every team; the record stays in state.
 */
function softDeleteUser(state: EmulatorState, user: EmulatorUser): void {
  user.disabled = true;
  state.setUserDeleted(user, true);
  user.teamIds = [];
  user.loginToken = null;
}

/**
 * Change password: 400 naming `confirmNewPassword` when the new password and its confirmation
 * differ, 400 naming `oldPassword` when the old password is wrong. On success the temporary
 * password is spent (tempPassword null, initialPassword false).
 */
export function changePassword(user: EmulatorUser, input: PasswordChange): MessageResponse {
  if (input.newPassword !== input.confirmNewPassword) {
    throw new BadRequestError('confirmNewPassword: the new password and its confirmation do not match', {
      field: 'confirmNewPassword',
    });
  }
  if (input.oldPassword !== user.password) {
    throw new BadRequestError('oldPassword: the old password is incorrect', { field: 'oldPassword' });
  }
  user.password = input.newPassword;
  user.tempPassword = null;
  user.initialPassword = false;
  return { message: 'Password changed successfully' };
}

/**
 * Change availability: toggles, or sets the value given in the body, or without a body in
 * `?availabilityStatus=` (the emulator's extension).
 */
export function changeAvailability(
  user: EmulatorUser,
  body: AvailabilityChange | undefined,
  query: AvailabilityChange,
): void {
  user.availabilityStatus = (body ?? query).availabilityStatus ?? !user.availabilityStatus;
}

/** Set agent chat limit: the agent must belong to the given client (default: the caller's). */
export function setAgentChatLimit(
  state: EmulatorState,
  auth: AuthContext,
  input: AgentChatLimitChange,
): EmulatorUser {
  const client = resolveClient(state, auth, input.clientRef);
  const user = userOfClient(state, client.id, input.userId, 'userId');
  user.agentChatLimit = input.agentChatLimit;
  return user;
}

/** The caller's credit balance (shape not shown: the Client balances). */
export function creditsOf(client: EmulatorClient): UserCredits {
  return userCreditsSchema.parse(renderClient(client));
}

/** Renders a stored user as a credential-free UserResponse. */
export function toUserResponse(state: EmulatorState, user: EmulatorUser): UserResponse {
  return renderUserResponse(user, state.clients.get(user.clientId)?.clientRef ?? null);
}

/** Renders a stored user as a credential-bearing SystemUser (password masked). */
export function toSystemUser(state: EmulatorState, user: EmulatorUser): SystemUser {
  const client = state.clients.get(user.clientId);
  return renderSystemUser({ ...user, clientRef: client?.clientRef ?? user.clientRef }, client ?? null);
}

/**
 * User management api/v1: me, list (UserSummary), create, update, delete, page, availability,
 * agent-chat-limit, password change and credits. No response carries a credential field
 * (renderUserResponse/renderUserSummary pick non-credential fields only); Create returns the
 * one-time `temporaryPassword`. Response bodies not shown in the documentation are the
 * emulator's choice: UserResponse for delete and agent-chat-limit, the Client's balances for
 * credits.
 */
export const userHandlers = ({ state }: EmulatorContext) =>
  ({
    getMyProfile: ({ auth }) => toUserResponse(state, auth.user),
    listUsers: ({ auth }) => liveUsersOfClient(state, auth.client.id).map(renderUserSummary),
    createUser({ auth, body: input }) {
      const client = resolveClient(state, auth, input.clientRef);
      const { user, temporaryPassword } = createUser(state, client, input, {
        apiKey: generateApiKey(),
        password: null,
      });
      return { ...toUserResponse(state, user), temporaryPassword: temporaryPassword ?? '' };
    },
    updateUser({ auth, body }) {
      const { id, ...settings } = body;
      const user = userOfClient(state, auth.client.id, id);
      applyUserSettings(state, user, settings);
      return toUserResponse(state, user);
    },
    deleteUser({ auth, params }) {
      const user = userOfClient(state, auth.client.id, params.id);
      softDeleteUser(state, user);
      return toUserResponse(state, user);
    },
    listUsersPage({ auth, query }) {
      const client = resolveClient(state, auth, query.clientRef || undefined);
      const rows = liveUsersOfClient(state, client.id).map((user) => toUserResponse(state, user));
      return toPage(rows, query);
    },
    changeAvailability({ auth, body, query }) {
      changeAvailability(auth.user, body, query);
      return toUserResponse(state, auth.user);
    },
    setAgentChatLimit: ({ auth, body }) => toUserResponse(state, setAgentChatLimit(state, auth, body)),
    changeMyPassword: ({ auth, body }) => changePassword(auth.user, body),
    getMyCredits: ({ auth }) => creditsOf(auth.client),
  }) satisfies Partial<PlatformHandlers>;
