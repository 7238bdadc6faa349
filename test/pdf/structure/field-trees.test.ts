/**
 * Hostile form-field trees (structure/trees.ts walkFieldTree): a signature
 * field 20,000 levels down, and a tree whose every node lists the same kid
 * twice (each node shared by two parents: 2^40 paths over 40 nodes). The
 * signature check and remove_signatures walk each node once, with a stack of
 * their own: the signature is found (and removed) without a stack overflow
 * or a walk of every path.
 */
import { describe, expect, it } from 'vitest';
import { removeSignatures, rotatePages } from '../../../src/index.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { qpdfCheck, qpdfJson } from '../../helpers/pdf-tools.js';

const FIRST_FIELD = 30;

/**
 * One page whose only annotation is a signed signature widget at the bottom
 * of a chain of `depth` fields; `kidsPerNode` copies of the reference to the
 * next field in each /Kids.
 */
function signedAtDepth(depth: number, kidsPerNode: number): Uint8Array {
  const widget = FIRST_FIELD + depth;
  const signature = widget + 1;
  const doc = simpleDoc(['DEEP FORM'], { catalog: `/AcroForm << /Fields [${FIRST_FIELD} 0 R] /SigFlags 3 >>`, page: () => `/Annots [${widget} 0 R]` });
  const objects = [...doc.objects];
  for (let i = 0; i < depth; i++) {
    const num = FIRST_FIELD + i;
    const kids = Array.from({ length: kidsPerNode }, () => `${num + 1} 0 R`).join(' ');
    objects.push({ num, body: `<< /T (f${i}) /Kids [${kids}]${i > 0 ? ` /Parent ${num - 1} 0 R` : ''} >>` });
  }
  objects.push({
    num: widget,
    body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (sig) /V ${signature} 0 R /Rect [0 0 0 0] /P 4 0 R /Parent ${widget - 1} 0 R >>`,
  });
  objects.push({ num: signature, body: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 0 0 0] /Contents <00> >>' });
  return buildPdf([{ objects }]).bytes;
}

describe.each([
  ['20,000 levels deep', 20_000, 1],
  ['shared by two parents at each of 40 levels', 40, 2],
])('a signature field %s', (_, depth, kidsPerNode) => {
  const input = signedAtDepth(depth, kidsPerNode);

  it('is found by the signature check: other actions refuse the file as signed', async () => {
    await expect(rotatePages({ file: input, angle: 90 })).rejects.toThrow(/digitally signed \(1 signature\)/);
  });

  it('is removed with its widget and every field left empty, and the output reads', async () => {
    const out = await removeSignatures({ file: input });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    const json = await qpdfJson(out);
    expect(json.acroform.fields).toEqual([]);
    const objects = json.qpdf[1];
    const page = objects[json.pages[0].object]?.value ?? {};
    expect(page['/Annots']).toBeUndefined();
    // Nothing of the chain is left: its fields were emptied and are not written.
    const titles = Object.values(objects).filter((object) => typeof object.value?.['/T'] === 'string');
    expect(titles).toEqual([]);
    // And the output is no longer refused as signed.
    expect((await rotatePages({ file: out, angle: 90 })).byteLength).toBeGreaterThan(0);
  });
});
