/** The query parameters every list takes, and the shape of every page (spec 4.8). */
import * as z from 'zod/mini';
import { answerSchema } from '../api/answer-schema.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../api/limits.ts';
import { builtOnFirstUse, builtSchema, meta, type Schema } from '../api/zod.ts';

const PAGE_SIZE_MESSAGE = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** `limit` and `cursor`, the query parameters every list takes, alone: the query of a list without filters of its own. */
export const PageQuery = builtOnFirstUse(() =>
  z.object({
    limit: meta(
      z._default(
        z.coerce.number({ error: PAGE_SIZE_MESSAGE }).check(z.int(PAGE_SIZE_MESSAGE), z.gte(1, PAGE_SIZE_MESSAGE), z.lte(MAX_PAGE_SIZE, PAGE_SIZE_MESSAGE)),
        DEFAULT_PAGE_SIZE,
      ),
      { description: `Page size, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.` },
    ),
    cursor: meta(z.optional(z.string().check(z.maxLength(2048))), { description: 'Opaque; the `next_cursor` of the previous page, with the same filters.' }),
  }),
);

/**
 * A list operation's query: the list's own filters (a strict object, so an unknown parameter is
 * refused) and PageQuery's `limit` and `cursor`. Built the first time a request's query is
 * parsed, not at load: a request refused at authentication never needs it (README,
 * performance: cold start).
 */
export const listQuery = <F extends z.ZodMiniObject>(filters: () => F) => builtOnFirstUse(() => z.extend(filters(), builtSchema(PageQuery).shape));

/** A page of `item`s (and `more`, the fields a list answers beside its page), as answered: built on first use. */
export const pageOf = <T extends Schema, M extends z.core.$ZodLooseShape = Record<never, never>>(item: T, more?: M) =>
  answerSchema(() =>
    z.object({
      data: z.array(item),
      next_cursor: meta(z.nullable(z.string()), { description: 'Null at the end of the list.' }),
      ...(more as M),
    }),
  );
