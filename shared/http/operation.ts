/**
 * An operation's contract: the zod schemas its handler validates with and the OpenAPI
 * generator documents. One source of truth for types, validation and the contract.
 */
import type * as z from 'zod/mini';
import type { Schema } from '../api/zod.ts';
import type { Principal } from '../auth/authenticate.ts';

export interface ResponseContract {
  description: string;
  schema?: Schema;
}

export interface OperationContract<P extends Schema = Schema, Q extends Schema = Schema, B extends Schema = Schema, E extends Schema = Schema> {
  operationId: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * What the pipeline validates instead of `body` when the handler validates the items of a
   * batch one by one (so one bad item never fails the batch); `body` is still what the
   * contract documents.
   */
  bodyEnvelope?: E;
  /** Success responses by status; the common problem responses are added by the generator. */
  responses: Record<number, ResponseContract>;
  /** Problem codes this operation answers beyond the common ones of spec section 7. */
  problems?: readonly string[];
}

export const defineOperation = <P extends Schema, Q extends Schema, B extends Schema, E extends Schema = never>(contract: OperationContract<P, Q, B, E>) =>
  contract;

type Out<T> = [Exclude<T, undefined>] extends [never] ? undefined : z.output<Exclude<T, undefined>>;

export interface OperationInput<C extends OperationContract> {
  params: Out<C['params']>;
  query: Out<C['query']>;
  body: [Exclude<C['bodyEnvelope'], undefined>] extends [never] ? Out<C['body']> : Out<C['bodyEnvelope']>;
  principal: Principal;
  requestId: string;
  correlationId: string;
  /** A mutation's Idempotency-Key: a run that may repeat one whose answer was never kept recognises its own work by it. */
  idempotencyKey: string | undefined;
  now: Date;
}

export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * What a replay of this mutation (same Idempotency-Key) answers instead of `body`, when the
   * body holds something shown once (a webhook secret): the idempotency record keeps this.
   */
  replayBody?: unknown;
}
