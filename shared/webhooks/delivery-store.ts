/**
 * Delivery records: created queued (idempotent by id) with their queue message, claimed for
 * one attempt under a lease, and updated with each attempt's outcome (retrying with the next
 * time, delivered, or dead-lettered). The record is the truth; a queue message only says
 * "look at this delivery now", so duplicates are harmless, and a message that may be lost is
 * covered by a due entry the reconciler watches (it re-sends a message whose record is
 * overdue): a request's delivery and a retry's wait always have one; a delivery made from a
 * stream record only once its send failed (a crash before the send is covered by the record's
 * retry, which finds the delivery queued and sends again).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { QueueMessage } from '../queue/outbox-queue.ts';
import { deliveryMessageBody, webhookQueue } from '../queue/webhook-queue.ts';
import { queueRedeliveryGraceSeconds, tableClient, tableName } from '../storage/clients.ts';
import { landed, writeConditionally } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { expiresAfter } from '../storage/ttl.ts';
import { deliveryFromItem, deliveryItem, RECOVERED_FACET, type StoredDelivery, type StoredStatus } from './delivery-item.ts';
import { backoffSeconds, MAX_ATTEMPTS } from './retry-schedule.ts';
import type { DeliveryStatus } from './webhook-schemas.ts';

/** Deliveries carry whole payloads: they are kept 35 days (DynamoDB TTL), as long as their events, then deleted. */
export const DELIVERY_RETENTION_SECONDS = 35 * 24 * 3600;

const messageFor = (tenant: string, deliveryId: string): QueueMessage => ({ body: deliveryMessageBody({ tenant, delivery_id: deliveryId }) });

/** The due entry the reconciler watches: if no sender has handled the delivery by then, its message is sent again. */
const dueFor = (pk: string, tenant: string, deliveryId: string, handleBy: Date) => ({
  ...keys.due(pk, new Date(handleBy.getTime() + queueRedeliveryGraceSeconds() * 1000).toISOString()),
  queue_message: messageFor(tenant, deliveryId),
});

/** What an attempt sends and says about it: the payload item's, written once with the delivery. */
export interface DeliveryContent {
  payload: string;
  /** When its event was written: delivery latency counts from here. */
  event_occurred_at?: string;
  /** Its event's correlation id: in the sender's log lines and the delivery's headers. */
  correlation_id?: string;
}

/** The item beside a delivery's record that holds what it sends. */
export const deliveryPayloadItem = (deliveryPk: string, content: DeliveryContent, expiresAt?: number) => ({
  ...keys.deliveryPayload(deliveryPk),
  entity: 'delivery_payload',
  payload: content.payload,
  ...(content.event_occurred_at ? { event_occurred_at: content.event_occurred_at } : {}),
  ...(content.correlation_id ? { correlation_id: content.correlation_id } : {}),
  ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
});

/**
 * Creates a queued delivery (idempotent by id) and sends its message; a parked one (its
 * subscription disabled for failing) is created dead-lettered, with no attempt and no message.
 * The payload's item first: a delivery never exists without what it sends.
 */
export async function enqueueDelivery(
  tenant: string,
  deliveryId: string,
  event: Pick<StoredDelivery, 'event_id' | 'event_type'> & Omit<DeliveryContent, 'payload'>,
  payload: string,
  replayOf: string | null,
  now: Date,
  /**
   * `fromStream`: made from a stream record, which is retried should anything here fail, so
   * its delivery needs a due entry only if its message could not be sent (two index writes
   * fewer per delivery).
   */
  options: { parked?: boolean; fromStream?: boolean } = {},
): Promise<boolean> {
  const { pk, sk } = keys.delivery(tenant, deliveryId);
  const expiresAt = expiresAfter(now, DELIVERY_RETENTION_SECONDS);
  const status: StoredStatus = options.parked ? 'dead_lettered' : 'queued';
  const delivery: StoredDelivery = {
    pk,
    sk,
    tenant,
    delivery_id: deliveryId,
    event_id: event.event_id,
    event_type: event.event_type,
    status,
    attempts: 0,
    created_at: now.toISOString(),
    delivered_at: null,
    next_attempt_at: options.parked ? null : now.toISOString(),
    replay_of: replayOf,
    last_attempt: null,
    expires_at: expiresAt,
  };
  // The same bytes whenever it is written (a delivery id stands for one event), so a repeat is harmless.
  await tableClient().send(new PutCommand({ TableName: tableName(), Item: deliveryPayloadItem(pk, { ...event, payload }, expiresAt) }));
  const written = await writeConditionally({
    put: {
      TableName: tableName(),
      Item: deliveryItem(delivery, options.parked || options.fromStream ? {} : dueFor(pk, tenant, deliveryId, now)),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  // A send that fails leaves the reconciler to send it: by the due entry a request's delivery
  // has, or one armed now for a stream record's (whose record fails only if that write fails too).
  const send = () =>
    webhookQueue()
      .send({ tenant, delivery_id: deliveryId })
      .catch(async () => {
        if (options.fromStream) await armDueEntry(tenant, deliveryId, now);
      });
  if (!written.written) {
    // A re-delivered stream record: while the delivery is still queued its message may be
    // missing, and a second message is harmless.
    if (written.item && deliveryFromItem(written.item).status === 'queued') await send();
    return false;
  }
  if (!options.parked) await send();
  return true;
}

/**
 * The due entry of a queued delivery whose message could not be sent: the reconciler sends it.
 * Only while it is queued: an attempt's record replaces the whole item (and any due entry) and
 * would otherwise find a finished delivery's entry re-armed by a late writer.
 */
async function armDueEntry(tenant: string, deliveryId: string, now: Date): Promise<void> {
  const key = keys.delivery(tenant, deliveryId);
  const { gsi2pk, gsi2sk, queue_message } = dueFor(key.pk, tenant, deliveryId, now);
  await landed({
    update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET gsi2pk = :gpk, gsi2sk = :gsk, queue_message = :message',
      ConditionExpression: '#view.#status = :queued AND attribute_not_exists(delivering_until)',
      ExpressionAttributeNames: { '#view': 'list_view', '#status': 'status' },
      ExpressionAttributeValues: { ':gpk': gsi2pk, ':gsk': gsi2sk, ':message': queue_message, ':queued': 'queued' },
    },
  });
}

/** Whether a delivery was made (an eventually consistent read: one that misses it leaves the conditional put to refuse the copy). */
export async function deliveryExists(tenant: string, id: string): Promise<boolean> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ProjectionExpression: 'pk' }));
  return Item !== undefined;
}

export async function readDelivery(tenant: string, id: string): Promise<StoredDelivery | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenant, id), ConsistentRead: true }));
  return Item ? deliveryFromItem(Item) : undefined;
}

/** What the delivery sends (written before the delivery itself, so a delivery that exists has it). */
export async function readDeliveryContent(deliveryPk: string): Promise<DeliveryContent | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.deliveryPayload(deliveryPk), ConsistentRead: true }));
  if (!Item) return undefined;
  return {
    payload: String(Item.payload),
    ...(Item.event_occurred_at ? { event_occurred_at: String(Item.event_occurred_at) } : {}),
    ...(Item.correlation_id ? { correlation_id: String(Item.correlation_id) } : {}),
  };
}

export type Claim =
  | { kind: 'claimed'; delivery: StoredDelivery; lease: string }
  | { kind: 'finished' }
  | { kind: 'held'; untilMs: number }
  | { kind: 'dead_lettered' };

/** Why a claim was refused, read from the item as it stands. */
function refusal(stored: StoredDelivery | undefined, now: Date): Exclude<Claim, { kind: 'claimed' }> {
  // A recovered delivery's event went out again as another delivery: nothing is left to send.
  if (!stored || stored.status === 'delivered' || stored.recovered_by) return { kind: 'finished' };
  if (stored.status === 'dead_lettered') return { kind: 'dead_lettered' };
  const lease = stored.delivering_until && Date.parse(stored.delivering_until) > now.getTime() ? Date.parse(stored.delivering_until) : 0;
  const backoff = stored.status === 'retrying' && stored.next_attempt_at ? Date.parse(stored.next_attempt_at) : 0;
  return { kind: 'held', untilMs: Math.max(lease, backoff, now.getTime()) };
}

/**
 * Claims the delivery for one attempt: a lease against duplicate messages, on the delivery's
 * record alone (no index entry changes: readers show it `delivering` from the lease). Refused
 * (`held`, with when to look again) while another sender holds the lease or a retry's backoff
 * has not passed, so a duplicate message never attempts early; a dead-lettered delivery gets
 * another attempt only from a message redriven from the DLQ (`dead_lettered` otherwise: its
 * message belongs in the DLQ); `finished`: delivered, or none.
 */
export async function claimDelivery(tenant: string, id: string, now: Date, leaseSeconds: number, fromDeadLetterQueue = false): Promise<Claim> {
  const lease = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  const claimed = await writeConditionally({
    update: {
      TableName: tableName(),
      Key: keys.delivery(tenant, id),
      UpdateExpression: 'SET delivering_until = :until',
      ConditionExpression:
        'attribute_exists(pk) AND #view.#status <> :delivered AND (attribute_not_exists(delivering_until) OR delivering_until < :now) ' +
        'AND (#view.#status <> :retrying OR #view.next_attempt_at <= :now) AND (#view.#status <> :dead OR (:redrive = :yes AND attribute_not_exists(#view.recovered_by)))',
      ExpressionAttributeNames: { '#view': 'list_view', '#status': 'status' },
      ExpressionAttributeValues: {
        ':delivered': 'delivered',
        ':retrying': 'retrying',
        ':dead': 'dead_lettered',
        ':redrive': fromDeadLetterQueue,
        ':yes': true,
        ':now': now.toISOString(),
        ':until': lease,
      },
      ReturnValues: 'ALL_OLD',
    },
  });
  if (claimed.written) return { kind: 'claimed', delivery: { ...deliveryFromItem(claimed.item!), delivering_until: lease }, lease };
  return refusal(claimed.item ? deliveryFromItem(claimed.item) : undefined, now);
}

/**
 * Notes on a dead-lettered delivery the new delivery that re-sent its event (`recover`): it
 * stays dead-lettered, and its dead letter no longer stands for anything left to do: its
 * status-index entry moves to the recovered partition. False when it is not dead-lettered or
 * another delivery recovered it.
 */
export function markRecovered(tenant: string, id: string, replayId: string): Promise<boolean> {
  const recoveredPartition = keys.facetEntry(tenant, 'DELIVERIES', id, '', [RECOVERED_FACET]).gsi3pk;
  return landed({
    update: {
      TableName: tableName(),
      Key: keys.delivery(tenant, id),
      UpdateExpression: 'SET #view.recovered_by = :replay, gsi3pk = :recovered',
      ConditionExpression: '#view.#status = :dead AND (attribute_not_exists(#view.recovered_by) OR #view.recovered_by = :replay)',
      ExpressionAttributeNames: { '#view': 'list_view', '#status': 'status' },
      ExpressionAttributeValues: { ':replay': replayId, ':dead': 'dead_lettered', ':recovered': recoveredPartition },
    },
  });
}

/**
 * Moves the reconciler's look at a delivery on to `handleBy` (and the grace), never earlier:
 * a delivery held while its endpoint is paused has a message coming back then, and must not
 * gain a second one from the reconciler for every grace period the pause lasts. A delivery
 * that is finished (no due entry) is left alone.
 */
export async function deferDelivery(tenant: string, id: string, handleBy: Date): Promise<boolean> {
  const { gsi2sk } = dueFor(keys.delivery(tenant, id).pk, tenant, id, handleBy);
  return landed({
    update: {
      TableName: tableName(),
      Key: keys.delivery(tenant, id),
      UpdateExpression: 'SET gsi2sk = :due',
      ConditionExpression: 'gsi2sk < :due',
      ExpressionAttributeValues: { ':due': gsi2sk },
    },
  });
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
  lease: string,
  backoffScale = 1,
): Promise<{ status: DeliveryStatus | 'superseded'; retryInSeconds: number }> {
  const attempts = previous.attempts + 1;
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const at = outcome.at.toISOString();
  const retryIn = ok || attempts >= MAX_ATTEMPTS ? 0 : backoffSeconds(attempts, backoffScale);
  const status: DeliveryStatus = ok ? 'delivered' : attempts >= MAX_ATTEMPTS ? 'dead_lettered' : 'retrying';
  const nextAttemptAt = status === 'retrying' ? new Date(outcome.at.getTime() + retryIn * 1000) : null;
  const lastAttempt = { at, status_code: outcome.statusCode, error: outcome.error, latency_ms: Math.round(outcome.latencyMs) };
  const { delivering_until: _lease, ...rest } = previous;
  const next: StoredDelivery = {
    ...rest,
    status,
    attempts,
    delivered_at: ok ? at : (previous.delivered_at ?? null),
    next_attempt_at: nextAttemptAt?.toISOString() ?? null,
    last_attempt: lastAttempt,
  };
  // The attempt's log entry first, so a delivery never reads as attempted without it (readers
  // show entries up to the delivery's `attempts`). Per attempt number, a later claim's entry
  // replaces an earlier one's, never the reverse: the log agrees with the delivery's record.
  await landed({
    put: {
      TableName: tableName(),
      Item: {
        ...keys.deliveryAttempt(previous.pk, attempts),
        entity: 'delivery_attempt',
        attempt: attempts,
        lease,
        ...lastAttempt,
        request_excerpt: outcome.requestExcerpt,
        response_excerpt: outcome.responseExcerpt,
        expires_at: expiresAfter(outcome.at, DELIVERY_RETENTION_SECONDS),
      },
      ConditionExpression: 'attribute_not_exists(pk) OR lease <= :lease',
      ExpressionAttributeValues: { ':lease': lease },
    },
  });
  // Only the holder of the current lease records: a sender whose lease ran out while it waited
  // on a slow receiver must never overwrite what a later sender wrote (`delivered` above all).
  const recorded = await landed({
    put: {
      TableName: tableName(),
      Item: deliveryItem(next, nextAttemptAt ? dueFor(next.pk, next.tenant, next.delivery_id, nextAttemptAt) : {}),
      ConditionExpression: 'delivering_until = :lease',
      ExpressionAttributeValues: { ':lease': lease },
    },
  });
  if (!recorded) return { status: 'superseded', retryInSeconds: 0 };
  return { status, retryInSeconds: retryIn };
}
