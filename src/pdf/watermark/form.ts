/** The one Form XObject a watermark is drawn from, with its opacity. */
import { PDFContext, PDFRef } from '../model/primitives.js';

const ARTIFACT = '/Artifact <</Type /Pagination /Subtype /Watermark>>';

export interface FormParts {
  content: string;
  bbox: readonly [number, number, number, number];
  fonts?: Map<string, PDFRef>;
  images?: Map<string, PDFRef>;
  /** 0 (opaque) to 100 (invisible), as the field says. */
  transparency: number;
}

/**
 * Registers the form. Opacity is an ExtGState (/ca for fills, /CA for
 * strokes) inside the form, so pages need nothing but the form itself. Its
 * drawing is marked a watermark artifact (ISO 32000 14.8.2.2): in a tagged
 * document, content that is neither in the structure tree nor an artifact
 * fails accessibility checks (PDF/UA), and assistive technology may read it
 * out among the page's text.
 */
export function registerForm(context: PDFContext, parts: FormParts): PDFRef {
  const alpha = Math.round((1 - parts.transparency / 100) * 10000) / 10000;
  const resources: Record<string, unknown> = {
    ExtGState: { PdfsvcOpacity: { Type: 'ExtGState', ca: alpha, CA: alpha } },
  };
  if (parts.fonts?.size) resources.Font = Object.fromEntries(parts.fonts);
  if (parts.images?.size) resources.XObject = Object.fromEntries(parts.images);
  const stream = context.flateStream(`${ARTIFACT} BDC\n/PdfsvcOpacity gs\n${parts.content}\nEMC\n`, {
    Type: 'XObject',
    Subtype: 'Form',
    FormType: 1,
    BBox: parts.bbox.map((v) => Math.round(v * 1000) / 1000),
    Resources: resources as never,
  });
  return context.register(stream);
}
