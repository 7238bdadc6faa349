/**
 * Object-graph helpers: walking, reference rewriting and dropping what the
 * output no longer reaches. Written against pdf-lib's object model.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNull, PDFObject, PDFRef, PDFStream } from './lib.js';
import { isFork, peekObject } from './fork.js';

/** The direct children of an object (a stream's children are its dictionary's). */
export function forEachChild(obj: PDFObject, visit: (child: PDFObject) => void): void {
  if (obj instanceof PDFDict) {
    for (const value of obj.values()) visit(value);
  } else if (obj instanceof PDFArray) {
    for (const value of obj.asArray()) visit(value);
  } else if (obj instanceof PDFStream) {
    for (const value of obj.dict.values()) visit(value);
  }
}

/** Every indirect object reachable from the trailer (Root, Info) and any extra roots. */
export function reachableRefs(context: PDFContext, extraRoots: PDFObject[] = []): Set<PDFRef> {
  const seen = new Set<PDFRef>();
  const stack: PDFObject[] = [];
  const { Root, Info } = context.trailerInfo;
  for (const root of [Root, Info, ...extraRoots]) if (root) stack.push(root);
  while (stack.length > 0) {
    const obj = stack.pop()!;
    if (obj instanceof PDFRef) {
      if (seen.has(obj)) continue;
      seen.add(obj);
      // Reading only: a fork (fork.ts) need not copy what it merely walks.
      const target = peekObject(context, obj);
      if (target) stack.push(target);
      continue;
    }
    forEachChild(obj, (child) => stack.push(child));
  }
  return seen;
}

/**
 * Deletes every indirect object the output does not reach, so a document
 * that lost pages also loses their content, fonts and images.
 */
export function dropUnreachable(context: PDFContext): void {
  const keep = reachableRefs(context);
  for (const [ref] of context.enumerateIndirectObjects()) {
    if (!keep.has(ref)) context.delete(ref);
  }
}

/**
 * Replaces every reference to one of `targets` by null in all reachable
 * objects (except the targets themselves), so nothing keeps a removed page
 * alive: structure-tree /Pg entries, article beads, stray /P entries.
 * Objects are read without being taken for editing (peekObject) unless they
 * hold such a reference, so that a fork copies only those.
 */
export function nullifyReferences(context: PDFContext, targets: Set<PDFRef>): void {
  if (targets.size === 0) return;
  const forked = isFork(context);
  const seen = new Set<PDFRef>();
  const stack: PDFObject[] = [];
  const { Root, Info } = context.trailerInfo;
  for (const root of [Root, Info]) if (root) stack.push(root);
  while (stack.length > 0) {
    const obj = stack.pop()!;
    if (obj instanceof PDFRef) {
      if (seen.has(obj) || targets.has(obj)) continue;
      seen.add(obj);
      const read = peekObject(context, obj);
      const target = forked && read && holdsReference(read, targets) ? context.lookup(obj) : read;
      if (target) stack.push(target);
      continue;
    }
    const dict = obj instanceof PDFStream ? obj.dict : obj instanceof PDFDict ? obj : undefined;
    if (dict) {
      for (const [key, value] of dict.entries()) {
        if (value instanceof PDFRef && targets.has(value)) dict.set(key, PDFNull);
        else stack.push(value);
      }
    } else if (obj instanceof PDFArray) {
      const items = obj.asArray();
      for (let i = 0; i < items.length; i++) {
        const value = items[i];
        if (value instanceof PDFRef && targets.has(value)) obj.set(i, PDFNull);
        else stack.push(value);
      }
    }
  }
}

/** True when `obj`, or a dictionary or array written inside it, holds a reference to one of `targets`. */
function holdsReference(obj: PDFObject, targets: Set<PDFRef>): boolean {
  if (obj instanceof PDFRef) return targets.has(obj);
  if (obj instanceof PDFDict || obj instanceof PDFArray || obj instanceof PDFStream) {
    let found = false;
    forEachChild(obj, (child) => {
      if (!found && holdsReference(child, targets)) found = true;
    });
    return found;
  }
  return false;
}

/** Looks a key up, following references, and returns it only if it is a dictionary. */
export function dictAt(holder: PDFDict, key: string): PDFDict | undefined {
  const value = holder.lookup(PDFName.of(key));
  if (value instanceof PDFDict) return value;
  if (value instanceof PDFStream) return value.dict;
  return undefined;
}

export function arrayAt(holder: PDFDict, key: string): PDFArray | undefined {
  const value = holder.lookup(PDFName.of(key));
  return value instanceof PDFArray ? value : undefined;
}

export function resolve(context: PDFContext, obj: PDFObject | undefined): PDFObject | undefined {
  return obj instanceof PDFRef ? context.lookup(obj) : obj;
}

/** The reference an object is stored under, when it is directly held as a reference. */
export function refOf(value: PDFObject | undefined): PDFRef | undefined {
  return value instanceof PDFRef ? value : undefined;
}
