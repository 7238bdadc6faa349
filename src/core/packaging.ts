/**
 * Packaging several output documents (split actions) as one body: a ZIP
 * archive, the contract's JSON envelope, or multipart/mixed (docs/contract.md,
 * "Split outputs"). Shared by the CLI (`--format`) and the server (`Accept`).
 */
import { randomBytes } from 'node:crypto';
import type { NamedDocument } from './action.js';

export const PACKAGINGS = ['zip', 'json', 'multipart'] as const;
export type Packaging = (typeof PACKAGINGS)[number];

export const MEDIA_TYPES: Record<Packaging, string> = {
  zip: 'application/zip',
  json: 'application/json',
  multipart: 'multipart/mixed',
};

export interface PackagedBody {
  contentType: string;
  body: Uint8Array;
}

export async function packageDocuments(documents: NamedDocument[], packaging: Packaging): Promise<PackagedBody> {
  switch (packaging) {
    case 'zip': {
      const { default: AdmZip } = await import('adm-zip');
      const zip = new AdmZip();
      for (const doc of documents) zip.addFile(doc.name, Buffer.from(doc.bytes.buffer, doc.bytes.byteOffset, doc.bytes.byteLength));
      return { contentType: MEDIA_TYPES.zip, body: zip.toBuffer() };
    }
    case 'json': {
      const envelope = {
        documents: documents.map((doc) => ({
          name: doc.name,
          content: Buffer.from(doc.bytes.buffer, doc.bytes.byteOffset, doc.bytes.byteLength).toString('base64'),
          content_type: 'application/pdf',
        })),
      };
      return { contentType: MEDIA_TYPES.json, body: Buffer.from(JSON.stringify(envelope)) };
    }
    case 'multipart': {
      const boundary = `pdfsvc-${randomBytes(12).toString('hex')}`;
      const chunks: Buffer[] = [];
      for (const doc of documents) {
        chunks.push(
          Buffer.from(
            `--${boundary}\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="${doc.name}"\r\nContent-Length: ${doc.bytes.byteLength}\r\n\r\n`,
          ),
          Buffer.from(doc.bytes.buffer, doc.bytes.byteOffset, doc.bytes.byteLength),
          Buffer.from('\r\n'),
        );
      }
      chunks.push(Buffer.from(`--${boundary}--\r\n`));
      return { contentType: `multipart/mixed; boundary=${boundary}`, body: Buffer.concat(chunks) };
    }
  }
}
