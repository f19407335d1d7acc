import * as z from 'zod';
import { identifier } from './fields.js';
import { UNLISTED_VALUES } from './json-schema-meta.js';

declare const UNLISTED: unique symbol;

/**
 * A discriminator value the documentation does not list (a `messageContentType`, `eventType`,
 * `status` or `direction` the platform added later). At run time it is a plain string.
 *
 * Why not `string`: a union member whose discriminant is `string` (branded or not) is comparable
 * to every literal, so `case 'LOCATION':` would keep it and `message.latitude` would stay
 * optional. A branded `String` is not comparable to a string literal, so a `switch` or `===` on a
 * documented value excludes the unlisted member, and the `default` branch receives it alone.
 * Convert with `String(value)` where a `string` is needed.
 */
// eslint-disable-next-line @typescript-eslint/no-wrapper-object-types -- see above: the wrapper type is what keeps narrowing exact
export type UnlistedValue = String & { readonly [UNLISTED]: true };

/**
 * The discriminator schema of a fallback branch: a non-empty string that is none of `documented`.
 * The exclusion keeps `.schema` (a plain `z.union`) honest, so a documented value that fails its
 * own branch is not accepted as "unlisted". Through {@link OpenDiscriminatedUnion.safeParse} a
 * documented value never reaches the fallback, so the check costs one Set lookup on the rare
 * unlisted path and nothing on the documented ones.
 */
export function unlistedValue(documented: readonly string[]): z.ZodType<UnlistedValue, string> {
  const known = new Set(documented);
  const schema = identifier.refine((value) => !known.has(value), {
    error: `Expected a value the documentation does not list (documented: ${documented.join(', ')})`,
  });
  UNLISTED_VALUES.add(schema, { documented });
  // Typed, not transformed: the value stays the string that arrived.
  return schema as unknown as z.ZodType<UnlistedValue, string>;
}

/**
 * `z.looseObject` typed as `z.object`. Unknown keys still pass through at run time (a field the
 * platform adds later reaches the callback; read it with a cast), but the inferred type has no
 * `[k: string]: unknown` index signature, so a misspelled field is a compile error instead of
 * `unknown`. Type-only: no extra work per payload.
 */
export function passthroughObject<T extends z.core.$ZodLooseShape>(
  shape: T,
): z.ZodObject<{ -readonly [P in keyof T]: T[P] }, z.core.$strip> {
  // The return type is the point: zod's $loose config differs from $strip only in that index signature.
  return z.looseObject(shape);
}

/** A branch of {@link openDiscriminatedUnion}: an object schema whose discriminator `K` is a literal. */
export type Branch<K extends string> = z.ZodObject<{ [P in K]: z.ZodLiteral<string> } & z.ZodRawShape>;

/** The outcome of {@link OpenDiscriminatedUnion.safeParse}: zod's own result type. */
export type OpenUnionResult<T> = z.ZodSafeParseResult<T>;

/** A discriminated union that also admits discriminator values the documentation does not list. */
export interface OpenDiscriminatedUnion<S extends z.ZodType> {
  /** The union, for types and for callers who want a plain zod schema. */
  readonly schema: S;
  /** The documented discriminator values. */
  readonly known: readonly string[];
  /**
   * Parses with the one branch the discriminator selects (the fallback for unlisted values),
   * so a failure names the fields of that branch instead of a union of every branch's issues.
   */
  safeParse(input: unknown): OpenUnionResult<z.output<S>>;
}

/**
 * Builds a discriminated union over documented branches plus a fallback branch for values the
 * platform may add later. zod's own union reports every branch's failure at once; selecting
 * the branch first keeps error messages about the payload the sender meant.
 */
export function openDiscriminatedUnion<
  K extends string,
  const B extends readonly [Branch<K>, ...Branch<K>[]],
  F extends z.ZodObject,
>(key: K, branches: B, fallback: F): OpenDiscriminatedUnion<z.ZodUnion<readonly [...B, F]>> {
  const byValue = new Map<unknown, z.ZodType>();
  for (const branch of branches) byValue.set(branch.shape[key].value, branch);
  const schema = z.union([...branches, fallback] as const);
  return {
    schema,
    known: [...byValue.keys()].map(String),
    safeParse(input) {
      const value =
        typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined;
      const selected = byValue.get(value) ?? fallback;
      return selected.safeParse(input) as OpenUnionResult<z.output<typeof schema>>;
    },
  };
}
