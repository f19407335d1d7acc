import type { z } from 'zod';
import { CREDENTIAL_FIELDS } from '../schemas/resources.js';

/*
 * The shape of one row of the operations table (operations.ts) and what the readers of the
 * table share: path building, query reading and the credential rule. The emulator registers a
 * handler per row, the typed client calls rows, the OpenAPI document lists them; none of the
 * three writes a method, a path or a schema of its own.
 */

/** HTTP methods of the platform API. */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The path prefix an operation lives under: `{messaging_prefix}` or `{chat_prefix}`. */
export type PathPrefix = 'messaging' | 'chat';

/** The values of the two path prefixes. */
export interface PathPrefixes {
  /** `{messaging_prefix}`: prepended to `/Messaging/...` paths. */
  readonly messaging: string;
  /** `{chat_prefix}`: prepended to `/ChatParticipant...` paths. */
  readonly chat: string;
}

/** The group an operation is listed under (the OpenAPI tag). */
export type OperationTag = 'config' | 'numbers' | 'users' | 'systemUsers' | 'liveChat';

/** A JSON request body validated by a zod schema. */
export interface JsonBody<S extends z.ZodType = z.ZodType> {
  readonly type: 'json';
  readonly schema: S;
  /** false: the body may be omitted (the handler then sees `undefined`). */
  readonly required: boolean;
}

/**
 * A request body of bytes sent as they are with their own content type, e.g. a media upload
 * (`application/octet-stream`, `image/jpeg`, or `multipart/form-data` whose parts the handler
 * reads). The client sends what it is given; the emulator's handler gets the bytes and the
 * content type.
 */
export interface BinaryBody {
  readonly type: 'binary';
  /** The media types accepted (the OpenAPI requestBody's content keys). */
  readonly mediaTypes: readonly [string, ...string[]];
  readonly description: string;
}

/** An operation's request body. */
export type OperationBody = JsonBody | BinaryBody;

/** An operation's 200 answer. */
export interface OperationResponse<S extends z.ZodType = z.ZodType> {
  /** The body: what the emulator renders, the client checks and the document publishes. */
  readonly schema: S;
  readonly description: string;
}

/** What the interface documentation does not show about an operation, and the emulator chose. */
export interface EmulatorChoice {
  /** The method and path (the documentation names the operation only). */
  readonly path?: true;
  /** These query parameters. */
  readonly query?: readonly string[];
  /** The 200 body. */
  readonly response?: true;
}

/** One operation of the platform API: one row of the table. */
export interface PlatformOperation {
  readonly method: OperationMethod;
  readonly prefix: PathPrefix;
  /** The path under the prefix, `{name}` for a path parameter: `/Messaging/api/v1/users/{id}`. */
  readonly path: `/${string}`;
  /**
   * `apiKey`: `Authorization: <API_KEY>`, a 401 without a known key (every documented operation);
   * `none`: no authentication.
   */
  readonly auth: 'apiKey' | 'none';
  readonly tag: OperationTag;
  readonly summary: string;
  readonly description: string;
  /** The path parameters, one key per `{name}` of `path`. */
  readonly params?: z.ZodObject;
  /** The query parameters: each key a string (or absent) before parsing. */
  readonly query?: z.ZodObject;
  readonly body?: OperationBody;
  readonly response: OperationResponse;
  /** Documented error answers besides 401 (their body is not shown). */
  readonly errors?: { readonly 403?: string; readonly 409?: string };
  /**
   * A deprecated operation and the id of its replacement (null when the replacement is not in
   * the table). Authentication point 7: only deprecated operations may return credential fields.
   */
  readonly deprecated?: { readonly replacedBy: string | null };
  readonly emulatorChoice?: EmulatorChoice;
}

/** A table of operations keyed by operation id. */
export type OperationTable = Readonly<Record<string, PlatformOperation>>;

/** Checks a table's rows at compile time and keeps their precise types (the readers infer from them). */
export function defineOperations<const T extends OperationTable>(table: T): T {
  return table;
}

// ---------------------------------------------------------------------------------------------
// Types the readers derive from a row

/** The path parameters of an operation, as the handler reads them. */
export type ParamsOf<O extends PlatformOperation> = O extends { readonly params: infer P extends z.ZodType }
  ? z.output<P>
  : Record<never, never>;

/** The query of an operation after parsing (numbers as numbers). */
export type QueryOf<O extends PlatformOperation> = O extends { readonly query: infer Q extends z.ZodType }
  ? z.output<Q>
  : Record<never, never>;

/** The bytes of a binary body as a client sends them. */
export type BinaryInput = Blob | ArrayBuffer | Uint8Array | FormData;

/** The 200 body of an operation as the client returns it. */
export type ResultOf<O extends PlatformOperation> = z.output<O['response']['schema']>;

/** The 200 body of an operation as a handler may render it (what the response schema accepts). */
export type RenderedOf<O extends PlatformOperation> = z.input<O['response']['schema']>;

/** What a caller passes for an operation's params, query and body. */
export type InputOf<O extends PlatformOperation> = (O extends { readonly params: infer P extends z.ZodType }
  ? { readonly params: z.input<P> }
  : unknown) &
  (O extends { readonly query: infer Q extends z.ZodType }
    ? Record<never, never> extends z.output<Q>
      ? { readonly query?: z.output<Q> }
      : { readonly query: z.output<Q> }
    : unknown) &
  (O extends { readonly body: JsonBody<infer S> & { readonly required: true } }
    ? { readonly body: z.input<S> }
    : O extends { readonly body: JsonBody<infer S> }
      ? { readonly body?: z.input<S> }
      : O extends { readonly body: BinaryBody }
        ? { readonly body: BinaryInput; readonly contentType: string }
        : unknown);

// ---------------------------------------------------------------------------------------------
// Paths

const PARAM = /\{(\w+)\}/g;

/** Joins a prefix and a path: `joinPath('/api/', '/Messaging/x')` is `/api/Messaging/x`. */
function joinPath(prefix: string, path: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return `${trimmed}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * The path of an operation under `prefixes`; with `params`, each `{name}` replaced by its value
 * (URI-encoded), else the template kept.
 */
export function operationPath(
  operation: Pick<PlatformOperation, 'prefix' | 'path'>,
  prefixes: PathPrefixes,
  params?: Readonly<Record<string, string | number>>,
): string {
  const path =
    params === undefined
      ? operation.path
      : operation.path.replace(PARAM, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
  return joinPath(prefixes[operation.prefix], path);
}

/** The query values an operation declares, read from a query string (absent keys stay absent). */
export function queryValues(schema: z.ZodObject, search: URLSearchParams): Readonly<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = search.get(key);
    if (value !== null) values[key] = value;
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// The credential rule (Authentication point 7)

/**
 * The path of the first credential field found in `value` at any depth (`content.0.apiKey`),
 * or undefined. Only deprecated operations may answer with one.
 */
export function findCredentialField(
  value: unknown,
  path: readonly (string | number)[] = [],
): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findCredentialField(item, [...path, index]);
      if (found !== undefined) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if ((CREDENTIAL_FIELDS as readonly string[]).includes(key)) return [...path, key].join('.');
      const found = findCredentialField(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** True when `operation` may answer with credential fields (the deprecated ones only). */
export function mayReturnCredentials(operation: Pick<PlatformOperation, 'deprecated'>): boolean {
  return operation.deprecated !== undefined;
}
