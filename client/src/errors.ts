/** The one error the client raises: what the service answered (or why nothing came back). */
import type { components } from './schema.ts';

export type Problem = components['schemas']['Problem'];

/** Every code the error can carry: the contract's problem codes, and the client's own for no answer. */
export type ErrorCode = Problem['code'] | 'network_error' | 'timeout' | `http_${number}`;

export class CommerceApiError extends Error {
  override readonly name = 'CommerceApiError';
  /** HTTP status; 0 when no answer came back (network error or time-out). */
  readonly status: number;
  /** The problem's `code` (`validation_failed`, `resource_not_found`, …), `network_error` / `timeout`, or `http_<status>` for an answer with no problem document. */
  readonly code: ErrorCode;
  /** JSON Pointers to the offending fields, with their messages (422). */
  readonly errors: { pointer: string; message: string }[];
  /** Quote it to support: the X-Request-Id of the last attempt. */
  readonly requestId: string | undefined;
  /** The code's entry in the API reference (what it means, what to do), where the service links one. */
  readonly docUrl: string | undefined;
  readonly problem: Problem | undefined;

  constructor(init: { status: number; code: ErrorCode; message: string; requestId?: string | undefined; problem?: Problem; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.problem = init.problem;
    this.docUrl = init.problem?.doc_url;
    this.errors = init.problem?.errors ?? [];
  }

  static fromProblem(status: number, problem: Problem | undefined, requestId: string | undefined): CommerceApiError {
    const code: ErrorCode = problem?.code ?? `http_${status}`;
    // The first field that failed, in the message itself: what a log line or a stack trace shows.
    const first = problem?.errors?.[0];
    const field = first
      ? ` (${first.pointer || '/'}: ${first.message}${problem!.errors!.length > 1 ? `; ${problem!.errors!.length - 1} more in .errors` : ''})`
      : '';
    return new CommerceApiError({
      status,
      code,
      message: `${status} ${code}: ${problem?.detail ?? problem?.title ?? 'no problem details'}${field}`,
      requestId,
      ...(problem ? { problem } : {}),
    });
  }
}
