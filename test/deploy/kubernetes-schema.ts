/**
 * Validates Kubernetes objects against the API's own types, offline.
 *
 * The schemas are the `kubernetes-types` package: TypeScript declarations
 * generated from the Kubernetes OpenAPI definitions, one package version per
 * Kubernetes minor version (KUBERNETES_VERSION). The validator is the
 * TypeScript compiler: each object is written out as an object literal typed
 * as its kind and type-checked. That is strict the way `kubectl apply
 * --validate=strict` is: TypeScript's excess-property check rejects any field
 * the type does not declare, at every depth (what `additionalProperties:
 * false` does in a JSON schema), and required fields, value types and the
 * apiVersion/kind pairs are checked too.
 *
 * Why not JSON schemas with ajv: no npm package ships the Kubernetes JSON
 * schemas, and kubernetes-models' validators accept unknown fields (its
 * Deployment validator passes `spec.replica: 2`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const TYPES_DIR = dirname(require.resolve('kubernetes-types/package.json'));
/** Where the generated sources seem to be (they are never written): beside node_modules, so that imports resolve. */
const VIRTUAL_DIR = dirname(dirname(TYPES_DIR));

/** The Kubernetes minor version whose API the installed kubernetes-types describes (its major.minor). */
export const KUBERNETES_VERSION: string = (JSON.parse(readFileSync(join(TYPES_DIR, 'package.json'), 'utf8')) as { version: string }).version
  .split('.')
  .slice(0, 2)
  .join('.');

export interface KindSchema {
  /** The module that declares it, e.g. kubernetes-types/apps/v1. */
  module: string;
  /** The declared type, which is the kind's name. */
  type: string;
}

/**
 * Where kubernetes-types declares `apiVersion`/`kind`, or undefined when it
 * declares no such kind (then the object cannot be validated, and must fail).
 * The core group is `v1` (core/v1); a group's directory is its first DNS
 * label (policy/v1, networking.k8s.io/v1 → networking/v1).
 */
export function schemaFor(apiVersion: unknown, kind: unknown): KindSchema | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const parts = apiVersion.split('/');
  if (parts.length > 2 || parts.some((part) => !/^[a-z0-9.-]+$/.test(part))) return undefined;
  const [group, version] = parts.length === 1 ? ['core', parts[0]!] : [parts[0]!.split('.')[0]!, parts[1]!];
  const file = join(TYPES_DIR, group, `${version}.d.ts`);
  if (!existsSync(file)) return undefined;
  // That the kind belongs to this apiVersion is checked with the rest: its type says apiVersion?: "apps/v1".
  if (!readFileSync(file, 'utf8').includes(`export interface ${kind} {`)) return undefined;
  return { module: `kubernetes-types/${group}/${version}`, type: kind };
}

const LIBRARY_FILES = new Map<string, ts.SourceFile>();

export interface DocumentResult {
  /** Position in the input list, from 0. */
  index: number;
  /** kind/name, for messages. */
  label: string;
  schema: KindSchema | undefined;
  /** Empty when the object is valid. */
  errors: string[];
}

/**
 * Each object, type-checked as its kind; an object with no known kind gets an
 * error, never a pass. TypeScript stops at the first wrong field of an
 * object, so a document with several shows one at a time; it fails either way.
 */
export function validateObjects(objects: unknown[]): DocumentResult[] {
  const sources = new Map<string, string>();
  const results: DocumentResult[] = objects.map((object, index) => {
    const record = (object && typeof object === 'object' ? object : {}) as Record<string, unknown>;
    const name = (record.metadata as { name?: unknown } | undefined)?.name;
    const label = `${String(record.kind)}/${String(name)}`;
    const schema = schemaFor(record.apiVersion, record.kind);
    if (!schema)
      return {
        index,
        label,
        schema,
        errors: [
          `no schema for apiVersion ${JSON.stringify(record.apiVersion)}, kind ${JSON.stringify(record.kind)} in kubernetes-types ${KUBERNETES_VERSION}`,
        ],
      };
    // Optional in the types (generated names exist), but kubectl apply needs one.
    const errors = typeof name === 'string' && name !== '' ? [] : ['metadata.name is missing'];
    sources.set(
      join(VIRTUAL_DIR, `kubernetes-doc${index}.ts`),
      `import type { ${schema.type} as Kind } from '${schema.module}';\nexport const object: Kind = ${JSON.stringify(object, null, 2)};\n`,
    );
    return { index, label, schema, errors };
  });
  if (sources.size === 0) return results;

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
    lib: ['lib.es2022.d.ts'],
    // kubernetes-types itself is not what is checked, and checking it costs seconds.
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getCurrentDirectory = () => VIRTUAL_DIR;
  host.fileExists = (file) => sources.has(file) || fileExists(file);
  host.readFile = (file) => sources.get(file) ?? readFile(file);
  host.getSourceFile = (file, language, onError) => {
    const text = sources.get(file);
    if (text !== undefined) return ts.createSourceFile(file, text, language);
    // TypeScript's lib and kubernetes-types never change: parse them once for every call.
    let parsed = LIBRARY_FILES.get(file);
    if (!parsed) {
      parsed = getSourceFile(file, language, onError);
      if (parsed) LIBRARY_FILES.set(file, parsed);
    }
    return parsed;
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName;
    const index = file ? Number(/kubernetes-doc(\d+)\.ts$/.exec(file)?.[1]) : Number.NaN;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const result = results[index];
    // A diagnostic outside the generated files (a broken kubernetes-types install) fails every document.
    if (!result) {
      for (const each of results) each.errors.push(message);
      continue;
    }
    const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
    const at = diagnostic.file!.text.split('\n')[line]!.trim();
    result.errors.push(`${message} (at ${at})`);
  }
  return results;
}
