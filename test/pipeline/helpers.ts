/** Something a factory built that may hold resources (a Redis client, a file, a server). */
type Built = unknown;

async function release(built: Built): Promise<void> {
  const close = (built as { close?: unknown } | null | undefined)?.close;
  if (typeof close === 'function') await (close as (timeoutMs?: number) => Promise<unknown>).call(built, 0);
}

/**
 * The error a factory throws (or, for an async one, rejects with) when called by `build`;
 * undefined when it built something, which is then closed so nothing leaks.
 */
export async function errorOf(build: () => Built): Promise<unknown> {
  let built: Built;
  try {
    built = await build();
  } catch (error) {
    return error;
  }
  await release(built);
  return undefined;
}

/** Builds with `build`, expecting no error, and releases what was built. */
export async function buildAndRelease(build: () => Built): Promise<void> {
  const built = await build();
  await release(built);
}

/** A deliberately misspelled option, as a JavaScript caller (no type checking) would pass it. */
export const js = <T>(options: unknown): T => options as T;
