import type { z } from 'zod';
import {
  findCredentialField,
  mayReturnCredentials,
  operationPath,
  type BinaryBody,
  type JsonBody,
  type OperationTable,
  type ParamsOf,
  type PathPrefixes,
  type PlatformOperation,
  type QueryOf,
  type RenderedOf,
} from '../../contract/index.js';
import { BadRequestError, InternalError } from '../errors.js';
import type { AuthContext, AuthedRouteRequest, Awaitable, Route, RouteRequest, Router } from './router.js';
import { parseBody, parseParams, parseQuery } from './validate.js';

/*
 * Operations of a table served as routes: the method, path, authentication and request
 * validation of each come from its row, so a handler receives values already checked and typed
 * and returns the body its row's response schema describes. With `checkResponses`, every answer
 * is checked against that schema and the credential rule before it leaves.
 */

/**
 * The request body a handler sees: the parsed JSON, or the bytes of a binary body.
 * @public (the handler groups' declarations name it)
 */
export type BodyOf<O extends PlatformOperation> = O extends {
  readonly body: JsonBody<infer S> & { readonly required: true };
}
  ? z.output<S>
  : O extends { readonly body: JsonBody<infer S> }
    ? z.output<S> | undefined
    : O extends { readonly body: BinaryBody }
      ? Buffer
      : undefined;

/**
 * What an operation's handler receives: the request with its params, query and body parsed by
 * the row. @public (the handler groups' declarations name it)
 */
export interface OperationRequest<O extends PlatformOperation> extends Omit<
  AuthedRouteRequest,
  'params' | 'query' | 'body' | 'auth'
> {
  readonly params: ParamsOf<O>;
  readonly query: QueryOf<O>;
  readonly body: BodyOf<O>;
  /** The caller (every `apiKey` operation; absent on an `auth: 'none'` one). */
  readonly auth: O extends { readonly auth: 'apiKey' } ? AuthContext : undefined;
  /** The query string as sent, for what the row does not declare. */
  readonly search: URLSearchParams;
}

/**
 * Serves one operation: returns its 200 body or throws an EmulatorError.
 * @public (the handler groups' declarations name it)
 */
export type OperationHandler<O extends PlatformOperation> = (
  request: OperationRequest<O>,
) => Awaitable<RenderedOf<O>>;

/** A handler for every operation of a table. */
export type OperationHandlers<T extends OperationTable> = {
  readonly [Id in keyof T]: OperationHandler<T[Id]>;
};

/** Options of {@link registerOperations}. */
export interface RegisterOperationsOptions {
  /**
   * Check every answer against its row's response schema and the credential rule (a 500 when
   * either fails).
   */
  readonly checkResponses: boolean;
}

/** Adds a route per operation of `table` to `router`, each served by its handler. */
export function registerOperations<T extends OperationTable>(
  router: Router,
  prefixes: PathPrefixes,
  table: T,
  handlers: OperationHandlers<T>,
  options: RegisterOperationsOptions,
): void {
  for (const [id, operation] of Object.entries(table) as [keyof T & string, PlatformOperation][]) {
    const handler = handlers[id] as unknown as OperationHandler<PlatformOperation>;
    const serve = async (request: RouteRequest & { readonly auth?: AuthContext }) => {
      const body = await handler({
        ...request,
        params: operation.params === undefined ? {} : parseParams(operation.params, request.params),
        query: operation.query === undefined ? {} : parseQuery(operation.query, request.query),
        body: readBody(operation, request.body),
        search: request.query,
        auth: request.auth,
      } as OperationRequest<PlatformOperation>);
      if (options.checkResponses) checkResponse(id, operation, body);
      return { status: 200, body };
    };
    const path = operationPath(operation, prefixes).replace(/\{(\w+)\}/g, ':$1');
    const raw = operation.body?.type === 'binary';
    const route: Route =
      operation.auth === 'apiKey'
        ? { method: operation.method, path, auth: true, ...(raw ? { body: 'raw' } : {}), handler: serve }
        : { method: operation.method, path, auth: false, ...(raw ? { body: 'raw' } : {}), handler: serve };
    router.add(route);
  }
}

function readBody(operation: PlatformOperation, body: unknown): unknown {
  const spec = operation.body;
  if (spec === undefined) return undefined;
  if (spec.type === 'binary') return parseBinary(body);
  if (body === undefined && !spec.required) return undefined;
  return parseBody(spec.schema, body);
}

function parseBinary(body: unknown): Buffer {
  if (Buffer.isBuffer(body) && body.length > 0) return body;
  throw new BadRequestError('Expected a request body', { field: 'body' });
}

/** A handler's answer against its row: the response schema, and no credential field unless deprecated. */
function checkResponse(id: string, operation: PlatformOperation, body: unknown): void {
  const parsed = operation.response.schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    throw new InternalError(
      `${id} answered a body its response schema refuses at ${field === '' ? 'the top level' : field}: ${issue?.message ?? ''}`,
      { field },
    );
  }
  if (mayReturnCredentials(operation)) return;
  const credential = findCredentialField(body);
  if (credential !== undefined) {
    throw new InternalError(
      `${id} answered the credential field ${credential}: only deprecated operations may (Authentication point 7)`,
      { field: credential },
    );
  }
}
