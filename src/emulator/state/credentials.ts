import type { EmulatorSnapshot } from './snapshot.js';

/*
 * Credentials out of view. The JSON control routes (`GET /_emulator`, `/_emulator/state`,
 * `/_emulator/snapshot`) show what the inspector shows: the seed's API keys (fixtures, as the CLI
 * prints them) and no other credential. A key made or changed later is masked, and so is every
 * password, unless the request asks for them (`?reveal=keys`).
 */

/** What a masked password (or temporary password) reads. */
const MASKED_PASSWORD = '********';

/**
 * An API key as shown: its last four characters after `****` when it is long enough to keep
 * them secret (so two keys can be told apart), `****` otherwise.
 */
export function maskApiKey(apiKey: string): string {
  return apiKey.length >= 16 ? `****${apiKey.slice(-4)}` : '****';
}

/** Whether `query` asks for credentials in clear: `?reveal=keys` (or `keys` in a comma list). */
export function revealsKeys(query: URLSearchParams): boolean {
  return query.getAll('reveal').some((value) => value.split(',').includes('keys'));
}

/**
 * A snapshot with its credentials masked: API keys other than the seed's, and every password and
 * temporary password. It carries `masked: true`, and a restore refuses it (its keys are gone); take
 * a snapshot to restore with `?reveal=keys`.
 */
export function maskSnapshotCredentials(
  snapshot: EmulatorSnapshot,
  isSeedKey: (userId: string, apiKey: string) => boolean,
): EmulatorSnapshot {
  return {
    ...snapshot,
    masked: true,
    users: snapshot.users.map((user) => ({
      ...user,
      apiKey: isSeedKey(user.id, user.apiKey) ? user.apiKey : maskApiKey(user.apiKey),
      password: MASKED_PASSWORD,
      tempPassword: user.tempPassword === null ? null : MASKED_PASSWORD,
    })),
  };
}
