/**
 * A PUT of the webhook subscription resets the endpoint's breaker and failure clock only when the
 * endpoint changes (another URL, or enabled again after being disabled): a partner whose deploy
 * re-puts the same subscription still has a failing endpoint paused and, in the end, disabled.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import '../support/stack.ts';
import { tableClient, tableName } from '#shared/storage/clients.ts';
import { keys } from '#shared/storage/keys.ts';
import { putSubscription } from '#shared/webhooks/subscription-store.ts';

const STATUS = 'commerce.order.status_changed.v1' as const;
const failing = {
  failing_since: '2026-11-27T10:00:00.000Z',
  failed_attempts: new Set(['f1', 'f2', 'f3']),
  paused_until: '2026-11-28T10:10:00.000Z',
  pauses: 3,
};

async function withFailingEndpoint(tenant: string, extra: Record<string, unknown> = {}) {
  const entries = { ...failing, ...extra };
  const names = Object.keys(entries);
  await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.webhookSubscription(tenant),
      UpdateExpression: `SET ${names.map((_name, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, entries[name as keyof typeof entries]])),
    }),
  );
}

const stored = async (tenant: string) =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSubscription(tenant), ConsistentRead: true }))).Item!;

describe('a webhook subscription PUT', () => {
  it('keeps the breaker and the failure clock of the same endpoint', async () => {
    const tenant = `sub-${randomUUID()}`;
    const input = { url: 'https://hooks.example.com/a', event_types: [STATUS], enabled: true };
    await putSubscription(tenant, input, new Date());
    await withFailingEndpoint(tenant);
    const again = await putSubscription(tenant, { ...input, event_types: [] }, new Date());
    expect(again.created).toBe(false);
    expect(await stored(tenant)).toMatchObject({ ...failing, event_types: [] });
  });

  it('starts a changed URL with a closed breaker and no failure clock', async () => {
    const tenant = `sub-${randomUUID()}`;
    await putSubscription(tenant, { url: 'https://hooks.example.com/a', event_types: [STATUS], enabled: true }, new Date());
    await withFailingEndpoint(tenant);
    await putSubscription(tenant, { url: 'https://hooks.example.com/b', event_types: [STATUS], enabled: true }, new Date());
    const item = await stored(tenant);
    expect(item.url).toBe('https://hooks.example.com/b');
    for (const field of Object.keys(failing)) expect(item[field], field).toBeUndefined();
  });

  it('starts an endpoint enabled again after it was disabled afresh, and keeps a disabled one disabled when put disabled', async () => {
    const tenant = `sub-${randomUUID()}`;
    const input = { url: 'https://hooks.example.com/a', event_types: [STATUS], enabled: true };
    await putSubscription(tenant, input, new Date());
    await withFailingEndpoint(tenant, { enabled: false, disabled_reason: 'every_attempt_failed', disabled_at: '2026-11-28T10:00:00.000Z' });
    await putSubscription(tenant, { ...input, enabled: false }, new Date());
    expect(await stored(tenant)).toMatchObject({ enabled: false, disabled_reason: 'every_attempt_failed', failing_since: failing.failing_since });
    await putSubscription(tenant, input, new Date());
    const item = await stored(tenant);
    expect(item.enabled).toBe(true);
    for (const field of [...Object.keys(failing), 'disabled_reason', 'disabled_at']) expect(item[field], field).toBeUndefined();
  });
});
