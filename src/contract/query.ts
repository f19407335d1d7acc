import { z } from 'zod';

/*
 * Query parameter schemas. A query value arrives as a string (or not at all); each schema reads
 * it into its type and refuses anything else with a message naming what was expected and what
 * was got, which the emulator answers as a 400 naming the parameter. Under `io: 'input'` the
 * OpenAPI generator writes the type after reading (a preprocess step is skipped), so `page` is
 * documented as an integer.
 */

/** Default page size when `size` is omitted (not shown in the documentation; the emulator's choice). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest accepted `size` (the documentation shows no maximum; the emulator's choice). */
export const MAX_PAGE_SIZE = 1000;

/** An optional integer from `min` to `max`; absent or empty is undefined. */
function integerQuery(min: number, max: number) {
  return z.preprocess((raw, ctx) => {
    if (raw === undefined || raw === '') return undefined;
    const value = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    ctx.addIssue({
      code: 'custom',
      message: `expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    });
    return z.NEVER;
  }, z.number().int().min(min).max(max).optional());
}

/** An optional boolean written `true` or `false`; absent or empty is undefined. */
export function booleanQuery() {
  const words: Readonly<Record<string, boolean>> = { true: true, false: false };
  return z.preprocess(
    (raw) => (raw === '' ? undefined : typeof raw === 'string' ? (words[raw] ?? raw) : raw),
    z.boolean().optional(),
  );
}

/** A required, non-empty string; `what` says what it is in the 400's message. */
export function requiredQuery(what?: string) {
  const message = `required query parameter${what === undefined ? '' : ` (${what})`}`;
  return z.string({ error: message }).min(1, { error: message });
}

/** `page` (zero-based) and `size` of the paged operations. */
export const PAGE_QUERY = {
  page: integerQuery(0, Number.MAX_SAFE_INTEGER).describe('Zero-based page index (default 0).'),
  size: integerQuery(1, MAX_PAGE_SIZE).describe(
    `Records per page. Default and maximum not shown; the emulator uses ${DEFAULT_PAGE_SIZE} and accepts up to ${MAX_PAGE_SIZE}.`,
  ),
};
