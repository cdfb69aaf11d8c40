/**
 * Webhook deliveries: the fan-out from outbox events to delivery records and queue messages,
 * and the sender's attempt with retries (backoff through the message's visibility timeout),
 * dead-lettering, redrive and replay. The delivery record is the truth; a queue message only
 * says "look at this delivery now", so duplicates and lost messages are harmless (the
 * reconciler re-sends a message whose record is overdue).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { BASE_PATH, routeById } from '#functions/routes.ts';
import { runtimeConfig } from '../config/runtime.ts';
import { envelopeOf, type EventRecord } from '../events/outbox.ts';
import { NotFoundError } from '../errors.ts';
import { REENQUEUE_GRACE_SECONDS, sendToWebhookQueue, type QueueMessage } from '../queue/outbox-queue.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';
import { batchPut } from '../storage/batch.ts';
import { listPage, paginate } from '../storage/pagination.ts';
import { healthFromDeliveries, HEALTH_SAMPLE, type WebhookHealth } from './health.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

/** DynamoDB items hold at most 400 KB: larger envelopes are delivered as a reference to the order. */
export const INLINE_PAYLOAD_MAX_BYTES = 256 * 1024;
export const MAX_ATTEMPTS = 8;
/** Waits before attempts 2 to 8 (contract-decisions section 8), in seconds. */
export const BACKOFF_SECONDS = [30, 120, 600, 1800, 5400, 14_400, 28_800] as const;

export interface StoredDelivery extends Delivery {
  pk: string;
  sk: string;
  tenant: string;
  payload: string;
  external_order_id: string | null;
  delivering_until?: string;
}

export const deliveryIdFor = (eventId: string, replayNonce = '') =>
  `dlv_${createHash('sha256').update(`${eventId}\n${replayNonce}`).digest('base64url').slice(0, 24)}`;

/** The bytes delivered for an event: its envelope, or a reference when too large to keep. */
export function payloadOf(event: EventRecord): string {
  const full = JSON.stringify(envelopeOf(event));
  if (Buffer.byteLength(full) <= INLINE_PAYLOAD_MAX_BYTES) return full;
  return JSON.stringify({
    ...envelopeOf({ ...event, data: {} }),
    data: {
      truncated: true,
      reason: 'payload_too_large',
      reference: event.external_order_id
        ? BASE_PATH + routeById('getOrder').path.replace('{externalOrderId}', encodeURIComponent(event.external_order_id))
        : null,
    },
  });
}

const messageFor = (tenant: string, deliveryId: string): QueueMessage => ({ body: JSON.stringify({ tenant, delivery_id: deliveryId }) });

/** The due entry the reconciler watches: if no sender has handled the delivery by then, its message is sent again. */
const dueFor = (pk: string, tenant: string, deliveryId: string, handleBy: Date) => ({
  ...keys.due(pk, new Date(handleBy.getTime() + REENQUEUE_GRACE_SECONDS * 1000).toISOString()),
  queue_message: messageFor(tenant, deliveryId),
});

function listAttributes(d: StoredDelivery) {
  return { ...keys.listEntry(d.tenant, 'DELIVERIES', d.delivery_id, `${d.created_at}#${d.delivery_id}`), list_view: deliveryView(d) };
}

/** Creates a queued delivery (idempotent by id) and sends its message. */
export async function enqueueDelivery(
  tenant: string,
  deliveryId: string,
  event: { event_id: string; event_type: string; external_order_id: string | null },
  payload: string,
  replayOf: string | null,
  now: Date,
): Promise<boolean> {
  const delivery: StoredDelivery = {
    ...keys.delivery(tenant, deliveryId),
    tenant,
    delivery_id: deliveryId,
    event_id: event.event_id,
    event_type: event.event_type,
    external_order_id: event.external_order_id,
    status: 'queued',
    attempts: 0,
    created_at: now.toISOString(),
    delivered_at: null,
    next_attempt_at: now.toISOString(),
    replay_of: replayOf,
    last_attempt: null,
    payload,
  };
  try {
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { entity: 'delivery', ...delivery, ...listAttributes(delivery), ...dueFor(delivery.pk, tenant, deliveryId, now) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false; // a re-delivered stream record
    throw error;
  }
  // If this send is lost, the reconciler sends the message once the due time passes.
  await sendToWebhookQueue(messageFor(tenant, deliveryId)).catch(() => undefined);
  return true;
}

export async function readDelivery(tenant: string, id: string): Promise<StoredDelivery | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }));
  return Item as StoredDelivery | undefined;
}

export const deliveryView = (d: StoredDelivery): Delivery => ({
  delivery_id: d.delivery_id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  created_at: d.created_at,
  delivered_at: d.delivered_at ?? null,
  next_attempt_at: d.next_attempt_at ?? null,
  replay_of: d.replay_of ?? null,
  last_attempt: d.last_attempt ?? null,
});

export type Claim = { kind: 'claimed'; delivery: StoredDelivery } | { kind: 'finished' } | { kind: 'held'; untilMs: number };

/**
 * Claims the delivery for one attempt (status delivering, with a lease against duplicate
 * messages). `held`: another sender holds the lease (or held it when it crashed), so the
 * message must come back when the lease ends; `finished`: delivered, or no such delivery.
 */
export async function claimDelivery(tenant: string, id: string, now: Date, leaseSeconds: number): Promise<Claim> {
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(tenant, id),
        UpdateExpression: 'SET #status = :delivering, delivering_until = :until, list_view.#status = :delivering',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :delivered AND (attribute_not_exists(delivering_until) OR delivering_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':delivering': 'delivering',
          ':delivered': 'delivered',
          ':now': now.toISOString(),
          ':until': new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
        },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'claimed', delivery: Attributes as StoredDelivery };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const stored = error.Item ? (unmarshall(error.Item) as StoredDelivery) : undefined;
    if (!stored || stored.status === 'delivered') return { kind: 'finished' };
    return { kind: 'held', untilMs: Date.parse(stored.delivering_until!) };
  }
}

export interface AttemptOutcome {
  at: Date;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  requestExcerpt: string;
  responseExcerpt: string;
}

/** Delay before the next attempt after `attempts` failed ones, with ±10 % jitter, scaled for tests. */
export function backoffSeconds(attempts: number, random = Math.random): number {
  const base = BACKOFF_SECONDS[Math.min(attempts, BACKOFF_SECONDS.length) - 1]!;
  return base * runtimeConfig().webhookBackoffScale * (0.9 + 0.2 * random());
}

/**
 * Records an attempt on the delivery (and its attempt log item): delivered on 2xx, else
 * retrying with the next time, or dead_lettered after the 8th failure (a redriven delivery
 * that fails again goes straight back). Returns the new status and the retry delay.
 */
export async function recordDeliveryAttempt(previous: StoredDelivery, outcome: AttemptOutcome): Promise<{ status: DeliveryStatus; retryInSeconds: number }> {
  const attempts = previous.attempts + 1;
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const at = outcome.at.toISOString();
  const retryIn = ok || attempts >= MAX_ATTEMPTS ? 0 : backoffSeconds(attempts);
  const status: DeliveryStatus = ok ? 'delivered' : attempts >= MAX_ATTEMPTS ? 'dead_lettered' : 'retrying';
  const nextAttemptAt = status === 'retrying' ? new Date(outcome.at.getTime() + retryIn * 1000) : null;
  const lastAttempt = { at, status_code: outcome.statusCode, error: outcome.error, latency_ms: Math.round(outcome.latencyMs) };
  const next: StoredDelivery = {
    ...previous,
    status,
    attempts,
    delivered_at: ok ? at : (previous.delivered_at ?? null),
    next_attempt_at: nextAttemptAt?.toISOString() ?? null,
    last_attempt: lastAttempt,
  };
  delete next.delivering_until;
  const { gsi2pk: _a, gsi2sk: _b, queue_message: _c, ...rest } = next as StoredDelivery & Record<string, unknown>;
  // The delivery and its attempt log entry in one call (not a transaction: the log entry is informational).
  await batchPut([
    { entity: 'delivery', ...rest, ...listAttributes(next), ...(nextAttemptAt ? dueFor(next.pk, next.tenant, next.delivery_id, nextAttemptAt) : {}) },
    {
      ...keys.deliveryAttempt(previous.pk, attempts),
      entity: 'delivery_attempt',
      attempt: attempts,
      ...lastAttempt,
      request_excerpt: outcome.requestExcerpt,
      response_excerpt: outcome.responseExcerpt,
      expires_at: Math.floor(outcome.at.getTime() / 1000) + 35 * 24 * 3600,
    },
  ]);
  return { status, retryInSeconds: retryIn };
}

/** A new delivery of the same immutable event: same event_id, the same payload bytes. */
export async function replayDelivery(tenant: string, originalId: string, now: Date) {
  const original = await readDelivery(tenant, originalId);
  if (!original) throw new NotFoundError(`No webhook delivery ${originalId}.`);
  const deliveryId = deliveryIdFor(original.event_id, randomUUID());
  await enqueueDelivery(tenant, deliveryId, original, original.payload, original.delivery_id, now);
  return { delivery_id: deliveryId, replay_of: original.delivery_id, event_id: original.event_id, status: 'queued' as const };
}

export function listDeliveries(tenant: string, status: DeliveryStatus | undefined, page: { limit: number; cursor?: string | undefined }) {
  return paginate({ tenant, list: 'webhook-deliveries', filters: { status } }, page, {
    shards: keys.listShards(tenant, 'DELIVERIES'),
    descending: true,
    ...(status
      ? {
          filter: {
            ConditionExpression: '#view.#status = :status',
            ExpressionAttributeNames: { '#view': 'list_view', '#status': 'status' },
            ExpressionAttributeValues: { ':status': status },
          },
        }
      : {}),
  });
}

/** The subscription's health from its newest deliveries (at most the last 1,000, within 24 h). */
export async function deliveryHealth(tenant: string, now: Date): Promise<WebhookHealth> {
  const views: Delivery[] = [];
  let after: string | undefined;
  const since = new Date(now.getTime() - 24 * 3600_000).toISOString();
  do {
    const page = await listPage({ shards: keys.listShards(tenant, 'DELIVERIES'), limit: 200, after, descending: true });
    views.push(...(page.views as unknown as Delivery[]));
    after = page.last;
  } while (after && views.length < HEALTH_SAMPLE && views.at(-1)!.created_at >= since);
  return healthFromDeliveries(views, now);
}
