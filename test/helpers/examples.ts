/**
 * Requests made from the declarations' examples, so that tables of every
 * action follow the catalog: an action added to it is covered without
 * editing the tests.
 */
import { kebabName, type AnyAction } from '../../src/core/action.js';
import type { Field } from '../../src/core/fields.js';
import { fixture, fixturePath } from './pdf-tools.js';

/** A form part: text, or file bytes (a list for a repeated part). */
export type ExamplePart = string | Uint8Array | Uint8Array[];

/**
 * The action's required fields (with `every`, all its fields) with their
 * examples, as a form sends them (text, and fixture files as bytes). With
 * `file`, that document replaces the example of the input PDF (the first item
 * of a repeated part).
 */
export function exampleRequest(action: AnyAction, file?: Uint8Array, every = false): Record<string, ExamplePart> {
  const request: Record<string, ExamplePart> = {};
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    if (!field.required && !every) continue;
    if (field.kind !== 'file') {
      request[name] = String(field.example);
      continue;
    }
    const files = (typeof field.example === 'string' ? [field.example] : [...field.example]).map((example) => fixture(example));
    if (file && name === 'file') files[0] = file;
    request[name] = field.multiple ? files : files[0];
  }
  return request;
}

/** The password that opens an action's output, when the example request sets one (add_password; add_restrictions' user_password). */
export function examplePassword(request: Record<string, ExamplePart>): string | undefined {
  const password = request.password ?? request.user_password;
  return typeof password === 'string' ? password : undefined;
}

/**
 * The example request as command-line arguments: `file` (the input PDF, or a
 * path in place of its example) as positional arguments, other files as paths
 * of fixtures, values as `--name=value` (a value may start with a dash).
 */
export function exampleArguments(action: AnyAction, file: string, out: string): string[] {
  const positional: string[] = [];
  const options: string[] = [];
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    if (!field.required) continue;
    if (field.kind !== 'file') {
      options.push(`--${kebabName(name)}=${String(field.example)}`);
      continue;
    }
    const paths = (typeof field.example === 'string' ? [field.example] : [...field.example]).map((example) => fixturePath(example));
    if (name === 'file') positional.push(file, ...paths.slice(1));
    else options.push(`--${kebabName(name)}=${paths[0]}`);
  }
  return [action.name, ...options, ...positional, '-o', out];
}
