import { UnauthorizedError } from '../errors.js';
import type { EmulatorState } from '../state/index.js';
import type { AuthContext } from './router.js';

/**
 * Resolves the caller from `Authorization: <API_KEY>` (section Authentication: the key is
 * passed directly, with no Bearer prefix, so `Bearer <key>` is an unknown key). A missing or
 * unknown key, or the key of a disabled or deleted user (signed out), is a 401.
 */
export function authenticate(state: EmulatorState, authorization: string | undefined): AuthContext {
  if (authorization === undefined || authorization.trim() === '') {
    throw new UnauthorizedError('Unauthorized user: the Authorization header is missing');
  }
  const user = state.userByApiKey(authorization.trim());
  if (user === undefined || user.disabled || user.deleted) {
    throw new UnauthorizedError('Unauthorized user: unknown API key');
  }
  const client = state.clients.get(user.clientId);
  if (client === undefined) throw new UnauthorizedError('Unauthorized user: the key has no client');
  return { user, client };
}
