import * as z from 'zod';
import { PROBLEM_CODES, type ProblemCode } from './problem.ts';

const codes = Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]];

/** The problem document of contract-decisions section 4, as the OpenAPI contract states it. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('A stable URI reference per code: urn:commerce-interface:problem:{code}'),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    code: z.enum(codes),
    detail: z.string(),
    instance: z.string().describe('The request path'),
    request_id: z.string().describe('Also in the X-Request-Id header; quote it to support'),
    errors: z
      .array(z.object({ pointer: z.string().describe('JSON Pointer into the body, or query:/header:/path: prefixed name'), message: z.string() }))
      .optional()
      .describe('validation_failed only: the offending fields, at most 100'),
    errors_total: z.number().int().optional().describe('validation_failed only, when errors[] was cut: how many offending fields there were'),
    reason: z.enum(['payload_mismatch', 'in_progress']).optional().describe('idempotency_key_reused only'),
    current_source_version: z.string().optional().describe('stale_source_version only'),
    required_scope: z.string().optional().describe('insufficient_scope only'),
    processing_state: z.string().optional().describe('resource_not_found of an order result only: the state the order is in'),
    result_expected: z
      .boolean()
      .optional()
      .describe('resource_not_found of an order result only: true while the order may still complete, false when it ended without a result'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem document (application/problem+json)' });
