/** A context whose objects live in a Map: for tests that make objects in memory and read them back. */
import { PDFContext, type PDFObject, type PDFRef } from '../../src/pdf/model/primitives.js';

export function memoryContext(): PDFContext {
  const objects = new Map<PDFRef, PDFObject>();
  return new PDFContext({
    get: (ref) => objects.get(ref),
    peek: (ref) => objects.get(ref),
    source: (ref) => {
      const object = objects.get(ref);
      return object && { kind: 'parsed', object };
    },
    has: (ref) => objects.has(ref),
    set: (ref, object) => void objects.set(ref, object),
    delete: (ref) => objects.delete(ref),
    hasObjectStreams: false,
    entries: () => objects.entries(),
  });
}
