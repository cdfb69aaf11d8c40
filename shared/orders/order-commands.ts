/**
 * What partners do to orders: submit (create or upsert), PATCH and cancel. Each reads the
 * order, decides, and writes with compare-and-set; a concurrent change (a worker moving the
 * order) makes it read and decide again, a bounded number of times. Built on the ports order
 * processing runs on (`orderCommands`, once per instance at the composition root), so the
 * same commands run against the table or, in tests of the domain, memory.
 */

import type { OrderState } from '../api/order-states.ts';
import type { CallPlatform } from '../calls/call-platform.ts';
import { InvalidTransitionError, NotFoundError, RevisionConflict, StaleVersionError, ValidationError } from '../errors.ts';
import { keys } from '../storage/keys.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import { refusedVersionOutcome } from '../storage/versioned-write.ts';
import { compareSourceVersions } from '../versioning/source-version.ts';
import { versionAttributes } from '../versioning/version-attributes.ts';
import { contentOf, newCorrelationId, type OrderContent, type OrderRepository, rejectionFields, type StoredOrder } from './order.ts';
import type { OrderInput, OrderItem } from './order-schemas.ts';
import type { Substitution } from './qualification.ts';
import { isFinal, isUpdatable } from './state-machine.ts';

export type Requalify = (order: StoredOrder) => Promise<{ to: OrderState; reason: string | null; substitutions: Substitution[] }>;
export type SubmitOutcome = 'created' | 'updated' | 'unchanged';

/** What the commands run on: processing's order repository, call platform and requalification. */
export interface OrderCommandPorts {
  orders: OrderRepository;
  callPlatform: Pick<CallPlatform, 'cancel'>;
  requalify: Requalify;
}

/** When a partner's request arrived, and its id: the cause of the events it produces. */
export interface PartnerRequest {
  now: Date;
  requestId: string;
}

/**
 * Applies newer content to an existing order under the rules of PATCH: only while it is
 * neither final nor in a call, requalified at once (validated or rejected).
 */
async function applyContent(ports: OrderCommandPorts, existing: StoredOrder, content: OrderContent, sourceVersion: string, request: PartnerRequest) {
  const { now, requestId } = request;
  const version = versionAttributes(sourceVersion, content);
  if (refusedVersionOutcome(existing, version) === 'unchanged') return { order: existing, outcome: 'unchanged' as const };
  if (!isUpdatable(existing.processing_state)) {
    throw new InvalidTransitionError(`The order is ${existing.processing_state}; it can no longer be changed.`);
  }
  const candidate: StoredOrder = { ...existing, ...content, ...version, correlation_id: newCorrelationId(), content_changed_at: now.toISOString() };
  const q = await ports.requalify(candidate);
  const order = await ports.orders.write(
    existing,
    {
      set: {
        ...content,
        ...version,
        correlation_id: candidate.correlation_id,
        content_changed_at: candidate.content_changed_at,
        substitutions: q.substitutions,
        next_contact_at: null,
        ...rejectionFields(candidate, q.reason),
      },
      to: q.to,
      reason: q.reason,
      causationId: requestId,
    },
    now,
  );
  return { order, outcome: 'updated' as const };
}

function newOrder(tenant: string, input: OrderInput, content: OrderContent, now: Date): StoredOrder {
  const at = now.toISOString();
  return {
    ...keys.order(tenant, input.external_order_id),
    ...content,
    ...versionAttributes(input.source_version, content),
    tenant,
    external_order_id: input.external_order_id,
    processing_state: 'received',
    state_reason: null,
    revision: 0,
    status_revision: 0,
    correlation_id: newCorrelationId(),
    call_attempts: 0,
    next_contact_at: null,
    substitutions: [],
    created_at: at,
    updated_at: at,
    log: [],
  };
}

/**
 * POST /orders: creates the order in `received`, or (an existing id) applies a newer
 * version under the rules of PATCH; the same version with identical content is unchanged.
 */
async function submitOrder(
  ports: OrderCommandPorts,
  tenant: string,
  input: OrderInput,
  request: PartnerRequest,
): Promise<{ order: StoredOrder; outcome: SubmitOutcome }> {
  const { now } = request;
  const content = contentOf({ ...input, contact_not_before: input.contact_not_before ?? null, confidence: input.confidence ?? null });
  return retryOnRevisionConflict(async () => {
    const existing = await ports.orders.read(tenant, input.external_order_id);
    if (!existing) {
      const created = await ports.orders.create(newOrder(tenant, input, content, now), now, request.requestId);
      if (!created) throw new RevisionConflict(`order ${input.external_order_id} was created concurrently`);
      return { order: created, outcome: 'created' as const };
    }
    if (existing.order_kind !== input.order_kind) {
      throw new ValidationError([{ pointer: '/order_kind', message: `cannot change: the order is a ${existing.order_kind}` }]);
    }
    // An erasure finds a customer's orders through the link written with the order: an order
    // that changed hands would escape its new customer's erasure and be hit by the old one's.
    if (existing.external_customer_id !== input.external_customer_id) {
      throw new ValidationError([
        { pointer: '/external_customer_id', message: 'cannot change: an order keeps the customer it was created for; cancel it and submit a new order' },
      ]);
    }
    return applyContent(ports, existing, content, input.source_version, request);
  });
}

export interface OrderPatchInput {
  source_version: string;
  items?: OrderItem[] | undefined;
  priority?: number | undefined;
  contact_not_before?: string | null | undefined;
  confidence?: string | null | undefined;
}

/** PATCH /orders/{id}: the fields sent replace the stored ones, versioned, requalified at once. */
async function patchOrder(ports: OrderCommandPorts, tenant: string, id: string, patch: OrderPatchInput, request: PartnerRequest) {
  return retryOnRevisionConflict(async () => {
    const existing = await ports.orders.read(tenant, id);
    if (!existing) throw new NotFoundError(`No order ${id}.`);
    const content = contentOf({
      ...existing,
      ...(patch.items !== undefined ? { items: patch.items } : {}),
      ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
      ...(patch.contact_not_before !== undefined ? { contact_not_before: patch.contact_not_before } : {}),
      ...(patch.confidence !== undefined ? { confidence: patch.confidence } : {}),
    });
    return applyContent(ports, existing, content, patch.source_version, request);
  });
}

/**
 * Cancels with compare-and-set: re-reads and retries when a worker moved the order first, so
 * a cancel is never lost against a concurrent state change. Cancelling a cancelled order
 * answers it again; any other final state is 409. A call already dialled is cancelled on the
 * call platform.
 */
async function cancelOrder(
  ports: OrderCommandPorts,
  tenant: string,
  id: string,
  cancel: { reason: string; sourceVersion: string | undefined },
  request: PartnerRequest,
): Promise<StoredOrder> {
  const { reason, sourceVersion } = cancel;
  return retryOnRevisionConflict(async () => {
    const order = await ports.orders.read(tenant, id);
    if (!order) throw new NotFoundError(`No order ${id}.`);
    if (order.processing_state === 'cancelled') return order;
    if (isFinal(order.processing_state)) throw new InvalidTransitionError(`The order is ${order.processing_state}; it cannot be cancelled.`);
    if (sourceVersion !== undefined && compareSourceVersions(sourceVersion, order.source_version) < 0) throw new StaleVersionError(order.source_version);
    const cancelled = await ports.orders.write(order, { to: 'cancelled', reason, set: { next_contact_at: null }, causationId: request.requestId }, request.now);
    // A dial already claimed may be ringing: the platform ends it (or never starts it).
    if (order.processing_state === 'in_call' && order.dialing === order.call_attempts) {
      await ports.callPlatform.cancel({ tenant, external_order_id: id, attempt: order.call_attempts });
    }
    return cancelled;
  });
}

/** The partner's order commands on `ports`: built once per function instance, at its composition root. */
export const orderCommands = (ports: OrderCommandPorts) => ({
  submit: (tenant: string, input: OrderInput, request: PartnerRequest) => submitOrder(ports, tenant, input, request),
  patch: (tenant: string, id: string, patch: OrderPatchInput, request: PartnerRequest) => patchOrder(ports, tenant, id, patch, request),
  cancel: (tenant: string, id: string, cancel: { reason: string; sourceVersion: string | undefined }, request: PartnerRequest) =>
    cancelOrder(ports, tenant, id, cancel, request),
});
