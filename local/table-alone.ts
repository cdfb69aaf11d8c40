/**
 * An in-memory DynamoDB Local holding the service's table and nothing else (no pollers, no
 * gateway): for measurements whose seeded items nothing may react to. It points this
 * process's clients at it, so import the service's storage modules only after it started
 * (they read the configuration when first built).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { freePort, spawnDynamoDbLocal, stopProcess } from './processes.ts';
import { ensureTable } from './resources.ts';
import { LOCAL_REGION, LOCAL_TABLE, waitForDynamo } from './stack.ts';

export async function startTableAlone(): Promise<{ stop(): Promise<void> }> {
  const port = await freePort();
  const dynamo = spawnDynamoDbLocal(port, undefined);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitForDynamo(endpoint, () => dynamo.exitCode !== null);
    await ensureTable(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }), LOCAL_TABLE);
  } catch (error) {
    await stopProcess(dynamo);
    throw error;
  }
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: LOCAL_REGION,
    TABLE_NAME: LOCAL_TABLE,
    DYNAMODB_ENDPOINT: endpoint,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  return { stop: () => stopProcess(dynamo) };
}
