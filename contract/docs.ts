/**
 * The API reference page: one self-contained HTML file rendered from the committed contract
 * (operations with their examples and code samples, webhook events with an example payload
 * and how to verify one, schemas), its styles and its one script (search) inline, so it
 * opens from a file, from `npm start` at /docs, or from any static host, with no network.
 * `npm run docs [-- --out FILE]` writes it (default dist/api-reference.html).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SAMPLE_VALUES } from './samples.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read back from JSON; its shape is the OpenAPI specification's
type Schema = Record<string, any>;
type Doc = Schema;

/** The committed contract. */
export const OPENAPI_FILE = join(import.meta.dirname, 'openapi.json');

const html = (text: unknown) => String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const inline = (text: string) =>
  html(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** The little Markdown the contract's descriptions use: headings, lists, tables, paragraphs, inline code. */
export function markdown(text: string): string {
  const blocks: string[] = [];
  let list: string[] = [];
  let table: string[][] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push(`<p>${inline(paragraph.join(' '))}</p>`);
    if (list.length) blocks.push(`<ul>${list.map((item) => `<li>${inline(item)}</li>`).join('')}</ul>`);
    if (table.length) {
      const [head, ...rows] = table.filter((row) => !row.every((cell) => /^-+$/.test(cell)));
      blocks.push(
        `<table><tr>${(head ?? []).map((c) => `<th>${inline(c)}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</table>`,
      );
    }
    paragraph = [];
    list = [];
    table = [];
  };
  for (const line of text.split('\n')) {
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      blocks.push(`<h${heading[1]!.length + 2}>${inline(heading[2]!)}</h${heading[1]!.length + 2}>`);
    } else if (/^\s*-\s+/.test(line)) {
      if (paragraph.length || table.length) flush();
      list.push(line.replace(/^\s*-\s+/, ''));
    } else if (line.startsWith('|')) {
      if (paragraph.length || list.length) flush();
      table.push(
        line
          .slice(1, line.endsWith('|') ? -1 : undefined)
          .split('|')
          .map((c) => c.trim()),
      );
    } else if (line.trim() === '') flush();
    else if (list.length) list[list.length - 1] += ` ${line.trim()}`;
    else paragraph.push(line.trim());
  }
  flush();
  return blocks.join('\n');
}

const refName = (ref: string) => ref.split('/').at(-1)!;
const schemaLink = (ref: string) => `<a href="#schema-${html(refName(ref))}">${html(refName(ref))}</a>`;

function typeOf(s: Schema | undefined): string {
  if (!s) return 'any';
  if (s.$ref) return schemaLink(s.$ref);
  if (s.const !== undefined) return `<code>${html(JSON.stringify(s.const))}</code>`;
  if (s.enum) return s.enum.map((v: unknown) => `<code>${html(JSON.stringify(v))}</code>`).join(' | ');
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items)}[]`;
  const types = Array.isArray(s.type) ? s.type : [s.type ?? 'any'];
  return types.map((t: string) => html(t === 'string' && s.format ? `string (${s.format})` : t)).join(' | ');
}

function constraints(s: Schema): string {
  const facts = [
    s.minLength !== undefined || s.maxLength !== undefined ? `length ${s.minLength ?? 0} to ${s.maxLength ?? '∞'}` : '',
    s.minimum !== undefined || s.maximum !== undefined ? `${s.minimum ?? '−∞'} to ${s.maximum ?? '∞'}` : '',
    s.minItems !== undefined || s.maxItems !== undefined ? `${s.minItems ?? 0} to ${s.maxItems ?? '∞'} items` : '',
    s.pattern && !s.format ? `pattern <code>${html(s.pattern)}</code>` : '',
    s.default !== undefined ? `default <code>${html(JSON.stringify(s.default))}</code>` : '',
  ].filter(Boolean);
  return facts.length ? `<div class="facts">${facts.join('; ')}</div>` : '';
}

/** An object's fields as a table; nested objects without a name get their own table inside. */
function fields(s: Schema | undefined): string {
  if (!s) return '';
  if (s.$ref) return `<p>${schemaLink(s.$ref)}</p>`;
  if (!s.properties) return `<p>${typeOf(s)}${constraints(s)}</p>`;
  const required = new Set<string>(s.required ?? []);
  const rows = Object.entries(s.properties as Record<string, Schema>).map(([name, p]) => {
    const nested = p.type === 'object' && p.properties ? fields(p) : p.type === 'array' && p.items?.properties ? fields(p.items) : '';
    return `<tr><td><code>${html(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(p)}</td><td>${markdown(p.description ?? '')}${constraints(p)}${nested}</td></tr>`;
  });
  return `<table class="fields"><tr><th>field</th><th>type</th><th>description</th></tr>${rows.join('')}</table>`;
}

/**
 * The partner client's call for each operation (`client/`), with the example's arguments:
 * `id` stands for the path parameter, `body` for the example request body.
 */
export const CLIENT_CALLS: Record<string, string> = {
  getCapabilities: 'client.capabilities.get()',
  getEffectiveConfiguration: 'client.configuration.getEffective()',
  upsertProductsBatch: 'client.products.upsertBatch(body)',
  listProducts: "for await (const product of client.products.list({ status: 'active' })) console.log(product)",
  getProduct: 'client.products.get(id)',
  archiveProduct: 'client.products.archive(id)',
  putCustomer: 'client.customers.put(id, body)',
  getCustomer: 'client.customers.get(id)',
  anonymizeCustomer: 'client.customers.anonymize(id)',
  createOrder: 'client.orders.create(body)',
  listOrders: "for await (const order of client.orders.list({ processing_state: 'completed' })) console.log(order)",
  getOrder: 'client.orders.get(id)',
  updateOrder: 'client.orders.update(id, body)',
  cancelOrder: 'client.orders.cancel(id, body)',
  getOrderResult: 'client.orders.result(id)',
  listOrderCalls: 'for await (const call of client.orders.calls(id)) console.log(call)',
  putSalesRule: 'client.salesRules.put(id, body)',
  getSalesRule: 'client.salesRules.get(id)',
  archiveSalesRule: 'client.salesRules.archive(id)',
  listSalesRules: 'for await (const rule of client.salesRules.list()) console.log(rule)',
  getWebhookSubscription: 'client.webhooks.getSubscription()',
  putWebhookSubscription: 'client.webhooks.putSubscription(body)',
  rotateWebhookSecret: 'client.webhooks.rotateSecret(body)',
  testWebhookSubscription: 'client.webhooks.test()',
  listWebhookDeliveries: "for await (const delivery of client.webhooks.deliveries({ status: 'dead_lettered' })) console.log(delivery)",
  getWebhookDelivery: 'client.webhooks.getDelivery(id)',
  replayWebhookDelivery: 'client.webhooks.replay(id)',
  recoverWebhookDeliveries: 'client.webhooks.recover(body)',
  createListenSession: 'client.webhooks.listen(body)',
  readListenFeed: 'client.webhooks.listenFeed(id, { after: previous.next_after ?? undefined })',
};

const json = (value: unknown) => JSON.stringify(value, null, 2);
const codeBlock = (kind: string, label: string, text: string) => `<h4>${html(label)}</h4><pre class="${kind}"><code>${html(text)}</code></pre>`;

/** Path parameters whose samples have a shape of their own; the rest read `{kind}-1`. */
const SAMPLE_PATH_VALUES: Record<string, unknown> = {
  deliveryId: SAMPLE_VALUES.delivery_id,
  externalOrderId: SAMPLE_VALUES.external_order_id,
  listenSessionId: SAMPLE_VALUES.listen_session_id,
};

/** A path parameter's example: as the recorded request had it, else a value of its kind. */
const exampleValue = (name: string, op: Schema): string =>
  String(
    (op.parameters as Schema[] | undefined)?.find((p) => p.in === 'path' && p.name === name)?.example ??
      SAMPLE_PATH_VALUES[name] ??
      `${name.replace(/^external|Id$/g, '').toLowerCase()}-1`,
  );
/** The example's path, each parameter filled with its example. */
const examplePath = (path: string, op: Schema) => path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(exampleValue(name, op)));

function codeSamples(path: string, method: string, op: Schema, doc: Doc, origin: string): string {
  const base = `${origin}${doc.servers[0].url.replace('{origin}', '')}`;
  const body = op.requestBody?.content?.['application/json']?.example;
  const mutation = method !== 'get';
  const curl = [
    `curl -X ${method.toUpperCase()} '${base}${examplePath(path, op)}' \\`,
    '  -H "X-SVC-Key-Id: $KEY_ID" -H "X-SVC-Timestamp: $TS" -H "X-SVC-Nonce: $NONCE" \\',
    '  -H "X-SVC-Content-SHA256: $BODY_SHA256" -H "X-SVC-Signature: hmac-sha256=$SIG" \\',
    ...(mutation ? [`  -H "Idempotency-Key: $(uuidgen)"${body !== undefined ? ' \\' : ''}`] : []),
    ...(body !== undefined ? ["  -H 'Content-Type: application/json' --data-binary @body.json"] : []),
  ].join('\n');
  const id = path.match(/\{(\w+)\}/)?.[1];
  const call = CLIENT_CALLS[op.operationId]!;
  const client = [
    "import { createCommerceClient } from '@commerce-interface/client';",
    'const client = createCommerceClient({ baseUrl, keyId, secret });',
    ...(id ? [`const id = ${JSON.stringify(exampleValue(id, op))};`] : []),
    ...(body !== undefined ? [`const body = ${json(body)};`] : []),
    call.startsWith('for await') ? call : `const answer = await ${call};`,
  ].join('\n');
  const sandbox = `npm run sandbox -- request ${method.toUpperCase()} '${examplePath(path, op)}'${body !== undefined ? ' --data "$(cat body.json)"' : ''}`;
  return [
    codeBlock('code curl', 'curl (the headers as "Authentication" above says)', curl),
    codeBlock('code sandbox', 'Signed for you from the shell (the local credentials, or --base-url and --key-id with COMMERCE_KEY_SECRET)', sandbox),
    codeBlock('code client', 'Client (Node, @commerce-interface/client)', client),
  ].join('');
}

function examples(op: Schema): string {
  const request = op.requestBody?.content?.['application/json']?.example;
  const successes = Object.entries(op.responses as Record<string, Schema>).filter(
    ([status, r]) => status.startsWith('2') && r.content?.['application/json']?.example !== undefined,
  );
  return [
    request !== undefined ? codeBlock('example request', 'Example request body', json(request)) : '',
    ...successes.map(([status, r]) =>
      codeBlock('example response', `Example answer (${status}: ${r.description})`, json(r.content['application/json'].example)),
    ),
  ].join('');
}

function operationSection(path: string, method: string, op: Schema, doc: Doc, origin: string): string {
  const parameters = (op.parameters ?? []) as Schema[];
  const parameterRows = parameters
    .filter((p) => !p.$ref)
    .map(
      (p) =>
        `<tr><td><code>${html(p.name)}</code> (${html(p.in)})${p.required ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(p.schema)}</td><td>${markdown(p.description ?? '')}${constraints(p.schema ?? {})}</td></tr>`,
    );
  if (parameters.some((p) => p.$ref?.endsWith('Idempotency-Key'))) {
    parameterRows.push(
      '<tr><td><code>Idempotency-Key</code> (header) <span class="req">required</span></td><td>string</td><td>1 to 255 printable ASCII; one per logical call, the same on its retries</td></tr>',
    );
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses as Record<string, Schema>).map(([status, r]) => {
    const schema = r.content?.['application/json']?.schema ?? r.content?.['application/problem+json']?.schema;
    return `<tr><td><code>${html(status)}</code></td><td>${inline(r.description ?? '')}</td><td>${schema ? typeOf(schema) : ''}</td></tr>`;
  });
  return `<section class="operation" id="op-${html(op.operationId)}" data-operation-id="${html(op.operationId)}">
<h3>${html(op.summary)}</h3>
<p class="endpoint"><span class="method ${html(method)}">${html(method.toUpperCase())}</span> <code>${html(path)}</code> <span class="scope">scope <code>${html(op['x-required-scope'] ?? '')}</code></span> <span class="opid">${html(op.operationId)}</span></p>
${markdown(op.description ?? '')}
${parameterRows.length ? `<h4>Parameters</h4><table class="fields"><tr><th>name</th><th>type</th><th>description</th></tr>${parameterRows.join('')}</table>` : ''}
${body ? `<h4>Request body${body.$ref ? `: ${schemaLink(body.$ref)}` : ''}</h4>${fields(body.$ref ? doc.components.schemas[refName(body.$ref)] : body)}` : ''}
<h4>Responses</h4><table class="fields"><tr><th>status</th><th>when</th><th>body</th></tr>${responses.join('')}</table>
${examples(op)}${codeSamples(path, method, op, doc, origin)}
</section>`;
}

/** How a receiver checks a delivery: with the partner client, or with any Standard Webhooks library. */
const VERIFY_SNIPPET = `// Node, with the partner client: the raw body as received, both secrets during a rotation
import { constructEvent } from '@commerce-interface/client';
const event = constructEvent(rawBody, request.headers, [process.env.WEBHOOK_SECRET]); // throws WebhookSignatureError: answer 400
if (seen.has(event.event_id)) return; // deliveries are at least once
// Any language, with a Standard Webhooks library (webhook-id, webhook-timestamp, webhook-signature):
import { Webhook } from 'standardwebhooks';
new Webhook(process.env.WEBHOOK_SECRET.slice('whsec_'.length)).verify(rawBody, request.headers);`;

function eventSection(type: string, post: Schema, doc: Doc): string {
  const ref = post.requestBody.content['application/json'].schema.$ref as string;
  const headers = (post.parameters as Schema[])
    .map(
      (p) => `<tr><td><code>${html(p.name)}</code>${p.required ? ' <span class="req">always</span>' : ''}</td><td>${markdown(p.description ?? '')}</td></tr>`,
    )
    .join('');
  return `<section class="event" id="event-${html(type)}" data-event-type="${html(type)}">
<h3>${html(type)}</h3>
${markdown(post.description ?? '')}
<h4>Headers</h4><table class="fields"><tr><th>header</th><th>value</th></tr>${headers}</table>
<h4>Body: ${schemaLink(ref)}</h4>${fields(doc.components.schemas[refName(ref)])}
${codeBlock('example payload', 'Example payload', json(post.requestBody.content['application/json'].example))}${codeBlock('code verify', 'Verify and read it', VERIFY_SNIPPET)}
</section>`;
}

/** Every problem code (the contract's `x-problems`): where a problem's `doc_url` lands. */
function problemsSection(doc: Doc): string {
  const problems = Object.entries((doc['x-problems'] ?? {}) as Record<string, { status: number; title: string; means: string; action: string }>);
  return problems
    .map(
      ([code, p]) => `<section class="problem" id="problem-${html(code)}" data-problem-code="${html(code)}">
<h3><code>${html(p.status)}</code> ${html(code)}: ${html(p.title)}</h3>
<p><strong>Means</strong>: ${inline(p.means)}</p>
<p><strong>What to do</strong>: ${inline(p.action)}</p>
</section>`,
    )
    .join('\n');
}

const STYLE = `
:root{--ink:#1d2330;--muted:#5b6475;--line:#e3e6ec;--accent:#2457c5;--bg:#fbfbfd}
*{box-sizing:border-box}body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
nav{position:fixed;top:0;bottom:0;left:0;width:290px;overflow-y:auto;padding:20px 16px;border-right:1px solid var(--line);background:#fff;font-size:13.5px}
nav a{display:block;color:var(--ink);text-decoration:none;padding:2px 0}nav a:hover{color:var(--accent)}nav h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:18px 0 6px}
main{margin-left:290px;padding:28px 44px;max-width:1180px}h1{margin-top:0}h2{border-bottom:2px solid var(--line);padding-bottom:6px;margin-top:48px}
section.operation,section.event,section.schema,section.problem{background:#fff;border:1px solid var(--line);border-radius:8px;padding:6px 22px 14px;margin:18px 0}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f7;padding:1px 4px;border-radius:4px}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:14px}th,td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}th{background:#f5f6f9}
td table{margin:6px 0 0}td p{margin:0 0 4px}td p:last-child{margin:0}.req{color:#b3261e;font-size:12px}.facts{color:var(--muted);font-size:13px}.endpoint{font-size:15px}
.method{display:inline-block;min-width:64px;text-align:center;font-weight:700;font-size:12px;color:#fff;border-radius:4px;padding:2px 6px;background:#555}
.method.get{background:#1f7a4d}.method.post{background:#2457c5}.method.put{background:#8a5a00}.method.patch{background:#6b3fa0}.method.delete{background:#b3261e}
.scope,.opid{color:var(--muted);font-size:13px;margin-left:10px}
pre{background:#f1f3f7;border-radius:6px;padding:10px 12px;overflow-x:auto;font-size:13px}pre code{background:none;padding:0}
#search{width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:6px;font:inherit;margin-bottom:8px}
@media (max-width:900px){nav{position:static;width:auto;border-right:0}main{margin-left:0;padding:16px}}
`;

/**
 * The page's one script, search: typing in the box keeps the operations, events and schemas
 * whose text holds every word typed, and their links in the navigation. Allowed by its hash
 * alone (the page loads nothing, runs nothing else).
 */
const SEARCH_SCRIPT = `
const box = document.getElementById('search');
const sections = [...document.querySelectorAll('section.operation, section.event, section.schema, section.problem')];
box.addEventListener('input', () => {
  const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
  for (const section of sections) {
    const shown = words.every((word) => section.textContent.toLowerCase().includes(word));
    section.hidden = !shown;
    const link = document.querySelector('nav a[href="#' + section.id + '"]');
    if (link) link.hidden = !shown;
  }
});`;

const scriptHash = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;

/** The page; `origin` is where its snippets send requests (the server serving it, else the contract's default). */
export function renderReferencePage(doc: Doc, origin: string = doc.servers[0].variables.origin.default): string {
  const operations = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );
  const tags = (doc.tags as { name: string; description: string }[]).filter((t) => operations.some((o) => o.op.tags?.includes(t.name)));
  const events = Object.entries((doc.webhooks ?? {}) as Record<string, { post: Schema }>);
  const schemas = Object.entries(doc.components.schemas as Record<string, Schema>);
  const nav = [
    '<input id="search" type="search" placeholder="Search operations, events, fields" aria-label="Search">',
    '<a href="#introduction">Introduction</a><a href="#authentication">Authentication</a>',
    ...tags.map(
      (t) =>
        `<h2>${html(t.name)}</h2>${operations
          .filter((o) => o.op.tags?.includes(t.name))
          .map((o) => `<a href="#op-${html(o.op.operationId)}">${html(o.op.summary)}</a>`)
          .join('')}`,
    ),
    `<h2>Webhook events</h2>${events.map(([type]) => `<a href="#event-${html(type)}">${html(type)}</a>`).join('')}`,
    '<h2>Problems</h2><a href="#problems">Every problem code</a>',
    '<h2>Schemas</h2><a href="#schemas">All schemas</a>',
  ].join('\n');
  const body = [
    `<h1>${html(doc.info.title)} <small>${html(doc.info.version)}</small></h1>`,
    `<section id="introduction">${markdown(doc.info.description)}</section>`,
    `<p>Servers: ${(doc.servers as Schema[]).map((s) => `<code>${html(s.url)}</code> (${html(s.description)}; origin default <code>${html(s.variables?.origin?.default)}</code>)`).join(', ')}</p>`,
    `<h2 id="authentication">Authentication</h2>${markdown(doc.components.securitySchemes.hmac.description)}`,
    ...tags.map(
      (t) =>
        `<h2 id="tag-${html(t.name)}">${html(t.name)}</h2><p>${inline(t.description)}</p>${operations
          .filter((o) => o.op.tags?.includes(t.name))
          .map((o) => operationSection(o.path, o.method, o.op, doc, origin))
          .join('\n')}`,
    ),
    `<h2 id="webhook-events">Webhook events</h2>${events.map(([type, item]) => eventSection(type, item.post, doc)).join('\n')}`,
    `<h2 id="problems">Problems</h2>${problemsSection(doc)}`,
    `<h2 id="schemas">Schemas</h2>${schemas.map(([name, s]) => `<section class="schema" id="schema-${html(name)}"><h3>${html(name)}</h3>${markdown(s.description ?? '')}${fields(s)}</section>`).join('\n')}`,
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${scriptHash(SEARCH_SCRIPT)}">
<title>${html(doc.info.title)}: API reference</title><style>${STYLE}</style></head>
<body><nav>${nav}</nav><main>${body}</main><script>${SEARCH_SCRIPT}</script></body></html>
`;
}

export const renderCommittedReference = (origin?: string): string => renderReferencePage(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')), origin);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist/api-reference.html' } } });
  const out = resolve(values.out!);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderCommittedReference());
  console.log(`wrote ${out}`);
}
