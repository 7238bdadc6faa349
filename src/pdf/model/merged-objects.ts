/**
 * The object store of a merge's output (operations/merge.ts): the first
 * input's objects under their own numbers, and every later input's objects
 * under new ones, given as the merge or the writer first meets a reference
 * to them. An object of a later input is parsed only when something looks it
 * up (its catalog, page tree, outline, form, names): then it is renumbered
 * in place (copy.ts, moveObject). Every other one goes to the output as its
 * input bytes with its references renumbered (the writer, `refAt`), as a
 * single document's untouched objects do. Parsing every object of every
 * input to move it was two thirds of a merge of 50 files.
 */
import { LayeredObjects } from './layered-objects.js';
import { type PDFContext, PDFDict, PDFName, PDFNull, type PDFObject, PDFRef, PDFStream } from './primitives.js';
import { moveObject } from './copy.js';
import type { ObjectSource, ObjectStore, RawOrigin } from './store.js';
import type { ObjectTable } from '../reader/object-table.js';
import type { RawObject } from '../reader/skim.js';

const STRUCT_PARENTS = PDFName.of('StructParents');
const STRUCT_PARENT = PDFName.of('StructParent');
const STRUCT_PARENT_TEXT = Buffer.from('StructParent', 'latin1');

/** One later input: its table, and the numbers its objects have in the output. */
class MergedInput implements RawOrigin {
  /** Input object number → output reference, and the generation it was given for: arrays, since input numbers are dense from 1. */
  private readonly numbers: Array<PDFRef | undefined> = [];
  private readonly generations: number[] = [];
  /** Containers already renumbered: a direct dictionary can be shared (inherited page attributes on each leaf). */
  private readonly moved = new Set<PDFObject>();

  constructor(
    private readonly merged: MergedObjects,
    readonly table: ObjectTable,
  ) {
    // The table's raw sources name this as their origin, so the writer renumbers their references.
    table.renumberAs(this);
  }

  exists(num: number, gen: number): boolean {
    return this.table.exists(num, gen);
  }

  /**
   * The output reference of the input's `num gen`, numbered on first use;
   * undefined when the input has no such object. The input's table is asked
   * (`has`), not its cross-reference table alone: opening it may have
   * registered objects (a page tree's direct pages get numbers of their own).
   */
  refAt(num: number, gen: number): PDFRef | undefined {
    const known = this.numbers[num];
    // The writer and the graph walk ask once per reference written: a number given is given for good.
    if (known !== undefined && this.generations[num] === gen) return known;
    if (!this.table.has(PDFRef.of(num, gen))) return undefined;
    if (known !== undefined) return known;
    const ref = this.merged.context.nextRef();
    this.numbers[num] = ref;
    this.generations[num] = gen;
    this.merged.setOrigin(ref.objectNumber, this, PDFRef.of(num, gen));
    return ref;
  }

  /** A reference of the input as the output has it: a reference to an object the input lacks is null, as it always was. */
  readonly mapRef = (ref: PDFRef): PDFObject => this.refAt(ref.objectNumber, ref.generationNumber) ?? PDFNull;

  /**
   * A parsed object of the input, renumbered in place into the output (the
   * input is consumed). Its structure-tree keys go: only the first input's
   * structure tree is kept, and they would collide with its keys.
   */
  adopt<T extends PDFObject>(object: T): T {
    moveObject(object, this.merged.context, this.mapRef, this.moved);
    const dict = object instanceof PDFStream ? object.dict : object;
    if (dict instanceof PDFDict) {
      dict.delete(STRUCT_PARENTS);
      dict.delete(STRUCT_PARENT);
    }
    return object;
  }

  bytesAreClear(ref: PDFRef): boolean {
    return this.table.bytesAreClear(this.merged.inputRef(ref)!);
  }

  parseDetached(ref: PDFRef): PDFObject | undefined {
    const object = this.table.parseDetached(this.merged.inputRef(ref)!);
    return object === undefined ? undefined : this.adopt(object);
  }
}

export class MergedObjects extends LayeredObjects {
  /**
   * Output object number (from `first` on) → the later input and its
   * reference there, as two arrays rather than a map of pairs: a later input
   * of 200,000 objects made them 13 MB, against 2 MB.
   */
  private readonly originInputs: Array<MergedInput | undefined> = [];
  private readonly originRefs: Array<PDFRef | undefined> = [];
  /** Output numbers from here on are new: the first input's are below. */
  private readonly first: number;
  private readonly inputs: MergedInput[] = [];

  private constructor(
    private readonly base: ObjectStore,
    readonly context: PDFContext,
  ) {
    super();
    this.first = context.largestObjectNumber + 1;
  }

  setOrigin(num: number, input: MergedInput, ref: PDFRef): void {
    this.originInputs[num - this.first] = input;
    this.originRefs[num - this.first] = ref;
  }

  /** The later input an output reference is of; undefined for the first input's and the merge's new objects. */
  private inputOf(ref: PDFRef): MergedInput | undefined {
    return ref.generationNumber === 0 && ref.objectNumber >= this.first ? this.originInputs[ref.objectNumber - this.first] : undefined;
  }

  /** The reference in its input of an output reference inputOf knows. */
  inputRef(ref: PDFRef): PDFRef | undefined {
    return this.originRefs[ref.objectNumber - this.first];
  }

  /** Makes `context` (the first input's) read through a merged store from now on. */
  static over(context: PDFContext): MergedObjects {
    const merged = new MergedObjects(context.store, context);
    context.store = merged;
    return merged;
  }

  /** Adds a later input (opened by the reader); its objects get output numbers as they are referenced. */
  addInput(table: ObjectTable): MergedInput {
    const input = new MergedInput(this, table);
    this.inputs.push(input);
    return input;
  }

  get(ref: PDFRef): PDFObject | undefined {
    const own = this.own.get(ref);
    if (own !== undefined || this.removed.has(ref)) return own;
    const input = this.inputOf(ref);
    if (input === undefined) return this.base.get(ref);
    const object = input.table.get(this.inputRef(ref)!);
    if (object === undefined) return undefined;
    this.own.set(ref, input.adopt(object));
    return object;
  }

  peek(ref: PDFRef): PDFObject | undefined {
    return this.get(ref);
  }

  /**
   * A later input's object as its input bytes while nothing parsed it and
   * it has no structure-tree key to drop; else parsed (and renumbered). One
   * that cannot be parsed is left out, as moving it was.
   */
  source(ref: PDFRef): ObjectSource | undefined {
    const own = this.own.get(ref);
    if (own !== undefined) return { kind: 'parsed', object: own };
    if (this.removed.has(ref)) return undefined;
    const input = this.inputOf(ref);
    if (input === undefined) return this.base.source(ref);
    // The table's own source, whose origin is `input` (renumberAs): no second object per object written.
    const raw = input.table.rawSource(this.inputRef(ref)!);
    if (raw && !mentionsStructParent(raw.raw)) return raw;
    const object = this.get(ref);
    return object === undefined ? undefined : { kind: 'parsed', object };
  }

  get hasObjectStreams(): boolean {
    return this.base.hasObjectStreams;
  }

  *entries(): Iterable<[PDFRef, PDFObject]> {
    yield* this.own.entries();
    for (const [ref, object] of this.base.entries()) if (!this.own.has(ref) && !this.removed.has(ref)) yield [ref, object];
    // Every later input's objects, numbered now if nothing referenced them yet.
    for (const input of this.inputs) {
      for (const [inputRef] of input.table.entries()) {
        const ref = input.refAt(inputRef.objectNumber, inputRef.generationNumber);
        const object = ref && !this.own.has(ref) && !this.removed.has(ref) ? this.get(ref) : undefined;
        if (ref && object !== undefined) yield [ref, object];
      }
    }
  }

  protected below(ref: PDFRef): boolean {
    const input = this.inputOf(ref);
    return input === undefined ? this.base.has(ref) : input.table.has(this.inputRef(ref)!);
  }
}

/** Whether the object's dictionary bytes hold `StructParent` (a quick look, so that most objects are not parsed). */
function mentionsStructParent(raw: RawObject): boolean {
  const end = raw.stream ? (raw.dictEnd ?? raw.end) : raw.end;
  const needle = STRUCT_PARENT_TEXT;
  const data = raw.data;
  const last = end - needle.length;
  for (let at = raw.start; at <= last; at++) {
    if (data[at] !== 0x53 || data[at + 6] !== 0x50) continue;
    let i = 1;
    while (i < needle.length && data[at + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}
