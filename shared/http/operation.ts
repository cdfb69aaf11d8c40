/**
 * An operation's contract: the zod schemas its handler validates with and the OpenAPI
 * generator documents. One source of truth for types, validation and the contract.
 */
import type { z } from 'zod';
import type { Principal } from '../auth/authenticate.ts';

export interface ResponseContract {
  description: string;
  schema?: z.ZodType;
}

export interface OperationContract<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  operationId: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Success responses by status; the common problem responses are added by the generator. */
  responses: Record<number, ResponseContract>;
  /** Problem codes this operation answers beyond the common ones of spec section 7. */
  problems?: readonly string[];
}

export const defineOperation = <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  contract: OperationContract<P, Q, B>,
) => contract;

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface OperationInput<C extends OperationContract> {
  params: Out<C['params']>;
  query: Out<C['query']>;
  body: Out<C['body']>;
  principal: Principal;
  requestId: string;
  correlationId: string;
  now: Date;
}

export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
