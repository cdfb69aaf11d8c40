/**
 * What the project's CLIs share on top of Node's own `parseArgs`: `--help` (or `-h`) anywhere
 * prints the usage of the command given (or of all) and exits 0; a flag the command does not
 * know, or a missing value, is one line on stderr and status 2, never a stack trace.
 */
export interface CommandHelp {
  /** The command as typed after the CLI's name, e.g. `keys create`. */
  command: string;
  usage: string;
  example: string;
}

/** The usage of every command, or of those whose name starts with what was typed. */
export function helpText(cli: string, commands: readonly CommandHelp[], typed: readonly string[]): string {
  const asked = typed.join(' ');
  const matching = commands.filter((c) => asked !== '' && (c.command === asked || c.command.startsWith(`${asked} `) || asked.startsWith(`${c.command} `)));
  const shown = matching.length ? matching : commands;
  return shown.map((c) => `npm run ${cli} -- ${c.usage}\n    e.g. npm run ${cli} -- ${c.example}`).join('\n');
}

/** The command typed (one or two words) if the CLI has it. */
export function knownCommand(commands: readonly CommandHelp[], positionals: readonly string[]): CommandHelp | undefined {
  return commands.find((c) => c.command === positionals.slice(0, c.command.split(' ').length).join(' '));
}

export function failUsage(cli: string, message: string): never {
  console.error(`${cli}: ${message} (npm run ${cli} -- --help lists the commands)`);
  process.exit(2);
}

/** Runs the CLI's `parseArgs` (its options must include `help: { type: 'boolean', short: 'h' }`). */
export function parseCli<T extends { values: { help?: boolean | undefined }; positionals: string[] }>(
  cli: string,
  commands: readonly CommandHelp[],
  parse: () => T,
): T {
  let parsed: T;
  try {
    parsed = parse();
  } catch (error) {
    // Node's own wording ("Unknown option '--x'"), without its advice on positionals.
    return failUsage(cli, (error as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
  }
  if (parsed.values.help) {
    console.log(helpText(cli, commands, parsed.positionals));
    process.exit(0);
  }
  return parsed;
}

/** One line for why `--stack NAME` could not be read: no region, no credentials, no such stack. */
export function stackProblem(stack: string, error: Error): string {
  if (/region is missing/i.test(error.message)) return `--stack ${stack}: no AWS region; pass --region (e.g. --region eu-central-1) or set AWS_REGION`;
  if (error.name === 'CredentialsProviderError' || /credential/i.test(error.message))
    return `--stack ${stack}: no AWS credentials; set AWS_PROFILE (after aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`;
  if (/does not exist/.test(error.message)) return `--stack ${stack}: no such stack in this account and region (${error.message})`;
  return `--stack ${stack}: the stack could not be read: ${error.name}: ${error.message.split('\n')[0]}`;
}
