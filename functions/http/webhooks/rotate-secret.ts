import * as z from 'zod/mini';
import { defineOperation } from '#shared/http/operation.ts';
import { rotateSecret } from '#shared/webhooks/subscription-store.ts';
import { RotateResultSchema, RotateSchema } from '#shared/webhooks/webhook-schemas.ts';
import { mutationHandler } from '../mutation-handler.ts';

export const contract = defineOperation({
  operationId: 'rotateWebhookSecret',
  description:
    'A new signing secret, shown this once. The previous one stays valid for `previous_secret_expires_in` seconds (default 86400, 0 ends it at once); ' +
    'during the overlap every delivery carries both signatures. Rotating again during an overlap ends the older secret at once. Body optional.',
  body: z.optional(RotateSchema),
  responses: { 200: { description: 'The new secret', schema: RotateResultSchema } },
});

export const handler = mutationHandler(contract, async ({ principal, body, now, idempotencyKey }) => {
  const rotated = await rotateSecret(principal.tenant, body?.previous_secret_expires_in ?? 86_400, now, idempotencyKey);
  const { secret: _shownOnce, ...rest } = rotated;
  return { status: 200, body: rotated, headers: { 'Cache-Control': 'no-store' }, replayBody: { ...rest, secret_already_shown: true } };
});
