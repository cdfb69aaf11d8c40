/** The admin and sandbox CLIs explain themselves without a running stack: help with examples, one-line usage errors. */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs a CLI; a last argument `{ env }` replaces the environment. */
function cli(script: 'admin' | 'sandbox', ...args: (string | { env: Record<string, string> })[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const last = args.at(-1);
  const env = typeof last === 'object' ? last.env : { ...process.env, LOCAL_DATA_DIR: '/nonexistent' };
  const words = args.filter((arg): arg is string => typeof arg === 'string');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--disable-warning=ExperimentalWarning', `local/${script}.ts`, ...words], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the CLIs', () => {
  it('print every command with an example on --help, and exit 0', async () => {
    for (const [script, commands] of [
      ['admin', ['keys create', 'dlq redrive', 'deliveries list', 'recover', 'stream-work replay']],
      ['sandbox', ['listen', 'trigger', 'scenarios']],
    ] as const) {
      const help = await cli(script, '--help');
      expect(help.code).toBe(0);
      for (const command of commands) expect(help.stdout).toContain(`npm run ${script} -- ${command}`);
      expect(help.stdout.match(/e\.g\. npm run/g)?.length).toBe(help.stdout.match(/^npm run/gm)?.length);
    }
  });

  it('print the help of the command asked about, and name what --since filters on', async () => {
    const help = await cli('admin', 'recover', '-h');
    expect(help.code).toBe(0);
    expect(help.stdout.split('\n')).toEqual([expect.stringContaining('recover --tenant T --since TIME'), expect.stringContaining('e.g.'), '']);
    expect(help.stdout).toContain('created at or after TIME');
  });

  it('answer an unknown flag or command with one line and status 2', async () => {
    for (const [script, args] of [
      ['admin', ['dlq', 'list', '--bogus']],
      ['sandbox', ['listen', '--bogus']],
      ['sandbox', ['nonsense']],
    ] as const) {
      const res = await cli(script, ...args);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/Unknown option '--bogus'|unknown command "nonsense"/);
    }
  });

  it('name each mistake of a tenant configuration by its field, one line each, before looking for a stack', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tenant-config-')), 'tenant.json');
    writeFileSync(
      file,
      JSON.stringify({ max_call_attempts: 99, quiet_hours: { timezone: 'Mars/Olympus', dont_call_hour_start: 21, dont_call_hour_end: 8 }, colour: 'red' }),
    );
    const res = await cli('admin', 'tenants', 'put', '--tenant', 'acme', '--config', file);
    expect(res.code).toBe(2);
    const lines = res.stderr.trim().split('\n');
    expect(lines[0]).toBe(`admin: invalid configuration in ${file}:`);
    expect(lines.slice(1).join('\n')).toMatch(/→ at max_call_attempts/);
    expect(lines.slice(1).join('\n')).toMatch(/→ at quiet_hours\.timezone/);
    expect(res.stderr).toContain('colour');
    expect(lines.length).toBeLessThanOrEqual(10);
    writeFileSync(file, '{ not json');
    expect((await cli('admin', 'tenants', 'put', '--tenant', 'acme', '--config', file)).stderr).toMatch(
      /^admin: invalid configuration: .*tenant\.json: not JSON \(/,
    );
  });

  it('say in one line what --stack lacks: a region, or credentials', async () => {
    const bare = { PATH: process.env.PATH!, HOME: mkdtempSync(join(tmpdir(), 'no-aws-')), AWS_EC2_METADATA_DISABLED: 'true' };
    const noRegion = await cli('admin', 'dlq', 'list', '--stack', 'commerce-prod', { env: bare });
    expect({ code: noRegion.code, stderr: noRegion.stderr.trim() }).toEqual({
      code: 1,
      stderr: 'admin: --stack commerce-prod: no AWS region; pass --region (e.g. --region eu-central-1) or set AWS_REGION',
    });
    const noCredentials = await cli('admin', 'dlq', 'list', '--stack', 'commerce-prod', '--region', 'eu-central-1', { env: bare });
    expect({ code: noCredentials.code, stderr: noCredentials.stderr.trim() }).toEqual({
      code: 1,
      stderr: 'admin: --stack commerce-prod: no AWS credentials; set AWS_PROFILE (after aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    });
  });
});
