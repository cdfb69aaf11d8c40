/**
 * What each problem code means and what a partner does about it: the reference page's
 * "Problems" section (one entry per code, where a problem's `doc_url` points) is made from this.
 */
import type { ProblemCode } from './problem.ts';

export interface ProblemGuide {
  /** When the service answers with this code. */
  means: string;
  /** What the caller does next. */
  action: string;
}

export const PROBLEM_GUIDE: Record<ProblemCode, ProblemGuide> = {
  invalid_signature: {
    means:
      'The request could not be authenticated: an `X-SVC-` header is missing or malformed, the key id is unknown or revoked, the body hash is not the hash of the body sent, or the signature does not match. `detail` names the header or the body hash where saying so reveals nothing about other keys.',
    action:
      'Sign exactly the string the `hmac` scheme describes, over the body bytes you send (after any serialisation), with the secret of the key id you send. `npm run sandbox -- request` signs a request for you to compare with.',
  },
  expired_timestamp: {
    means: '`X-SVC-Timestamp` is more than 300 s away from the service clock.',
    action: "Synchronise the caller's clock (NTP) and sign each attempt afresh with the current time.",
  },
  replay_nonce: {
    means: '`X-SVC-Nonce` was used already within the replay window.',
    action: 'Use a new random nonce for every attempt, retries included; keep the same `Idempotency-Key` across retries instead.',
  },
  insufficient_scope: {
    means: 'The key is valid but lacks the scope the operation needs (`required_scope`).',
    action: 'Use a key with that scope, or ask the platform team to issue one.',
  },
  resource_not_found: {
    means:
      "No such resource for your tenant (another tenant's resource reads the same), or no such route. For an order result, `processing_state` and `result_expected` say whether one is still coming.",
    action: 'Check the id and the path; for a result with `result_expected: true`, wait for `commerce.order.result_ready.v1` or poll later.',
  },
  method_not_allowed: {
    means: 'The path exists but not with this method; `Allow` lists the methods it takes.',
    action: 'Use one of the methods in `Allow`.',
  },
  idempotency_key_reused: {
    means:
      'The `Idempotency-Key` belongs to another request (`reason: payload_mismatch`: another method, path or body) or to one still running (`reason: in_progress`, with `Retry-After`).',
    action: 'For `in_progress`, retry after `Retry-After` with the same key; for `payload_mismatch`, send the new request with a new key.',
  },
  stale_source_version: {
    means: 'The stored `source_version` is newer than, or equal to with other content than, the one sent (`current_source_version`).',
    action: 'Re-read your own record and send it with a newer `source_version`; an older version is never applied.',
  },
  invalid_state_transition: {
    means: "The change is not possible in the resource's current state, e.g. cancelling or changing an order already completed.",
    action: 'Read the resource to see its state; a finished order is final.',
  },
  limit_reached: {
    means: 'A per-tenant limit would be passed (the sales rules not archived, the live listen sessions).',
    action: 'Archive what you no longer need, or let sessions end, then try again.',
  },
  payload_too_large: {
    means: 'The body is over 2 MiB, or an array in it has more than 1,000 items.',
    action: 'Split the request: batches of at most 1,000 items, each body under 2 MiB.',
  },
  unsupported_media_type: {
    means: 'A body was sent with a `Content-Type` other than `application/json`.',
    action: 'Send JSON with `Content-Type: application/json`.',
  },
  validation_failed: {
    means: 'The request is well formed JSON but breaks the contract: `errors[]` lists every offending field as a JSON Pointer with its message.',
    action: 'Fix each field `errors[]` names; the whole request was refused, nothing was written.',
  },
  rate_limited: {
    means: "Your key's request rate (or the edge's per-address limit) was exceeded.",
    action: 'Wait `Retry-After` seconds, then retry with the same `Idempotency-Key`; spread steady traffic under your rate limit.',
  },
  bad_request: {
    means: 'The gateway refused the request before the service saw it (a malformed request line or headers).',
    action: 'Check the URL, its encoding and the headers; the answer carries `X-Request-Id` to quote.',
  },
  internal_error: {
    means: 'The service failed. Nothing of its cause leaves the service; the request id finds it in the logs.',
    action: 'Retry with the same `Idempotency-Key` (a failed mutation is not stored, so the retry runs it); if it persists, quote `request_id` to support.',
  },
  not_implemented: {
    means: 'The operation is part of the contract but this deployment does not offer it.',
    action: 'Do not retry; ask the platform team when it will.',
  },
  tenant_unavailable: {
    means: 'Your tenant is suspended by the platform team; `Retry-After` says when to look again.',
    action: 'Retry after `Retry-After` with the same `Idempotency-Key`; if it lasts, contact the platform team.',
  },
  gateway_timeout: {
    means: 'The operation did not answer within 10 s. A mutation may still have been applied.',
    action: 'Retry with the same `Idempotency-Key`: an applied mutation is answered from its stored result, one not applied runs.',
  },
};
