import { Buffer, isUtf8 } from 'node:buffer';

/** A key that could reach an object's prototype when a parsed payload is merged or copied. */
const FORBIDDEN_KEY = '__proto__';

/** Bounds on the structure of a JSON body, checked before validation (answer: 400 payload_too_complex). */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays (the root container is depth 1). */
  readonly maxDepth: number;
  /** Object keys in the whole body. */
  readonly maxKeys: number;
  /** Array items in the whole body. */
  readonly maxItems: number;
}

/**
 * Far above any documented payload (the webhook payloads are flat records of a few dozen keys,
 * with no arrays: a chatbot's widgets travel as a JSON string in messageText; the largest fixture
 * is under 1 KB), and low enough that no 1 MiB body within them keeps the event loop busy for
 * long: it is the count of keys and items that makes JSON.parse and validation slow, not bytes.
 */
export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 32, maxKeys: 1000, maxItems: 1000 };

/** What {@link inspectJson} found. */
export interface JsonInspection {
  /** Whether a `__proto__` key or a `constructor.prototype` object was removed. */
  readonly sanitized: boolean;
  /** The limit that was exceeded, if any (the walk stops there). */
  readonly exceeded: keyof JsonLimits | undefined;
}

const CLEAN: JsonInspection = { sanitized: false, exceeded: undefined };

/**
 * Walks a parsed JSON value once, iteratively (an explicit stack: no depth at which it overflows),
 * removing `__proto__` keys and `constructor.prototype` objects in place at every depth so that no
 * later copy (zod's, a user's deep merge) can pollute a prototype, and counting keys, items and
 * depth against `limits`. Stops at the first limit exceeded. This is the only walk over a body:
 * JSON.parse runs without a reviver, whose recursion failed bodies nested ~2,670 deep.
 */
export function inspectJson(value: unknown, limits: JsonLimits): JsonInspection {
  if (typeof value !== 'object' || value === null) return CLEAN;
  const { maxDepth, maxKeys, maxItems } = limits;
  // Two parallel stacks (node, depth) rather than one of pairs: no allocation per container.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  let keys = 0;
  let items = 0;
  let sanitized = false;
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return { sanitized, exceeded: 'maxDepth' };
    if (Array.isArray(node)) {
      items += node.length;
      if (items > maxItems) return { sanitized, exceeded: 'maxItems' };
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    const names = Object.keys(record);
    keys += names.length;
    if (keys > maxKeys) return { sanitized, exceeded: 'maxKeys' };
    // The values read in one native call, in the order of the names: reading `record[key]` by each
    // name is a keyed load with a new name every time (megamorphic), the most costly part of the walk.
    const values = Object.values(record);
    for (let i = 0; i < names.length; i++) {
      const key = names[i]!;
      const child = values[i];
      // Dropped whatever its value: one rule, and a primitive there is as useless as an object.
      if (key === FORBIDDEN_KEY) {
        delete record[key];
        sanitized = true;
        continue;
      }
      if (typeof child !== 'object' || child === null) continue;
      if (key === 'constructor' && 'prototype' in child) {
        delete record[key];
        sanitized = true;
        continue;
      }
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
  return sanitized ? { sanitized, exceeded: undefined } : CLEAN;
}

/**
 * Whether JSON text can only parse to an object with no object or array inside: it opens with `{`
 * and holds no other `{` and no `[` anywhere (inside strings included, where they change nothing
 * but make the answer "no"). A container in the parsed value needs one of those bytes outside a
 * string, and no UTF-8 sequence contains them but the characters themselves. The webhook payloads
 * are such flat records: their walk by {@link inspectJson} is then {@link inspectFlatObject}.
 */
export function isFlatObjectText(raw: Uint8Array | string): boolean {
  if (typeof raw === 'string') {
    return raw.charCodeAt(0) === OPEN_OBJECT && raw.indexOf('{', 1) === -1 && raw.indexOf('[') === -1;
  }
  return raw[0] === OPEN_OBJECT && raw.indexOf(OPEN_OBJECT, 1) === -1 && raw.indexOf(OPEN_ARRAY) === -1;
}

/**
 * {@link inspectJson} of an object whose values are all primitives (see {@link isFlatObjectText}),
 * whose key count is already known to be within the limits (the caller's: a body below
 * {@link scanThreshold} cannot exceed them, a larger one passed {@link scanJsonStructure}): depth 1,
 * no item, and the one thing to remove is a `__proto__` key (a `constructor` key is only removed
 * when its value is an object).
 */
export function inspectFlatObject(record: Record<string, unknown>): JsonInspection {
  if (!Object.hasOwn(record, FORBIDDEN_KEY)) return CLEAN;
  delete record[FORBIDDEN_KEY];
  return { sanitized: true, exceeded: undefined };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The smallest body that could exceed `limits` in keys or items (`"":0,` is 5 bytes a key, `0,`
 * 2 bytes an item). Smaller bodies skip {@link scanJsonStructure}: JSON.parse costs them little
 * whatever their shape, and the walk after it counts exactly (depth included).
 */
export function scanThreshold(limits: JsonLimits): number {
  return Math.min(4 * limits.maxKeys, 2 * limits.maxItems);
}

/**
 * Counts keys, array items and depth in JSON bytes before they are parsed, so that a wide or deep
 * 1 MiB body is refused in a few milliseconds instead of being parsed for a hundred or more (the
 * parse, not validation, is the cost: V8 builds every object first). One forward pass with a
 * string/escape state; stops at the first bound exceeded. The same counts as {@link inspectJson}
 * on valid JSON; on text that is not JSON the verdict only matters when a bound is exceeded (then
 * 400 payload_too_complex instead of 400 invalid_json).
 */
export function scanJsonStructure(bytes: Uint8Array, limits: JsonLimits): keyof JsonLimits | undefined {
  const { maxDepth, maxKeys, maxItems } = limits;
  // Whether each open container is an array (1) or an object (0); a JS array, as depth may be unbounded.
  const kinds: number[] = [];
  let inString = false;
  let keys = 0;
  let items = 0;
  let arrayOpened = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte <= 0x20) continue; // whitespace
    if (arrayOpened) {
      arrayOpened = false;
      if (byte !== CLOSE_ARRAY && ++items > maxItems) return 'maxItems';
    }
    switch (byte) {
      case QUOTE:
        inString = true;
        break;
      case COLON:
        if (++keys > maxKeys) return 'maxKeys';
        break;
      case COMMA:
        if (kinds[kinds.length - 1] === 1 && ++items > maxItems) return 'maxItems';
        break;
      case OPEN_ARRAY:
      case OPEN_OBJECT:
        kinds.push(byte === OPEN_ARRAY ? 1 : 0);
        if (kinds.length > maxDepth) return 'maxDepth';
        arrayOpened = byte === OPEN_ARRAY;
        break;
      case CLOSE_ARRAY:
      case CLOSE_OBJECT:
        kinds.pop();
        break;
    }
  }
  return undefined;
}

const BOM = 0xfeff;

/**
 * The bytes as a Buffer: the node adapters' as they are, the fetch handler's Uint8Array viewed as
 * one without a copy (Buffer's toString decodes faster than TextDecoder).
 */
const bufferOf = (raw: Uint8Array): Buffer =>
  Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

/**
 * Decodes a raw body as JSON text: strict UTF-8 (invalid bytes are refused, not replaced with
 * U+FFFD: two different byte strings must not become one payload), a leading UTF-8 byte order
 * mark skipped (RFC 8259 §8.1 lets a parser ignore it). Throws a SyntaxError when the text is not
 * JSON, a TypeError when the bytes are not UTF-8. `isUtf8` is native (simdutf): far cheaper than
 * the parse that follows.
 */
export function parseJsonText(raw: Uint8Array | string): unknown {
  let text: string;
  if (typeof raw === 'string') {
    text = raw.charCodeAt(0) === BOM ? raw.slice(1) : raw;
  } else {
    if (!isUtf8(raw)) throw new TypeError('body is not valid UTF-8');
    const start = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
    text = bufferOf(raw).toString('utf8', start);
  }
  return JSON.parse(text) as unknown;
}

/**
 * A raw body as text for a capture record: invalid bytes become U+FFFD there (a capture keeps
 * what arrived as closely as text can; the pipeline itself refuses such a body).
 */
export function bodyText(raw: Uint8Array | string): string {
  return typeof raw === 'string' ? raw : bufferOf(raw).toString('utf8');
}

/**
 * Parses JSON text and drops `__proto__` keys and `constructor.prototype` objects at any depth.
 * `sanitized` tells whether anything was dropped. Kept for callers of earlier versions; the
 * pipeline uses `parseJsonText` and `inspectJson`.
 */
export function parseJsonSafely(text: string): { value: unknown; sanitized: boolean } {
  const value = JSON.parse(text) as unknown;
  return { value, sanitized: inspectJson(value, NO_LIMITS).sanitized };
}

const NO_LIMITS: JsonLimits = { maxDepth: Infinity, maxKeys: Infinity, maxItems: Infinity };
