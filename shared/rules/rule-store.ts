/** Sales rule reads and writes on the single table. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_SALES_RULES } from '../api/limits.ts';
import { LimitReachedError, NotFoundError } from '../errors.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { paginate, sourcesOf } from '../storage/pagination.ts';
import { archivedIndexes, archiveItem } from '../storage/tombstone.ts';
import { versionedWrite } from '../storage/versioned-write.ts';
import { versionAttributes } from '../versioning/version-attributes.ts';
import type { RuleInput, SalesRule, SalesRuleSummary } from './rule-schemas.ts';

type StoredRule = SalesRule & { archived_at?: string };

/** The typed reader of rule items. */
const ruleFromItem = (item: Record<string, unknown>): StoredRule => item as StoredRule;

function ruleAttributes(tenant: string, id: string, input: RuleInput, now: Date) {
  const updatedAt = now.toISOString();
  return {
    entity: 'sales_rule',
    external_rule_id: id,
    rule_type: input.rule_type,
    priority: input.priority,
    enabled: input.enabled,
    status: 'active',
    applies_to: input.applies_to,
    action: input.action,
    updated_at: updatedAt,
    ...keys.listEntry(tenant, 'RULES', id, id, ['active']),
    ...keys.facetEntry(tenant, 'RULES', id, id, [String(input.enabled)]),
    // The whole rule is small (at most 100 conditions), so the list index holds all of it:
    // qualification reads a tenant's rules from the index alone.
    list_view: {
      external_rule_id: id,
      rule_type: input.rule_type,
      enabled: input.enabled,
      priority: input.priority,
      status: 'active',
      applies_to: input.applies_to,
      action: input.action,
      source_version: input.source_version,
      created_at: updatedAt,
      updated_at: updatedAt,
    },
  };
}

export const ruleView = (item: StoredRule): SalesRule => ({
  external_rule_id: item.external_rule_id,
  rule_type: item.rule_type,
  priority: item.priority,
  enabled: item.enabled,
  status: item.status,
  applies_to: item.applies_to,
  action: item.action,
  source_version: item.source_version,
  archived_at: item.archived_at ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

/** The tenant's rules that are not archived, counted from the list index (keys only). */
async function countRules(tenant: string): Promise<number> {
  let count = 0;
  for (const partition of keys.listShards(tenant, 'RULES', ['active'])) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      count += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  return count;
}

/**
 * A new rule (or a revived archived one) needs room under MAX_SALES_RULES. Two creations at
 * the same moment may both find the last place: the count is a bound, not a lock.
 */
async function ensureRoomForRule(tenant: string, id: string): Promise<void> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.salesRule(tenant, id), ProjectionExpression: 'archived_at, external_rule_id' }),
  );
  if (Item && !Item.archived_at) return;
  if ((await countRules(tenant)) >= MAX_SALES_RULES) {
    throw new LimitReachedError(`A tenant has at most ${MAX_SALES_RULES} sales rules that are not archived; archive one before adding another.`);
  }
}

/** Upserts a rule; a newer version of an archived rule revives it. A new rule needs room under MAX_SALES_RULES. */
export async function upsertRule(tenant: string, id: string, input: RuleInput, now: Date): Promise<'upserted' | 'unchanged'> {
  await ensureRoomForRule(tenant, id);
  const written = await versionedWrite(keys.salesRule(tenant, id), ruleAttributes(tenant, id, input, now), versionAttributes(input.source_version, input), {
    createdAt: now.toISOString(),
    remove: ['archived_at'],
  });
  return written.outcome === 'unchanged' ? 'unchanged' : 'upserted';
}

export async function getRule(tenant: string, id: string): Promise<SalesRule> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.salesRule(tenant, id) }));
  if (!Item) throw new NotFoundError(`No sales rule ${id}.`);
  return ruleView(ruleFromItem(Item));
}

/** Archives a rule (a tombstone that no longer applies); archiving it again returns it unchanged. */
export async function archiveRule(tenant: string, id: string, now: Date): Promise<SalesRule> {
  const item = await archiveItem<StoredRule>(keys.salesRule(tenant, id), now, archivedIndexes(tenant, 'RULES', id));
  if (!item) throw new NotFoundError(`No sales rule ${id}.`);
  return ruleView(item);
}

/** Active (unarchived) rules in order of id, optionally only enabled or disabled ones: each a partition of its own. */
function rulePage(tenant: string, enabled: boolean | undefined, page: { limit: number; cursor?: string | undefined }) {
  return paginate({ tenant, list: 'sales-rules', filters: { enabled } }, page, {
    sources:
      enabled === undefined
        ? sourcesOf('gsi1', keys.listShards(tenant, 'RULES', ['active']))
        : sourcesOf('gsi3', keys.facetShards(tenant, 'RULES', [String(enabled)])),
  });
}

/** A list entry's summary: the fields `SalesRuleSummary` documents, nothing else of the stored view. */
function ruleSummary(view: Record<string, unknown>): SalesRuleSummary {
  const { external_rule_id, rule_type, enabled, priority, updated_at } = view as SalesRule;
  return { external_rule_id, rule_type, enabled, priority, updated_at };
}

export async function listRules(tenant: string, enabled: boolean | undefined, page: { limit: number; cursor?: string | undefined }) {
  const result = await rulePage(tenant, enabled, page);
  return { ...result, data: result.data.map(ruleSummary) };
}

/** Every enabled, unarchived rule of the tenant, for qualification and call processing. */
export async function activeRules(tenant: string): Promise<SalesRule[]> {
  const rules: SalesRule[] = [];
  let cursor: string | undefined;
  do {
    const page = await rulePage(tenant, true, { limit: 200, cursor });
    rules.push(...page.data.map((view) => ({ archived_at: null, ...view }) as SalesRule));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return rules;
}
