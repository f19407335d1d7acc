import {
  detectWebhookType,
  parseWebhook,
  type ChatbotPayloadVersion,
  type PayloadIssue,
  type WebhookType,
} from '../schemas/index.js';
import { readCapture, type CaptureRecord } from '../testing/capture.js';
import type { CliIo } from './output.js';

/** Options of the `validate` command. */
export interface ValidateCommandOptions {
  /** Validate chatbot events as this payload version instead of detecting it. */
  readonly chatbotPayloadVersion?: ChatbotPayloadVersion | undefined;
  /** Also list the payloads that pass. @default false */
  readonly verbose?: boolean | undefined;
}

/** The verdict on one captured payload. */
export interface RecordVerdict {
  readonly type: WebhookType | undefined;
  readonly ok: boolean;
  /** Why it fails: schema issues, unparsable JSON or an undetectable type. */
  readonly issues: readonly PayloadIssue[];
  /** Enum values the documentation does not list (accepted, reported as warnings). */
  readonly warnings: readonly string[];
}

/** Validates one captured body the way the receiver would: JSON, type (path or detection), schema. */
export function validateRecord(
  record: Pick<CaptureRecord, 'type' | 'body'>,
  options: Pick<ValidateCommandOptions, 'chatbotPayloadVersion'> = {},
): RecordVerdict {
  let payload: unknown;
  try {
    payload = JSON.parse(record.body);
  } catch (error) {
    return {
      type: record.type,
      ok: false,
      issues: [{ path: '', message: `invalid JSON (${(error as Error).message})` }],
      warnings: [],
    };
  }
  const type = record.type ?? detectWebhookType(payload);
  if (type === undefined) {
    return {
      type,
      ok: false,
      issues: [{ path: '', message: 'the webhook type could not be detected from the payload' }],
      warnings: [],
    };
  }
  const parsed = parseWebhook(type, payload, { chatbotPayloadVersion: options.chatbotPayloadVersion });
  if (!parsed.success) return { type, ok: false, issues: parsed.issues, warnings: [] };
  return {
    type,
    ok: true,
    issues: [],
    warnings: parsed.unlisted.map(
      ({ field, value }) => `${field}: ${JSON.stringify(value)} is not a documented value`,
    ),
  };
}

/** Counts of a `validate` run. */
export interface ValidateSummary {
  readonly valid: number;
  readonly invalid: number;
  readonly unreadable: number;
}

/**
 * The `validate` command: reads a capture file and reports each payload that fails the schemas
 * (by line, with the failing fields), each unreadable line, and a summary. Resolves with the
 * counts; the caller exits non-zero when anything failed.
 */
export async function validateCommand(
  file: string,
  options: ValidateCommandOptions,
  io: CliIo,
): Promise<ValidateSummary> {
  let valid = 0;
  let invalid = 0;
  let unreadable = 0;
  for await (const line of readCapture(file)) {
    if (line.error !== undefined) {
      unreadable += 1;
      io.out(`✗ ${line.error}`);
      continue;
    }
    const verdict = validateRecord(line.record, options);
    const label = `line ${line.line} (${verdict.type ?? 'unknown type'}, ${line.record.path})`;
    if (verdict.ok) {
      valid += 1;
      if (options.verbose === true) io.out(`✓ ${label}`);
      for (const warning of verdict.warnings) io.out(`! ${label}: ${warning}`);
      continue;
    }
    invalid += 1;
    io.out(`✗ ${label}`);
    for (const issue of verdict.issues)
      io.out(`    ${issue.path === '' ? '(payload)' : issue.path}: ${issue.message}`);
  }
  const total = valid + invalid + unreadable;
  io.out(
    `${total} line${total === 1 ? '' : 's'}: ${valid} valid, ${invalid} invalid, ${unreadable} unreadable`,
  );
  return { valid, invalid, unreadable };
}
