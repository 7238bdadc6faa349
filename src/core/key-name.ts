/**
 * The one rule for an API key's name, given when a key is created or renamed
 * (the CLI, the keys file, the database and the dashboard's forms alike).
 * Names made before it (up to 100 characters, any but control characters)
 * keep working: they are listed, used, rotated and imported as they are.
 */
import { ValidationError } from './errors.js';

/** Longest name. */
export const KEY_NAME_MAX_LENGTH = 64;

/** The name as a pattern, written to mean the same as an HTML `pattern` attribute (which anchors it) and in JavaScript. */
export const KEY_NAME_PATTERN = `[A-Za-z0-9][A-Za-z0-9 ._\\-]{0,${KEY_NAME_MAX_LENGTH - 1}}`;

/** What a user reads when a name is refused. */
export const KEY_NAME_RULE = `a key name is 1 to ${KEY_NAME_MAX_LENGTH} letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit`;

const KEY_NAME = new RegExp(`^(?:${KEY_NAME_PATTERN})$`);

export function isKeyName(name: string): boolean {
  return KEY_NAME.test(name);
}

/** Returns `name` if it follows the rule; otherwise a 400 (exit status 2) on the field `name`. */
export function checkKeyName(name: string): string {
  if (!isKeyName(name)) throw ValidationError.field('name', `${JSON.stringify(name)} is not a key name: ${KEY_NAME_RULE}`);
  return name;
}
