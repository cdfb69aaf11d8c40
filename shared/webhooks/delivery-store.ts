/**
 * Delivery records: created queued (idempotent by id) with their queue message, claimed for
 * one attempt under a lease, and updated with each attempt's outcome (retrying with the next
 * time, delivered, or dead-lettered). The record is the truth; a queue message only says
 * "look at this delivery now", so duplicates and lost messages are harmless (the reconciler
 * re-sends a message whose record is overdue).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type QueueMessage, REENQUEUE_GRACE_SECONDS, sendToWebhookQueue } from '../queue/outbox-queue.ts';
import { batchPut } from '../storage/batch.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { isConditionFailed } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { backoffSeconds, MAX_ATTEMPTS } from './retry-schedule.ts';
import type { Delivery, DeliveryStatus } from './webhook-schemas.ts';

/** Deliveries carry whole payloads: they are kept 35 days (DynamoDB TTL), as long as their events, then deleted. */
export const DELIVERY_RETENTION_SECONDS = 35 * 24 * 3600;

export interface StoredDelivery extends Delivery {
  pk: string;
  sk: string;
  tenant: string;
  payload: string;
  external_order_id: string | null;
  delivering_until?: string;
  /** Epoch seconds: when DynamoDB's TTL deletes the delivery. */
  expires_at?: number;
}

/** The typed reader of delivery items. */
export const deliveryFromItem = (item: Record<string, unknown>): StoredDelivery => item as unknown as StoredDelivery;

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
    expires_at: Math.floor(now.getTime() / 1000) + DELIVERY_RETENTION_SECONDS,
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
    if (isConditionFailed(error)) return false; // a re-delivered stream record
    throw error;
  }
  // If this send is lost, the reconciler sends the message once the due time passes.
  await sendToWebhookQueue(messageFor(tenant, deliveryId)).catch(() => undefined);
  return true;
}

export async function readDelivery(tenant: string, id: string): Promise<StoredDelivery | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }));
  return Item ? deliveryFromItem(Item) : undefined;
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
    return { kind: 'claimed', delivery: deliveryFromItem(Attributes!) };
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const stored = error.Item ? deliveryFromItem(unmarshall(error.Item)) : undefined;
    if (!stored || stored.status === 'delivered') return { kind: 'finished' };
    return { kind: 'held', untilMs: Date.parse(stored.delivering_until!) };
  }
}

export interface AttemptOutcome {
  at: Date;
  statusCode: number | null;
  error: string | null;
  /** The network's own reason, logged for on-call and never shown to partners. */
  cause?: string;
  latencyMs: number;
  requestExcerpt: string;
  responseExcerpt: string;
}

/**
 * Records an attempt on the delivery (and its attempt log item): delivered on 2xx, else
 * retrying with the next time, or dead_lettered after the 8th failure (a redriven delivery
 * that fails again goes straight back). Returns the new status and the retry delay.
 */
export async function recordDeliveryAttempt(
  previous: StoredDelivery,
  outcome: AttemptOutcome,
  backoffScale = 1,
): Promise<{ status: DeliveryStatus; retryInSeconds: number }> {
  const attempts = previous.attempts + 1;
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const at = outcome.at.toISOString();
  const retryIn = ok || attempts >= MAX_ATTEMPTS ? 0 : backoffSeconds(attempts, backoffScale);
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
      expires_at: Math.floor(outcome.at.getTime() / 1000) + DELIVERY_RETENTION_SECONDS,
    },
  ]);
  return { status, retryInSeconds: retryIn };
}
