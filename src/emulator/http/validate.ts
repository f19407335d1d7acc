import type { z } from 'zod';
import { BadRequestError } from '../errors.js';

/**
 * Validates a request body with a zod schema. A failure is a 400 whose message and `field`
 * name the first offending field, e.g. `chatbotPayloadVersion: Invalid option: expected one
 * of "v1"|"v2"`.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('Expected a JSON object body', { field: 'body' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.map(String).join('.');
  throw new BadRequestError(`${field}: ${issue?.message ?? 'invalid'}`, {
    field,
    details: {
      issues: result.error.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message })),
    },
  });
}
