/**
 * Whether a receiver's answer says the delivery was a duplicate: a 2xx answer whose JSON body has
 * `duplicate: true` at its top level, as this library's receivers answer (`{ received: true,
 * duplicate: true }`, DUPLICATE_ANSWER in answers.ts). Any other answer, or a body that is not
 * JSON, says nothing about it. The one reading of it: the emulator's delivery log, the CLI's
 * `trigger` and the relay's listener. No imports, so that `trigger` loads nothing else.
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
