import * as z from 'zod';

/**
 * An optional field. The documentation says null fields are omitted, but a null where an
 * omission was promised is still the same information, so it is accepted rather than
 * rejected (a rejected webhook is a lost event).
 */
export const optionalString = z.string().nullish();
export const optionalBoolean = z.boolean().nullish();
/** Unix time in milliseconds. */
export const optionalMillis = z.number().nullish();
/** A required identifier: a non-empty string. */
export const identifier = z.string().min(1, 'Expected a non-empty string');
