import * as z from 'zod';
import { OPEN_ENUMS } from './json-schema-meta.js';

/**
 * A string the documentation does not list. `string & {}` keeps editor completion for the
 * documented literals while still admitting any other string.
 */
export type UnlistedString = string & {};

/** A documented enum that also admits values the platform may add later. */
export type OpenEnum<T extends string> = T | UnlistedString;

/**
 * A string schema typed as the documented values or any other string.
 *
 * Platforms add enum values without notice; rejecting a payload for a new value would lose
 * an event the platform believes it delivered. Unlisted values are found afterwards with
 * {@link findUnlistedEnumValues} so they can be counted and logged instead.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(
  values: T,
): z.ZodType<OpenEnum<T[number]>> {
  // A plain string schema, typed: a z.custom refinement would run as a check on every payload.
  const schema = z.string({ error: `Expected a string (documented values: ${values.join(', ')})` });
  OPEN_ENUMS.add(schema, { values });
  return schema;
}

/** A field whose documented values are known: the field name and the values. */
export type EnumFieldTable = Readonly<Record<string, readonly string[]>>;

/** One enum field whose value the documentation does not list. */
export interface UnlistedEnumValue {
  readonly field: string;
  readonly value: string;
}

/** Lists the top-level enum fields of `payload` whose string value is not in `table`. */
export function findUnlistedEnumValues(
  payload: Readonly<Record<string, unknown>>,
  table: EnumFieldTable,
): UnlistedEnumValue[] {
  const found: UnlistedEnumValue[] = [];
  for (const field in table) {
    const value = payload[field];
    if (typeof value === 'string' && !(table[field] ?? []).includes(value)) {
      found.push({ field, value });
    }
  }
  return found;
}
