import type { Page } from '../../schemas/index.js';
import { BadRequestError } from '../errors.js';

/** Default page size when `size` is omitted (not shown in the documentation). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest accepted `size` (the documentation shows no maximum; the emulator picks one). */
export const MAX_PAGE_SIZE = 1000;

/** Reads `page` and `size` from a query string; 400 naming the parameter when malformed. */
export function readPageQuery(query: URLSearchParams): { page: number; size: number } {
  return {
    page: readInt(query, 'page', 0, 0, Number.MAX_SAFE_INTEGER),
    size: readInt(query, 'size', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };
}

function readInt(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BadRequestError(
      `${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
      { field: name },
    );
  }
  return value;
}

/** Slices `items` into one page. */
export function toPage<T>(items: readonly T[], page: number, size: number): Page<T> {
  return {
    content: items.slice(page * size, page * size + size),
    totalElements: items.length,
    totalPages: Math.ceil(items.length / size),
    number: page,
    size,
  };
}
