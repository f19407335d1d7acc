import { WEBHOOK_PATHS, WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';

const TYPE_BY_PATH = new Map<string, WebhookType>(WEBHOOK_TYPES.map((type) => [WEBHOOK_PATHS[type], type]));

/** The common case, `/chatbot` and friends, without splitting the path. */
const EXACT_ROUTES = new Map<string, ParsedRoute>([
  ['', { type: undefined, pathToken: undefined }],
  ['/', { type: undefined, pathToken: undefined }],
  ...WEBHOOK_TYPES.flatMap((type) => [
    [`/${WEBHOOK_PATHS[type]}`, { type, pathToken: undefined }] as const,
    [`/${WEBHOOK_PATHS[type]}/`, { type, pathToken: undefined }] as const,
  ]),
]);

/** Where a request is going: a webhook type, or undefined for the auto-detecting endpoint. */
export interface ParsedRoute {
  readonly type: WebhookType | undefined;
  /** A token given as the first path segment (`/<token>/chatbot`). */
  readonly pathToken: string | undefined;
}

/**
 * Reads the path below the router's mount point: `/`, `/<type>`, `/<token>`, `/<token>/<type>`.
 * A leading segment that is not a type is read as a path token only when `tokensInPath` is set;
 * anything else is not a webhook endpoint (undefined).
 */
export function parseRoute(pathname: string, tokensInPath: boolean): ParsedRoute | undefined {
  const exact = EXACT_ROUTES.get(pathname);
  if (exact) return exact;
  // Exact: one leading slash, no empty segment (`//chatbot`), at most one trailing slash. Every
  // adapter reads the sub-path here, so all four agree on every path.
  if (pathname.charCodeAt(0) !== SLASH) return undefined;
  const end = pathname.endsWith('/') ? pathname.length - 1 : pathname.length;
  const segments = pathname.slice(1, end).split('/');
  if (segments.length > 2 || segments.includes('')) return undefined;
  const [first, second] = segments;
  if (first === undefined) return { type: undefined, pathToken: undefined };
  if (second === undefined) {
    const type = TYPE_BY_PATH.get(first);
    if (type) return { type, pathToken: undefined };
    return tokensInPath ? { type: undefined, pathToken: decodeSegment(first) } : undefined;
  }
  const type = TYPE_BY_PATH.get(second);
  return type && tokensInPath ? { type, pathToken: decodeSegment(first) } : undefined;
}

const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/** A mount path as the node and fetch adapters compare it: no trailing slash, '' for none. */
export function normaliseBasePath(basePath: string | undefined): string {
  return (basePath ?? '').replace(/\/+$/, '');
}

/**
 * The path and query below `basePath` (normalised), or undefined when `url` is not under it: the
 * prefix must end a path segment (its end, a `/` or a `?`), so `/webhooks` does not match
 * `/webhooksX`. Exact and case-sensitive, like `parseRoute`.
 */
export function belowBasePath(url: string, basePath: string): string | undefined {
  if (basePath === '') return url;
  if (!url.startsWith(basePath)) return undefined;
  const next = url.charCodeAt(basePath.length);
  if (!(Number.isNaN(next) || next === SLASH || next === QUESTION_MARK)) return undefined;
  return url.slice(basePath.length) || '/';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
