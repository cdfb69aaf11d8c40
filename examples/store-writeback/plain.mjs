// The write-back protocol in a few lines: verify, answer 409 to a key seen before, apply, 200.
//   WRITEBACK_SECRET=whsec_… node examples/store-writeback/plain.mjs   (PORT, default 4100)
import { createServer } from 'node:http';
import { verifyWebhook } from '@commerce-interface/client';

const secrets = (process.env.WRITEBACK_SECRET ?? '').split(',').filter(Boolean);
const applied = new Set(); // a real store keeps these with its orders

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!verifyWebhook(req.headers, body, secrets).valid) return res.writeHead(401).end();
    const key = req.headers['idempotency-key'];
    if (applied.has(key)) return res.writeHead(409).end();
    const result = JSON.parse(body.toString('utf8'));
    console.log(`order ${result.external_order_id}: ${result.business_outcome}, total ${result.final_order_snapshot.total}`);
    applied.add(key);
    res.writeHead(200).end();
  });
}).listen(Number(process.env.PORT ?? 4100), () => console.log(`write-back receiver on :${process.env.PORT ?? 4100}`));
