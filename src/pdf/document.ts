/**
 * Opening and saving documents under the rules every action shares
 * (docs/contract.md, "Inputs and outputs"): unreadable input, encrypted input and signed input are
 * refused with a PdfError that says why (the action adds what to do); output
 * drops what it no longer reaches.
 */
import { PdfError } from './errors.js';
import { dictAt, arrayAt, type RefTargets } from './model/objects.js';
import { findCatalog, hasPageTree } from './structure/find-catalog.js';
import { damageWarnings, newPageTreeDamage, pageEntries, soundPageTree } from './structure/page-tree.js';
import { walkFieldTree } from './structure/trees.js';
import { FieldTreeIndex, unsignedKidsInBytes } from './structure/forms.js';
import type { PdfPieces } from '../core/pdf-data.js';
import { hasObjectStreams, writeDocumentPieces } from './writer/writer.js';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFRef } from './model/primitives.js';
import { objectTableOf, openContext, readOnly } from './reader/object-table.js';
import { PdfSyntaxError } from './reader/syntax.js';
import { openDecrypted, readEncryption } from './security/decrypt.js';
import { authenticate } from './security/standard.js';
import { prepareEncryption, type EncryptOptions } from './security/encrypt.js';
import { checkEncryptedOutput } from './security/check-output.js';

export interface OpenOptions {
  /** Accept encrypted input (remove_password, remove_restrictions decrypt it themselves). */
  allowEncrypted?: boolean;
  /** Accept signed input (remove_signatures, remove_password, remove_restrictions). */
  allowSigned?: boolean;
  /**
   * Decrypt encrypted input with this password (owner or user; '' for a
   * document that opens without one). A password that opens nothing throws
   * a PdfError `wrong_password`, which the action turns into its own message.
   */
  password?: string;
  /** Receives damage the document is read through (a repaired page tree, …), now or while it is read lazily later. */
  onWarning?: (message: string) => void;
  /**
   * The action reads its pages through pageEntriesKeeping (extract, remove,
   * reverse, reorder, rotate, the passwords and restrictions): a sound page
   * tree is not walked page by page when the document is opened; the pages
   * kept are read and repaired later, and only those whose bytes show
   * something to repair. Not for the splits: they read
   * every page, and the walk at opening costs them less (bench/README.md,
   * "Long text: pages left as their bytes").
   */
  fewPages?: boolean;
  /**
   * The signature check's walk of the field tree is remembered (forms.ts,
   * FieldTreeIndex), for an action that then takes some pages' widgets out
   * of the form (remove_pages): pruneFields finds them from it rather than
   * walking the tree again.
   */
  indexFields?: boolean;
  /** Told the page count of a document accepted for work (the server's pages processed). */
  onPagesRead?: (pages: number) => void;
}

const UNREADABLE = 'could not be parsed; it may be invalid or corrupt';
/** A document past a reading limit: which one follows in parentheses, so that the user knows which limit and why. */
const PAST_LIMIT = 'passes a limit of what this service reads, far beyond any real document; it is too complex to process or looks malicious';

/**
 * Opens a PDF for reading: objects are parsed when first looked up
 * (reader/object-table.ts). Throws PdfSyntaxError when no document can be
 * found in the bytes, even by scanning them.
 */
export function loadPdf(bytes: Uint8Array): PDFDocument {
  const { context } = openContext(bytes);
  return newDocument(context);
}

/** The document over a context: its catalog is what the trailer's /Root leads to. */
function newDocument(context: PDFDocument['context']): PDFDocument {
  const catalog = context.lookup(context.trailerInfo.Root);
  return { context, catalog: catalog as PDFDict, isEncrypted: context.lookup(context.trailerInfo.Encrypt) !== undefined };
}

/** A damaged document: `could not be parsed; …`, with the reason in parentheses. */
const damaged = (reason?: string) => new PdfError('damaged', `${UNREADABLE}${reason ? ` (${reason})` : ''}`, 'bare');

/** Loads a PDF for an action, or throws a PdfError saying what is wrong with it. */
export async function openDocument(bytes: Uint8Array, options: OpenOptions = {}): Promise<PDFDocument> {
  // Said as such: "no %PDF- header" sent the user looking for damage in what was an empty pipe or an empty file.
  if (bytes.byteLength === 0) throw damaged('it is empty: 0 bytes');
  // qpdf reads a file without a header when it finds a document in it; so do we, and say so only when there is none.
  const noHeader = hasPdfHeader(bytes) ? '' : 'no %PDF- header in its first 1024 bytes; is it a PDF?';
  let doc: PDFDocument;
  try {
    doc = options.password !== undefined ? loadDecrypted(bytes, options.password) : loadPdf(bytes);
  } catch (err) {
    if (!(err instanceof PdfSyntaxError) && !(err instanceof RangeError)) throw err;
    throw damaged(noHeader);
  }
  // An /Encrypt that leads to something other than a dictionary cannot be honoured, and writing it back
  // would make an output no reader opens. (One that leads nowhere is null: the reader left it out.)
  const encryptEntry = doc.context.trailerInfo.Encrypt;
  if (encryptEntry !== undefined && !(doc.context.lookup(encryptEntry) instanceof PDFDict)) {
    throw damaged('its encryption dictionary, /Encrypt, is damaged: the document can be neither decrypted nor read as it is');
  }
  // Before the page checks: an encrypted file's pages may sit in object streams that cannot be read without the key.
  if (doc.isEncrypted && !options.allowEncrypted) {
    const params = readEncryption(doc.context);
    const needsPassword = !params || !authenticate(params, '');
    throw needsPassword ? new PdfError('encrypted', 'is password-protected') : new PdfError('restricted', 'is encrypted with permission restrictions');
  }
  // A catalog past a reading limit (nested 100,000 deep) is hostile, not damaged: refused below, naming the limit.
  const found = hasPageTree(doc) || objectTableOf(doc.context)?.limitPassed ? undefined : findCatalog(doc);
  if (found) doc = found.doc;
  if (!(doc.catalog instanceof PDFDict) || !(doc.catalog.lookup(PDFName.of('Pages')) instanceof PDFDict)) {
    const limit = objectTableOf(doc.context)?.limitPassed;
    if (limit) throw new PdfError('limit', `${PAST_LIMIT} (${limit}, so no document catalog with a page tree can be read)`, 'bare');
    throw damaged(
      `${noHeader ? `${noHeader.replace('; is it a PDF?', '')}, and ` : ''}it has no document catalog with a page tree${noHeader ? '; is it a PDF?' : ''}`,
    );
  }
  // Damage read through is reported to whoever runs the action; a refused file says only why.
  const warn = options.onWarning;
  if (warn) objectTableOf(doc.context)?.reportTo(warn);
  if (found) warn?.(`${found.repair}; check the output`);
  // An /Info that is no dictionary (an integer, in a real file) makes qpdf warn about every output that keeps it.
  const info = doc.context.trailerInfo.Info;
  if (info !== undefined && !readOnly(doc.context, () => doc.context.lookup(info) instanceof PDFDict)) doc.context.trailerInfo.Info = undefined;
  // qpdf --check warns about a catalog whose /Type is missing or wrong ("setting … to /Catalog"): so do we set it.
  if (doc.catalog.lookup(PDFName.of('Type')) !== PDFName.of('Catalog')) doc.catalog.set(PDFName.of('Type'), PDFName.of('Catalog'));
  const damage = newPageTreeDamage();
  // An action that keeps a few pages reads only those, when the tree is sound (page-tree.ts, soundPageTree).
  const sound = options.fewPages ? soundPageTree(doc) : undefined;
  const pageCount = sound ? sound.refs.length : pageEntries(doc, damage).length;
  if (damage.droppedKids > 0 && objectTableOf(doc.context)?.recovered) {
    // Kids lost in a file whose table had to be rebuilt: a truncated file, whose remaining pages alone would lose the others silently.
    throw damaged(`${damage.droppedKids} page objects are missing; is the file truncated?`);
  }
  for (const warning of damageWarnings(damage)) warn?.(warning);
  if (!options.allowSigned) {
    // Only looks: the fields it parses are forgotten after (see ObjectTable.readOnly).
    const index = options.indexFields ? new FieldTreeIndex(doc) : undefined;
    const signatures = readOnly(doc.context, () => countSignatures(doc, index));
    index?.keep();
    if (signatures > 0) {
      throw new PdfError(
        'signed',
        `is digitally signed (${signatures} signature${signatures > 1 ? 's' : ''}); any edit would invalidate ${signatures > 1 ? 'them' : 'it'}`,
      );
    }
  }
  // Only documents accepted for work count as pages processed.
  options.onPagesRead?.(pageCount);
  return doc;
}

/** Readers accept the header anywhere in the first 1024 bytes (junk before it is common). */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length, 1024) - 5;
  for (let i = 0; i <= limit; i++) {
    if (bytes[i] === 0x25 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46 && bytes[i + 4] === 0x2d) return true;
  }
  return false;
}

/** Opened and, when the file is encrypted, decrypted with `password` (see security/decrypt.ts). */
function loadDecrypted(bytes: Uint8Array, password: string): PDFDocument {
  return newDocument(openDecrypted(bytes, password).context);
}

/** A field whose bytes hold neither word (nor a `#`: bytesLack) is no signature and has no kids. */
const NOT_SIGNATURE = ['Sig', 'Kids'];

/**
 * Signature fields that carry a value (a signature or a document time stamp),
 * anywhere in the field tree. An empty signature field is not a signature.
 */
export function countSignatures(doc: PDFDocument, index?: FieldTreeIndex): number {
  const acroForm = dictAt(doc.catalog, 'AcroForm');
  const fields = acroForm && arrayAt(acroForm, 'Fields');
  if (!fields) return 0;
  const table = objectTableOf(doc.context);
  let count = 0;
  const SIG = PDFName.of('Sig');
  walkFieldTree(doc.context, fields.asArray(), {
    listed: index && ((item, under) => index.list(item, under)),
    inherit: ['FT'],
    // Most fields are text or buttons: their bytes alone rule them out, without parsing them (forms have thousands).
    skip: (item, inherited) => inherited.get('FT') !== SIG && item instanceof PDFRef && table !== undefined && table.bytesLack(item, NOT_SIGNATURE),
    // And most nodes with kids: their kids are read from their bytes.
    kidsInBytes: table && ((item, inherited) => (inherited.get('FT') !== SIG ? unsignedKidsInBytes(table, item) : undefined)),
    decide: ({ node, inherited }) => {
      const type = node.lookup(PDFName.of('FT')) ?? inherited.get('FT');
      if (type === SIG && node.lookup(PDFName.of('V')) instanceof PDFDict) count++;
      return 'kids';
    },
  });
  return count;
}

export interface SaveOptions {
  /** Encrypt the output (add_password, add_restrictions): every string and stream, see security/encrypt.ts. */
  encrypt?: EncryptOptions;
  /** References to leave out, the objects holding them given null instead (the writer's `nullify`: arrangePages' leaveNulls). */
  nullify?: RefTargets;
  /**
   * Input object streams may go out as their input bytes, a changed member
   * superseded by its new copy (the writer's `storeObjectStreams`). Only for
   * actions whose changes leave nothing removed in a stale copy: rotate,
   * reorder and reverse (page dictionaries and the page tree), remove_pages
   * (a stream holding a removed page or anything else dropped is packed
   * anew; a stale page tree node or link lists a removed page's number,
   * which the output does not have), the watermarks (pages and the catalog
   * gain entries), add_password and add_restrictions (only the /ID, /Encrypt
   * and the catalog's /Extensions change; each stored stream is encrypted
   * whole). Not remove_signatures, remove_password or anything that
   * takes content out of an object it keeps.
   */
  storeObjectStreams?: boolean;
}

/** Serializes a document the way every action writes its output, as pieces (see PdfPieces). */
export async function saveDocumentPieces(doc: PDFDocument, options: SaveOptions = {}): Promise<PdfPieces> {
  // As qpdf does by default: object streams in, object streams out.
  const objectStreams = hasObjectStreams(doc.context);
  const encryption = options.encrypt && prepareEncryption(doc.context, options.encrypt);
  const pdf = writeDocumentPieces(doc.context, { objectStreams, encryption, nullify: options.nullify, storeObjectStreams: options.storeObjectStreams });
  // An encrypted output that its passwords do not open would lock its owner out: it is never returned.
  if (encryption) checkEncryptedOutput(pdf, encryption);
  return pdf;
}

export { PDFArray, PDFRef };
