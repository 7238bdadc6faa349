/**
 * Finding signatures in a form without parsing every field: countSignatures
 * rules most fields out by their input bytes alone (no `Sig`, no `Kids`).
 * Each way a signature can stand in the field tree must still be found, in
 * a top-level object and inside an object stream, and the actions must
 * still refuse the document.
 */
import { describe, expect, it } from 'vitest';
import { countSignatures, loadPdf } from '../../../src/pdf/document.js';
import { rotatePages } from '../../../src/index.js';
import { buildPdf, simpleDoc, type RawObject } from '../../helpers/raw-pdf.js';

const SIGNATURE_VALUE = '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /Contents <3082> /ByteRange [0 10 20 10] >>';

/** A one-page document whose AcroForm lists `fields` (object numbers from 20 on), plus 40 text fields around them. */
function formDoc(fields: Array<{ body: string; top?: boolean }>, packed: boolean) {
  const doc = simpleDoc(['Form page']);
  const text: RawObject[] = Array.from({ length: 40 }, (_, i) => ({
    num: 100 + i,
    body: `<< /FT /Tx /T (text${i}) /V (value ${i}) /Rect [0 0 10 10] /Type /Annot /Subtype /Widget /P 4 0 R >>`,
  }));
  const own = fields.map((f, i) => ({ num: 20 + i, body: f.body }));
  const top = [...text.slice(0, 20).map((o) => o.num), ...own.filter((_, i) => fields[i].top !== false).map((o) => o.num), ...text.slice(20).map((o) => o.num)];
  const objects = doc.objects.map((o) => (o.num === 1 ? { ...o, body: `<< /Type /Catalog /Pages 2 0 R /AcroForm 99 0 R >>` } : o));
  objects.push({ num: 99, body: `<< /Fields [${top.map((n) => `${n} 0 R`).join(' ')}] >>` }, ...text, ...own);
  const members = [99, ...text.map((o) => o.num), ...own.map((o) => o.num)];
  return buildPdf([packed ? { objects, xref: 'stream', objectStreams: [{ num: 200, members }] } : { objects }]).bytes;
}

const CASES: Array<[string, Array<{ body: string; top?: boolean }>, number]> = [
  ['a signed field listed in /Fields', [{ body: `<< /FT /Sig /T (sig) /V ${SIGNATURE_VALUE} >>` }], 1],
  ['a signature field with no value (not a signature)', [{ body: '<< /FT /Sig /T (sig) >>' }], 0],
  [
    'a signed kid of a plain parent',
    [
      { body: '<< /T (group) /Kids [21 0 R 22 0 R] >>' },
      { body: '<< /FT /Tx /T (a) /Parent 20 0 R >>', top: false },
      { body: `<< /FT /Sig /T (b) /Parent 20 0 R /V ${SIGNATURE_VALUE} >>`, top: false },
    ],
    1,
  ],
  [
    'a kid whose type comes from its parent',
    [{ body: '<< /FT /Sig /T (group) /Kids [21 0 R] >>' }, { body: `<< /T (b) /Parent 20 0 R /V ${SIGNATURE_VALUE} >>`, top: false }],
    1,
  ],
  ['a type spelled with a name escape', [{ body: '<< /FT /S#69g /T (sig) /V 21 0 R >>' }, { body: SIGNATURE_VALUE, top: false }], 1],
  ['a value given by reference', [{ body: '<< /FT /Sig /T (sig) /V 21 0 R >>' }, { body: SIGNATURE_VALUE, top: false }], 1],
  ['text fields only', [], 0],
  // A node whose bytes hold no `Sig` is walked through the /Kids its bytes list (forms.ts, unsignedKidsInBytes).
  [
    'a signed kid two plain parents down',
    [
      { body: '<< /T (group) /Kids [21 0 R] /DA (/Helv 0 Tf) >>' },
      { body: '<< /T (inner) /Parent 20 0 R /Kids [ 23 0 R\n22 0 R ] >>', top: false },
      { body: `<< /FT /Sig /T (b) /Parent 21 0 R /V ${SIGNATURE_VALUE} >>`, top: false },
      { body: '<< /FT /Tx /T (a) /Parent 21 0 R >>', top: false },
    ],
    1,
  ],
  [
    'a signed kid of a parent that lists itself too',
    [{ body: '<< /T (loop) /Kids [20 0 R 21 0 R] >>' }, { body: `<< /FT /Sig /T (b) /Parent 20 0 R /V ${SIGNATURE_VALUE} >>`, top: false }],
    1,
  ],
  [
    'a /Kids only inside a nested dictionary (no kids)',
    [{ body: '<< /T (group) /MK << /Kids [21 0 R] >> >>' }, { body: `<< /FT /Sig /T (b) /V ${SIGNATURE_VALUE} >>`, top: false }],
    0,
  ],
  [
    'a /Kids only inside a string (no kids)',
    [{ body: '<< /T (group /Kids [21 0 R]) /TU <4b696473> >>' }, { body: `<< /FT /Sig /T (b) /V ${SIGNATURE_VALUE} >>`, top: false }],
    0,
  ],
  // Escapes of bytes past ASCII (UTF-8 names: radio buttons' states) spell no key; any other escape may.
  [
    'a signed kid of a parent whose names are UTF-8 escapes',
    [
      { body: '<< /T (group) /V /#e5#a5#b3 /Kids [21 0 R 22 0 R] >>' },
      { body: '<< /AS /#e5#A5#b3 /Parent 20 0 R >>', top: false },
      { body: `<< /FT /Sig /T (b) /Parent 20 0 R /V ${SIGNATURE_VALUE} >>`, top: false },
    ],
    1,
  ],
  [
    'a type spelled with a name escape beside UTF-8 escapes',
    [
      { body: '<< /T (group) /V /#e5#a5#b3 /Kids [21 0 R] >>' },
      { body: `<< /FT /S#69g /AS /#e5#a5#b3 /Parent 20 0 R /V ${SIGNATURE_VALUE.replace('/Sig', '/S#69g')} >>`, top: false },
    ],
    1,
  ],
  [
    'a /Kids whose value is a name and a /Kids key after it',
    [{ body: '<< /T (group) /Kind /Kids /Kids [21 0 R] >>' }, { body: `<< /FT /Sig /T (b) /Parent 20 0 R /V ${SIGNATURE_VALUE} >>`, top: false }],
    1,
  ],
];

describe('countSignatures', () => {
  for (const packed of [false, true]) {
    it.each(CASES)(`finds %s (${packed ? 'in an object stream' : 'top-level objects'})`, async (_, fields, expected) => {
      const bytes = formDoc(fields, packed);
      expect(countSignatures(loadPdf(bytes))).toBe(expected);
      const run = rotatePages({ file: bytes, angle: 90 });
      if (expected > 0) await expect(run).rejects.toThrow(/digitally signed \(1 signature\).*remove_signatures/);
      else expect((await run).byteLength).toBeGreaterThan(0);
    });
  }
});
