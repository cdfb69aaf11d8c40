/**
 * Which Amazon Connect contact is which call attempt, in the table. Before a dial, the attempt's
 * opaque reference (the one attribute a contact carries) is written: the flow's turns find the
 * attempt by it however soon the customer answers, and the customer's choice is kept on it. After
 * the dial, the contact id is written beside it:
 * - by reference (`attemptReference`): the attempt, and the dialog's decision once made;
 * - with the order (`orderContact`): the attempt's contact, found by a cancel; its one stop is claimed here;
 * - by contact id (`contact`): the attempt of a contact, found by its events;
 * - with the customer (`customerContact`): an erasure finds the customer's calls by it.
 * None holds the customer's number. The items expire after CONTACT_ITEM_DAYS; an erasure deletes them at once.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../../storage/clients.ts';
import { landed } from '../../storage/conditional.ts';
import { keys } from '../../storage/keys.ts';
import { expiresAfter } from '../../storage/ttl.ts';
import type { AttemptKey } from '../call-platform.ts';
import type { Decision } from '../dialog.ts';

/** How long a contact's items are kept: well past the longest call and any late event. */
const CONTACT_ITEM_DAYS = 7;

export interface AttemptOfReference extends AttemptKey {
  /** The opaque reference the contact's attributes carry. */
  reference: string;
  external_customer_id: string;
  /** What the customer chose in the flow, once the dialog ended with a choice. */
  decision?: Decision | undefined;
  /** Whether the customer pressed the key that reads the order (a person, not a mailbox, took the call). */
  heard?: boolean | undefined;
  /** The contact placed for it, once the dial returned. */
  contactId?: string | undefined;
}

/** The port the Connect adapter, its flow's turns and its event worker use (DynamoDB here, a map in unit tests). */
export interface ContactMap {
  /** Before the dial: the attempt by its reference. A repeat changes nothing. */
  prepare(attempt: AttemptOfReference): Promise<void>;
  /** After the dial: its contact, beside the attempt. */
  placed(attempt: AttemptOfReference & { contactId: string }): Promise<void>;
  /** The attempt a contact's reference names. */
  byReference(reference: string): Promise<AttemptOfReference | undefined>;
  /** The contact of an attempt. */
  ofAttempt(key: AttemptKey): Promise<{ contactId: string; reference: string } | undefined>;
  /** The attempt of a contact. */
  byContact(contactId: string): Promise<AttemptOfReference | undefined>;
  /** Claims the one stop of an attempt's contact: false when it was claimed before. */
  claimStop(key: AttemptKey): Promise<boolean>;
  /** Keeps the customer's choice with the attempt's reference; the first choice stands. */
  decide(reference: string, decision: Decision): Promise<void>;
  /** Keeps with the attempt's reference that the customer pressed the key that reads the order. */
  hear(reference: string): Promise<void>;
  /** The customer's calls (an erasure blanks and forgets them). */
  ofCustomer(tenant: string, external_customer_id: string): Promise<AttemptOfReference[]>;
  /** Forgets an attempt's items. */
  forget(attempt: AttemptOfReference): Promise<void>;
}

const orderContactKey = (key: AttemptKey) => keys.orderContact(keys.order(key.tenant, key.external_order_id).pk, key.attempt);
const customerContactKey = (tenant: string, customer: string, reference: string) => ({ pk: keys.customer(tenant, customer).pk, sk: `CONTACT#${reference}` });

const attemptOf = (item: Record<string, unknown>): AttemptOfReference => ({
  reference: item.reference as string,
  tenant: item.tenant as string,
  external_order_id: item.external_order_id as string,
  attempt: item.attempt as number,
  external_customer_id: item.external_customer_id as string,
  ...(item.decision ? { decision: item.decision as Decision } : {}),
  ...(item.heard ? { heard: true } : {}),
  ...(item.contact_id ? { contactId: item.contact_id as string } : {}),
});

const fieldsOf = (a: AttemptOfReference) => ({
  reference: a.reference,
  tenant: a.tenant,
  external_order_id: a.external_order_id,
  attempt: a.attempt,
  external_customer_id: a.external_customer_id,
  expires_at: expiresAfter(new Date(), CONTACT_ITEM_DAYS * 86_400),
});

const put = (Item: Record<string, unknown>) => tableClient().send(new PutCommand({ TableName: tableName(), Item }));
const get = async (Key: { pk: string; sk: string }) => (await tableClient().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;

export const dynamoContactMap: ContactMap = {
  async prepare(attempt) {
    // An update, not a put: a repeat of the same attempt's preparation keeps a decision already made.
    const fields = fieldsOf(attempt);
    await Promise.all([
      tableClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.callReference(attempt.reference),
          UpdateExpression: `SET ${Object.keys(fields)
            .map((name) => `#${name} = :${name}`)
            .join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(Object.keys(fields).map((name) => [`#${name}`, name])),
          ExpressionAttributeValues: Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value])),
        }),
      ),
      put({ ...customerContactKey(attempt.tenant, attempt.external_customer_id, attempt.reference), ...fields }),
    ]);
  },
  async placed(attempt) {
    const fields = { ...fieldsOf(attempt), contact_id: attempt.contactId };
    await Promise.all([
      put({ ...orderContactKey(attempt), ...fields }),
      put({ ...keys.contact(attempt.contactId), ...fields }),
      put({ ...customerContactKey(attempt.tenant, attempt.external_customer_id, attempt.reference), ...fields }),
    ]);
  },
  async byReference(reference) {
    const item = await get(keys.callReference(reference));
    return item ? attemptOf(item) : undefined;
  },
  async ofAttempt(key) {
    const item = await get(orderContactKey(key));
    return item ? { contactId: item.contact_id as string, reference: item.reference as string } : undefined;
  },
  async byContact(contactId) {
    const item = await get(keys.contact(contactId));
    return item ? attemptOf(item) : undefined;
  },
  claimStop: (key) =>
    landed({
      update: {
        TableName: tableName(),
        Key: orderContactKey(key),
        UpdateExpression: 'SET stop_sent = :true',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(stop_sent)',
        ExpressionAttributeValues: { ':true': true },
      },
    }),
  async decide(reference, decision) {
    await landed({
      update: {
        TableName: tableName(),
        Key: keys.callReference(reference),
        UpdateExpression: 'SET decision = :decision',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(decision)',
        ExpressionAttributeValues: { ':decision': decision },
      },
    });
  },
  async hear(reference) {
    // Idempotent as it is (it sets what a repeat sets), so no condition but that the attempt is known.
    await landed({
      update: {
        TableName: tableName(),
        Key: keys.callReference(reference),
        UpdateExpression: 'SET heard = :true',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true },
      },
    });
  },
  async ofCustomer(tenant, customer) {
    const found: AttemptOfReference[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :contact)',
          ExpressionAttributeValues: { ':pk': keys.customer(tenant, customer).pk, ':contact': 'CONTACT#' },
          ExclusiveStartKey,
        }),
      );
      found.push(...(page.Items ?? []).map(attemptOf));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return found;
  },
  async forget(attempt) {
    const items = [
      orderContactKey(attempt),
      keys.callReference(attempt.reference),
      customerContactKey(attempt.tenant, attempt.external_customer_id, attempt.reference),
    ];
    if (attempt.contactId) items.push(keys.contact(attempt.contactId));
    await Promise.all(items.map((Key) => tableClient().send(new DeleteCommand({ TableName: tableName(), Key }))));
  },
};
