/**
 * The signing secret of a tenant's write-back endpoint: made and rotated by the platform team
 * (`npm run admin -- writeback rotate-secret`), shown once, and kept beside the tenant's
 * configuration. A rotation keeps the previous secret valid for WRITEBACK_SECRET_OVERLAP_HOURS,
 * during which every write-back is signed with both (as webhooks are), so the store can move to
 * the new one without refusing a request.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { activeSecrets, newSigningSecret, type RotatedSecret } from '../auth/signing-secrets.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';

export const WRITEBACK_SECRET_OVERLAP_HOURS = 24;

const read = async (tenant: string): Promise<RotatedSecret | undefined> =>
  (await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.writebackSecret(tenant), ConsistentRead: true }))).Item as
    | RotatedSecret
    | undefined;

/** Makes the tenant's first secret or a new one, the old one valid for the overlap; the new secret is returned once and shown once. */
export async function rotateWritebackSecret(tenant: string, now = new Date()): Promise<{ secret: string; previous_valid_until: string | null }> {
  const existing = await read(tenant);
  // The webhooks' form, so a Standard Webhooks library verifies a write-back as it verifies a webhook.
  const secret = newSigningSecret();
  const previous_valid_until = existing ? new Date(now.getTime() + WRITEBACK_SECRET_OVERLAP_HOURS * 3_600_000).toISOString() : null;
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.writebackSecret(tenant),
        entity: 'writeback_secret',
        secret,
        ...(existing ? { previous_secret: existing.secret, previous_secret_expires_at: previous_valid_until } : {}),
        rotated_at: now.toISOString(),
      },
    }),
  );
  return { secret, previous_valid_until };
}

/** The secrets a write-back is signed with now; undefined while the tenant has none. */
export async function writebackSecrets(tenant: string, now = new Date()): Promise<{ current: string; previous?: string } | undefined> {
  const stored = await read(tenant);
  return stored && activeSecrets(stored, now);
}
