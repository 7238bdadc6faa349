/**
 * Opening and saving documents under the rules every action shares
 * (DECISIONS.md §2): unreadable input, encrypted input and signed input are
 * refused with a message that says what to do; output drops what it no
 * longer reaches.
 */
import { ValidationError } from '../core/errors.js';
import { dictAt, arrayAt, dropUnreachable } from './objects.js';
import { pageEntries } from './page-tree.js';
import type { PdfPieces } from '../core/pdf-data.js';
import { hasObjectStreams, writeDocumentPieces } from './writer.js';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, restoreIndirectLengths } from './lib.js';
import { parseDecrypted, readEncryption, WrongPasswordError } from './security/decrypt.js';
import { authenticate } from './security/standard.js';
import { encryptContext, type EncryptOptions } from './security/encrypt.js';

export interface OpenOptions {
  /** The field the bytes came from, for messages (`file`, or `file` of merge). */
  field?: string;
  /** The action being run, for messages. */
  action: string;
  /** Which document of several (merge), 1-based, for messages. */
  position?: number;
  /** Accept encrypted input (remove_password, remove_restrictions decrypt it themselves). */
  allowEncrypted?: boolean;
  /** Accept signed input (remove_signatures, remove_password, remove_restrictions). */
  allowSigned?: boolean;
  /**
   * Decrypt encrypted input with this password (owner or user; '' for a
   * document that opens without one). A password that opens nothing throws
   * WrongPasswordError, which the action turns into its own message.
   */
  password?: string;
  /**
   * Read with the security handler's one-pass reader even without a password
   * (add_password, add_restrictions): it skips decoding cross-reference
   * stream entries. Encrypted input stays encrypted.
   */
  onePass?: boolean;
}

const UNREADABLE = 'could not be parsed; it may be invalid or corrupt';

/** pdf-lib reports recoverable damage with console.warn; a CLI must not print that. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  const log = console.log;
  console.warn = () => {};
  console.log = () => {};
  try {
    return await work();
  } finally {
    console.warn = warn;
    console.log = log;
  }
}

export async function loadPdf(bytes: Uint8Array, options: { password?: string } = {}): Promise<PDFDocument> {
  return quietly(() =>
    PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      // No yielding to the event loop: we run in a worker thread or the CLI.
      parseSpeed: Infinity,
      throwOnInvalidObject: false,
      password: options.password,
    }),
  );
}

function describe(options: OpenOptions): string {
  return options.position ? `document ${options.position}` : 'the document';
}

/** Loads a PDF for an action, or throws a ValidationError naming the field and what to do. */
export async function openDocument(bytes: Uint8Array, options: OpenOptions): Promise<PDFDocument> {
  const field = options.field ?? 'file';
  const which = options.position ? `document ${options.position} ` : '';
  if (!hasPdfHeader(bytes)) {
    throw ValidationError.field(field, `${which}${UNREADABLE} (no %PDF- header in its first 1024 bytes; is it a PDF?)`);
  }
  let doc: PDFDocument;
  try {
    doc = options.password !== undefined || options.onePass ? await loadDecrypted(bytes, options.password, field, describe(options)) : await loadPdf(bytes);
  } catch (err) {
    if (err instanceof ValidationError || err instanceof WrongPasswordError) throw err;
    throw ValidationError.field(field, `${which}${UNREADABLE}`);
  }
  // Before the page checks: an encrypted file's pages may sit in object streams that cannot be read without the key.
  if (doc.isEncrypted && !options.allowEncrypted) {
    const params = readEncryption(doc.context, field, describe(options));
    const needsPassword = !params || !authenticate(params, '');
    throw ValidationError.field(
      field,
      needsPassword
        ? `${describe(options)} is password-protected: call remove_password with its password first, then ${options.action}`
        : `${describe(options)} is encrypted with permission restrictions: call remove_restrictions first, then ${options.action}`,
    );
  }
  if (!(doc.catalog instanceof PDFDict) || !(doc.catalog.lookup(PDFName.of('Pages')) instanceof PDFDict)) {
    throw ValidationError.field(field, `${which}${UNREADABLE} (it has no document catalog with a page tree)`);
  }
  const damage = { missingKids: 0 };
  pageEntries(doc, damage);
  if (damage.missingKids > 0) {
    // Writing the pages that remain would silently lose the others.
    throw ValidationError.field(field, `${which}${UNREADABLE} (${damage.missingKids} page objects are missing; is the file truncated?)`);
  }
  if (!options.allowSigned) {
    const signatures = countSignatures(doc);
    if (signatures > 0) {
      throw ValidationError.field(
        field,
        `${describe(options)} is digitally signed (${signatures} signature${signatures > 1 ? 's' : ''}); any edit would invalidate ${signatures > 1 ? 'them' : 'it'}: call remove_signatures first, then ${options.action}`,
      );
    }
  }
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (obj instanceof PDFRawStream) restoreIndirectLengths(obj);
  }
  return doc;
}

/** Readers accept the header anywhere in the first 1024 bytes (junk before it is common). */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length, 1024) - 5;
  for (let i = 0; i <= limit; i++) {
    if (bytes[i] === 0x25 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46 && bytes[i + 4] === 0x2d) return true;
  }
  return false;
}

/** One parse with our security handler: decrypted with `password` when the file is encrypted (see security/decrypt.ts). */
async function loadDecrypted(bytes: Uint8Array, password: string | undefined, field: string, which: string): Promise<PDFDocument> {
  const { context } = await quietly(() => parseDecrypted(bytes, password, field, which));
  return new (PDFDocument as unknown as new (context: unknown, ignoreEncryption: boolean, updateMetadata: boolean) => PDFDocument)(context, true, false);
}

/**
 * Signature fields that carry a value (a signature or a document time stamp),
 * anywhere in the field tree. An empty signature field is not a signature.
 */
export function countSignatures(doc: PDFDocument): number {
  const acroForm = dictAt(doc.catalog, 'AcroForm');
  const fields = acroForm && arrayAt(acroForm, 'Fields');
  if (!fields) return 0;
  let count = 0;
  const seen = new Set<PDFDict>();
  const visit = (node: PDFDict, inheritedType: PDFName | undefined) => {
    if (seen.has(node)) return;
    seen.add(node);
    const type = (node.lookup(PDFName.of('FT')) as PDFName | undefined) ?? inheritedType;
    if (type === PDFName.of('Sig') && node.lookup(PDFName.of('V')) instanceof PDFDict) count++;
    const kids = arrayAt(node, 'Kids');
    if (kids) for (const kid of kids.asArray()) {
      const dict = doc.context.lookup(kid);
      if (dict instanceof PDFDict) visit(dict, type);
    }
  };
  for (const item of fields.asArray()) {
    const dict = doc.context.lookup(item);
    if (dict instanceof PDFDict) visit(dict, undefined);
  }
  return count;
}

export interface SaveOptions {
  /** Keep every object, reachable or not (default: drop the unreachable ones). */
  keepUnreachable?: boolean;
  /** Encrypt the output (add_password, add_restrictions): every string and stream, see security/encrypt.ts. */
  encrypt?: EncryptOptions;
}

/** Serializes a document the way every action writes its output. */
export async function saveDocument(doc: PDFDocument, options: SaveOptions = {}): Promise<Uint8Array> {
  return (await saveDocumentPieces(doc, options)).join();
}

/** The same, without joining the output into one buffer (see PdfPieces). */
export async function saveDocumentPieces(doc: PDFDocument, options: SaveOptions = {}): Promise<PdfPieces> {
  // As qpdf does by default: object streams in, object streams out.
  const objectStreams = !options.encrypt && hasObjectStreams(doc.context);
  if (!options.keepUnreachable) dropUnreachable(doc.context);
  // pdf-lib's own save would also regenerate form field appearances (the
  // output must look as the input did) and copy stream data byte by byte.
  await doc.flush();
  if (options.encrypt) encryptContext(doc.context, options.encrypt);
  return writeDocumentPieces(doc.context, { objectStreams });
}

export { PDFArray, PDFRef };
