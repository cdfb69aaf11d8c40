import { SWEEP_INTERVAL_SECONDS, sweepDueOrders } from '#shared/orders/due-sweep.ts';
import { config } from '../composition-root.ts';
import { processing } from '../order-processing.ts';

/** What the schedule sends: how many seconds until it starts the next run (EventBridge's rule: 60; the local runtime's: 1). */
export interface SweepEvent {
  sweep_seconds?: number;
}

/** Scheduled: advances orders whose contact time has come, in tenants' turns, paced by the dial rate until the next run. */
export const handler = async (event: SweepEvent | undefined): Promise<{ advanced: number }> => ({
  advanced: await sweepDueOrders(new Date(), processing.advanceOrder, {
    sweepSeconds: event?.sweep_seconds ?? SWEEP_INTERVAL_SECONDS,
    dialsPerSecond: config.connect?.dialsPerSecond,
  }),
});
