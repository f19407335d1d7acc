/**
 * Whether a receiver's answer says the delivery was a duplicate: a 2xx answer whose JSON body has
 * `duplicate: true` at its top level, as this library's receivers answer (`{ received: true,
 * duplicate: true }`). Any other answer, or a body that is not JSON, says nothing about it. No
 * imports: the CLI's `trigger` reads it without loading the emulator.
 */
export function answeredDuplicate(status: number | null, body: string | null): boolean {
  if (body === null || status === null || status >= 300) return false;
  try {
    const parsed = JSON.parse(body) as { duplicate?: unknown } | null;
    return typeof parsed === 'object' && parsed !== null && parsed.duplicate === true;
  } catch {
    return false;
  }
}
