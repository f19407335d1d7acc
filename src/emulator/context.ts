import type { Logger } from 'pino';
import type { EmulatorClock } from './clock.js';
import type { Router } from './http/router.js';
import type { EmulatorState } from './state/index.js';

/** The path prefixes of the two documented APIs. */
export interface EmulatorPrefixes {
  /** `{messaging_prefix}`: prepended to `/Messaging/...` paths. */
  readonly messaging: string;
  /** `{chat_prefix}`: prepended to `/ChatParticipant...` paths. */
  readonly chat: string;
}

/**
 * What a route group needs: the state, the clock, the logger and the prefixes. The state's
 * Maps are never replaced (reset() clears them), so holding `state` is safe.
 */
export interface EmulatorContext {
  readonly state: EmulatorState;
  readonly clock: EmulatorClock;
  readonly logger: Logger;
  readonly prefixes: EmulatorPrefixes;
  /** The emulator clock as a Date. */
  now(): Date;
}

/** A group of routes, registered once when the emulator is created. */
export type RouteGroup = (router: Router, context: EmulatorContext) => void;
