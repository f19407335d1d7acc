/** Keys that could reach an object's prototype when a parsed payload is merged or copied. */
const FORBIDDEN_KEY = '__proto__';

function dropPrototypeKeys(key: string, value: unknown): unknown {
  if (key === FORBIDDEN_KEY) return undefined;
  if (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)
    return undefined;
  return value;
}

/**
 * Whether JSON text may spell a dangerous key: literally, or through a JSON escape
 * (`"\u005f_proto__"` parses to `__proto__`), so a body with any escape takes the reviver. Three
 * substring searches: measured faster than one regular expression with three alternatives.
 */
const mayNamePrototype = (text: string): boolean =>
  text.includes('\\u') || text.includes(FORBIDDEN_KEY) || text.includes('constructor');

/**
 * Parses JSON text, dropping `__proto__` keys and `constructor.prototype` objects so that no
 * later copy of the payload (zod's, or the user's) can pollute a prototype. The reviver only
 * runs when the text may name one of those keys, so ordinary payloads parse at full speed.
 * `sanitized` tells whether anything was dropped.
 */
export function parseJsonSafely(text: string): { value: unknown; sanitized: boolean } {
  if (!mayNamePrototype(text)) {
    return { value: JSON.parse(text) as unknown, sanitized: false };
  }
  let sanitized = false;
  const value = JSON.parse(text, (key: string, child: unknown) => {
    if (dropPrototypeKeys(key, child) !== undefined) return child;
    sanitized = true;
    return undefined;
  }) as unknown;
  return { value, sanitized };
}

/**
 * Removes `__proto__` and `constructor.prototype` keys in place from an already-parsed value
 * (a body parsed by express.json() before the router). Returns true when anything was removed.
 */
export function stripPrototypeKeys(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  let removed = false;
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (dropPrototypeKeys(key, child) === undefined && child !== undefined) {
      delete (value as Record<string, unknown>)[key];
      removed = true;
    } else if (stripPrototypeKeys(child, depth + 1)) {
      removed = true;
    }
  }
  return removed;
}
