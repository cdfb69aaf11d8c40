/** Customer reads and writes on the single table, including the GDPR erasure. */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { REPLAY_WINDOW_SECONDS } from '../api/limits.ts';
import type { Principal } from '../auth/authenticate.ts';
import { InvalidTransitionError, NotFoundError, RevisionConflict, ValidationError } from '../errors.ts';
import { jobItem } from '../jobs/reaction-jobs.ts';
import { tableClient, tableName } from '../storage/clients.ts';
import { conditionFailedAt } from '../storage/conditional.ts';
import { keys } from '../storage/keys.ts';
import { retryOnRevisionConflict } from '../storage/revision-retry.ts';
import { versionedWrite } from '../storage/versioned-write.ts';
import { versionAttributes } from '../versioning/version-attributes.ts';
import type { CustomerInput } from './customer-schemas.ts';
import { customerAttributes, customerFromItem, type StoredCustomer } from './customers.ts';

const anonymizedError = (id: string) => new InvalidTransitionError(`Customer ${id} was anonymized; personal data is not stored for this id again.`);

export async function upsertCustomer(tenant: string, id: string, input: CustomerInput, now: Date) {
  const collectedAt = input.consent.proof?.collected_at;
  // A proof collected "now" by a partner whose clock runs ahead is accepted as far as a signed request would be.
  if (collectedAt && Date.parse(collectedAt) > now.getTime() + REPLAY_WINDOW_SECONDS * 1000) {
    throw new ValidationError([{ pointer: '/consent/proof/collected_at', message: 'must not be in the future' }]);
  }
  const written = await versionedWrite<StoredCustomer>(
    keys.customer(tenant, id),
    customerAttributes(id, input, now),
    versionAttributes(input.source_version, input),
    {
      createdAt: now.toISOString(),
      also: { ConditionExpression: 'attribute_not_exists(anonymized_at)', ExpressionAttributeNames: {}, ExpressionAttributeValues: {} },
    },
  );
  if (written.outcome === 'refused') throw anonymizedError(id);
  if (written.outcome === 'unchanged' && written.previous.anonymized_at) throw anonymizedError(id);
  return written.outcome;
}

export async function readCustomer(tenant: string, id: string, consistent = false): Promise<StoredCustomer | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.customer(tenant, id), ConsistentRead: consistent }));
  return Item ? customerFromItem(Item) : undefined;
}

/**
 * Erases the customer's phone number, the consent proof reference and the content hash
 * (which would let a phone number be confirmed by guessing) in one transaction with an
 * audit record of who erased it and the job that scrubs the customer's orders and call
 * attempts. Later calls answer the first erasure's time.
 */
export async function anonymizeCustomer(tenant: string, id: string, principal: Principal, requestId: string, now: Date): Promise<string> {
  return retryOnRevisionConflict(async () => {
    const stored = await readCustomer(tenant, id, true);
    if (!stored) throw new NotFoundError(`No customer ${id}.`);
    if (stored.anonymized_at) return stored.anonymized_at;
    return eraseCustomer(tenant, id, stored.consent.proof !== undefined, principal, requestId, now);
  });
}

/**
 * The erasure itself. DynamoDB refuses to remove a path whose parent is missing, so the proof
 * reference is removed only from a customer that has a proof (a withdrawn consent may have
 * none); the condition holds the shape read, and a customer changed meanwhile is read again.
 */
async function eraseCustomer(tenant: string, id: string, hasProof: boolean, principal: Principal, requestId: string, now: Date): Promise<string> {
  const at = now.toISOString();
  const customerKey = keys.customer(tenant, id);
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: customerKey,
              UpdateExpression: `SET anonymized_at = :at, updated_at = :at REMOVE phone, content_sha256${hasProof ? ', consent.proof.#reference' : ''}`,
              ...(hasProof ? { ExpressionAttributeNames: { '#reference': 'reference' } } : {}),
              ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(anonymized_at) AND ${hasProof ? 'attribute_exists' : 'attribute_not_exists'}(consent.proof)`,
              ExpressionAttributeValues: { ':at': at },
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.customerAudit(tenant, id, at),
                entity: 'audit',
                action: 'customer.anonymized',
                at,
                key_id: principal.keyId,
                request_id: requestId,
              },
            },
          },
          { Put: { TableName: tableName(), Item: jobItem('scrub-customer-orders', tenant, id, now) } },
        ],
      }),
    );
    return at;
  } catch (error) {
    if (conditionFailedAt(error, 0)) throw new RevisionConflict(`customer ${id} changed`);
    throw error;
  }
}
