import { startLocalStack } from '../local/stack.ts';
const stack = await startLocalStack({});
const { upsertProductBatch } = await import('../shared/catalog/product-store.ts');
const { tableClient, tableName } = await import('../shared/storage/clients.ts');
const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
const { mapWithConcurrency } = await import('../shared/support/concurrency.ts');
const variant = (id: string, price = '1', currency = 'EUR') => ({ external_variant_id: id, price, currency });
const mk = (tag: string) => Array.from({ length: 500 }, (_, p) => ({ external_product_id: `${tag}${p}`, title: 'x', source_version: '1', variants: Array.from({ length: 62 }, (_, v) => variant(`p${p}v${v}`, `${v}.5`)) }));
for (let r = 0; r < 2; r++) {
  let t = performance.now();
  await upsertProductBatch('bench', mk(`r${r}-`), new Date());
  console.log('batch', (performance.now() - t).toFixed(0));
  t = performance.now();
  await mapWithConcurrency(mk(`raw${r}-`), 24, (p) => tableClient().send(new PutCommand({ TableName: tableName(), Item: { pk: `raw#${p.external_product_id}`, sk: 'P', ...p }, ConditionExpression: 'attribute_not_exists(pk)' })));
  console.log('raw', (performance.now() - t).toFixed(0));
}
await stack.stop();
