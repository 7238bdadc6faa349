/**
 * Each surface names fields and actions in its own words: the HTTP API (and
 * the library, the OpenAPI document, `--json`) says `owner_password` and
 * `remove_password`, the command line `--owner-password` and
 * `remove-password`. A text of a declaration refers to them as `{name}`; a
 * message that names one is a function of the words it is said in. The
 * command line's words are in cli/words.ts.
 */

export interface Words {
  /** A field of the running action, or an action, by its API name. */
  name(name: string): string;
  /** How a value is given: an HTTP client sends a field, a command line user gives an option. */
  give: string;
  /** What a value is called on this surface: a field, an option. */
  field: string;
  /** How an action is used: an HTTP client calls it, a command line user runs it. */
  call: string;
}

/** The HTTP API's words: the names as declared. */
export const API_WORDS: Words = { name: (name) => name, give: 'send', field: 'field', call: 'call' };

/** A message as an error carries it: plain text, or text that names fields or actions. */
export type Message = string | ((words: Words) => string);

export function say(message: Message, words: Words = API_WORDS): string {
  return typeof message === 'string' ? message : message(words);
}

/** A reference in a declaration's text: `{page_count}`. */
const REFERENCE = /\{([a-z][a-z0-9_]*)\}/g;

/** A declaration's text (summary, description, help) in a surface's words. */
export function sayText(text: string, words: Words = API_WORDS): string {
  return text.replace(REFERENCE, (_, name: string) => words.name(name));
}

/** The names a declaration's text refers to, for the test that each is a field of its action or an action. */
export function referencesIn(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1]!);
}

/**
 * Text a /v1/ server wrote in the API's words (remote mode's refusals), said again in `words`. The names of `names`
 * (the actions, the running action's fields) with an underscore are renamed: a one-word name (`angle`, `password`)
 * reads as a plain word in a message and is left as it is. The API's verbs are changed where messages put them: before
 * an action (`call remove_password`), after a semicolon (`; send one of …`), and as the word for a field
 * (`leave the field out`, `has no password field`).
 */
export function resay(text: string, words: Words, names: readonly string[]): string {
  const renamed = names.filter((name) => name.includes('_'));
  const byName = new Map(renamed.map((name) => [name, words.name(name)]));
  const { call, give, field } = API_WORDS;
  let said = text.replace(new RegExp(`; ${give} `, 'g'), `; ${words.give} `).replace(new RegExp(`\\b(the|password) ${field}\\b`, 'g'), `$1 ${words.field}`);
  if (renamed.length > 0) {
    const pattern = new RegExp(`(\\b${call} )?\\b(${renamed.join('|')})\\b`, 'g');
    said = said.replace(pattern, (_, verb: string | undefined, name: string) => `${verb ? `${words.call} ` : ''}${byName.get(name)}`);
  }
  return said;
}
