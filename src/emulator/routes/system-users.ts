import {
  CREDENTIAL_FIELDS,
  MASKED_PASSWORD,
  systemUserUpdateSchema,
  type CredentialField,
  type SystemUser,
} from '../../schemas/index.js';
import type { EmulatorContext, PlatformHandlers } from '../context.js';
import { ForbiddenError } from '../errors.js';
import { toPage } from '../http/page.js';
import type { EmulatorState, EmulatorUser } from '../state/index.js';
import {
  applyUserSettings,
  assertApiKeyFree,
  changeAvailability,
  changePassword,
  createUser,
  creditsOf,
  generateApiKey,
  liveUsersOfClient,
  resolveClient,
  setAgentChatLimit,
  toSystemUser,
  toUserResponse,
  userOfClient,
} from './users.js';

/** The credentials the deprecated create/update accept (systemUserUpdateSchema) and store as given. */
const STORED_CREDENTIALS = CREDENTIAL_FIELDS.filter(
  (key) => key in systemUserUpdateSchema.shape && key !== 'password' && key !== 'apiKey',
);

/** Stores the credentials given; the callers have checked a new apiKey is free before any change. */
function applyCredentials(
  state: EmulatorState,
  user: EmulatorUser,
  input: { readonly [K in CredentialField]?: string | null | undefined },
): void {
  if (typeof input.apiKey === 'string') state.setUserApiKey(user, input.apiKey);
  // a fetched SystemUser carries the masked password: sending it back changes nothing
  if (typeof input.password === 'string' && input.password !== MASKED_PASSWORD) {
    user.password = input.password;
  }
  for (const key of STORED_CREDENTIALS) {
    const value = input[key];
    // the masked tempPassword of a fetched SystemUser sent back changes nothing either
    if (value !== undefined && !(key === 'tempPassword' && value === MASKED_PASSWORD)) {
      (user as Record<string, unknown>)[key] = value;
    }
  }
}

/**
 * The deprecated SystemUsers operations (section User management, deprecated operations). They
 * accept and return credential-bearing SystemUser records (password masked).
 * getCurrentClientUsers answers 403 to callers without the SUPERVISOR live-chat role;
 * getUsersForClient answers `{ content, totalElements, totalPages }`. updateAgentChatLimit,
 * changePassword and getMessagingCreditsForCurrentLoginUser behave exactly like their api/v1
 * replacements.
 */
export const systemUserHandlers = ({ state }: EmulatorContext) => {
  const render = (user: EmulatorUser): SystemUser => toSystemUser(state, user);
  return {
    createSystemUser({ auth, body: input }) {
      const client = resolveClient(state, auth, input.clientRef);
      const password =
        typeof input.password === 'string' && input.password !== '' && input.password !== MASKED_PASSWORD
          ? input.password
          : null;
      const { user } = createUser(state, client, input, {
        apiKey: typeof input.apiKey === 'string' ? input.apiKey : generateApiKey(),
        password,
      });
      const { password: _password, apiKey: _apiKey, tempPassword, ...rest } = input;
      // a caller-chosen tempPassword only replaces the generated one when no password was given
      applyCredentials(state, user, password === null ? { ...rest, tempPassword } : rest);
      // point 7: the temporary password is returned once, here; every later rendering masks it
      return { ...render(user), tempPassword: user.tempPassword };
    },
    updateSystemUser({ auth, body }) {
      const { id, ...input } = body;
      const user = userOfClient(state, auth.client.id, id);
      if (typeof input.apiKey === 'string') assertApiKeyFree(state, input.apiKey, user.id);
      applyUserSettings(state, user, input);
      applyCredentials(state, user, input);
      return render(user);
    },
    getCurrentLoginSystemUser: ({ auth }) => render(auth.user),
    getCurrentClientUsers({ auth }) {
      // Authentication, point 5: supervisor live-chat role only
      if (auth.user.liveChatRole !== 'SUPERVISOR') {
        throw new ForbiddenError('getCurrentClientUsers requires the SUPERVISOR live-chat role');
      }
      return liveUsersOfClient(state, auth.client.id).map(render);
    },
    getUsersForClient({ auth, query }) {
      const client = resolveClient(state, auth, query.clientRef);
      const rows = liveUsersOfClient(state, client.id).map(render);
      // the documented shape: content, totalElements, totalPages
      const { content, totalElements, totalPages } = toPage(rows, query);
      return { content, totalElements, totalPages };
    },
    changeAvailableStatus({ auth, body, query }) {
      changeAvailability(auth.user, body, query);
      return render(auth.user);
    },
    updateAgentChatLimit: ({ auth, body }) => toUserResponse(state, setAgentChatLimit(state, auth, body)),
    changePassword: ({ auth, body }) => changePassword(auth.user, body),
    getMessagingCreditsForCurrentLoginUser: ({ auth }) => creditsOf(auth.client),
  } satisfies Partial<PlatformHandlers>;
};
