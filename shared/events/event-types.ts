/** The public event types of spec section 6: what webhooks deliver and a subscription filters on. */
export const EVENT_TYPES = [
  'commerce.order.status_changed.v1',
  'commerce.call.attempt_completed.v1',
  'commerce.order.result_ready.v1',
  'commerce.writeback.failed.v1',
] as const;
export type PublicEventType = (typeof EVENT_TYPES)[number];

/** Every envelope's `event_version`: the envelope's shape, raised only with a breaking change of it. */
export const EVENT_VERSION = '1';

export const isPublicEvent = (type: string): type is PublicEventType => (EVENT_TYPES as readonly string[]).includes(type);
