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
  return [...compileEnumFields(table)(payload)];
}

/** A payload's unlisted enum values, as {@link findUnlistedEnumValues} finds them for one table. */
export type EnumFieldCheck = (payload: Readonly<Record<string, unknown>>) => readonly UnlistedEnumValue[];

const NONE_UNLISTED: readonly UnlistedEnumValue[] = Object.freeze([]);

/**
 * {@link findUnlistedEnumValues} for one table, made once: its fields and their values as arrays,
 * and one shared empty answer when every value is documented (the common case, with no array
 * made). It runs on every validated payload, where a `for…in` over the table costs more (figures:
 * bench/HISTORY.md). Cheap to make, so findUnlistedEnumValues makes one per call and reads the
 * table as it is then.
 */
export function compileEnumFields(table: EnumFieldTable): EnumFieldCheck {
  const fields = Object.keys(table);
  const documented = fields.map((field) => table[field] ?? []);
  return (payload) => {
    let found: UnlistedEnumValue[] | undefined;
    for (let i = 0; i < fields.length; i += 1) {
      const field = fields[i]!;
      const value = payload[field];
      if (typeof value === 'string' && !documented[i]!.includes(value)) (found ??= []).push({ field, value });
    }
    return found ?? NONE_UNLISTED;
  };
}
