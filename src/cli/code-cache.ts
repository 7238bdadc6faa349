/**
 * A file of dist/ compiled with the V8 code cache the build made beside it,
 * and the build's two steps on that cache: bin/pdfsvc.js loads the one-file
 * CLIs with it (through dist/cli-route.cjs, which it loads anyway) and
 * src/cli/fontkit-file.ts loads fontkit with it. Built-ins come through
 * process.getBuiltinModule, inside the functions: dist/cli-route.cjs is loaded
 * by every command line, and require() adds a lookup and an ES module facade
 * (bench/README.md, startup3).
 */
import type { Script } from 'node:vm';
import { setV8Flags, underFlags } from '../core/v8-flags.js';

/** A compiled file of dist/ and its code cache. */
export interface CompiledFile {
  file: string;
  script: Script;
  cacheFile: string;
  /** Whether there was a cache, not the cache: its half a megabyte need not live as long as the run. */
  hadCache: boolean;
}

/**
 * Reads `file` and the cache `cacheFile` and compiles it with V8, which takes the cache only under the flags it
 * was made with, `flags`: set for the compilation only, or from then on with `keepFlags` (bin/pdfsvc.js: they are
 * the run's). Undefined when `file` does not exist (not built).
 */
export function compileWithCache(file: string, cacheFile: string, flags: string, { keepFlags = false } = {}): CompiledFile | undefined {
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  let source: string;
  try {
    // ASCII (the build sees to it): Latin-1 reads it as a plain copy, UTF-8 decoding costs more.
    source = fs.readFileSync(file, 'latin1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let cachedData: Buffer | undefined;
  try {
    // The build's runs that write the cache read it too: each adds what it compiled to the one before.
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // No cache (a build without one): V8 compiles from the source.
  }
  const { Script } = process.getBuiltinModule('node:vm') as typeof import('node:vm');
  const compile = () => new Script(source, { filename: file, cachedData });
  let script: Script;
  if (keepFlags) {
    setV8Flags(flags);
    script = compile();
  } else {
    script = underFlags(flags, compile);
  }
  return { file, script, cacheFile, hadCache: cachedData !== undefined };
}

/**
 * Runs a compiled file: the function Node's module loader would wrap a CommonJS file in (scripts/build.mjs,
 * COMMONJS_WRAPPER), compiled as it was read. Wrapping it here made a 620 KB string that V8 copied whole.
 */
export function runCommonJs(compiled: CompiledFile, require: NodeJS.Require, dirname: string): unknown {
  const loaded = { exports: {} };
  compiled.script.runInThisContext()(loaded.exports, require, loaded, compiled.file, dirname);
  return loaded.exports;
}

/**
 * For the build (scripts/build.mjs, PDFSVC_CODE_CACHE): writes the code cache after a run, each run adding what
 * it compiled to the one before, under the flags it is taken under; or checks that V8 took it.
 */
export function codeCacheStep(compiled: CompiledFile, flags: string): void {
  const mode = process.env.PDFSVC_CODE_CACHE;
  if (mode === 'write') {
    const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    const partial = `${compiled.cacheFile}.${process.pid}`;
    fs.writeFileSync(
      partial,
      underFlags(flags, () => compiled.script.createCachedData()),
    );
    fs.renameSync(partial, compiled.cacheFile);
  } else if (mode === 'check' && (!compiled.hadCache || compiled.script.cachedDataRejected)) {
    process.stderr.write(`pdfsvc: V8 did not take the code cache ${compiled.cacheFile}\n`);
    process.exitCode = 1;
  }
}
