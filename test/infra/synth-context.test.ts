/** `cdk synth` with a wrong context value: refused in one line naming what it may be, as the CDK CLI runs the app. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.ts';

/** Runs the app as `cdk synth -c …` does: the CLI hands the context over in CDK_CONTEXT_JSON. */
async function synth(context: Record<string, string>) {
  const env = { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'cdk-out-')) };
  return promisify(execFile)(join(repoRoot, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', 'infra/app.ts'], { cwd: repoRoot, env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('cdk synth with a wrong context value', () => {
  it.each([
    [{ callPlatform: 'nonsense' }, '-c callPlatform must be "sandbox" or "connect", not "nonsense"'],
    [{ traceAwsCalls: 'yes' }, '-c traceAwsCalls must be "true" or "false", not "yes"'],
    [{ callPlatform: 'connect' }, '-c callPlatform=connect needs -c connectInstanceArn='],
    [{ referenceUrl: 'developers.example.com/reference' }, '-c referenceUrl must be an https URL without a fragment, not "developers.example.com/reference"'],
  ])('refuses %j with one line and exit status 1', async (context, message) => {
    const { code, stderr } = await synth(context);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
  });
});
