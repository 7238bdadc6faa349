/**
 * remove_password writes a stream whose dictionary holds no string from its
 * input bytes, only its data decrypted (security/decrypt.ts decryptRawStream),
 * except a dictionary whose bytes name what a reader does not decrypt as the
 * other streams (clear-text metadata, a crypt filter, a structure stream, or
 * a `#` that could spell one): that one is parsed. Judged by qpdf and
 * pdftotext on files qpdf encrypted.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { removePassword } from '../../../src/index.js';
import { fixturePath, qpdfCheck, tempFile } from '../../helpers/pdf-tools.js';
import { showEncryption, text } from '../../helpers/security.js';

const PASSWORD = 'raw streams';

/** outline.pdf encrypted by qpdf, its XMP metadata left in clear text. */
async function encryptedWithClearMetadata(bits: '128' | '256'): Promise<Uint8Array> {
  const out = tempFile(new Uint8Array(0));
  const aes = bits === '128' ? ['--use-aes=y'] : [];
  await execa('qpdf', ['--encrypt', PASSWORD, PASSWORD, bits, ...aes, '--cleartext-metadata', '--', fixturePath('outline.pdf'), out]);
  return new Uint8Array(readFileSync(out));
}

/** The data of the metadata stream (the catalog's /Metadata), as qpdf reads it. */
async function metadata(file: string | Uint8Array): Promise<string> {
  const path = typeof file === 'string' ? file : tempFile(file);
  const json = JSON.parse((await execa('qpdf', ['--json=2', '--json-key=qpdf', path])).stdout) as {
    qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
  };
  const catalogRef = (json.qpdf[1].trailer.value as { '/Root': string })['/Root'];
  const metadataRef = json.qpdf[1][`obj:${catalogRef}`].value?.['/Metadata'] as string;
  return (await execa('qpdf', [`--show-object=${metadataRef.split(' ')[0]}`, '--filtered-stream-data', path])).stdout;
}

describe.each(['128', '256'] as const)('remove_password, AES-%s with clear-text metadata', (bits) => {
  it('keeps the metadata as it was and decrypts every other stream', async () => {
    const input = await encryptedWithClearMetadata(bits);
    // The encrypted file holds the metadata in clear: decrypting it as the other streams would garble it.
    expect(Buffer.from(input).toString('latin1')).toContain('<x:xmpmeta');
    const out = await removePassword({ file: input, password: PASSWORD });
    expect((await showEncryption(out)).encrypted).toBe(false);
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    const expected = await metadata(fixturePath('outline.pdf'));
    expect(expected).toContain('<x:xmpmeta');
    expect(await metadata(out)).toBe(expected);
    expect(await text(out)).toBe(await text(new Uint8Array(readFileSync(fixturePath('outline.pdf')))));
  });
});
