/*
 * What a delivery carries, in a few words: the message text, the status value, the session
 * status, the partner event. Shared by the inspector's log rows and conversation view and the
 * CLI's `logs` (plain functions over the payload: no zod, so the CLI loads it cheaply).
 */

/** The longest text quoted in a summary, in characters. */
const QUOTE_MAX = 60;

type Payload = Readonly<Record<string, unknown>>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** A sender's text, quoted and cut to {@link QUOTE_MAX} characters. */
export function quoted(value: unknown): string {
  const shown = text(value);
  if (shown === undefined) return '';
  const flat = shown.replace(/\s+/g, ' ');
  return `"${flat.length > QUOTE_MAX ? `${flat.slice(0, QUOTE_MAX - 1)}…` : flat}"`;
}

const join = (...parts: readonly (string | undefined)[]): string =>
  parts.filter((part) => part !== undefined && part !== '').join(' ');

/** The content of an incoming message: its type and what it says. */
function incoming(payload: Payload): string {
  const kind = text(payload.messageContentType) ?? 'TEXT';
  switch (kind) {
    case 'MEDIA':
      return join(kind, text(payload.fileExtension), quoted(payload.caption));
    case 'LOCATION':
      return join(kind, quoted(payload.label ?? payload.address));
    case 'BUTTON':
    case 'INTERACTIVE':
    case 'CAROUSEL':
      return join(kind, quoted(payload.buttonText));
    case 'REACTION':
      return join(kind, text(payload.text) ?? '(removed)');
    default:
      return join(kind, quoted(payload.text));
  }
}

/** The content of a status update: the status value (with the error of a FAILED one). */
function status(payload: Payload): string {
  return join(text(payload.status), text(payload.errorCode), quoted(payload.errorCodeString));
}

/** The content of a chatbot event: direction, message type and text, and who holds the chat. */
function chatbot(payload: Payload): string {
  const agent = text(payload.assignedAgentName);
  return join(
    text(payload.direction),
    text(payload.messageType),
    quoted(payload.messageText),
    agent === undefined ? undefined : `(agent ${agent})`,
    payload.conversationClosed === true ? '(closed)' : undefined,
  );
}

/** The content of a partner event: its type and the field that changed. */
function partnerEvent(payload: Payload): string {
  const value =
    text(payload.qualityRating) ??
    text(payload.templateStatus) ??
    text(payload.preferenceValue) ??
    text(payload.messagingLimitTier) ??
    text(payload.channelStatus);
  return join(text(payload.eventType), value);
}

/**
 * What a delivery's payload says, in a few words: `TEXT "Hi"`, `DELIVERED`,
 * `OUTGOING TEXT "How can I help?" (agent Ada Agent)`, `connecting "Connecting..."`,
 * `PHONE_QUALITY_CHANGED YELLOW`.
 */
export function deliveryContent(type: string, payload: Payload): string {
  switch (type) {
    case 'incoming':
      return incoming(payload);
    case 'status':
      return status(payload);
    case 'chatbot':
      return chatbot(payload);
    case 'session':
      return join(text(payload.statusType), quoted(payload.status));
    case 'event':
      return partnerEvent(payload);
    default:
      return '';
  }
}

/**
 * The customer a delivery is about (their phone number), when it belongs to one conversation:
 * an incoming message's sender, a status update's receiver, a chatbot event's customer side.
 */
export function customerOf(type: string, payload: Payload): string | undefined {
  switch (type) {
    case 'incoming':
      return text(payload.sender);
    case 'status':
      return text(payload.receiver);
    case 'chatbot':
      return text(payload.direction === 'OUTGOING' ? payload.receiverMsisdn : payload.senderMsisdn);
    default:
      return undefined;
  }
}
