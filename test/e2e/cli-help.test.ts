/** The admin and sandbox CLIs explain themselves without a running stack: help with examples, one-line usage errors. */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function cli(script: 'admin' | 'sandbox', ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', `local/${script}.ts`, ...args],
      { env: { ...process.env, LOCAL_DATA_DIR: '/nonexistent' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
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
});
