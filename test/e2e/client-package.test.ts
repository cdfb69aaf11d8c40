/**
 * The client as a partner gets it: `npm pack` in client/, installed into an empty folder,
 * run by the machine's own Node (not the project's Node 22), signing requests the local
 * service accepts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.ts';
import { baseUrl, newTenant } from '../support/stack.ts';

/** The first `node` on PATH outside any node_modules: the machine's own, not the devDependency npm scripts put first. */
function machineNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    if (existsSync(join(dir, 'node'))) return join(dir, 'node');
  }
  throw new Error('no node on PATH outside node_modules');
}

const work = mkdtempSync(join(tmpdir(), 'client-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PARTNER_SCRIPT = `
import { createCommerceClient, CommerceApiError } from '@commerce-interface/client';
const [baseUrl, keyId, secret] = process.argv.slice(2);
const client = createCommerceClient({ baseUrl, keyId, secret });
const capabilities = await client.capabilities.get();
const customer = await client.customers.put('cust/1 ü', {
  phone: '+4915100000000',
  locale: 'de-DE',
  consent: { status: 'granted', proof: { source: 'checkout', reference: 'c-1', collected_at: '2026-11-01T09:30:00Z' } },
  source_version: '1',
});
const wrongKey = await createCommerceClient({ baseUrl, keyId, secret: 'not-the-secret' }).capabilities.get().catch((e) => e);
console.log(JSON.stringify({
  node: process.versions.node,
  contract_version: capabilities.contract_version,
  customer: customer.external_customer_id,
  wrongKey: wrongKey instanceof CommerceApiError ? wrongKey.code : String(wrongKey),
}));
`;

const REQUIRING_SCRIPT = `
const { createCommerceClient, isTruncated } = require('@commerce-interface/client');
const [baseUrl, keyId, secret] = process.argv.slice(2);
createCommerceClient({ baseUrl, keyId, secret }).capabilities.get().then((capabilities) =>
  console.log(JSON.stringify({ contract_version: capabilities.contract_version, isTruncated: isTruncated({ data: { truncated: true } }) })),
);
`;

describe('the client package', () => {
  it('packs, installs into an empty folder and, under the machine’s own Node, signs requests the service accepts', async () => {
    const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    // dist/ was built by `npm ci` (the root's prepare); rebuilding it here would race the tests that import it.
    npm(['pack', '--pack-destination', work, '--silent', '--ignore-scripts'], join(repoRoot, 'client'));
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const partner = join(work, 'partner');
    execFileSync('mkdir', [partner]);
    writeFileSync(join(partner, 'package.json'), '{ "name": "partner", "private": true, "type": "module" }\n');
    npm(['install', join(work, tarball!), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], partner);
    writeFileSync(join(partner, 'partner.mjs'), PARTNER_SCRIPT);

    const key = await newTenant();
    const node = machineNode();
    const out = execFileSync(node, ['partner.mjs', baseUrl, key.keyId, key.secret], { cwd: partner, encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(Number(result.node.split('.')[0])).not.toBe(22);
    expect(result).toMatchObject({ contract_version: expect.any(String), customer: 'cust/1 ü', wrongKey: 'invalid_signature' });
    // CommonJS code requires the same client.
    writeFileSync(join(partner, 'partner.cjs'), REQUIRING_SCRIPT);
    const required = JSON.parse(
      execFileSync(node, ['partner.cjs', baseUrl, key.keyId, key.secret], { cwd: partner, encoding: 'utf8' }).trim().split('\n').at(-1)!,
    );
    expect(required).toEqual({ contract_version: result.contract_version, isTruncated: true });
    // Only what the package needs is installed with it.
    expect(
      readdirSync(join(partner, 'node_modules'))
        .filter((f) => !f.startsWith('.'))
        .sort(),
    ).toEqual(['@commerce-interface', 'openapi-fetch', 'openapi-typescript-helpers']);
    // A partner may use it: its license is in the package and in its manifest.
    const installed = join(partner, 'node_modules', '@commerce-interface', 'client');
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('MIT');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  }, 180_000);
});
