/**
 * The one walk over what objects hold (walk.ts) and the lookup-tree walk
 * (trees.ts): the order recursion would take, and no call stack spent on
 * depth, which objects made in memory do not bound.
 */
import { describe, expect, it } from 'vitest';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFString } from '../../../src/pdf/model/primitives.js';
import { PDFContext } from '../../../src/pdf/model/primitives.js';
import { forEachTreePair } from '../../../src/pdf/structure/trees.js';
import { walkInside } from '../../../src/pdf/model/walk.js';

describe('walkInside', () => {
  it('reaches each object before what it holds, in written order, with where it is written', () => {
    const context = new PDFContext();
    const root = context.obj({ A: [1, { B: 2 }], C: 3 }) as PDFDict;
    const seen: string[] = [];
    walkInside(root, (child, _holder, at) => {
      seen.push(`${at instanceof PDFName ? at.decodeText() : at}:${child instanceof PDFNumber ? child.asNumber() : child.constructor.name}`);
    });
    expect(seen).toEqual(['A:PDFArray', '0:1', '1:PDFDict', 'B:2', 'C:3']);
  });

  it('walks arrays nested 200,000 deep', () => {
    const context = new PDFContext();
    const top = PDFArray.withContext(context);
    let inner = top;
    for (let i = 0; i < 200_000; i++) {
      const next = PDFArray.withContext(context);
      inner.push(next);
      inner = next;
    }
    inner.push(PDFString.of('bottom'));
    let strings = 0;
    walkInside(top, (child) => {
      if (child instanceof PDFString) strings++;
    });
    expect(strings).toBe(1);
  });
});

describe('forEachTreePair', () => {
  it('gives a tree 100,000 nodes deep with a loop back to its root each pair once, in tree order', () => {
    const context = new PDFContext();
    const root = context.obj({ Names: [PDFString.of('a'), 1] }) as PDFDict;
    let node = root;
    for (let i = 0; i < 100_000; i++) {
      const kid = context.obj({ Names: [PDFString.of(`k${i}`), i] }) as PDFDict;
      node.set(PDFName.of('Kids'), context.obj([kid, root]));
      node = kid;
    }
    const keys: string[] = [];
    forEachTreePair(context, root, 'Names', (key) => keys.push((key as PDFString).decodeText()));
    expect(keys.length).toBe(100_001);
    expect(keys.slice(0, 3)).toEqual(['a', 'k0', 'k1']);
    expect(keys.at(-1)).toBe('k99999');
  });
});
