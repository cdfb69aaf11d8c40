/**
 * A list merged from several index partitions, some read through a filter with a bounded read
 * budget (pages may come back short or empty): walking its cursors yields every matching entry
 * exactly once, in order, whatever the page size, budget, direction and lower bound.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { type ListSource, listPage } from '#shared/storage/pagination.ts';

const PARTITIONS = 3;
const MATCH = {
  ConditionExpression: '#view.#match = :yes',
  ExpressionAttributeNames: { '#view': 'list_view', '#match': 'match' },
  ExpressionAttributeValues: { ':yes': true },
};

async function seed(entries: { partition: number; sk: string; match: boolean }[], prefix: string) {
  const items = entries.map((e) => ({
    pk: `${prefix}#ITEM#${e.sk}`,
    sk: 'ITEM',
    gsi3pk: `${prefix}#${e.partition}`,
    gsi3sk: e.sk,
    list_view: { sk: e.sk, match: e.match },
  }));
  for (let i = 0; i < items.length; i += 25) {
    await tableClient().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
}

describe('list pages merged from partitions', () => {
  it('every matching entry exactly once, in order, across short pages', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ partition: fc.nat(PARTITIONS - 1), sk: fc.stringMatching(/^[a-z0-9]{1,6}$/), match: fc.boolean() }), {
          selector: (e) => e.sk,
          minLength: 20,
          maxLength: 120,
          size: 'max',
        }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.stringMatching(/^[a-z0-9]{1,3}$/), { nil: undefined }),
        async (entries, limit, readBudget, descending, filtered, from) => {
          const prefix = `T#lists-${randomUUID()}`;
          await seed(entries, prefix);
          // Partition 0 is read unfiltered when `filtered` is off, as a list mixes both kinds.
          const sources: ListSource[] = Array.from({ length: PARTITIONS }, (_, p) => ({
            index: 'gsi3',
            partition: `${prefix}#${p}`,
            ...(filtered || p > 0 ? { filter: MATCH } : {}),
          }));
          const seen: string[] = [];
          let after: string | undefined;
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThan(500);
            const page = await listPage({ sources, limit, after, descending, readBudget, ...(descending ? {} : { from }) });
            expect(page.views.length).toBeLessThanOrEqual(limit);
            seen.push(...page.views.map((v) => String(v.sk)));
            if (page.last === undefined) break;
            after = page.last;
          }
          const expected = entries
            .filter((e) => (e.partition === 0 && !filtered) || e.match)
            .map((e) => e.sk)
            .filter((sk) => descending || from === undefined || sk >= from)
            .sort();
          if (descending) expected.reverse();
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
