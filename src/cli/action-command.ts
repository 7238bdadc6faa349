/**
 * One commander subcommand per action, generated from its declaration:
 * options from the fields (action-options.ts), the main PDF from the
 * arguments or standard input, the output to -o or standard output; the run
 * itself is action-run.ts's.
 */
import { Command, Option } from 'commander';
import { kebabName, type AnyAction } from '../core/action.js';
import { describeDefault, describeRules, type Field } from '../core/fields.js';
import { sayText } from '../core/words.js';
import { actionOptions, flagsOf, positionalField } from './action-options.js';
import { runActionCommand } from './action-run.js';
import type { RemoteSettings } from './remote.js';
import { CLI_WORDS } from './words.js';

function optionHelp(field: Field): string {
  const parts = [sayText(field.help, CLI_WORDS).replace(/\.$/, ''), describeRules(field)];
  const fallback = describeDefault(field);
  if (field.required) parts.push('required');
  else if (fallback !== undefined) parts.push(`default: ${fallback}`);
  return parts.filter(Boolean).join('; ');
}

/** The values of each choice option, for the completion script: its placeholder lists them only when they fit. */
export const choiceValues = new WeakMap<Option, readonly string[]>();

export function actionCommand(action: AnyAction): Command {
  const summary = sayText(action.summary, CLI_WORDS);
  const command = new Command(kebabName(action.name))
    .summary(summary)
    .description(action.description ? `${summary}\n\n${sayText(action.description, CLI_WORDS)}` : summary)
    // The short verb first: commander shows the first alias in usage lines and suggests only it for a typo (`rotat`).
    .aliases([...(action.aliases ?? []), action.name])
    // Commander wraps a description only in 40 columns or more: beside `--allow-print-high-resolution <true|false>`
    // that left none, and every line of add-restrictions' help ran past 80 columns. 34 are left there.
    .configureHelp({ minWidthToWrap: 30 });
  const input = positionalField(action);
  if (input) {
    const field = input[1];
    const multiple = field.kind === 'file' && field.multiple;
    command.argument(
      '[inputs...]',
      multiple
        ? `${sayText(field.help, CLI_WORDS)} Their paths; - (once) for standard input, which is also read when none is given.`
        : `${sayText(field.help, CLI_WORDS)} A path, or - (or nothing) for standard input; several paths with --out-dir or --in-place (batch mode).`,
    );
  }
  for (const spec of actionOptions(action)) {
    const option = new Option(flagsOf(spec), spec.field ? optionHelp(spec.field) : spec.help);
    if (spec.choices) option.choices(spec.choices);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.fieldValues) choiceValues.set(option, spec.fieldValues);
    command.addOption(option);
  }
  command.action((...args: unknown[]) =>
    runActionCommand(
      action,
      args[0] as string | string[] | undefined,
      command.opts(),
      remoteSettings(command.optsWithGlobals()),
      command.getOptionValueSource('format') === 'cli',
    ),
  );
  return command;
}

/** Remote mode's global options (`--server` or PDFSVC_SERVER); undefined: work locally. */
function remoteSettings(globals: Record<string, unknown>): RemoteSettings | undefined {
  const server = globals.server as string | undefined;
  if (server === undefined || server === '') return undefined;
  return { server, apiKeyFile: globals.apiKeyFile as string | undefined, cacert: globals.cacert as string | undefined };
}
