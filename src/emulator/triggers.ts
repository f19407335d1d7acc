import { PARTNER_EVENT_FIELDS } from '../schemas/trigger-contract.js';
import type { EmulatorClock } from './clock.js';
import type { ChatEvents } from './emit/chat-events.js';
import type { Emitter } from './emit/emitter.js';
import type { EmulatorState } from './state/index.js';
import {
  assignmentTriggers,
  type AssignAgentInput,
  type AssignAgentResult,
  type UnassignAgentInput,
} from './triggers/assignment.js';
import {
  messageTriggers,
  type BotReplyInput,
  type BotReplyResult,
  type CustomerMessageInput,
  type CustomerMessageResult,
  type MessageResult,
  type MessageStatusInput,
  type SendMessageInput,
} from './triggers/messages.js';
import {
  partnerEventTriggers,
  type PartnerEventInput,
  type PartnerEventResult,
} from './triggers/partner-events.js';
import {
  sessionTriggers,
  type FlagNumberInput,
  type SessionChangeInput,
  type SessionResult,
} from './triggers/sessions.js';

// The schemas, inputs and results live with their triggers (src/emulator/triggers/); this module
// exports them, so `./triggers.js` stays the one import path of the emulator's triggers.
export {
  assignAgentInputSchema,
  unassignAgentInputSchema,
  type AssignAgentInput,
  type AssignAgentResult,
  type UnassignAgentInput,
} from './triggers/assignment.js';
export {
  botReplyInputSchema,
  customerMessageInputSchema,
  messageStatusInputSchema,
  sendMessageInputSchema,
  type BotReplyInput,
  type BotReplyResult,
  type CustomerMessageInput,
  type CustomerMessageResult,
  type MessageResult,
  type MessageStatusInput,
  type SendMessageInput,
} from './triggers/messages.js';
export {
  partnerEventInputSchema,
  type PartnerEventInput,
  type PartnerEventResult,
} from './triggers/partner-events.js';
export {
  flagNumberInputSchema,
  MAX_FLAG_PERIOD_MS,
  sessionChangeInputSchema,
  type FlagNumberInput,
  type SessionChangeInput,
  type SessionResult,
} from './triggers/sessions.js';
export { PARTNER_EVENT_FIELDS };

/** Every trigger, callable from JS and over `/_emulator`. Inputs are validated (400 naming the field). */
export interface Triggers {
  customerMessage(input: CustomerMessageInput): CustomerMessageResult;
  botReply(input: BotReplyInput): BotReplyResult;
  assignAgent(input: AssignAgentInput): AssignAgentResult;
  unassignAgent(input: UnassignAgentInput): { readonly chatParticipantId: string };
  sendMessage(input: SendMessageInput): MessageResult;
  updateMessageStatus(input: MessageStatusInput): MessageResult;
  sessionChange(input: SessionChangeInput): SessionResult;
  flagNumber(input: FlagNumberInput): SessionResult;
  partnerEvent(input: PartnerEventInput): PartnerEventResult;
}

/**
 * The triggers as implemented: every input is `unknown` and validated, so HTTP bodies can be
 * passed as they arrive. Assignable to {@link Triggers}.
 */
export type UncheckedTriggers = {
  readonly [K in keyof Triggers]: (input: unknown) => ReturnType<Triggers[K]>;
};

/**
 * Creates the triggers over the state, clock and emitter. Each group (src/emulator/triggers/)
 * brings its triggers; the return type makes a missing one a compile error. The groups declare
 * their triggers' result types themselves rather than `satisfies Partial<UncheckedTriggers>`:
 * that would import this module from the modules it imports (a circle, which the import rules
 * forbid).
 */
export function createTriggers(
  state: EmulatorState,
  clock: EmulatorClock,
  emitter: Emitter,
  events: ChatEvents,
): UncheckedTriggers {
  const context = { state, clock, emitter, events };
  return {
    ...messageTriggers(context),
    ...assignmentTriggers(context),
    ...sessionTriggers(context),
    ...partnerEventTriggers(context),
  };
}
