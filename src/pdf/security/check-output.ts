/**
 * The check every encrypting action makes of its own output before it
 * answers (an output whose own password did not open it, because
 * the key was derived from an /ID that no reader could see, lost a user's
 * document). The output is read back by this project's reader as another
 * reader would read it, from its last bytes, and opened with each password
 * it was given.
 *
 * What it proves:
 * - the file is read from `startxref` through its cross-reference table to
 *   its trailer without any repair;
 * - the trailer holds /Encrypt, a dictionary, and /ID, a direct array of two
 *   byte strings: the only inputs a reader has to derive the key from;
 * - the user password opens it, and the owner password opens it as the
 *   owner, each giving exactly the key the writer encrypted with: so the key
 *   follows from what was written, not from what the writer had in memory;
 * - the first object with strings and the first stream of at most 64 KB the
 *   writer met (the probes), found through the table and decrypted as any
 *   reader decrypts them, give back their plaintext: objects were encrypted
 *   with that key under their own numbers, and the table leads to them.
 * What it leaves out, to stay cheap: decrypting every object. Each went
 * through the same code as the probes; reading them all again would cost as
 * much as writing them. The table is parsed whole (its size is the number of
 * objects, not of bytes); no stream data is read but the probe's. A document
 * with no string and no small stream has no probe: its key is still checked.
 */
import { OutputCheckError } from '../../core/errors.js';
import { PdfError } from '../errors.js';
import type { PdfPieces } from '../../core/pdf-data.js';
import { PDFDict, PDFName, PDFRawStream, PDFRef, PDFStream } from '../model/primitives.js';
import { openContext } from '../reader/object-table.js';
import { PdfSyntaxError } from '../reader/syntax.js';
import { decryptWith, readEncryption } from './decrypt.js';
import { plainStrings, type Encryption, type ExpectedEncryption } from './encrypt.js';
import { directFileId } from './file-id.js';
import { authenticate, authenticateOwner, sameBytes } from './standard.js';

/** Throws OutputCheckError, naming the cause, unless the output opens as it must (see the module comment). */
export function checkEncryptedOutput(pdf: PdfPieces, encryption: Encryption): void {
  const fault = faultOf(pdf, encryption.expected);
  if (fault) throw new OutputCheckError(fault);
}

function faultOf(pdf: PdfPieces, expected: ExpectedEncryption): string | undefined {
  try {
    const { context, table } = openContext(pdf.lazyView());
    if (table.recovered) return 'its cross-reference table does not lead to its objects';
    if (!directFileId(table.trailer.get(PDFName.of('ID')))) return 'its trailer /ID is not a direct array of two byte strings';
    const encryptEntry = table.trailer.get(PDFName.of('Encrypt'));
    if (!(encryptEntry instanceof PDFRef) || !(context.lookup(encryptEntry) instanceof PDFDict)) return 'its trailer has no encryption dictionary';
    const params = readEncryption(context);
    if (!params) return 'its trailer has no encryption dictionary';

    const { userPassword, ownerPassword } = expected.options;
    // The slow derivations of the same bytes the action made are taken from its memo (standard.ts Derivations).
    const ownerKey = authenticateOwner(params, ownerPassword, expected.memo);
    const userKey = authenticate(params, userPassword, expected.memo);
    if (!userKey) return userPassword ? 'its user (open) password does not open it' : 'it does not open without a password, as it should';
    if (!sameBytes(userKey, expected.fileKey)) return 'the key its user password gives is not the key it was encrypted with';
    if (!ownerKey) return 'its owner password does not open it as the owner';
    if (!sameBytes(ownerKey, expected.fileKey)) return 'the key its owner password gives is not the key it was encrypted with';

    decryptWith(context, table, params, userKey);
    for (const probe of expected.probes) {
      const object = context.lookup(probe.ref);
      if (object === undefined) return `object ${probe.ref.objectNumber} cannot be read back`;
      const strings = plainStrings(object instanceof PDFStream ? object.dict : object);
      const same = strings.length === probe.strings.length && strings.every((bytes, i) => Buffer.from(bytes).equals(probe.strings[i]));
      const data = probe.data && object instanceof PDFRawStream ? object.getContents() : undefined;
      if (!same || (probe.data && !(data && Buffer.from(data).equals(probe.data)))) {
        return `object ${probe.ref.objectNumber} does not decrypt to what was written`;
      }
    }
    if (table.recovered) return 'its cross-reference table does not lead to its objects';
    return undefined;
  } catch (err) {
    // Messages of the reader's own errors describe structure, never content.
    const reason =
      err instanceof PdfError ? `the output ${err.predicate}` : err instanceof PdfSyntaxError ? err.message : err instanceof Error ? err.name : String(err);
    return `it cannot be read back (${reason})`;
  }
}
