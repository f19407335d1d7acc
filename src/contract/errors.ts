import { z } from 'zod';

/**
 * The documented 401 body (section Errors), shared by every documented operation. The emulator
 * answers every error with these fields (plus `code`), so unknown fields are allowed.
 */
export const errorResponseSchema = z.looseObject({
  status: z.literal('ERROR'),
  /** Text indicating an unauthorized user. */
  message: z.string(),
  requestId: z.uuid(),
  timestamp: z.iso.datetime({ offset: true }),
});

/**
 * The emulator's error body: the 401 body plus a machine-readable `code` and, on a 400, the
 * request `field` at fault. The platform's 403, 409 and other error bodies are not shown in the
 * documentation; this is what the emulator answers for them.
 */
export const emulatorErrorResponseSchema = errorResponseSchema.extend({
  code: z.string(),
  field: z.string().optional(),
});
