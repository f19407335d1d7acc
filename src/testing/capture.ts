import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { CaptureRecord } from '../capture/types.js';
import { WEBHOOK_PATHS, WEBHOOK_TYPES } from '../schemas/index.js';
import { openRegularFile } from '../util/files.js';

export type { CaptureRecord, CaptureSink } from '../capture/types.js';
export { serialiseRecord } from '../capture/jsonl.js';
export {
  CAPTURE_REDACTION_KEYS,
  createJsonlCapture,
  DEFAULT_CAPTURE_SECRET_HEADERS,
  JSONL_CAPTURE_OPTION_KEYS,
  type CaptureRedaction,
  type JsonlCapture,
  type JsonlCaptureOptions,
} from '../capture/jsonl-capture.js';

const captureLineSchema = z.object({
  receivedAt: z.string(),
  type: z.enum(WEBHOOK_TYPES).nullish(),
  path: z.string(),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string(),
});

/**
 * A hand-written line `{ "type"?: ..., "payload": {...}, "receivedAt"?: ... }` (e.g. payloads
 * exported with jq): read as a capture of that payload on its type's endpoint.
 */
const payloadLineSchema = z
  .object({
    receivedAt: z.string().default(''),
    type: z.enum(WEBHOOK_TYPES).nullish(),
    payload: z.unknown(),
  })
  .transform(({ receivedAt, type, payload }) => ({
    receivedAt,
    type,
    path: type == null ? '/' : `/${WEBHOOK_PATHS[type]}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  }));

/** One line of a capture file: a record, or why the line could not be read. */
export type CaptureLine =
  | { readonly line: number; readonly record: CaptureRecord; readonly error?: undefined }
  | { readonly line: number; readonly record?: undefined; readonly error: string };

/** Thrown by {@link readCapture} when the file itself cannot be opened. */
export class CaptureFileError extends Error {
  override readonly name = 'CaptureFileError';
  readonly code = 'capture_file' as const;
  constructor(
    readonly file: string,
    options: { readonly cause: unknown },
  ) {
    super(`cannot read capture file ${file}: ${describeFsError(options.cause)}`, options);
  }
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/** Parses one line of a capture file (1-based `line` for messages). */
export function parseCaptureLine(text: string, line: number): CaptureLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `line ${line}: invalid JSON (${(error as Error).message})` };
  }
  const isPayloadLine =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'payload' in value &&
    !('body' in value);
  const parsed = isPayloadLine ? payloadLineSchema.safeParse(value) : captureLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue === undefined || issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
    return { line, error: `line ${line}: not a capture record (${where}${issue?.message ?? 'invalid'})` };
  }
  const { type, ...rest } = parsed.data;
  return { line, record: { ...rest, type: type ?? undefined } };
}

/**
 * Reads a capture file line by line, yielding each record with its line number. Besides capture
 * records, a line may be `{ "type"?, "payload" }` (the payload is serialised as the body). A line
 * that is not JSON, or neither of those, is yielded with an `error` naming its line, and reading
 * goes on; blank lines are skipped. Rejects with {@link CaptureFileError} when the file cannot be
 * opened.
 *
 * @example
 * for await (const { line, record, error } of readCapture('.captures/webhooks.jsonl')) {
 *   if (error) console.warn(error); else console.log(line, record.type, record.body.length);
 * }
 */
export async function* readCapture(file: string): AsyncGenerator<CaptureLine, void, undefined> {
  let handle;
  try {
    // a regular file only: a FIFO or a device is refused at once, never waited on
    handle = await openRegularFile(file);
  } catch (error) {
    throw new CaptureFileError(file, { cause: error });
  }
  const lines = createInterface({
    input: handle.createReadStream({ encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let number = 0;
  try {
    for await (const text of lines) {
      number += 1;
      if (text.trim() === '') continue;
      yield parseCaptureLine(text, number);
    }
  } finally {
    lines.close();
    await handle.close().catch(() => undefined);
  }
}
