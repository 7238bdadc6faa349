/**
 * Large test documents made at run time (never committed): every page draws
 * its own image of random bytes, so the file is as large as asked and does
 * not compress away, and prints its number, so page order can be checked.
 */
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { randomBytes } from 'node:crypto';

export async function bigDocument(pages: number, bytesPerPage: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const side = Math.max(1, Math.floor(Math.sqrt(bytesPerPage)));
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    const image = doc.context.register(
      doc.context.stream(randomBytes(side * side), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: side,
        Height: side,
        ColorSpace: 'DeviceGray',
        BitsPerComponent: 8,
      }),
    );
    page.node.setXObject(PDFName.of('Im0'), image);
    const content = doc.context.register(doc.context.stream(`q 400 0 0 400 97 300 cm /Im0 Do Q`));
    page.node.addContentStream(content);
    page.drawText(`big document page ${n} of ${pages}`, { x: 72, y: 760, size: 14, font });
  }
  return doc.save({ useObjectStreams: true });
}
