import { DEFAULT_PAGE_SIZE } from '../../contract/index.js';
import type { Page } from '../../schemas/index.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../contract/index.js';

/**
 * One page of `items` in the platform's Page shape (content, totalElements, totalPages, number,
 * size), for the `page` and `size` the operations table's query read (page 0 and
 * {@link DEFAULT_PAGE_SIZE} when absent).
 */
export function toPage<T>(
  items: readonly T[],
  {
    page = 0,
    size = DEFAULT_PAGE_SIZE,
  }: { readonly page?: number | undefined; readonly size?: number | undefined },
): Page<T> {
  return {
    content: items.slice(page * size, page * size + size),
    totalElements: items.length,
    totalPages: Math.ceil(items.length / size),
    number: page,
    size,
  };
}
