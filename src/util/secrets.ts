/*
 * Secrets out of view: what a receiver URL or an API key looks like when shown (a terminal, the
 * delivery log, the inspector) without an explicit request to reveal it. Plain string functions,
 * no dependency: the CLI loads this without the emulator or zod.
 */

/** What a masked value is shown as. */
const SECRET_MASK = '****';

/**
 * Query parameter names whose values are secrets: the receiver's token (`token`, its default
 * `tokenQueryParam`) and the usual spellings of keys, secrets, signatures and passwords.
 */
const SECRET_PARAM = /token|secret|key|pass|sig|auth|credential|session/i;

/**
 * A URL with its secrets masked: the values of secret-looking query parameters, the password of
 * its user info, and each of `known` (a token the caller knows, e.g. `--token`, which may also sit
 * in a path segment) wherever it occurs. Text that is not a URL has only `known` masked.
 *
 * @example
 * maskUrl('http://127.0.0.1:3000/webhooks/incoming?token=s3cret') // '…/incoming?token=****'
 */
export function maskUrl(url: string, known: readonly string[] = []): string {
  let shown = url;
  for (const secret of known) if (secret !== '') shown = shown.split(secret).join(SECRET_MASK);
  const query = shown.indexOf('?');
  if (query !== -1) {
    const hash = shown.indexOf('#', query);
    const end = hash === -1 ? shown.length : hash;
    const params = shown
      .slice(query + 1, end)
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals === -1) return pair;
        let name = pair.slice(0, equals);
        try {
          name = decodeURIComponent(name);
        } catch {
          // a malformed escape: judged as written
        }
        return SECRET_PARAM.test(name) && pair.length > equals + 1
          ? `${pair.slice(0, equals)}=${SECRET_MASK}`
          : pair;
      });
    shown = `${shown.slice(0, query + 1)}${params.join('&')}${shown.slice(end)}`;
  }
  // user info: scheme://user:password@host
  return shown.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, `$1:${SECRET_MASK}@`);
}

/**
 * An API key or token as shown without a reveal: its first four characters, so two keys can be
 * told apart, and the mask (short keys are masked whole).
 */
export function maskKey(key: string): string {
  return key.length <= 8 ? SECRET_MASK : `${key.slice(0, 4)}${SECRET_MASK}`;
}
