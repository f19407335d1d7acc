import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Every string in a value, at any depth (keys included). */
export function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...allStrings(inner)]);
}

/**
 * Every string a span exports besides its ids: its name, status message, attribute values, and
 * those of its links and events.
 */
export function attributeStrings(span: ReadableSpan): string[] {
  return [
    span.name,
    span.status.message ?? '',
    ...allStrings(span.attributes),
    ...span.links.flatMap((link) => allStrings(link.attributes ?? {})),
    ...span.events.flatMap((event) => [event.name, ...allStrings(event.attributes ?? {})]),
  ];
}

/** The one receive span and the one process span of a trace. */
export function receiveAndProcess(spans: readonly ReadableSpan[]): {
  receive: ReadableSpan;
  process: ReadableSpan;
} {
  const receives = spans.filter((span) => span.name === 'webhook receive');
  const processes = spans.filter((span) => span.name === 'webhook process');
  if (receives.length !== 1 || processes.length !== 1) {
    throw new Error(`expected one receive and one process span, got ${spans.map((s) => s.name).join(', ')}`);
  }
  return { receive: receives[0]!, process: processes[0]! };
}
