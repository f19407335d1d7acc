import type { z } from 'zod';
import { queryValues } from '../../contract/index.js';
import { BadRequestError } from '../errors.js';
import { MAX_BODY_DEPTH, nestedTooDeep } from '../state/nesting.js';

/**
 * Throws a 400 naming the field (its first segments) where `body` nests objects and arrays deeper
 * than `maxDepth`. Iterative: a body of any depth is walked without recursion.
 */
export function checkBodyDepth(body: unknown, maxDepth: number): void {
  const deep = nestedTooDeep(body, maxDepth);
  if (deep === undefined) return;
  const field = deep.split('.').slice(0, 8).join('.');
  throw new BadRequestError(`${field}: nested deeper than ${maxDepth} levels`, { field });
}

/**
 * Validates a request body with a zod schema. A failure is a 400 whose message and `field`
 * name the first offending field, e.g. `chatbotPayloadVersion: Invalid option: expected one
 * of "v1"|"v2"`. A body nested deeper than {@link MAX_BODY_DEPTH} is refused first: what a
 * route stores from it must fit a snapshot (`MAX_SNAPSHOT_DEPTH`).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('Expected a JSON object body', { field: 'body' });
  }
  checkBodyDepth(body, MAX_BODY_DEPTH);
  return parseWith(schema, body, 'body');
}

/**
 * Reads and validates the query parameters `schema` declares. A failure is a 400 naming the
 * parameter, e.g. `size: expected an integer from 1 to 1000, got "0"`.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: URLSearchParams): z.output<S> {
  return parseWith(schema, queryValues(schema, query), 'query');
}

/** Validates the path parameters (already URI-decoded). A failure is a 400 naming the parameter. */
export function parseParams<S extends z.ZodObject>(
  schema: S,
  params: Readonly<Record<string, string>>,
): z.output<S> {
  return parseWith(schema, params, 'params');
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, whole: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? whole : issue.path.map(String).join('.');
  throw new BadRequestError(`${field}: ${issue?.message ?? 'invalid'}`, {
    field,
    details: {
      issues: result.error.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message })),
    },
  });
}
