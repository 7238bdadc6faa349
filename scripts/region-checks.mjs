// What the multi-region checks send and expect, shared by the set-up run as
// processes (test/deploy/multi-region.test.ts) and in containers
// (scripts/test-compose.mjs), so both hold the deployment to the same rules.
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';

/** The contract's regions of each plan (docs/contract.md, "HTTP"), for the regions deployed here. */
export const ALLOWED = { business: ['global', 'eu', 'us-hipaa'], starter: ['global', 'eu'], free: ['global'] };
export const REGIONS = ['global', 'eu', 'us-hipaa'];

/** What a 403's problem detail says when a plan does not include a region. */
export const planRefusal = (plan, region) => `the ${plan} plan does not include the ${region} region`;

/** Text inside the input document (pdftotext shows it), so its bytes are recognisable anywhere. */
export const DOCUMENT_TEXT = 'Patient record of multi-region test';
/** The uploaded file's name: it must never reach the database. */
export const FILE_NAME = 'jane-doe-mri-2026-0042.pdf';

/** A watermark's text, sent in requests: it must never reach the database either. */
export const WATERMARK = 'MRN 4471-0932 Jane Doe';

/**
 * What no table or statement of the shared database may hold: the file name,
 * the document's text, a field value, and a PDF's first bytes raw, in base64
 * and in hex (bytea's text form), however a document might be encoded.
 */
export const DOCUMENT_TRACES = [FILE_NAME, 'jane-doe', DOCUMENT_TEXT, WATERMARK, '%PDF', 'JVBERi0', '255044462d'];

/** A document of `pages` A4 pages, each carrying DOCUMENT_TEXT. */
export async function patientRecord(pages = 3) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) doc.addPage([595, 842]).drawText(`${DOCUMENT_TEXT}, page ${n}`, { x: 72, y: 760, size: 14, font });
  return doc.save();
}

/** A multipart body with `file` under FILE_NAME, as a client uploading a patient's scan would send it. */
export async function formBody(fields, file) {
  const form = new FormData();
  form.append('file', new Blob([file], { type: 'application/pdf' }), FILE_NAME);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') };
}
