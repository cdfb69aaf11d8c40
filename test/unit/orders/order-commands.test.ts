/**
 * The partner's order commands (submit, PATCH, cancel) on the in-memory ports order processing
 * runs on: what a partner sees of each, with no table.
 */
import { describe, expect, it } from 'vitest';
import { InvalidTransitionError, NotFoundError, StaleVersionError, ValidationError } from '#shared/errors.ts';
import { type OrderCommandPorts, orderCommands } from '#shared/orders/order-commands.ts';
import type { OrderInput } from '#shared/orders/order-schemas.ts';
import { orderProcessing } from '#shared/orders/processing.ts';
import { eventsOfOrder, type memoryOrders, NOON, ports, statesOf } from './memory-ports.ts';

/** The states of an order's status events, its creation's own `received` first. */
const eventStates = (orders: ReturnType<typeof memoryOrders>, id: string) => statesOf(orders, id);

const input = (overrides: Partial<OrderInput> = {}): OrderInput => ({
  order_kind: 'standard',
  external_order_id: 'o-1',
  external_customer_id: 'c1',
  items: [{ external_variant_id: 'beans', quantity: 1, price: '9.99', currency: 'EUR' }],
  contact_permission: { status: 'granted' },
  priority: 0,
  source_version: '1',
  ...overrides,
});

const request = (requestId: string) => ({ now: NOON, requestId });

/** Commands on memory, with processing's own requalification on the same ports and a call platform that records cancels. */
function commandsOnMemory() {
  const p = ports('+4915100000000');
  const cancels: unknown[] = [];
  const commandPorts: OrderCommandPorts = {
    orders: p.orders,
    callPlatform: { cancel: async (attempt) => void cancels.push(attempt) },
    requalify: orderProcessing(p).requalify,
  };
  return { orders: p.orders, cancels, commands: orderCommands(commandPorts) };
}

describe('submitting an order', () => {
  it('creates it in received with one status event caused by the request; the same version again is unchanged and writes nothing', async () => {
    const { orders, commands } = commandsOnMemory();
    const created = await commands.submit('acme', input(), request('req-1'));
    expect(created).toMatchObject({ outcome: 'created', order: { processing_state: 'received', revision: 1 } });
    // Its one event is in its log: no item of its own.
    expect(orders.items).toHaveLength(0);
    expect(eventsOfOrder(orders, 'o-1')).toEqual([expect.objectContaining({ event_type: 'commerce.order.status_changed.v1', causation_id: 'req-1' })]);
    const again = await commands.submit('acme', input(), request('req-2'));
    expect(again).toMatchObject({ outcome: 'unchanged', order: { revision: 1 } });
    expect(orders.writes).toEqual(['received']);
  });

  it('applies a newer version under the rules of PATCH: requalified at once, with a new correlation id', async () => {
    const { orders, commands } = commandsOnMemory();
    const { order: first } = await commands.submit('acme', input(), request('req-1'));
    const { order, outcome } = await commands.submit('acme', input({ source_version: '2', priority: 5 }), request('req-2'));
    expect(outcome).toBe('updated');
    expect(order).toMatchObject({ processing_state: 'validated', priority: 5, source_version: '2' });
    expect(order.correlation_id).not.toBe(first.correlation_id);
    expect(eventStates(orders, 'o-1')).toEqual(['received', 'validated']);
  });

  it('refuses an older version, another customer or another kind, and changes nothing', async () => {
    const { orders, commands } = commandsOnMemory();
    await commands.submit('acme', input({ source_version: '5' }), request('req-1'));
    await expect(commands.submit('acme', input({ source_version: '4' }), request('req-2'))).rejects.toBeInstanceOf(StaleVersionError);
    await expect(commands.submit('acme', input({ source_version: '6', external_customer_id: 'c2' }), request('req-3'))).rejects.toMatchObject({
      constructor: ValidationError,
      errors: [{ pointer: '/external_customer_id' }],
    });
    await expect(commands.submit('acme', input({ source_version: '6', order_kind: 'repurchase_intent' }), request('req-4'))).rejects.toMatchObject({
      errors: [{ pointer: '/order_kind' }],
    });
    expect(orders.writes).toEqual(['received']);
  });
});

describe('patching an order', () => {
  it('replaces the fields sent and requalifies; an unknown order is 404', async () => {
    const { commands } = commandsOnMemory();
    await commands.submit('acme', input(), request('req-1'));
    const { order } = await commands.patch('acme', 'o-1', { source_version: '2', priority: 9 }, request('req-2'));
    expect(order).toMatchObject({ priority: 9, source_version: '2', processing_state: 'validated' });
    expect(order.items).toEqual(input().items);
    await expect(commands.patch('acme', 'o-2', { source_version: '2' }, request('req-3'))).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('cancelling an order', () => {
  it('cancels once (a second cancel answers the cancelled order and writes nothing) and refuses a completed one', async () => {
    const { orders, commands } = commandsOnMemory();
    await commands.submit('acme', input(), request('req-1'));
    const cancelled = await commands.cancel('acme', 'o-1', { reason: 'customer_request', sourceVersion: undefined }, request('req-2'));
    expect(cancelled).toMatchObject({ processing_state: 'cancelled', state_reason: 'customer_request' });
    await commands.cancel('acme', 'o-1', { reason: 'customer_request', sourceVersion: undefined }, request('req-3'));
    expect(orders.writes).toEqual(['received', 'cancelled']);
    orders.orders.set('acme/o-1', { ...orders.orders.get('acme/o-1')!, processing_state: 'completed' });
    await expect(commands.cancel('acme', 'o-1', { reason: 'customer_request', sourceVersion: undefined }, request('req-4'))).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
  });

  it('ends a call already dialled on the call platform', async () => {
    const { orders, cancels, commands } = commandsOnMemory();
    await commands.submit('acme', input(), request('req-1'));
    const created = orders.orders.get('acme/o-1')!;
    orders.orders.set('acme/o-1', { ...created, processing_state: 'in_call', call_attempts: 1, dialing: 1 });
    await commands.cancel('acme', 'o-1', { reason: 'customer_request', sourceVersion: undefined }, request('req-2'));
    expect(cancels).toEqual([{ tenant: 'acme', external_order_id: 'o-1', attempt: 1 }]);
  });

  it('is never lost against a worker that moves the order between its read and its write: it reads again and cancels', async () => {
    const { orders, commands } = commandsOnMemory();
    await commands.submit('acme', input(), request('req-1'));
    // The first read hands out the order, then a worker qualifies it before the cancel writes.
    let raced = false;
    const racingPorts: OrderCommandPorts = {
      orders: {
        ...orders,
        read: async (tenant, id) => {
          const seen = await orders.read(tenant, id);
          if (!raced && seen) {
            raced = true;
            await orders.write(seen, { to: 'validated' }, NOON);
          }
          return seen;
        },
      },
      callPlatform: { cancel: async () => undefined },
      requalify: async () => ({ to: 'validated', reason: null, substitutions: [] }),
    };
    const cancelled = await orderCommands(racingPorts).cancel('acme', 'o-1', { reason: 'customer_request', sourceVersion: undefined }, request('req-2'));
    expect(cancelled.processing_state).toBe('cancelled');
    expect(eventStates(orders, 'o-1')).toEqual(['received', 'validated', 'cancelled']);
  });
});
