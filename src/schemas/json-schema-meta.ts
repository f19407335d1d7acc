import * as z from 'zod';

/*
 * Metadata the JSON Schema generator (src/openapi) needs and a zod schema does not carry: the
 * documented values of an open enum, and the values an unlisted-value check excludes. Parsing never
 * reads these registries. Not re-exported by the schemas entry: they are for the generator only.
 */

/** The documented values of every `openEnum` schema, keyed by the schema. */
export const OPEN_ENUMS = z.registry<{ readonly values: readonly string[] }>();

/** The documented values every `unlistedValue` schema excludes (its refinement), keyed by the schema. */
export const UNLISTED_VALUES = z.registry<{ readonly documented: readonly string[] }>();
