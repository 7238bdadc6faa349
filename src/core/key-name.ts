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

/** What rotatedOutName appends, once or (names made before it) several times: `-old-`, a key id without its `k_`, maybe a count. */
const ROTATED_OUT_SUFFIXES = /(?:-old-[0-9a-f]{12}(?:-[0-9]+)?)+$/;

/**
 * The name a key rotated out takes (`NAME-old-<id>`), for the keys file and
 * the database alike: always a name by the rule, and still recognisable.
 * The base loses an earlier `-old-<id>` (rotating the replacement of a
 * rotated-out key gives `NAME-old-<its id>`, not an ever longer
 * `NAME-old-x-old-y`), then is cut so that the suffix fits in
 * KEY_NAME_MAX_LENGTH; a name from before the rule gets `_` for each
 * character the rule does not allow. The same key rotated out again gives
 * its name to its replacement, so it takes the next count: `NAME-old-<id>-2`.
 */
export function rotatedOutName(name: string, id: string): string {
  // Ids are `k_` and 12 hex digits (server/keys.ts newKeyId); a keys file edited by hand may hold any.
  const tag = `-old-${id
    .replace(/^k_/, '')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 24)}`;
  const base = name
    .replace(ROTATED_OUT_SUFFIXES, '')
    .replace(/[^A-Za-z0-9 ._-]/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '');
  const ended = /^(?:-([0-9]+))?$/.exec(name.includes(tag) ? name.slice(name.lastIndexOf(tag) + tag.length) : 'no');
  const suffix = ended ? `${tag}-${Number(ended[1] ?? 1) + 1}` : tag;
  return `${base.slice(0, KEY_NAME_MAX_LENGTH - suffix.length) || 'key'}${suffix}`;
}
