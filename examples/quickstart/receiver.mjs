// A webhook receiver: verifies every delivery over its raw bytes with the client's
// constructEvent, answers 204 at once, and prints the event. Answer 400 to what fails.
//   WEBHOOK_SECRET=whsec_… node examples/quickstart/receiver.mjs   (PORT, default 4000)
import { createServer } from 'node:http';
import { constructEvent, WebhookSignatureError } from '@commerce-interface/client';

const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
if (secrets.length === 0) throw new Error('set WEBHOOK_SECRET (comma-separated during a rotation)');
const seen = new Set();

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = constructEvent(Buffer.concat(chunks), req.headers, secrets);
      res.writeHead(204).end();
      if (seen.has(event.event_id)) return; // at least once: deduplicate by event_id
      seen.add(event.event_id);
      const detail = event.event_type === 'commerce.order.status_changed.v1' ? ` → ${event.data.processing_state}` : '';
      console.log(`verified ${event.event_type} ${event.event_id} order ${event.external_order_id}${detail}`);
    } catch (error) {
      res.writeHead(400).end();
      console.log(`rejected: ${error instanceof WebhookSignatureError ? error.reason : 'unreadable body'}`);
    }
  });
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => console.log(`receiving on http://127.0.0.1:${process.env.PORT ?? 4000}/hooks`));
