import * as z from 'zod/mini';
import { integer, meta } from '../api/zod.ts';
import { PROBLEM_CODES, type ProblemCode } from './problem.ts';

const codes = Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]];

/** The problem document of contract-decisions section 4, as the OpenAPI contract states it. */
export const ProblemSchema = meta(
  z.object({
    type: meta(z.string(), { description: 'A stable URI reference per code: urn:commerce-interface:problem:{code}' }),
    title: z.string(),
    status: integer(400, 599),
    code: z.enum(codes),
    detail: z.string(),
    instance: meta(z.string(), { description: 'The request path' }),
    request_id: meta(z.string(), { description: 'Also in the X-Request-Id header; quote it to support' }),
    doc_url: meta(z.optional(z.string()), {
      description:
        "The code's entry on the API reference page (its Problems section): what it means and what to do. Present where the deployment names its reference page, always on the local runtime",
    }),
    errors: meta(
      z.optional(
        z.array(
          z.object({ pointer: meta(z.string(), { description: 'JSON Pointer into the body, or query:/header:/path: prefixed name' }), message: z.string() }),
        ),
      ),
      { description: 'validation_failed only: the offending fields, at most 100' },
    ),
    errors_total: meta(z.optional(integer()), { description: 'validation_failed only, when errors[] was cut: how many offending fields there were' }),
    reason: meta(z.optional(z.enum(['payload_mismatch', 'in_progress'])), { description: 'idempotency_key_reused only' }),
    current_source_version: meta(z.optional(z.string()), { description: 'stale_source_version only' }),
    required_scope: meta(z.optional(z.string()), { description: 'insufficient_scope only' }),
    processing_state: meta(z.optional(z.string()), { description: 'resource_not_found of an order result only: the state the order is in' }),
    result_expected: meta(z.optional(z.boolean()), {
      description: 'resource_not_found of an order result only: true while the order may still complete, false when it ended without a result',
    }),
  }),
  { id: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' },
);
