/**
 * Byte identity over the real documents: every page action, the four
 * splits, the text watermark (a Greek line, so through fontkit and a Noto
 * subset) and signature removal, run by the build over every file of
 * ../shared/corpus, must write the bytes test/corpus/output-hashes.json
 * recorded (scripts/corpus-hashes.mjs: a hash per output, or of a
 * refusal's message). The file was made by the build at c7d87ad, before
 * pdfsvc owned its PDF objects; a refactor must not change any of it. A
 * change that alters outputs on purpose makes the file anew
 * (`node scripts/corpus-hashes.mjs --out test/corpus/output-hashes.json`)
 * and explains every difference in its commit.
 */
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { hasCorpus, repo } from './manifest.js';

const BASELINE = `${repo}test/corpus/output-hashes.json`;

describe.skipIf(!hasCorpus)('corpus: byte identity of the outputs', () => {
  it('every file and job writes the bytes the baseline recorded', async () => {
    const { _made_with: madeWith } = JSON.parse(readFileSync(BASELINE, 'utf8')) as { _made_with: { node: string; zlib: string } };
    // Object streams are zlib's bytes: another zlib writes other (equally valid) bytes, and the baseline must be made anew.
    expect(process.versions.zlib, `the baseline was made with zlib ${madeWith.zlib} (Node ${madeWith.node}): make it anew on this Node`).toBe(madeWith.zlib);
    const run = await execa(process.execPath, ['scripts/corpus-hashes.mjs', '--compare', BASELINE, '--timeout', '600'], { cwd: repo, reject: false });
    // The differences, file by file and job by job, when there are any.
    expect(run.stdout.trim()).toBe('no difference');
    expect(run.exitCode, run.stderr).toBe(0);
  }, 1_800_000);
});
