/**
 * The contract's limits and order kinds, each enforced by its schema module and stated by
 * discovery. Kept apart from the schemas so that stating them (GET /capabilities) builds none.
 */
export const ORDER_KINDS = ['standard', 'repurchase_intent'] as const;
export const MAX_ORDER_ITEMS = 250;
export const MAX_PRODUCTS_PER_BATCH = 500;
export const MAX_VARIANTS_PER_PRODUCT = 100;
export const MAX_RULE_CONDITIONS = 100;
export const MAX_PAGE_SIZE = 200;
/**
 * The signing window: how far a request's X-SVC-Timestamp may be from the server's clock, and
 * how long its nonce is remembered. It is also the clock skew a partner's `collected_at` (a
 * consent's proof) may have into the future.
 */
export const REPLAY_WINDOW_SECONDS = 300;
export const DEFAULT_PAGE_SIZE = 50;
/**
 * How many rules a tenant may have that are not archived. Every qualification weighs a
 * tenant's enabled rules, so their number bounds the work one tenant's orders cost.
 */
export const MAX_SALES_RULES = 500;
/** A webhook endpoint gets at most this many attempts at once (the endpoint guard's slots). */
export const ENDPOINT_SLOTS = 20;
/**
 * The sender's instances at most (its reserved concurrency and its queue source's maximum):
 * twice an endpoint's slots, so the attempts of one endpoint that answers nothing, each holding
 * its instance for the whole attempt timeout, can hold at most half of them. With as many
 * instances as slots, one such endpoint held every instance for 15 s, and no other tenant's
 * delivery was attempted meanwhile (docs/performance.md, "Fairness").
 */
export const SENDER_INSTANCES = 2 * ENDPOINT_SLOTS;
