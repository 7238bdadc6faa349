import { execa } from 'execa';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../server/spawn.js';

/**
 * A user's TypeScript project in a temporary folder, as a third party would set one up: an ES module
 * package whose main.ts is checked strictly for the web platform (DOM libraries, no Node types), with
 * `files` written beside it and `links`, node_modules/<name> → a folder of this checkout.
 */
export function consumerProject(files: Record<string, string>, links: Record<string, string>): string {
  const dir = tempDir('pdfsvc-consumer-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ['main.ts'],
    }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  mkdirSync(join(dir, 'node_modules'));
  for (const [name, target] of Object.entries(links)) symlinkSync(join(ROOT, target), join(dir, 'node_modules', name), 'dir');
  return dir;
}

/** `tsc -p` on such a project, with this checkout's TypeScript. */
export const typeCheck = (dir: string) => execa(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { reject: false });
