/**
 * The order state machine of contract-decisions section 6: every allowed transition, and
 * nothing else. Writers ask `canTransition` before their compare-and-set write.
 */
import { ORDER_STATES, type OrderState } from '../api/order-states.ts';

export const FINAL_STATES: ReadonlySet<OrderState> = new Set(['completed', 'cancelled', 'rejected']);
/** States in which an order still waits for or is in processing (requalification applies). */
export const ACTIVE_STATES: readonly OrderState[] = ['received', 'validated', 'scheduled'];

const TRANSITIONS: Record<OrderState, readonly OrderState[]> = {
  // qualification passes or fails; the partner cancels
  received: ['validated', 'rejected', 'cancelled'],
  // the scheduler finds a contact time; requalification fails; the partner cancels
  validated: ['scheduled', 'rejected', 'cancelled'],
  // a call attempt starts; an update sends it back to qualification; requalification fails
  scheduled: ['in_call', 'validated', 'rejected', 'cancelled'],
  // the attempt ends: final result, or another attempt later
  in_call: ['completed', 'scheduled', 'cancelled'],
  completed: [],
  cancelled: [],
  rejected: [],
};

export const canTransition = (from: OrderState, to: OrderState): boolean => TRANSITIONS[from].includes(to);

export const isFinal = (state: OrderState): boolean => FINAL_STATES.has(state);

/** PATCH and upserts change an order's content only while it is neither final nor in a call. */
export const isUpdatable = (state: OrderState): boolean => !isFinal(state) && state !== 'in_call';

export const allTransitions = (): [OrderState, OrderState][] =>
  ORDER_STATES.flatMap((from) => TRANSITIONS[from].map((to) => [from, to] as [OrderState, OrderState]));
