/**
 * One of Node's internal bindings through `process.binding`, for what it
 * shares with a public module that would load more than is used
 * (core/v8-flags.ts and core/zlib-native.ts say what). Node warns once about
 * `process.binding` (DEP0111, for code that uses a binding's other
 * functions): that warning is silenced for the call. Undefined when this
 * Node has no `process.binding` or refuses the name.
 */
export function nodeBinding(name: string): Record<string, unknown> | undefined {
  // Under `--no-deprecation` (NODE_OPTIONS included) Node makes process.noDeprecation true and read-only:
  // there is nothing to silence then, and assigning it threw, which ended every one-action run.
  const silence = !process.noDeprecation;
  try {
    if (silence) process.noDeprecation = true;
    // Node's types no longer declare process.binding.
    return (process as NodeJS.Process & { binding(name: string): Record<string, unknown> | undefined }).binding(name) ?? undefined;
  } catch {
    return undefined;
  } finally {
    if (silence) process.noDeprecation = false;
  }
}
