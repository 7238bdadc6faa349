// Lists the exports of src/ and of the test helpers that no other file uses,
// and exits 1 when there is one (part of `npm run lint`). An export nothing
// imports is dead code, or a name that says "used elsewhere" and is not; a
// value used only in its own file loses its `export`. A type used in its own
// file may stay exported: it names part of an exported signature.
//
// TypeScript's own program and checker (no extra dependency), so imports,
// re-exports, `import('x').T` types, namespace imports (`catalog.x`),
// `(await import('./x.js')).name` and `const { name } = await import(...)` all
// count. A dynamic import whose result is used whole (`() => import('./t.js')`)
// counts as a use of every export of that module. Test files count as users.
import ts from 'typescript';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Entry files and the names they offer to code outside this program: the
// package's exports, bin/pdfsvc.js, the worker threads (by file name), the
// modules the build puts in a package's place (scripts/build.mjs) and
// vitest's global set-up (named in vitest.config.ts).
const ENTRIES = new Map(
  Object.entries({
    'src/index.ts': '*',
    'src/client/index.ts': '*',
    'src/cli/main.ts': ['main'],
    'src/cli/action-entry.ts': ['main', 'commandNames'],
    'src/cli/cli-route.ts': ['oneFileCliFor', 'builtinsToLoadFirst', 'ONE_FILE_CLI_V8_FLAGS', 'codeCacheStep', 'compileWithCache', 'runCommonJs'],
    'src/server/worker.ts': ['default'],
    'src/cli/batch-worker.ts': ['default'],
    'src/cli/progress-worker.ts': ['default'],
    'src/cli/fontkit-file.ts': ['default'],
    'test/helpers/run-home.ts': ['default'],
  }).map(([file, names]) => [resolve(root, file), names]),
);

const configPath = resolve(root, 'tsconfig.json');
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root, {
  noEmit: true,
  rootDir: root,
});
// An action's tests live in its folder (src/actions/<action>/<action>.test.ts), the others under test/.
const testFiles = [
  ...ts.sys.readDirectory(resolve(root, 'test'), ['.ts'], undefined, undefined),
  ...ts.sys.readDirectory(resolve(root, 'src'), ['.ts'], undefined, undefined).filter((file) => file.endsWith('.test.ts')),
];
const program = ts.createProgram({ rootNames: [...config.fileNames, ...testFiles], options: config.options });
const checker = program.getTypeChecker();

const ours = (file) => !file.isDeclarationFile && !relative(root, file.fileName).startsWith('..') && !file.fileName.includes('/node_modules/');
const sourceFiles = program.getSourceFiles().filter(ours);

const original = (symbol) => (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
const exportsOf = (file) => {
  const symbol = checker.getSymbolAtLocation(file);
  return symbol ? checker.getExportsOfModule(symbol) : [];
};
const fileOf = (symbol) => symbol?.declarations?.[0]?.getSourceFile();

/** Symbols used from a file other than the one declaring them. */
const used = new Set();
/** Symbols used in their own file (besides being declared there). */
const usedLocally = new Set();
const use = (symbol, from) => {
  const target = original(symbol);
  if (!target) return;
  if (fileOf(target) !== from) used.add(target);
  else usedLocally.add(target);
};

for (const file of sourceFiles) {
  const offered = ENTRIES.get(file.fileName);
  if (offered) for (const symbol of exportsOf(file)) if (offered === '*' || offered.includes(symbol.name)) used.add(original(symbol));
  const visit = (node) => {
    if (ts.isShorthandPropertyAssignment(node)) {
      // `{ layer }`: the variable, not the new object's property.
      use(checker.getShorthandAssignmentValueSymbol(node), file);
    } else if (ts.isIdentifier(node)) {
      // A declaration's own name is no use of it.
      if (ts.isDeclaration(node.parent) && node.parent.name === node) return;
      use(checker.getSymbolAtLocation(node), file);
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      // `const { name } = await import('./x.js')`: the property of the module object.
      const key = node.propertyName ?? node.name;
      if (ts.isIdentifier(key)) use(checker.getTypeAtLocation(node.parent).getProperty(key.text), file);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      let parent = node.parent;
      if (ts.isAwaitExpression(parent)) parent = parent.parent;
      while (ts.isParenthesizedExpression(parent)) parent = parent.parent;
      const picked = ts.isPropertyAccessExpression(parent) || (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name));
      if (!picked && specifier && ts.isStringLiteralLike(specifier)) {
        const module = checker.getSymbolAtLocation(specifier);
        if (module) for (const symbol of checker.getExportsOfModule(module)) use(symbol, file);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const unused = [];
for (const file of sourceFiles) {
  const path = relative(root, file.fileName);
  if (!(path.startsWith('src/') || (path.startsWith('test/') && !path.endsWith('.test.ts')))) continue;
  for (const symbol of exportsOf(file)) {
    const target = original(symbol);
    // Re-exports are judged where they are declared.
    if (fileOf(target) !== file || used.has(target)) continue;
    const local = usedLocally.has(target);
    // A type used in its own file names a part of an exported signature
    // (an options object, a result); callers may need to name it.
    const typeOnly = target.flags & ts.SymbolFlags.Type && !(target.flags & ts.SymbolFlags.Value);
    if (local && typeOnly) continue;
    const at = symbol.declarations?.[0];
    const line = at ? file.getLineAndCharacterOfPosition(at.getStart()).line + 1 : 0;
    unused.push(`${path}:${line} ${symbol.name}: ${local ? 'used only in its own file (drop `export`)' : 'used nowhere (delete it)'}`);
  }
}

if (unused.length > 0) {
  console.error(`${unused.length} exports that no other file uses:`);
  for (const line of unused) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`unused exports: none (${sourceFiles.length} files)`);
