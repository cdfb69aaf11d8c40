/** The tenant's one webhook subscription: secrets (shown once), rotation with overlap, health. */

import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { activeSecrets, newSigningSecret } from '../auth/signing-secrets.ts';
import { NotFoundError, RevisionConflict } from '../errors.ts';
import type { PublicEventType } from '../events/event-types.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import { breakerState, type EndpointState } from './endpoint-guard.ts';
import type { WebhookHealth } from './health.ts';

/** With the endpoint's slots and breaker (endpoint-guard.ts). */
export interface StoredSubscription extends EndpointState {
  url: string;
  event_types: PublicEventType[];
  enabled: boolean;
  secret: string;
  previous_secret?: string;
  previous_secret_expires_at?: string;
  secret_last_rotated_at: string;
  /** The hash of the Idempotency-Key of the last rotation. */
  rotation?: string | null;
  created_at: string;
  updated_at: string;
  /** Since when every delivery attempt has failed (absent after a success). */
  failing_since?: string;
  /** Set when the service disabled the subscription itself; cleared by the partner's next PUT. */
  disabled_reason?: 'endpoint_failing';
  disabled_at?: string;
}

/** The typed reader of the subscription item. */
export const subscriptionFromItem = (item: Record<string, unknown>): StoredSubscription => item as unknown as StoredSubscription;

/** A webhook subscription's secret: the service's one signing-secret form. */
export const newWebhookSecret = newSigningSecret;

export async function readWebhookSubscription(tenant: string): Promise<StoredSubscription | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSubscription(tenant) }));
  return Item ? subscriptionFromItem(Item) : undefined;
}

export { activeSecrets };

/**
 * Creates the subscription with a new secret (returned only here), or replaces url, event
 * types and enabled of the existing one, keeping its secret.
 */
export async function putSubscription(
  tenant: string,
  input: { url: string; event_types: StoredSubscription['event_types']; enabled: boolean },
  now: Date,
): Promise<{ created: boolean; subscription: StoredSubscription }> {
  const at = now.toISOString();
  const key = keys.webhookSubscription(tenant);
  const fresh: StoredSubscription = { ...input, secret: newWebhookSecret(), secret_last_rotated_at: at, created_at: at, updated_at: at };
  if (
    await landed({
      put: { TableName: tableName(), Item: { ...key, entity: 'webhook_subscription', ...fresh }, ConditionExpression: 'attribute_not_exists(pk)' },
    })
  ) {
    return { created: true, subscription: fresh };
  }
  const values = { ':url': input.url, ':types': input.event_types, ':enabled': input.enabled, ':at': at };
  // A changed endpoint (another URL, or enabled again after being disabled, by the partner or
  // automatically) starts with a closed breaker, a fresh failure clock and no fast mark (its
  // attempts take slots until it answers fast); a PUT of the same
  // endpoint (a partner's deploy re-putting its subscription) leaves both as they are, so a
  // failing endpoint is still paused and, in the end, disabled.
  const changedEndpoint = await writeConditionally({
    update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression:
        'SET #url = :url, event_types = :types, enabled = :enabled, updated_at = :at REMOVE failing_since, disabled_reason, disabled_at, failed_attempts, paused_until, pauses, fast_until',
      ConditionExpression: input.enabled ? '#url <> :url OR enabled = :false' : '#url <> :url',
      ExpressionAttributeNames: { '#url': 'url' },
      ExpressionAttributeValues: { ...values, ...(input.enabled ? { ':false': false } : {}) },
      ReturnValues: 'ALL_NEW',
    },
  });
  if (changedEndpoint.written && changedEndpoint.item) return { created: false, subscription: subscriptionFromItem(changedEndpoint.item) };
  const { Attributes } = await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #url = :url, event_types = :types, enabled = :enabled, updated_at = :at',
      ExpressionAttributeNames: { '#url': 'url' },
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { created: false, subscription: subscriptionFromItem(Attributes!) };
}

/**
 * A new secret, returned once; the previous one stays valid for `overlapSeconds` (0: ends
 * now). Rotating again during an overlap ends the older secret at once.
 */
/**
 * Rotates the signing secret. The rotation keeps the hash of the request's Idempotency-Key, so
 * a rerun of a rotation whose answer was never kept (its claim released after the work
 * committed) answers that same rotation instead of rotating again, which would end the
 * secret the partner still uses for one it never saw.
 */
export function rotateSecret(tenant: string, overlapSeconds: number, now: Date, idempotencyKey?: string) {
  const rotation = idempotencyKey === undefined ? null : createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 22);
  return retryOnRevisionConflict(async () => {
    const current = await readWebhookSubscription(tenant);
    if (!current) throw new NotFoundError('No webhook subscription: create it with PUT /webhook-subscription first.');
    if (rotation !== null && current.rotation === rotation) {
      return {
        secret: current.secret,
        previous_secret_expires_at: current.previous_secret_expires_at ?? null,
        secret_last_rotated_at: current.secret_last_rotated_at,
      };
    }
    const secret = newWebhookSecret();
    const at = now.toISOString();
    const expiresAt = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000).toISOString() : null;
    const rotated = await landed({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: expiresAt
          ? 'SET secret = :secret, previous_secret = :previous, previous_secret_expires_at = :expires, secret_last_rotated_at = :at, updated_at = :at, rotation = :rotation'
          : 'SET secret = :secret, secret_last_rotated_at = :at, updated_at = :at, rotation = :rotation REMOVE previous_secret, previous_secret_expires_at',
        // Compare-and-set on the secret read above: two rotations at once cannot lose one.
        ConditionExpression: 'secret = :read',
        ExpressionAttributeValues: {
          ':secret': secret,
          ':read': current.secret,
          ':at': at,
          ':rotation': rotation,
          ...(expiresAt ? { ':previous': current.secret, ':expires': expiresAt } : {}),
        },
      },
    });
    if (!rotated) throw new RevisionConflict('rotated by another request meanwhile');
    return { secret, previous_secret_expires_at: expiresAt, secret_last_rotated_at: at };
  });
}

/** `https://hooks.example.com/…/a1b2`: enough to recognise the URL, not enough to call it. */
export function maskUrl(raw: string): string {
  const url = new URL(raw);
  const tail = `${url.pathname}${url.search}`.replace(/\/$/, '').slice(-4).replace(/^\/+/, '');
  return `${url.protocol}//${url.host}/…/${tail}`;
}

export function subscriptionView(s: StoredSubscription, health: WebhookHealth, now: Date) {
  const overlap = s.previous_secret_expires_at && Date.parse(s.previous_secret_expires_at) > now.getTime() ? s.previous_secret_expires_at : null;
  return {
    url: maskUrl(s.url),
    event_types: s.event_types,
    enabled: s.enabled,
    disabled_reason: s.disabled_reason ?? null,
    disabled_at: s.disabled_at ?? null,
    health: { ...health, breaker: breakerState(s, now), paused_until: breakerState(s, now) === 'open' ? s.paused_until! : null },
    secret_last_rotated_at: s.secret_last_rotated_at,
    previous_secret_expires_at: overlap,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export type EndpointChange = 'none' | 'failing' | 'recovered' | 'disabled';

/**
 * Follows the endpoint's health after an attempt, writing only when it changes: the first
 * failure after a success starts `failing_since`, a success ends it, and a failure when every
 * attempt has failed for `disableAfterSeconds` disables the subscription (as Svix does), with
 * the reason and time the partner sees on GET /webhook-subscription. The sender's settlement of
 * the attempt (`settleSlot`) writes `failing_since` in the same write as the breaker's count,
 * and hands this the state it left, so here a sent attempt only ever disables.
 */
export async function noteEndpointAttempt(
  tenant: string,
  s: StoredSubscription,
  succeeded: boolean,
  now: Date,
  disableAfterSeconds: number,
): Promise<EndpointChange> {
  const at = now.toISOString();
  const update = (expression: string, condition: string, values: Record<string, unknown>) =>
    landed({
      update: {
        TableName: tableName(),
        Key: keys.webhookSubscription(tenant),
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      },
    });
  if (succeeded) return s.failing_since && (await update('REMOVE failing_since', 'attribute_exists(failing_since)', {})) ? 'recovered' : 'none';
  if (!s.failing_since)
    return (await update('SET failing_since = :at', 'attribute_exists(pk) AND attribute_not_exists(failing_since)', { ':at': at })) ? 'failing' : 'none';
  if (!s.enabled || now.getTime() - Date.parse(s.failing_since) < disableAfterSeconds * 1000) return 'none';
  const disabled = await update(
    'SET enabled = :false, disabled_reason = :reason, disabled_at = :at, updated_at = :at',
    'enabled = :true AND failing_since = :since',
    { ':false': false, ':true': true, ':reason': 'endpoint_failing', ':at': at, ':since': s.failing_since },
  );
  return disabled ? 'disabled' : 'none';
}
