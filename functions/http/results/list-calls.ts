import * as z from 'zod/mini';
import { ExternalId } from '#shared/api/fields.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { PageQuery, pageOf } from '#shared/http/page-query.ts';
import { listCalls, REPORTS_POLICY } from '#shared/orders/call-history.ts';
import { CallAttemptSchema, ReportsPolicySchema } from '#shared/orders/order-schemas.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listOrderCalls',
  description:
    "The order's call attempts in order, with the reports policy: whether recordings or transcripts exist, how long they are kept, and how to request them.",
  params: z.object({ externalOrderId: ExternalId }),
  query: PageQuery,
  responses: { 200: { description: 'A page of attempts', schema: pageOf(CallAttemptSchema, { reports_policy: ReportsPolicySchema }) } },
});

export const handler = readHandler(contract, async ({ principal, params, query }) => ({
  status: 200,
  body: { ...(await listCalls(principal.tenant, params.externalOrderId, query)), reports_policy: REPORTS_POLICY },
}));
