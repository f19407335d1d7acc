/** The header a receiver reads its token from unless `tokenHeader` names another. */
export const DEFAULT_TOKEN_HEADER = 'x-webhook-token';

/**
 * The header that carries the token, lower-cased as node and `Headers` report header names: the
 * receiver reads it there, replay sends the token there.
 */
export function tokenHeaderOf(options: { readonly tokenHeader?: string | undefined }): string {
  return (options.tokenHeader ?? DEFAULT_TOKEN_HEADER).toLowerCase();
}
