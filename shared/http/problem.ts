/**
 * The one problem+json renderer (RFC 9457, contract-decisions section 4). Unknown errors
 * become a generic 500 carrying only the request id; their details go to the log.
 */
import { PROBLEM_CODES, type ProblemCode, ProblemError } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  instance: string;
  request_id: string;
  [extension: string]: unknown;
}

export const problemType = (code: ProblemCode) => `urn:commerce-interface:problem:${code}`;

export interface RenderedProblem {
  status: number;
  headers: Record<string, string>;
  body: ProblemDocument;
}

export function renderProblem(error: unknown, instance: string, requestId: string): RenderedProblem {
  const known = error instanceof ProblemError;
  const code: ProblemCode = known ? error.code : 'internal_error';
  const { status, title } = PROBLEM_CODES[code];
  const detail = known ? error.message : 'An unexpected error occurred. Quote the request_id when contacting support.';
  return {
    status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...(known ? error.headers : {}) },
    body: {
      type: problemType(code),
      title,
      status,
      code,
      detail,
      instance,
      request_id: requestId,
      ...(known ? error.extensions : {}),
    },
  };
}
