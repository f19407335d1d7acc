import {
  InvalidJsonError,
  InvalidPayloadError,
  PayloadTooComplexError,
  toErrorResponse,
  UnknownWebhookTypeError,
  type HttpAnswer,
  type WebhookError,
} from '../errors.js';
import { logRef } from '../logger.js';
import { callSafely } from '../util/call-safely.js';
import {
  detectWebhookType,
  parseWebhook,
  type ParseWebhookResult,
  type WebhookType,
} from '../schemas/index.js';
import type { Answers } from './answers.js';
import {
  inspectFlatObject,
  inspectJson,
  isFlatObjectText,
  parseJsonText,
  scanJsonStructure,
  scanThreshold,
  type JsonLimits,
} from './json.js';
import type { PipelineState } from './state.js';
import type { AcceptedHead, RequestBody } from './types.js';

/** A payload that passed validation: its type, its data and any undocumented enum values. */
export type ValidPayload = Extract<ParseWebhookResult<WebhookType>, { success: true }>;

/**
 * The body stage: parse (bounded), detect the type on the auto-detecting endpoint, validate.
 * Returns the valid payload, or the answer to an invalid one (400 `invalid_json`, 422, 413
 * `payload_too_complex`), which `onInvalid` has been told about.
 */
export function createPayloadCheck(
  state: PipelineState,
  { refuse }: Answers,
  jsonLimits: JsonLimits,
): (accepted: AcceptedHead, body: RequestBody) => ValidPayload | HttpAnswer {
  const { options, logger, stats, redactLogs } = state;
  const scanFrom = scanThreshold(jsonLimits);
  // A flat object is at depth 1: within any maxDepth but 0.
  const flatWithinDepth = jsonLimits.maxDepth >= 1;
  const parseOptions = { chatbotPayloadVersion: options.chatbotPayloadVersion };

  function invalid(
    accepted: AcceptedHead,
    type: WebhookType | undefined,
    payload: unknown,
    error: WebhookError,
  ): HttpAnswer {
    const issues =
      error instanceof InvalidPayloadError ? error.issues : [{ path: '', message: error.message }];
    refuse(type ?? 'unknown', error, accepted);
    logger.warn({ requestId: accepted.requestId, type, issues }, 'invalid webhook payload');
    const onInvalid = options.onInvalid;
    if (onInvalid) {
      const receivedAt = new Date(accepted.receivedAt);
      callSafely(logger, 'onInvalid', () =>
        onInvalid({ type, payload, issues, requestId: accepted.requestId, receivedAt }),
      );
    }
    return toErrorResponse(error);
  }

  /** A payload over a structural bound: not handed on, to validation or to onInvalid. */
  function tooComplex(accepted: AcceptedHead, exceeded: keyof JsonLimits): HttpAnswer {
    const error = new PayloadTooComplexError(exceeded, jsonLimits[exceeded]);
    return invalid(accepted, accepted.type, undefined, error);
  }

  return function check(accepted: AcceptedHead, body: RequestBody): ValidPayload | HttpAnswer {
    // One parse path for raw and pre-parsed bodies: JSON.parse without a reviver, then one
    // iterative walk that strips prototype keys and bounds the structure. Its verdict depends on
    // neither escapes nor depth.
    let payload: unknown;
    let flat = false;
    if ('raw' in body) {
      // Large bodies only (smaller ones cannot exceed the key and item bounds): refused before the
      // parse, which is where a wide 1 MiB body spends its time.
      if (body.raw.length > scanFrom) {
        const exceeded = scanJsonStructure(
          typeof body.raw === 'string' ? Buffer.from(body.raw) : body.raw,
          jsonLimits,
        );
        if (exceeded !== undefined) return tooComplex(accepted, exceeded);
      }
      try {
        payload = parseJsonText(body.raw);
      } catch (error) {
        return invalid(accepted, accepted.type, undefined, new InvalidJsonError({ cause: error }));
      }
      // Its keys are within the limits here: under scanFrom a body cannot exceed them, and a larger
      // one passed the scan above.
      flat = flatWithinDepth && isFlatObjectText(body.raw);
    } else {
      payload = body.parsed;
    }
    const inspection = flat
      ? inspectFlatObject(payload as Record<string, unknown>)
      : inspectJson(payload, jsonLimits);
    if (inspection.sanitized)
      logger.warn({ requestId: accepted.requestId }, 'prototype keys dropped from payload');
    if (inspection.exceeded !== undefined) return tooComplex(accepted, inspection.exceeded);

    const type = accepted.type ?? detectWebhookType(payload);
    if (accepted.type === undefined && type !== undefined) {
      // The auto-detecting endpoint counted the request as unknown until now.
      stats.inc('unknown', 'received', -1);
      stats.inc(type, 'received');
    }
    if (type === undefined) return invalid(accepted, undefined, payload, new UnknownWebhookTypeError());
    const parsed = parseWebhook(type, payload, parseOptions);
    if (!parsed.success)
      return invalid(accepted, type, payload, new InvalidPayloadError(type, parsed.issues));
    if (parsed.unlisted.length > 0) {
      stats.inc(type, 'unlistedEnumValues', parsed.unlisted.length);
      // The value is sender-controlled (it could be a phone number or a text): its field, length
      // and a logRef (equal values, equal refs) say enough to notice a new platform value.
      logger.warn(
        {
          requestId: accepted.requestId,
          type,
          unlisted: redactLogs
            ? parsed.unlisted.map(({ field, value }) => ({ field, length: value.length, ref: logRef(value) }))
            : parsed.unlisted,
        },
        'undocumented enum value accepted',
      );
    }
    return parsed;
  };
}
