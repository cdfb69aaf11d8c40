/**
 * The service's own metrics (CloudWatch embedded metric format, written with the log line, so
 * no API call): their names, units and dimensions, read by the code that emits them and by
 * the dashboard and alarms. Dimensions stay low-cardinality: never a tenant, an order or a
 * phone number (the tenant is in the log line beside the metric).
 */
export const METRICS_NAMESPACE = 'CommerceInterface';
/** Powertools' `service`: in every log line and as the one dimension every metric has. */
export const SERVICE_NAME = 'commerce-interface';

export const METRIC = {
  /** Dimensions: route (operationId), status_class (2xx, 4xx, 5xx). */
  requests: 'Requests',
  /** Dimensions: state (completed, cancelled, rejected), business_outcome (or none). */
  ordersFinal: 'OrdersFinal',
  /** Dimension: disposition. */
  callAttempts: 'CallAttempts',
  /** Dimension: outcome (delivered, retrying, dead_lettered). */
  deliveryAttempts: 'DeliveryAttempts',
  /** Event written → the receiver's 2xx, in milliseconds. */
  deliveryLatency: 'DeliveryLatency',
  /** Attempts a delivery took when it succeeded. */
  attemptsPerDelivery: 'AttemptsPerDelivery',
  deadLettered: 'DeliveriesDeadLettered',
  /** A delivery message the sender could not handle (not a receiver's failure: ours). */
  senderFailures: 'SenderFailures',
  /** Subscriptions the service disabled because every attempt failed for the disable period. */
  endpointsDisabled: 'EndpointsDisabled',
  /** Messages the reconciler sent again (deliveries the queue had lost or overdue stream work). */
  reconcilerResends: 'ReconcilerResends',
  /** Event written → its delivery enqueued, in milliseconds. */
  fanOutLag: 'FanOutLag',
  /** Per sweep: orders due for longer than one sweep interval that this sweep does not start either. */
  overdueCalls: 'OverdueCalls',
  /** Orders ended because the call platform refused their destination (Connect's country allowlist, a number it may not call). */
  dialsRefused: 'DialsRefused',
} as const;

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export const statusClass = (status: number): (typeof STATUS_CLASSES)[number] => (status >= 500 ? '5xx' : status >= 400 ? '4xx' : status >= 300 ? '3xx' : '2xx');
