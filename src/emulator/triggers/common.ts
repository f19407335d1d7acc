import { z } from 'zod';
import type { EmulatorClock } from '../clock.js';
import type { ChatEvents } from '../emit/chat-events.js';
import type { Emitter } from '../emit/emitter.js';
import { faultSchema } from '../emit/faults.js';
import type { EmulatorState } from '../state/index.js';

/**
 * What every group of triggers works on. The state's Maps are never replaced (reset() clears
 * them), so holding `state` is safe.
 */
export interface TriggerContext {
  readonly state: EmulatorState;
  readonly clock: EmulatorClock;
  readonly emitter: Emitter;
  readonly events: ChatEvents;
}

export const ref = z.string().min(1);
export const faults = z.array(faultSchema).default([]);
/**
 * Drift simulation, on purpose: `true` skips the documented enums, value sets and formats so a
 * test can send an unlisted value to check its receiver's tolerance. The delivery log marks
 * such deliveries (`undocumented: true`). Never part of the payload. @default false
 */
export const undocumented = z.boolean().default(false);
