/**
 * Which Amazon Connect contact is which call attempt, in the table: three small items per dial.
 * - with the order (`orderContact`): the attempt's contact, found by a cancel; its one stop is claimed here;
 * - by contact id (`contact`): the attempt of a contact, found by its events and its flow's
 *   turns; the dialog's decision is kept here until the attempt is recorded;
 * - with the customer (`customerContact`): an erasure finds the customer's contacts by it.
 * None holds the customer's number: the contact's attributes carry only an opaque reference.
 * The items expire with the attempts' usefulness (CONTACT_ITEM_DAYS); an erasure deletes them at once.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../../storage/clients.ts';
import { landed } from '../../storage/conditional.ts';
import { keys } from '../../storage/keys.ts';
import { expiresAfter } from '../../storage/ttl.ts';
import type { AttemptKey } from '../call-platform.ts';
import type { Decision } from '../dialog.ts';

/** How long a contact's items are kept: well past the longest call and any late event. */
const CONTACT_ITEM_DAYS = 7;

export interface ContactOfAttempt extends AttemptKey {
  contactId: string;
  /** The opaque reference the contact's attributes carry. */
  reference: string;
  external_customer_id: string;
  /** What the customer chose in the flow, once the dialog ended with a choice. */
  decision?: Decision | undefined;
}

/** The port the Connect adapter, its flow's turns and its event worker use (DynamoDB here, a map in unit tests). */
export interface ContactMap {
  /** Records a dial's contact; a repeat of the same attempt's record changes nothing. */
  put(contact: ContactOfAttempt): Promise<void>;
  /** The contact of an attempt. */
  ofAttempt(key: AttemptKey): Promise<{ contactId: string } | undefined>;
  /** The attempt of a contact. */
  byContact(contactId: string): Promise<ContactOfAttempt | undefined>;
  /** Claims the one stop of an attempt's contact: false when it was claimed before. */
  claimStop(key: AttemptKey): Promise<boolean>;
  /** Keeps the customer's choice with the contact; the first choice stands. */
  decide(contactId: string, decision: Decision): Promise<void>;
  /** The customer's contacts (an erasure blanks and forgets them). */
  ofCustomer(tenant: string, external_customer_id: string): Promise<ContactOfAttempt[]>;
  /** Forgets a contact's items. */
  forget(contact: ContactOfAttempt): Promise<void>;
}

const orderContactKey = (key: AttemptKey) => keys.orderContact(keys.order(key.tenant, key.external_order_id).pk, key.attempt);
const customerContactKey = (tenant: string, customer: string, contactId: string) => ({
  pk: keys.customer(tenant, customer).pk,
  sk: `CONTACT#${contactId}`,
});

const contactOf = (item: Record<string, unknown>): ContactOfAttempt => ({
  contactId: item.contact_id as string,
  reference: item.reference as string,
  tenant: item.tenant as string,
  external_order_id: item.external_order_id as string,
  attempt: item.attempt as number,
  external_customer_id: item.external_customer_id as string,
  ...(item.decision ? { decision: item.decision as Decision } : {}),
});

export const dynamoContactMap: ContactMap = {
  async put(contact) {
    const expires_at = expiresAfter(new Date(), CONTACT_ITEM_DAYS * 86_400);
    const fields = {
      contact_id: contact.contactId,
      reference: contact.reference,
      tenant: contact.tenant,
      external_order_id: contact.external_order_id,
      attempt: contact.attempt,
      external_customer_id: contact.external_customer_id,
      expires_at,
    };
    // Plain puts of the same values: a repeat writes what is there (the decision is written later, after the dial).
    await Promise.all([
      tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...orderContactKey(contact), ...fields } })),
      tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...keys.contact(contact.contactId), ...fields } })),
      tableClient().send(
        new PutCommand({ TableName: tableName(), Item: { ...customerContactKey(contact.tenant, contact.external_customer_id, contact.contactId), ...fields } }),
      ),
    ]);
  },
  async ofAttempt(key) {
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: orderContactKey(key), ConsistentRead: true }));
    return Item ? { contactId: Item.contact_id as string } : undefined;
  },
  async byContact(contactId) {
    const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.contact(contactId), ConsistentRead: true }));
    return Item ? contactOf(Item) : undefined;
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
  async decide(contactId, decision) {
    await landed({
      update: {
        TableName: tableName(),
        Key: keys.contact(contactId),
        UpdateExpression: 'SET decision = :decision',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(decision)',
        ExpressionAttributeValues: { ':decision': decision },
      },
    });
  },
  async ofCustomer(tenant, customer) {
    const found: ContactOfAttempt[] = [];
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
      found.push(...(page.Items ?? []).map(contactOf));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return found;
  },
  async forget(contact) {
    await Promise.all(
      [orderContactKey(contact), keys.contact(contact.contactId), customerContactKey(contact.tenant, contact.external_customer_id, contact.contactId)].map(
        (Key) => tableClient().send(new DeleteCommand({ TableName: tableName(), Key })),
      ),
    );
  },
};
