import { z } from 'zod';

type Branch<K extends string> = z.ZodObject<{ [P in K]: z.ZodLiteral<string> } & z.ZodRawShape>;

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
