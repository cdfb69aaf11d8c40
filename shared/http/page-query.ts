/** The query parameters every list takes, and the shape of every page (spec 4.8). */
import * as z from 'zod/mini';
import { meta, type Schema } from '../api/zod.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../api/limits.ts';

const PAGE_SIZE_MESSAGE = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** `limit` and `cursor`, the query parameters every list takes. */
export const PageQuery = z.object({
  limit: meta(
    z._default(
      z.coerce.number({ error: PAGE_SIZE_MESSAGE }).check(z.int(PAGE_SIZE_MESSAGE), z.gte(1, PAGE_SIZE_MESSAGE), z.lte(MAX_PAGE_SIZE, PAGE_SIZE_MESSAGE)),
      DEFAULT_PAGE_SIZE,
    ),
    { description: `Page size, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.` },
  ),
  cursor: meta(z.optional(z.string().check(z.maxLength(2048))), { description: 'Opaque; the `next_cursor` of the previous page, with the same filters.' }),
});

export const pageOf = <T extends Schema>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: meta(z.nullable(z.string()), { description: 'Null at the end of the list.' }),
  });
