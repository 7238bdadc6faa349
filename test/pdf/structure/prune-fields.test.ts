/**
 * remove_pages takes the removed pages' widgets out of the form: from the
 * nodes above them, as the signature check's walk at opening found them
 * (forms.ts, FieldTreeIndex), or by walking the tree again when that walk
 * cannot tell (a kid listed by two nodes). Judged by qpdf's JSON: the form's
 * /Fields, each node's /Kids, the fields qpdf finds; and qpdf --check.
 */
import { describe, expect, it } from 'vitest';
import { removePages } from '../../../src/index.js';
import { buildPdf, simpleDoc } from '../../helpers/raw-pdf.js';
import { qpdfCheck, qpdfJson } from '../../helpers/pdf-tools.js';

const widget = (num: number, page: number, parent: number | undefined, name = '') =>
  ({
    num,
    body: `<< /Type /Annot /Subtype /Widget${name ? ` /FT /Tx /T (${name})` : ''} /Rect [0 0 50 20] /P ${4 + 2 * page} 0 R${parent ? ` /Parent ${parent} 0 R` : ''} >>`,
  }) as const;

/**
 * Pages ONE, TWO, THREE and a form: field a (kids: a widget on ONE, one on
 * TWO), b (field and widget in one, on ONE), c > m (two widgets on ONE) and
 * d (a widget on THREE). `extraKid` is listed by d too when given.
 */
function form(extraKid?: number): Uint8Array {
  const doc = simpleDoc(['ONE', 'TWO', 'THREE'], {
    catalog: '/AcroForm << /Fields [20 0 R 30 0 R 40 0 R 50 0 R] >>',
    page: (i) => ['/Annots [21 0 R 30 0 R 42 0 R 43 0 R]', '/Annots [22 0 R]', '/Annots [51 0 R]'][i],
  });
  const objects = [
    ...doc.objects,
    { num: 20, body: '<< /FT /Tx /T (a) /Kids [21 0 R 22 0 R] >>' },
    widget(21, 0, 20),
    widget(22, 1, 20),
    widget(30, 0, undefined, 'b'),
    { num: 40, body: '<< /FT /Tx /T (c) /Kids [41 0 R] >>' },
    { num: 41, body: '<< /T (m) /Kids [42 0 R 43 0 R] /Parent 40 0 R >>' },
    widget(42, 0, 41),
    widget(43, 0, 41),
    { num: 50, body: `<< /FT /Tx /T (d) /Kids [51 0 R${extraKid ? ` ${extraKid} 0 R` : ''}] >>` },
    widget(51, 2, 50),
  ];
  return buildPdf([{ objects }]).bytes;
}

/** The form of `pdf`: the titles of /Fields' nodes, each node's kids by title or page, and qpdf's field names. */
async function formOf(pdf: Uint8Array): Promise<{ fields: string[]; kids: Record<string, string[]>; names: string[] }> {
  const json = await qpdfJson(pdf);
  const objects = json.qpdf[1];
  const value = (ref: unknown) => objects[`obj:${String(ref)}`]?.value ?? {};
  const pageOf = new Map(json.pages.map((page, i) => [page.object, `page ${i + 1}`]));
  const label = (ref: unknown): string => {
    const node = value(ref);
    return typeof node['/T'] === 'string' ? String(node['/T']).replace(/^u:/, '') : (pageOf.get(String(node['/P'])) ?? 'no page');
  };
  const catalog = value((objects.trailer as { value: Record<string, unknown> }).value['/Root']);
  const acroForm = catalog['/AcroForm'] as Record<string, unknown>;
  const kids: Record<string, string[]> = {};
  const pending = [...(acroForm['/Fields'] as string[])];
  while (pending.length > 0) {
    const ref = pending.shift()!;
    const list = value(ref)['/Kids'] as string[] | undefined;
    if (!list) continue;
    kids[label(ref)] = list.map(label);
    pending.push(...list);
  }
  const names = json.acroform.fields.map((field) => `${field.fullname} on ${field.pageposfrom1}`);
  return { fields: (acroForm['/Fields'] as string[]).map(label), kids, names };
}

describe('remove_pages and the form', () => {
  it('drops the widgets of page 1, the field that was one, and the fields left with no kid', async () => {
    const out = await removePages({ file: form(), pages: '1' });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await formOf(out)).toEqual({
      fields: ['a', 'd'],
      kids: { a: ['page 1'], d: ['page 2'] },
      names: ['a on 1', 'd on 2'],
    });
  });

  it('changes only the node that loses a widget when page 2 goes', async () => {
    const out = await removePages({ file: form(), pages: '2' });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await formOf(out)).toEqual({
      fields: ['a', 'b', 'c', 'd'],
      kids: { a: ['page 1'], c: ['m'], m: ['page 1', 'page 1'], d: ['page 2'] },
      names: ['a on 1', 'b on 1', 'c.m on 1', 'c.m on 1', 'd on 2'],
    });
  });

  it('drops a widget that two nodes list from both (the tree walked again)', async () => {
    const out = await removePages({ file: form(21), pages: '1' });
    expect((await qpdfCheck(out)).exitCode).toBe(0);
    expect(await formOf(out)).toEqual({
      fields: ['a', 'd'],
      kids: { a: ['page 1'], d: ['page 2'] },
      names: ['a on 1', 'd on 2'],
    });
  });
});
