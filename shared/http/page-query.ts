/** The query parameters every list takes, and the shape of every page (spec 4.8). */
import * as z from 'zod';

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../api/limits.ts';

/** `limit` and `cursor`, the query parameters every list takes. */
export const PageQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be an integer from 1 to 200' })
    .int('must be an integer from 1 to 200')
    .min(1, 'must be an integer from 1 to 200')
    .max(MAX_PAGE_SIZE, 'must be an integer from 1 to 200')
    .default(DEFAULT_PAGE_SIZE)
    .meta({ description: `Page size, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.` }),
  cursor: z.string().max(2048).optional().meta({ description: 'Opaque; the `next_cursor` of the previous page, with the same filters.' }),
});

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().meta({ description: 'Null at the end of the list.' }),
  });
