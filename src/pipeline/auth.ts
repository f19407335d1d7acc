import { createHash, timingSafeEqual } from 'node:crypto';

/** Checks a presented token against the accepted ones in constant time. */
export type TokenCheck = (presented: string | undefined) => boolean;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Builds a constant-time check over one or several accepted tokens (several during a rotation).
 * Tokens are compared as SHA-256 digests so every comparison has the same length, and every
 * accepted token is compared, so the time taken says nothing about which one nearly matched.
 */
export function createTokenCheck(tokens: readonly string[]): TokenCheck {
  const accepted = tokens.map(digest);
  return (presented) => {
    if (presented === undefined || presented === '') return false;
    const candidate = digest(presented);
    let matched = false;
    for (const token of accepted) matched = timingSafeEqual(candidate, token) || matched;
    return matched;
  };
}
