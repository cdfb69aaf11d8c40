/**
 * An order's `processing_state` values (contract-decisions section 6): the contract's vocabulary,
 * used by the order state machine, the order's answers and the events that report its changes.
 */
import * as z from 'zod/mini';
import { builtOnFirstUse } from './zod.ts';

export const ORDER_STATES = ['received', 'validated', 'scheduled', 'in_call', 'completed', 'cancelled', 'rejected'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export const ORDER_STATE = builtOnFirstUse(() => z.enum(ORDER_STATES));
