/**
 * The whole `pdfsvc` program as commander's commands: every command line that
 * is not a plain run of one action (main.ts runs those without commander),
 * and --help, --version and the refusals of a line commander does not take.
 */
import { Command, CommanderError, Option } from 'commander';
import { actions } from '../actions/index.js';
import { kebabName, type AnyAction } from '../core/action.js';
import { ValidationError } from '../core/errors.js';
import { actionCommand } from './action-command.js';
import { orList, PLANS } from '../core/plans.js';
import { ACCOUNTS_OPTIONS, KEYS_OPTIONS, SERVE_OPTIONS } from '../server/options.js';
import { addOptions } from './options.js';
import { VERSION } from '../core/version.js';
import { printOut } from './stdout.js';
import { CLI_WORDS } from './words.js';
import { sayText } from '../core/words.js';
import { EXIT_INVALID, EXIT_OK } from './failure.js';

/**
 * A command in the list of commands: its name, its short verb (`rotate-pages|rotate`) and its arguments. Not the
 * API name (`add_password`, an alias too) nor `[options]`, which every command has: at 56 columns, the terms left
 * commander too little room to wrap the descriptions, and every line ran past an 80-column terminal.
 */
function subcommandTerm(command: Command): string {
  const verb = command.aliases().find((alias) => alias !== command.name().replaceAll('-', '_'));
  const args = command.registeredArguments.map((arg) => {
    const name = `${arg.name()}${arg.variadic ? '...' : ''}`;
    return arg.required ? `<${name}>` : `[${name}]`;
  });
  return [`${command.name()}${verb ? `|${verb}` : ''}`, ...args].join(' ');
}

/**
 * The whole program, or with `only`, the program with that one action: a run
 * of an action needs no other command, and building the others with all
 * their options was a tenth of a short run's time.
 */
export function buildProgram(only?: AnyAction): Command {
  const program = new Command('pdfsvc')
    .description('PDF actions from the command line, as an HTTP service (pdfsvc serve), or as a library.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false, subcommandTerm })
    // Remote mode: global, so that they can stand before the action (`pdfsvc --server URL rotate …`).
    .addOption(new Option('--server <url>', 'send actions to this pdfsvc server (its base URL) instead of working locally').env('PDFSVC_SERVER'))
    .option('--api-key-file <file>', 'remote mode: read the API key from the first line of this file (or set PDFSVC_API_KEY); never give it as an argument')
    .option('--cacert <file>', 'remote mode: also trust this certificate authority (PEM) for an https:// server');
  if (only) {
    program.addCommand(actionCommand(only));
    return withExitOverride(program);
  }
  for (const action of actions as readonly AnyAction[]) program.addCommand(actionCommand(action));
  program
    .command('actions')
    .description('List the actions with one line each.')
    .option('--json', 'print the list as JSON')
    .action((options: { json?: boolean }) => {
      const rows = (actions as readonly AnyAction[]).map((a) => ({
        name: a.name,
        command: kebabName(a.name),
        group: a.group,
        summary: sayText(a.summary, CLI_WORDS),
      }));
      if (options.json) printOut(`${JSON.stringify(rows, null, 2)}\n`);
      else {
        const width = Math.max(...rows.map((r) => r.command.length));
        for (const row of rows) printOut(`${row.command.padEnd(width)}  ${row.summary}\n`);
      }
    });
  program
    .command('completion')
    .description('Print a shell completion script: eval "$(pdfsvc completion bash)", or save it where your shell loads completions.')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      const { completionScript, SHELLS } = await import('./completion.js');
      if (!(SHELLS as readonly string[]).includes(shell)) throw ValidationError.field('shell', `${JSON.stringify(shell)} is not one of ${SHELLS.join(', ')}`);
      printOut(completionScript(program, shell as (typeof SHELLS)[number]));
    });
  addOptions(program.command('serve').description('Serve the actions as the /v1/ HTTP API.'), SERVE_OPTIONS).action(async (options) => {
    const { serveFromCli } = await import('../server/serve.js');
    startingServer = true;
    await serveFromCli(options);
  });
  const keys = program.command('keys').description('Create, list, rotate and revoke API keys (in the database, or in a keys file with --keys-file).');
  const keysCli = () => import('../server/keys-cli.js');
  databaseOptions(
    addOptions(
      keys.command('create').description("Create a key for an account (it has the account's plan); prints it once, as the only line on standard output."),
      KEYS_OPTIONS.create,
    ),
  ).action(async (options) => (await keysCli()).createKey(options));
  databaseOptions(
    addOptions(
      keys.command('list').description('List keys (id, account, name, prefix, plan, created, last used, expires); never the keys themselves.'),
      KEYS_OPTIONS.list,
    ),
  ).action(async (options) => (await keysCli()).listKeys(options));
  databaseOptions(
    addOptions(
      keys
        .command('rotate')
        .description('Replace a key: prints the new one once; the old one keeps working for the grace period, then stops.')
        .argument('<name-or-id>'),
      KEYS_OPTIONS.rotate,
    ),
  ).action(async (nameOrId: string, options) => (await keysCli()).rotateKey(nameOrId, options));
  databaseOptions(
    addOptions(
      keys.command('revoke').description('Revoke a key by its name or id: every server refuses it within 2 s.').argument('<name-or-id>'),
      KEYS_OPTIONS.revoke,
    ),
  ).action(async (nameOrId: string, options) => (await keysCli()).revokeKey(nameOrId, options));
  databaseOptions(
    addOptions(keys.command('rename').description('Rename a key (database).').argument('<name-or-id>').argument('<new-name>'), KEYS_OPTIONS.rename),
    false,
  ).action(async (nameOrId: string, name: string, options) => (await import('../store/cli.js')).keysRename(nameOrId, name, options));
  databaseOptions(
    addOptions(
      keys
        .command('set-regions')
        .description("Limit a key to some of its account's plan's regions, or let it work in all of them again (database).")
        .argument('<name-or-id>')
        .argument('<regions>', "a list such as eu or us,eu, within the account's plan; all: every region of the plan"),
      KEYS_OPTIONS['set-regions'],
    ),
    false,
  ).action(async (nameOrId: string, regions: string, options) => (await import('../store/cli.js')).keysSetRegions(nameOrId, regions, options));
  databaseOptions(
    addOptions(
      keys.command('import').description('Copy the keys of a keys file into the database, once (their hashes: every key keeps working).'),
      KEYS_OPTIONS.import,
    ),
    false,
  ).action(async (options) => (await import('../store/cli.js')).keysImport(options));

  const accounts = program.command('accounts').description('Create and manage customer accounts: their plan, status and dashboard password link.');
  const accountsCli = () => import('../store/cli.js');
  databaseOptions(
    addOptions(
      accounts
        .command('create')
        .description('Create an account; prints a one-time link that sets its dashboard password.')
        .argument('<name>', "the account's name (letters, digits, '.', '_', '-')"),
      ACCOUNTS_OPTIONS.create,
    ),
    false,
  ).action(async (name: string, options) => (await accountsCli()).accountsCreate(name, options));
  databaseOptions(
    addOptions(accounts.command('list').description('List accounts (name, e-mail, plan, status, live keys).'), ACCOUNTS_OPTIONS.list),
    false,
  ).action(async (options) => (await accountsCli()).accountsList(options));
  databaseOptions(
    addOptions(
      accounts.command('set-plan').description("Change an account's plan (and so its keys' regions).").argument('<name>').argument('<plan>', orList(PLANS)),
      ACCOUNTS_OPTIONS['set-plan'],
    ),
    false,
  ).action(async (name: string, plan: string, options) => (await accountsCli()).accountsSetPlan(name, plan, options));
  databaseOptions(
    addOptions(
      accounts.command('suspend').description('Suspend an account: its keys get 403 within 2 s on every server.').argument('<name>'),
      ACCOUNTS_OPTIONS.suspend,
    ),
    false,
  ).action(async (name: string, options) => (await accountsCli()).accountsSetStatus(name, 'suspended', options));
  databaseOptions(addOptions(accounts.command('resume').description('Resume a suspended account.').argument('<name>'), ACCOUNTS_OPTIONS.resume), false).action(
    async (name: string, options) => (await accountsCli()).accountsSetStatus(name, 'active', options),
  );
  databaseOptions(
    addOptions(
      accounts.command('delete').description('Delete an account and its keys (its usage stays for billing).').argument('<name>'),
      ACCOUNTS_OPTIONS.delete,
    ),
    false,
  ).action(async (name: string, options) => (await accountsCli()).accountsDelete(name, options));
  databaseOptions(
    addOptions(
      accounts.command('link').description('Print a new one-time password link for an account (earlier ones stop working).').argument('<name>'),
      ACCOUNTS_OPTIONS.link,
    ),
    false,
  ).action(async (name: string, options) => (await accountsCli()).accountsLink(name, options));

  const database = program.command('database').description('The database of accounts, keys and usage.');
  databaseOptions(
    database
      .command('copy')
      .description('Copy accounts, keys, usage and the rest into an empty PostgreSQL database (moving off the embedded one).')
      .requiredOption('--to <url>', 'the PostgreSQL database to copy into (postgres://user:password@host/db)'),
    false,
  ).action(async (options) => (await import('../store/cli.js')).databaseCopy(options));
  databaseOptions(
    program
      .command('usage')
      .description('Print the usage of a month for billing: requests by status class, pages, bytes in and out, per account, key, region and day.')
      .option('--month <YYYY-MM>', 'the month (UTC; default: this month)')
      .option('--account <name>', 'only this account')
      .option('--format <format>', 'table (totals per key and account), csv or json (one row per account, key, region and day)', 'table'),
    false,
  ).action(async (options) => (await import('../store/cli.js')).usageReport(options));
  databaseOptions(
    accounts
      .command('operator')
      .description("Let an account's owner see every account's usage in the dashboard (All accounts), or stop it with --off.")
      .argument('<name>')
      .option('--off', 'take the operator view away'),
    false,
  ).action(async (name: string, options) => (await import('../dashboard/command.js')).accountsOperator(name, options));
  databaseOptions(
    program
      .command('dashboard')
      .description('Serve the key dashboard alone, at /dashboard, on the database the API servers share (pdfsvc serve also serves it, at its own /dashboard).')
      .option('--host <host>', 'address to bind; without --https only loopback addresses are allowed', '127.0.0.1')
      .option('--port <port>', 'port to listen on; 0 picks a free one', '8090')
      .option('--https', 'serve TLS (with --cert/--key, or a self-signed certificate)')
      .option('--cert <file>', 'TLS certificate (PEM)')
      .option('--key <file>', 'TLS private key (PEM)')
      .option('--public-url <url>', 'the address people open, behind a proxy (https://dashboard.example.com): forms are accepted from its origin only')
      .option('--trust-proxy', "take the client's address from X-Forwarded-For (for sign-in throttling and the audit list)"),
    false,
  ).action(async (options) => {
    const { dashboardFromCli } = await import('../dashboard/command.js');
    startingServer = true;
    await dashboardFromCli(options);
  });
  return withExitOverride(program);
}

/**
 * The options that name the database (src/store/location.ts); with
 * `keysFile`, also --keys-file, for commands that can work on a keys file.
 */
function databaseOptions(command: Command, keysFile = true): Command {
  command
    .addOption(new Option('--database-url <url>', 'PostgreSQL shared by several servers (postgres://user:password@host/db)').env('PDFSVC_DATABASE_URL'))
    .addOption(new Option('--data-dir <dir>', 'the embedded database (default: $XDG_DATA_HOME/pdfsvc/db, ~/.local/share/pdfsvc/db)').env('PDFSVC_DATA_DIR'));
  if (keysFile) command.option('--keys-file <path>', 'work on this keys file instead of the database (also $PDFSVC_KEYS_FILE)');
  return command;
}

function withExitOverride(command: Command): Command {
  command.exitOverride();
  // Help and version text too: `pdfsvc --help | head -1` ends quietly.
  command.configureOutput({ writeOut: printOut });
  for (const sub of command.commands) withExitOverride(sub);
  return command;
}

/**
 * Runs `argv` through commander, with the program of `action` alone when it names one. A refusal of commander's
 * has been printed by commander, or with --json is thrown as a ValidationError (main prints it as a problem
 * object); --help and --version end through it too, with exit code 0.
 */
export async function parseCommandLine(argv: string[], action: AnyAction | undefined): Promise<void> {
  const program = buildProgram(action);
  const json = argv.includes('--json');
  if (json) quietUsageErrors(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (json && err.exitCode !== 0) throw usageError(err);
    process.exitCode = err.exitCode === 0 ? EXIT_OK : EXIT_INVALID;
  }
}

/** With --json, commander's refusals (an unknown option, a --format not offered) are printed as a problem object instead. */
function quietUsageErrors(command: Command): void {
  command.configureOutput({ writeErr: () => {} });
  for (const sub of command.commands) quietUsageErrors(sub);
}

/** A refusal of commander's as the 400 of the option it names (`--bogus`: the unknown field `bogus`). */
function usageError(err: CommanderError): ValidationError {
  const option = /'--([a-z0-9-]+)/i.exec(err.message)?.[1];
  const field = option ? option.replaceAll('-', '_') : err.code === 'commander.unknownCommand' ? 'command' : 'arguments';
  return ValidationError.field(field, err.message.replace(/^error: /, ''));
}

/** Set once `serve` or `dashboard` begins to start (main() then exits on its refusal). */
let startingServer = false;

export function startedServer(): boolean {
  return startingServer;
}
