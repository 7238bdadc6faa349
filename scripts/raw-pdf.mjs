/**
 * A byte-level PDF assembler for reader tests and the hostile fixtures. pdf-lib
 * would repair or normalise what these files need broken, so they are written
 * by hand: objects as given, then a cross-reference section per revision (a
 * classic table, a cross-reference stream, or a hybrid of both), with optional
 * object streams and incremental updates. Everything is latin1, one char per
 * byte, so the result can be damaged with plain string edits (see the helpers
 * at the end) and the offsets recorded in `RawPdf` stay byte offsets.
 *
 * Plain JavaScript (types in raw-pdf.d.mts) so scripts/build-fixtures.mjs can
 * use it; the tests import it through test/helpers/raw-pdf.ts.
 */
import { deflateSync } from 'node:zlib';
export const latin1 = (bytes) => Buffer.from(bytes).toString('latin1');
export const bytesOf = (text) => new Uint8Array(Buffer.from(text, 'latin1'));

function streamText(data) {
  return typeof data === 'string' ? data : latin1(data);
}

function objectSource(obj) {
  const head = `${obj.num} ${obj.gen ?? 0} obj\n`;
  if (typeof obj.body === 'string') return `${head}${obj.body}\nendobj\n`;
  const data = streamText(obj.body.stream);
  const length = obj.body.length ?? data.length;
  return `${head}<< ${obj.body.dict} /Length ${length} >>\nstream\n${data}\nendstream\nendobj\n`;
}

/** A 10-digit placeholder for a /Prev that points forward, patched once its target is written. */
const PLACEHOLDER = (i) => `@PREV${String(i).padStart(5, '0')}`;

/**
 * Assembles a PDF: a header, then per section its objects, object streams
 * and cross-reference section with trailer, `startxref` and `%%EOF`.
 * Section 0 is the original file; later sections are incremental updates.
 */
export function buildPdf(sections, options = {}) {
  let out = `${options.header ?? '%PDF-1.7'}\n%\xe2\xe3\xcf\xd3\n`;
  const layouts = [];
  const latest = new Map();
  /** The highest object number so far, over all revisions: for /Size and new numbers. */
  let highest = 0;
  /** Sections a forward /Prev points at, patched once they are written. */
  const patches = [];
  sections.forEach((section, index) => {
    const compress = section.compress ?? true;
    const offsets = new Map();
    const compressed = new Map();
    const byNum = new Map(section.objects.map((o) => [o.num, o]));
    const packed = new Set((section.objectStreams ?? []).flatMap((s) => s.members));
    for (const o of section.objects) highest = Math.max(highest, o.num);
    for (const s of section.objectStreams ?? []) highest = Math.max(highest, s.num);
    // Top-level objects, in the order given.
    for (const obj of section.objects) {
      if (packed.has(obj.num)) continue;
      offsets.set(obj.num, out.length);
      out += objectSource(obj);
    }
    // Object streams: `num offset` pairs, then the objects.
    for (const s of section.objectStreams ?? []) {
      let header = '';
      let body = '';
      s.members.forEach((num, i) => {
        const obj = byNum.get(num);
        if (!obj || typeof obj.body !== 'string')
          throw new Error(`object ${num} must be a non-stream object of this section to go into object stream ${s.num}`);
        header += `${num} ${body.length} `;
        body += `${obj.body}\n`;
        compressed.set(num, { stream: s.num, index: i });
      });
      header += '\n';
      const data = header + body;
      const dict = `/Type /ObjStm /N ${s.members.length} /First ${header.length}${compress ? ' /Filter /FlateDecode' : ''}`;
      offsets.set(s.num, out.length);
      out += objectSource({ num: s.num, body: { dict, stream: compress ? deflateSync(Buffer.from(data, 'latin1')) : data } });
    }
    const kind = section.xref ?? 'table';
    const xrefNum = section.xrefNum ?? highest + 1;
    if (kind !== 'table') highest = Math.max(highest, xrefNum);
    const size = section.size ?? highest + 1;
    const prevIndex = section.prev === undefined ? (index > 0 ? index - 1 : null) : section.prev;
    const prevText = (selfAt) => {
      if (prevIndex === null) return '';
      if (prevIndex === index) return ` /Prev ${selfAt}`;
      if (prevIndex < index) return ` /Prev ${layouts[prevIndex].xrefAt}`;
      patches.push({ target: prevIndex });
      return ` /Prev ${PLACEHOLDER(prevIndex)}`;
    };
    const rootText = section.root === null ? '' : ` /Root ${section.root ?? '1 0 R'}`;
    const extra = section.trailer ? ` ${section.trailer}` : '';
    /** A cross-reference stream over `nums` (type 1 from `offsets`, type 2 from `compressed`). */
    const xrefStream = (at, nums, dictExtra) => {
      const rows = [];
      for (const num of nums) {
        const row =
          section.xrefRows?.[num] ??
          (num === 0
            ? [0, 0, 65535]
            : compressed.has(num)
              ? [2, compressed.get(num).stream, compressed.get(num).index]
              : num === xrefNum
                ? [1, at, 0]
                : offsets.has(num)
                  ? [1, offsets.get(num), byNum.get(num)?.gen ?? 0]
                  : [0, 0, 0]);
        rows.push(row);
      }
      const raw = Buffer.alloc(rows.length * 7);
      rows.forEach(([t, f2, f3], i) => {
        raw.writeUInt8(t, i * 7);
        raw.writeUInt32BE(f2, i * 7 + 1);
        raw.writeUInt16BE(f3, i * 7 + 5);
      });
      const dict = `/Type /XRef /Size ${size} /W [1 4 2] /Index [${subsections(nums)
        .map(([from, count]) => `${from} ${count}`)
        .join(' ')}]${compress ? ' /Filter /FlateDecode' : ''}${dictExtra}`;
      return objectSource({ num: xrefNum, body: { dict, stream: compress ? deflateSync(raw) : raw } });
    };
    const layout = { xrefAt: 0, startxrefAt: 0, end: 0, offsets };
    if (kind === 'stream') {
      const at = out.length;
      layout.xrefAt = at;
      offsets.set(xrefNum, at);
      // Section 0 covers 0..size-1 (absent numbers as free); an update lists only its own objects.
      const nums = index === 0 ? range(0, size - 1) : [...new Set([...offsets.keys(), ...compressed.keys()])].sort((a, b) => a - b);
      out += xrefStream(at, nums, `${rootText}${prevText(at)}${extra}`);
    } else {
      let xrefStmText = '';
      if (kind === 'hybrid') {
        // The stream lists only the compressed objects; the table lists the rest.
        const at = out.length;
        layout.xrefStmAt = at;
        offsets.set(xrefNum, at);
        out += xrefStream(
          at,
          [...compressed.keys()].sort((a, b) => a - b),
          '',
        );
        xrefStmText = ` /XRefStm ${at}`;
      }
      const at = out.length;
      layout.xrefAt = at;
      out += 'xref\n';
      // A hybrid's table leaves the compressed objects out, not free: poppler takes a
      // table's free entry over the /XRefStm row of the same number.
      const nums = index === 0 && kind === 'table' ? range(0, size - 1) : [...new Set([...(index === 0 ? [0] : []), ...offsets.keys()])].sort((a, b) => a - b);
      for (const [from, count] of subsections(nums)) {
        out += `${from} ${count}\n`;
        for (let num = from; num < from + count; num++) {
          const offset = offsets.get(num);
          if (offset !== undefined) out += `${String(offset).padStart(10, '0')} ${String(byNum.get(num)?.gen ?? 0).padStart(5, '0')} n \n`;
          else out += num === 0 ? '0000000000 65535 f \n' : '0000000000 00000 f \n';
        }
      }
      layout.trailerAt = out.length;
      out += `trailer\n<< /Size ${size}${rootText}${prevText(at)}${xrefStmText}${extra} >>\n`;
    }
    layout.startxrefAt = out.length;
    out += `startxref\n${layout.xrefAt}\n%%EOF\n`;
    layout.end = out.length;
    for (const [num, at] of offsets) latest.set(num, at);
    layouts.push(layout);
  });
  // Forward /Prev: the placeholder and the offset have the same width only by luck, so
  // pad the number with leading zeros (a valid integer) to keep every offset in place.
  for (const { target } of patches) {
    const marker = PLACEHOLDER(target);
    const value = String(layouts[target].xrefAt);
    if (value.length > marker.length) throw new Error('file too large for a forward /Prev');
    out = out.split(marker).join(value.padStart(marker.length, '0'));
  }
  return { bytes: bytesOf(out), text: out, sections: layouts, offsets: latest };
}

/** Consecutive runs of sorted numbers, as [first, count]. */
function subsections(nums) {
  const runs = [];
  for (const num of nums) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === num) last[1]++;
    else runs.push([num, 1]);
  }
  return runs;
}

function range(from, to) {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

// ---------------------------------------------------------------------------
// Documents

// ---------------------------------------------------------------------------

/** A content stream drawing `text` in Helvetica 24 pt (text with no parentheses or backslashes). */
export function drawText(text, y = 700) {
  return `BT /F1 24 Tf 72 ${y} Td (${text}) Tj ET`;
}

/**
 * A flat document: 1 catalog, 2 page tree, 3 Helvetica, then per page its
 * dictionary (4, 6, 8, …) and content stream (5, 7, 9, …).
 * `catalog` and `page(i)` add entries to those dictionaries.
 */
export function simpleDoc(texts, extra = {}) {
  const pages = texts.map((_, i) => 4 + 2 * i);
  const contents = pages.map((p) => p + 1);
  const objects = [
    { num: 1, body: `<< /Type /Catalog /Pages 2 0 R${extra.catalog ? ` ${extra.catalog}` : ''} >>` },
    { num: 2, body: `<< /Type /Pages /Kids [${pages.map((p) => `${p} 0 R`).join(' ')}] /Count ${pages.length} >>` },
    { num: 3, body: FONT },
  ];
  texts.forEach((text, i) => {
    objects.push({ num: pages[i], body: pageDict(2, contents[i], `/MediaBox ${extra.mediaBox ?? '[0 0 612 792]'}${extra.page ? ` ${extra.page(i)}` : ''}`) });
    objects.push({ num: contents[i], body: { dict: '', stream: drawText(text) } });
  });
  return { objects, pages, contents };
}

export const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** A page dictionary whose font /F1 is object 3 (the font of `simpleDoc`). */
export function pageDict(parent, contents, entries = '') {
  return `<< /Type /Page /Parent ${parent} 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} 0 R${entries ? ` ${entries}` : ''} >>`;
}

/** Objects of `doc` except those numbered in `nums`. */
export function without(objects, ...nums) {
  return objects.filter((o) => !nums.includes(o.num));
}

// ---------------------------------------------------------------------------
// Damage: string edits on the latin1 text. Each returns new bytes.

// ---------------------------------------------------------------------------

/** Replaces `length` bytes at `at` with `text` (later offsets move unless the lengths match). */
export function splice(pdf, at, length, text) {
  const source = 'text' in pdf ? pdf.text : latin1(pdf);
  return bytesOf(source.slice(0, at) + text + source.slice(at + length));
}

/** Replaces the first occurrence of `find` at or after `from`; throws when it is not there (a test fixture must not silently stay intact). */
export function replaceOnce(pdf, find, by, from = 0) {
  const source = 'text' in pdf ? pdf.text : latin1(pdf);
  const tail = source.slice(from);
  const pattern = typeof find === 'string' ? new RegExp(find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : new RegExp(find.source, find.flags.replace('g', ''));
  const m = pattern.exec(tail);
  if (!m) throw new Error(`damage: ${String(find)} not found after offset ${from}`);
  const replacement = typeof by === 'string' ? by : by(m[0]);
  return bytesOf(source.slice(0, from + m.index) + replacement + source.slice(from + m.index + m[0].length));
}

/** Sets the number after the last `startxref` (or removes `startxref` and its number when `value` is null). */
export function setStartxref(pdf, value) {
  const at = pdf.sections[pdf.sections.length - 1].startxrefAt;
  const line = /^startxref\n\d+\n/.exec(pdf.text.slice(at));
  return splice(pdf, at, line[0].length, value === null ? '' : `startxref\n${value}\n`);
}

/** Adds `delta` to every in-use offset of every classic table (each row keeps its 20 bytes). */
export function shiftTableOffsets(pdf, delta) {
  return bytesOf(pdf.text.replace(/^(\d{10}) (\d{5}) n \n/gm, (_, offset, gen) => `${String(Number(offset) + delta).padStart(10, '0')} ${gen} n \n`));
}

/** Swaps the table rows of objects `a` and `b` in section `section` (each then points at the other's `obj`). */
export function swapTableRows(pdf, a, b, section = 0) {
  const offsets = pdf.sections[section].offsets;
  const rowA = `${String(offsets.get(a)).padStart(10, '0')} 00000 n \n`;
  const rowB = `${String(offsets.get(b)).padStart(10, '0')} 00000 n \n`;
  const start = pdf.sections[section].xrefAt;
  const end = pdf.sections[section].trailerAt;
  const table = pdf.text.slice(start, end);
  if (!table.includes(rowA) || !table.includes(rowB)) throw new Error('swapTableRows: rows not found');
  const swapped = table.replace(rowA, '\u0000').replace(rowB, rowA).replace('\u0000', rowB);
  return bytesOf(pdf.text.slice(0, start) + swapped + pdf.text.slice(end));
}

/** Removes the `trailer << … >>` of section `section` (classic table), leaving `startxref` in place. */
export function cutTrailer(pdf, section = pdf.sections.length - 1) {
  const layout = pdf.sections[section];
  return splice(pdf, layout.trailerAt, layout.startxrefAt - layout.trailerAt, '');
}

/** The first `length` bytes. */
export function truncate(pdf, length) {
  const bytes = 'bytes' in pdf ? pdf.bytes : pdf;
  return bytes.slice(0, length);
}
