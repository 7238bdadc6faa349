/** The command line's words (core/words.ts): options for the running action's fields, commands for actions. */
import { actions } from '../actions/index.js';
import { kebabName } from '../core/action.js';
import type { Words } from '../core/words.js';

const actionNames = new Set<string>(actions.map((action) => action.name));

export const CLI_WORDS: Words = {
  name: (name) => (actionNames.has(name) ? kebabName(name) : `--${kebabName(name)}`),
  give: 'give',
  field: 'option',
  call: 'run',
};
