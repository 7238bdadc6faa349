// Writes src/pdf/watermark/depth-scan-wasm.ts: the WebAssembly module
// assembled from src/pdf/watermark/depth-scan.wat (wabt's wat2wasm, built to
// JavaScript: no native tool to install), as base64. Run again after editing
// the .wat: `node scripts/make-depth-scan.mjs`. test/pdf/watermark/balance.test.ts
// checks that the file is what the .wat assembles to.
import { readFileSync, writeFileSync } from 'node:fs';
import wabt from 'wabt';

const source = new URL('../src/pdf/watermark/depth-scan.wat', import.meta.url);
const target = new URL('../src/pdf/watermark/depth-scan-wasm.ts', import.meta.url);

/** The module's bytes, as base64, assembled from the .wat. */
export async function depthScanBase64() {
  const module = (await wabt()).parseWat('depth-scan.wat', readFileSync(source, 'utf8'), { simd: true });
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

/** The TypeScript module holding them. */
export function depthScanModule(base64) {
  const lines = base64.match(/.{1,120}/g).map((line) => `  '${line}'`);
  return [
    '// Made by scripts/make-depth-scan.mjs from depth-scan.wat; do not edit.',
    '',
    '/** The WebAssembly module of depth-scan.wat, base64. */',
    `export const DEPTH_SCAN_WASM =\n${lines.join(' +\n')};`,
    '',
  ].join('\n');
}

if (process.argv[1] === new URL(import.meta.url).pathname) writeFileSync(target, depthScanModule(await depthScanBase64()));
