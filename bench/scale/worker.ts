/**
 * The `scale` suite's measurement, in a process of its own with its own in-memory DynamoDB
 * Local (no pollers: nothing reacts to the seeded items), so its clients and configuration
 * never meet another suite's. Prints one JSON document: per tenant size, per list request,
 * latency percentiles and read units per page; and per reaction, the units of its whole walk.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { freePort, spawnDynamoDbLocal, stopProcess } from '#local/processes.ts';
import { ensureTable } from '#local/resources.ts';
import { LOCAL_REGION, LOCAL_TABLE, waitForDynamo } from '#local/stack.ts';
import type { Measured } from './measure.ts';

export const SIZES: readonly number[] = process.env.SCALE_SIZES ? process.env.SCALE_SIZES.split(',').map(Number) : [1_000, 10_000, 50_000];
const SAMPLES = Number(process.env.SCALE_SAMPLES ?? 200);
const PAGE = 50;

const port = await freePort();
const dynamo = spawnDynamoDbLocal(port, undefined);
try {
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForDynamo(endpoint, () => dynamo.exitCode !== null);
  const admin = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await ensureTable(admin, LOCAL_TABLE);
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: LOCAL_REGION,
    TABLE_NAME: LOCAL_TABLE,
    DYNAMODB_ENDPOINT: endpoint,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  // Loaded only now: the service's clients read the configuration above when first built, and are metered.
  (await import('#local/metering/capacity-meter.ts')).meterEveryTableClient();
  const { measureSizes } = await import('./measure.ts');
  const results: Measured[] = await measureSizes(SIZES, SAMPLES, PAGE);
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  await stopProcess(dynamo);
}
