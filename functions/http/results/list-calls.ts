import * as z from 'zod/mini';
import { tenantConfigOf } from '#functions/tenant-configs.ts';
import { ExternalId } from '#shared/api/fields.ts';
import { CallHistoryAttemptSchema, ReportsPolicySchema } from '#shared/calls/call-schemas.ts';
import { defineOperation } from '#shared/http/operation.ts';
import { PageQuery, pageOf } from '#shared/http/page-query.ts';
import { listCalls, reportsPolicy } from '#shared/orders/call-history.ts';
import { readHandler } from '../handler.ts';

export const contract = defineOperation({
  operationId: 'listOrderCalls',
  description:
    "The order's call attempts in order, with the reports policy: whether recordings or transcripts exist, how long they are kept, and how to request them. " +
    "A sandbox tenant's attempts carry the transcript of the simulated conversation (an extension): what the customer heard and pressed.",
  params: z.object({ externalOrderId: ExternalId }),
  query: PageQuery,
  responses: { 200: { description: 'A page of attempts', schema: pageOf(CallHistoryAttemptSchema, { reports_policy: ReportsPolicySchema }) } },
});

export const handler = readHandler(contract, async ({ principal, params, query }) => {
  const [page, config] = await Promise.all([listCalls(principal.tenant, params.externalOrderId, query), tenantConfigOf(principal.tenant)]);
  return { status: 200, body: { ...page, reports_policy: reportsPolicy(config.mode) } };
});
