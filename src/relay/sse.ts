/*
 * Server-Sent Events over fetch streaming: the writer's framing and a reader, both the format of
 * the HTML Living Standard ("server-sent events", event stream interpretation). Fetch rather than
 * an EventSource: the stream is authenticated by a header, and its status (401, 404) is read.
 */

/** One event of a stream. */
export interface SseEvent {
  /** The `id:` field (the stream's last event id after it), or undefined when it had none. */
  readonly id: string | undefined;
  /** The `event:` field. @default 'message' */
  readonly event: string;
  /** The `data:` lines, joined by line feeds. */
  readonly data: string;
}

/** One event framed for the wire; `data` may hold line feeds (each line becomes a `data:` line). */
export function sseFrame(event: {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}): string {
  const lines: string[] = [];
  if (event.id !== undefined) lines.push(`id: ${event.id}`);
  if (event.event !== undefined) lines.push(`event: ${event.event}`);
  for (const line of event.data.split(/\r\n|\r|\n/)) lines.push(`data: ${line}`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * The events of a `text/event-stream` body, as they arrive. Comments (`:` lines, the keep-alives)
 * and `retry:` are skipped; an event without data is not dispatched, as the standard says.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  let hasId = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // a lone CR at the end of the buffer may be the first half of a CRLF: wait for more
        if (end === -1 || (buffer[end] === '\r' && end === buffer.length - 1 && !done)) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data.length > 0)
            yield {
              id: hasId ? id : undefined,
              event: event === '' ? 'message' : event,
              data: data.join('\n'),
            };
          data = [];
          event = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\u0000')) {
          id = value;
          hasId = true;
        }
      }
      if (done) return;
    }
  } finally {
    // the consumer stopped early (or the stream ended): release the connection either way
    await reader.cancel().catch(() => undefined);
  }
}
