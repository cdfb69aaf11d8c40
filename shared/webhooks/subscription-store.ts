import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient, tableName } from '../storage/clients.ts';
import { keys } from '../storage/keys.ts';

export interface StoredSubscription {
  url: string;
  event_types: string[];
  enabled: boolean;
}

export async function readWebhookSubscription(tenant: string): Promise<StoredSubscription | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.webhookSubscription(tenant) }));
  return Item as StoredSubscription | undefined;
}
