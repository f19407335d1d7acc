import { assertPinoLogger } from '../logger.js';

/**
 * Construction-time checks shared by every factory. An options object is checked once, when the
 * router, handler, emulator, client or worker is built, never per request: a misspelled key
 * (`onIncomming`) would otherwise build a receiver that acknowledges and drops every message.
 */

/** The keys of `T` that `K` leaves out. */
type MissingKeys<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * The list of an options type's keys, checked by the compiler in both directions: every entry
 * is a key of `T` (`satisfies`), and every key of `T` is listed (else the argument is not
 * assignable and the error names `missingOptionKeys`). So a list cannot drift from its interface.
 *
 * @example
 * export const CLIENT_OPTION_KEYS = optionKeys<PlatformClientOptions>()(['baseUrl', 'apiKey', ...]);
 */
export function optionKeys<T extends object>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K &
      ([MissingKeys<T, K>] extends [never] ? unknown : { readonly missingOptionKeys: MissingKeys<T, K> }),
  ): K => keys;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, beforePrevious[j - 2]! + 1);
      }
      current.push(distance);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name closest to `name` (case-insensitive), when it is close enough to be a likely
 * misspelling: at most 2 edits, or a third of the name's length for long names.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit && bestDistance < name.length ? best : undefined;
}

/** How a value reads in an error message: `null`, `an array`, `a string`, … */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'undefined' ? 'undefined' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

const isPlainObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Throws a TypeError naming the first own key of `options` that is not in `known`, with the
 * closest known name when there is one. `path` prefixes names in the message (`dedupe.`).
 *
 * @example
 * rejectUnknownKeys('createWebhookRouter', { onIncomming }, ['onIncoming']);
 * // TypeError: createWebhookRouter: unknown option onIncomming: did you mean onIncoming?
 */
function rejectUnknownKeys(factory: string, options: object, known: readonly string[], path = ''): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = closestName(key, known);
    throw new TypeError(
      `${factory}: unknown option ${path}${key}` +
        (suggestion === undefined
          ? ` (known options${path === '' ? '' : ` of ${path.slice(0, -1)}`}: ${known.join(', ')})`
          : `: did you mean ${path}${suggestion}?`),
    );
  }
}

/**
 * Checks a nested options object written by hand (`retry`, `dedupe`, …): when `value` is an
 * object, its keys must be in `known`. Other values are left to the option's own validation.
 */
export function checkNestedKeys(
  factory: string,
  path: string,
  value: unknown,
  known: readonly string[],
): void {
  if (isPlainObject(value)) rejectUnknownKeys(factory, value, known, `${path}.`);
}

/**
 * The check every factory runs first: `options` is an object, has no unknown key, and its
 * `logger` (when the factory takes one and it is given) is pino-compatible.
 */
export function checkOptions(factory: string, options: unknown, known: readonly string[]): void {
  if (!isPlainObject(options)) {
    throw new TypeError(`${factory}: expected an options object, got ${describeValue(options)}`);
  }
  rejectUnknownKeys(factory, options, known);
  if (known.includes('logger')) {
    const { logger } = options as { readonly logger?: unknown };
    if (logger !== undefined) assertPinoLogger(logger, factory);
  }
}

/** `value` when it is a finite number above 0; a TypeError naming the option otherwise. */
export function positiveNumber(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name}: expected a positive number, got ${String(value)}`);
  }
  return value;
}

/** `value` when it is a whole number of at least 1; a TypeError naming the option otherwise. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${name}: expected a positive integer, got ${String(value)}`);
  }
  return value;
}
