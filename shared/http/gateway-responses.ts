/**
 * API Gateway's own answers (unknown route, throttling, timeouts, oversized requests) as
 * problem+json: the CDK app installs these as gateway responses and the local gateway
 * renders them the same way, so a partner sees one error format everywhere.
 */
import { PROBLEM_CODES, type ProblemCode, problemDocUrl, problemType } from './problem.ts';

export interface GatewayProblem {
  /** API Gateway's ResponseType. */
  responseType: string;
  code: ProblemCode;
  detail: string;
  /** Every 429, and a timeout, tells when to retry, the gateway's own included. */
  retryAfterSeconds?: number;
}

export const GATEWAY_PROBLEMS: readonly GatewayProblem[] = [
  // REST APIs answer an unknown path with "missing authentication token"; partners see a 404.
  { responseType: 'MISSING_AUTHENTICATION_TOKEN', code: 'resource_not_found', detail: 'No such route.' },
  { responseType: 'RESOURCE_NOT_FOUND', code: 'resource_not_found', detail: 'No such route.' },
  { responseType: 'REQUEST_TOO_LARGE', code: 'payload_too_large', detail: 'The request exceeds the size limit; split large imports.' },
  { responseType: 'UNSUPPORTED_MEDIA_TYPE', code: 'unsupported_media_type', detail: 'Use Content-Type: application/json.' },
  { responseType: 'THROTTLED', code: 'rate_limited', detail: 'Request rate exceeded; retry with exponential backoff.', retryAfterSeconds: 1 },
  // The WAF blocks only by rate (its rules answer through this response, with a request id).
  { responseType: 'WAF_FILTERED', code: 'rate_limited', detail: 'Request rate exceeded at the edge; retry after Retry-After.', retryAfterSeconds: 60 },
  { responseType: 'QUOTA_EXCEEDED', code: 'rate_limited', detail: 'Request quota exceeded; retry with exponential backoff.', retryAfterSeconds: 60 },
  {
    responseType: 'INTEGRATION_TIMEOUT',
    code: 'gateway_timeout',
    detail: 'The request did not finish within 10 s. Retry mutations with the same Idempotency-Key.',
    retryAfterSeconds: 1,
  },
  { responseType: 'DEFAULT_4XX', code: 'bad_request', detail: 'The gateway rejected the request.' },
  { responseType: 'DEFAULT_5XX', code: 'internal_error', detail: 'An unexpected error occurred.' },
];

export const gatewayProblem = (responseType: string): GatewayProblem =>
  GATEWAY_PROBLEMS.find((p) => p.responseType === responseType) ?? GATEWAY_PROBLEMS.at(-1)!;

export const gatewayStatus = (problem: GatewayProblem): number => PROBLEM_CODES[problem.code].status;

/** The problem body; on AWS `requestId` and `path` are API Gateway template variables. */
export function gatewayProblemBody(problem: GatewayProblem, requestId: string, path: string, referenceUrl?: string): string {
  const { status, title } = PROBLEM_CODES[problem.code];
  return JSON.stringify({
    type: problemType(problem.code),
    title,
    status,
    code: problem.code,
    detail: problem.detail,
    instance: path,
    request_id: requestId,
    ...(referenceUrl ? { doc_url: problemDocUrl(problem.code, referenceUrl) } : {}),
  });
}
