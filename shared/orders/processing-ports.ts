/** What order processing reaches outside the domain through, built once per function by its composition root. */
import type { CallPlatforms, DialRate } from '../calls/call-platform.ts';
import type { CallSlots } from '../calls/call-slots.ts';
import type { FactsPorts } from './facts.ts';
import type { OrderRepository } from './order.ts';

export interface ProcessingPorts extends FactsPorts {
  orders: OrderRepository;
  /** The simulated network for sandbox tenants, the deployment's live platform (if any) for live ones. */
  callPlatforms: CallPlatforms;
  /** The deployment's live dial rate, where its live platform has one: a live dial claims its place first. */
  dialRate?: DialRate | undefined;
  /** The deployment's places for live calls in flight (its live platform's concurrency quota): a live dial takes one before its place in the rate. */
  callSlots?: CallSlots | undefined;
  /** `callRetryDelaySeconds`: where set, every tenant's retry delay (tests only). */
  settings: { variantIndexGraceSeconds: number; callRetryDelaySeconds: number | undefined };
}
