/**
 * One of Node's internal bindings through `process.binding`, for what it
 * shares with a public module that would load more than is used
 * (core/v8-flags.ts and core/zlib-native.ts say what). Node warns once about
 * `process.binding` (DEP0111, for code that uses a binding's other
 * functions): that warning is silenced for the call. Undefined when this
 * Node has no `process.binding` or refuses the name.
 */
export function nodeBinding(name: string): Record<string, unknown> | undefined {
  const { noDeprecation } = process;
  try {
    process.noDeprecation = true;
    // Node's types no longer declare process.binding.
    return (process as NodeJS.Process & { binding(name: string): Record<string, unknown> | undefined }).binding(name) ?? undefined;
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = noDeprecation;
  }
}
