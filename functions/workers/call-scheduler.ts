import { sweepDueOrders } from '#shared/orders/due-sweep.ts';
import { processing } from '../order-processing.ts';

/** Scheduled: advances orders whose contact time has come, highest priority first. */
export const handler = async (): Promise<{ advanced: number }> => ({ advanced: await sweepDueOrders(new Date(), processing.advanceOrder) });
