import { expectTypeOf } from 'expect-type';
import { PLATFORM_CLIENT_OPTION_KEYS, type PlatformClientOptions } from '../../src/client/client.js';
import type { StatusTrackingOption } from '../../src/delivery/tracker.js';
import { MEMORY_DEDUPE_STORE_OPTION_KEYS, type MemoryDedupeStoreOptions } from '../../src/dedupe/index.js';
import type { BackoffOptions, RetryOptions, WebhookHandlers } from '../../src/dispatch/index.js';
import { EMULATOR_OPTION_KEYS } from '../../src/emulator/emulator.js';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import {
  BACKOFF_OPTION_KEYS,
  DEDUPE_OPTION_KEYS,
  PIPELINE_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  STATUS_TRACKING_OPTION_KEYS,
  WEBHOOK_HANDLER_KEYS,
  type DedupeOptions,
  type WebhookPipelineOptions,
} from '../../src/pipeline/index.js';
import type { NodeHandlerOptions, WebhookRouterOptions } from '../../src/receiver/index.js';
import { REDIS_DEDUPE_STORE_OPTION_KEYS } from '../../src/redis/option-keys.js';
import {
  type BullMQDispatcherOptions,
  type RedisDedupeStoreOptions,
  type WebhookWorkerOptions,
} from '../../src/redis/index.js';
import {
  type CaptureRedaction,
  type JsonlCaptureOptions,
  type ReplayOptions,
} from '../../src/testing/index.js';
import { closestName, optionKeys } from '../../src/util/options.js';
import { BULLMQ_DISPATCHER_OPTION_KEYS } from '../../src/redis/dispatcher.js';
import { WORKER_OPTION_KEYS } from '../../src/redis/worker.js';
import { CAPTURE_REDACTION_KEYS, JSONL_CAPTURE_OPTION_KEYS } from '../../src/testing/capture.js';
import { REPLAY_OPTION_KEYS } from '../../src/testing/replay.js';

// Compile-time checks (`npm run typecheck`): each runtime list of known keys is exactly the keys
// of its options interface, so adding an option without listing it (it would then be rejected
// as unknown) or listing a key the interface lacks fails the type check.
describe('the known-key lists equal their options interfaces', () => {
  const lists = [
    ['WebhookHandlers', WEBHOOK_HANDLER_KEYS],
    ['WebhookPipelineOptions', PIPELINE_OPTION_KEYS],
    ['DedupeOptions', DEDUPE_OPTION_KEYS],
    ['RetryOptions', RETRY_OPTION_KEYS],
    ['BackoffOptions', BACKOFF_OPTION_KEYS],
    ['statusTracking', STATUS_TRACKING_OPTION_KEYS],
    ['EmulatorOptions', EMULATOR_OPTION_KEYS],
    ['PlatformClientOptions', PLATFORM_CLIENT_OPTION_KEYS],
    ['WebhookWorkerOptions', WORKER_OPTION_KEYS],
    ['BullMQDispatcherOptions', BULLMQ_DISPATCHER_OPTION_KEYS],
    ['RedisDedupeStoreOptions', REDIS_DEDUPE_STORE_OPTION_KEYS],
    ['MemoryDedupeStoreOptions', MEMORY_DEDUPE_STORE_OPTION_KEYS],
    ['JsonlCaptureOptions', JSONL_CAPTURE_OPTION_KEYS],
    ['CaptureRedaction', CAPTURE_REDACTION_KEYS],
    ['ReplayOptions', REPLAY_OPTION_KEYS],
  ] as const;

  it('in types', () => {
    expectTypeOf<(typeof WEBHOOK_HANDLER_KEYS)[number]>().toEqualTypeOf<keyof WebhookHandlers>();
    expectTypeOf<(typeof PIPELINE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof WebhookPipelineOptions>();
    expectTypeOf<(typeof PIPELINE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof WebhookRouterOptions>();
    // createNodeHandler passes its own keys to the pipeline's check: exactly `basePath`.
    expectTypeOf<
      Exclude<keyof NodeHandlerOptions, keyof WebhookPipelineOptions>
    >().toEqualTypeOf<'basePath'>();
    expectTypeOf<(typeof DEDUPE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof DedupeOptions>();
    expectTypeOf<(typeof RETRY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof RetryOptions>();
    expectTypeOf<(typeof BACKOFF_OPTION_KEYS)[number]>().toEqualTypeOf<keyof BackoffOptions>();
    expectTypeOf<(typeof STATUS_TRACKING_OPTION_KEYS)[number]>().toEqualTypeOf<
      keyof Exclude<StatusTrackingOption, false | undefined>
    >();
    expectTypeOf<(typeof EMULATOR_OPTION_KEYS)[number]>().toEqualTypeOf<keyof EmulatorOptions>();
    expectTypeOf<(typeof PLATFORM_CLIENT_OPTION_KEYS)[number]>().toEqualTypeOf<keyof PlatformClientOptions>();
    expectTypeOf<(typeof WORKER_OPTION_KEYS)[number]>().toEqualTypeOf<keyof WebhookWorkerOptions>();
    expectTypeOf<(typeof BULLMQ_DISPATCHER_OPTION_KEYS)[number]>().toEqualTypeOf<
      keyof BullMQDispatcherOptions
    >();
    expectTypeOf<(typeof REDIS_DEDUPE_STORE_OPTION_KEYS)[number]>().toEqualTypeOf<
      keyof RedisDedupeStoreOptions
    >();
    expectTypeOf<(typeof MEMORY_DEDUPE_STORE_OPTION_KEYS)[number]>().toEqualTypeOf<
      keyof MemoryDedupeStoreOptions
    >();
    expectTypeOf<(typeof JSONL_CAPTURE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof JsonlCaptureOptions>();
    expectTypeOf<(typeof CAPTURE_REDACTION_KEYS)[number]>().toEqualTypeOf<keyof CaptureRedaction>();
    expectTypeOf<(typeof REPLAY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ReplayOptions>();
    // The runtime side of the same lists: no key listed twice.
    for (const [, keys] of lists) expect(new Set(keys).size).toBe(keys.length);
  });

  it('optionKeys rejects a list with a key missing or a key the interface lacks', () => {
    interface Example {
      readonly alpha?: number;
      readonly beta: string;
    }
    const keysOf = optionKeys<Example>();
    expect(keysOf(['alpha', 'beta'])).toEqual(['alpha', 'beta']);
    // @ts-expect-error -- `beta` is missing (the error names missingOptionKeys: "beta")
    keysOf(['alpha']);
    // @ts-expect-error -- `gamma` is not an option of Example
    keysOf(['alpha', 'beta', 'gamma']);
  });
});

describe('closestName', () => {
  const known = ['onIncoming', 'onStatus', 'onSession', 'onEvent', 'onChatbot', 'bodyLimit', 'ttlMs', 'max'];

  it.each([
    ['onIncomming', 'onIncoming'], // a doubled letter
    ['onIncomign', 'onIncoming'], // two letters swapped
    ['onchatbot', 'onChatbot'], // case only
    ['onStatuses', 'onStatus'], // a plural
    ['bodylimt', 'bodyLimit'],
    ['ttl', 'ttlMs'], // the unit left off
  ])('suggests %s → %s', (given, expected) => {
    expect(closestName(given, known)).toBe(expected);
  });

  it.each(['x', 'port', 'onMessage', 'maxKeys'])(
    'suggests nothing for %s, which is not a near miss',
    (given) => {
      expect(closestName(given, known)).toBeUndefined();
    },
  );
});
