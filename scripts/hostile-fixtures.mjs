// The hostile set: small files made to cost a reader gigabytes, minutes or a
// stack overflow. scripts/build-fixtures.mjs writes them to
// fixtures/out/hostile/; test/system/hostile.test.ts sends each through every action
// of a live server, and the reader and outline tests import the builders from
// here. Each builder is deterministic and fast (the whole set takes a few
// seconds, most of it the two files of 200,000 objects): the bombs are made
// from one precomputed Flate block, never by deflating gigabytes.
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { buildPdf, bytesOf, drawText, FONT, latin1, pageDict, simpleDoc } from './raw-pdf.mjs';

const MB = 2 ** 20;

/**
 * Zlib data that inflates to `megabytes` MB of zeros, about 1 KB per MB: one
 * deflated MB of zeros ending in a full flush (so the next copy needs no
 * history), repeated, then an empty final block and the Adler-32 of the zeros.
 */
export function zeroBomb(megabytes) {
  const block = deflateRawSync(Buffer.alloc(MB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const adler = Buffer.alloc(4);
  // Adler-32 of n zeros: a stays 1, b is n mod 65521.
  adler.writeUInt32BE((((megabytes * MB) % 65521) * 65536 + 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(megabytes).fill(block), Buffer.from([0x03, 0x00]), adler]);
}

/** One page whose catalog carries `extra`, plus `more` objects. */
function withExtras(extra, more = [], xref = 'table') {
  const doc = simpleDoc(['HOSTILE'], { catalog: extra });
  return buildPdf([{ objects: [...doc.objects, ...more], xref }]).bytes;
}

/** One page whose page dictionary carries `extra`, plus `more` objects. */
function withPageEntries(extra, more = []) {
  const doc = simpleDoc(['HOSTILE'], { page: () => extra });
  return buildPdf([{ objects: [...doc.objects, ...more] }]).bytes;
}

const replace = (bytes, find, by) => {
  const text = latin1(bytes);
  if (!find.test(text)) throw new Error(`hostile fixture: ${find} not found`);
  return bytesOf(text.replace(find, by));
};

// ---------------------------------------------------------------------------
// Outlines (also test/pdf/structure/outline-loops.test.ts, which checks every title)

/** Two pages; the outline root is object 20, its items follow. */
export function withOutline(items, first = 21, last = 21) {
  const doc = simpleDoc(['OUTLINE PAGE ONE', 'OUTLINE PAGE TWO'], { catalog: '/Outlines 20 0 R' });
  doc.objects.push({ num: 20, body: `<< /Type /Outlines /First ${first} 0 R /Last ${last} 0 R /Count 1 >>` }, ...items);
  return buildPdf([{ objects: doc.objects }]).bytes;
}

const item = (num, title, rest) => ({ num, body: `<< /Title (${title}) /Dest [4 0 R /Fit] ${rest} >>` });
export const OUTLINE_DEPTH = 10_000;

/** Outline loops and depth: [file name, what it is, builder, every title it holds]. */
export const OUTLINE_CASES = [
  ['outline-next-self.pdf', '/Next to itself', () => withOutline([item(21, 'a', '/Parent 20 0 R /Next 21 0 R')]), ['a']],
  ['outline-first-self.pdf', '/First to itself', () => withOutline([item(21, 'a', '/Parent 20 0 R /First 21 0 R /Last 21 0 R /Count 1')]), ['a']],
  [
    'outline-parent-loop.pdf',
    'a /Parent cycle',
    () => withOutline([item(21, 'a', '/Parent 22 0 R /First 22 0 R /Last 22 0 R'), item(22, 'b', '/Parent 21 0 R')]),
    ['a', 'b'],
  ],
  [
    'outline-next-cycle.pdf',
    'a /Next cycle of two',
    () => withOutline([item(21, 'a', '/Parent 20 0 R /Next 22 0 R'), item(22, 'b', '/Parent 20 0 R /Prev 21 0 R /Next 21 0 R')], 21, 22),
    ['a', 'b'],
  ],
  [
    'outline-10000-deep.pdf',
    `a chain ${OUTLINE_DEPTH} levels deep`,
    () =>
      withOutline(
        Array.from({ length: OUTLINE_DEPTH }, (_, i) =>
          item(21 + i, `level ${i}`, `/Parent ${i === 0 ? 20 : 20 + i} 0 R${i < OUTLINE_DEPTH - 1 ? ` /First ${22 + i} 0 R /Last ${22 + i} 0 R` : ''}`),
        ),
      ),
    Array.from({ length: OUTLINE_DEPTH }, (_, i) => `level ${i}`),
  ],
];

// ---------------------------------------------------------------------------
// Documents: [file name, what it is, builder]

/** A page tree `depth` levels deep: node i is object 10 + i, its kid 10 + i + 1; the page is last. */
function deepPageTree(depth) {
  const nodes = [
    { num: 1, body: '<< /Type /Catalog /Pages 10 0 R >>' },
    { num: 3, body: FONT },
    { num: 4, body: { dict: '', stream: drawText('DEEP') } },
  ];
  for (let i = 0; i < depth; i++) {
    nodes.push({ num: 10 + i, body: `<< /Type /Pages /Kids [${10 + i + 1} 0 R] /Count 1${i > 0 ? ` /Parent ${10 + i - 1} 0 R` : ''} >>` });
  }
  nodes.push({ num: 10 + depth, body: pageDict(10 + depth - 1, 4, '/MediaBox [0 0 612 792]') });
  return buildPdf([{ objects: nodes }]).bytes;
}

/** A name tree (`/Dests` or `/EmbeddedFiles`) whose two nodes list each other as /Kids. */
function nameTreeLoop(tree) {
  return withExtras(`/Names << /${tree} 30 0 R >>`, [
    { num: 30, body: '<< /Kids [31 0 R] >>' },
    { num: 31, body: '<< /Kids [30 0 R] /Limits [(a) (z)] >>' },
  ]);
}

/** Objects in a chain or a heap of small ones: enough that anything quadratic in them takes minutes. */
export const MANY_OBJECTS = 200_000;

/** One page whose content stream has `dict` entries and `data`. */
function withContent(dict, data) {
  const doc = simpleDoc(['HOSTILE']);
  const objects = doc.objects.map((o) => (o.num === doc.contents[0] ? { num: o.num, body: { dict, stream: data } } : o));
  return buildPdf([{ objects }]).bytes;
}

export const HOSTILE_PDFS = [
  [
    'flate-bomb-content.pdf',
    'a page content stream of 1 MB of Flate that inflates to 1 GiB of zeros',
    () => withContent('/Filter /FlateDecode', zeroBomb(1024)),
  ],
  // deflateSync of the same bytes is the same on every run (zlib is deterministic for one version and level).
  [
    'flate-in-flate-content.pdf',
    'a page content stream of Flate inside Flate: 6 KB that inflate to 2 MB that inflate to 2 GiB of zeros',
    () => withContent('/Filter [/FlateDecode /FlateDecode]', deflateSync(zeroBomb(2048), { level: 9 })),
  ],
  [
    'no-xref-200000-objects.pdf',
    `a damaged file of ${MANY_OBJECTS.toLocaleString('en')} small objects and no cross-reference table`,
    () => {
      const doc = simpleDoc(['HOSTILE']);
      const objects = [...doc.objects, ...Array.from({ length: MANY_OBJECTS }, (_, i) => ({ num: 10 + i, body: `[${i}]` }))];
      const { text, sections } = buildPdf([{ objects }]);
      // The table is cut (startxref now points at `trailer`): the reader must find every object by scanning.
      return bytesOf(text.slice(0, sections[0].xrefAt) + text.slice(sections[0].trailerAt));
    },
  ],
  [
    'chain-200000-objects.pdf',
    `a chain of ${MANY_OBJECTS.toLocaleString('en')} objects, each pointing at the next, reachable from the page`,
    () => {
      const doc = simpleDoc(['HOSTILE'], { page: () => '/Chain 10 0 R' });
      const chain = Array.from({ length: MANY_OBJECTS }, (_, i) => ({ num: 10 + i, body: i + 1 < MANY_OBJECTS ? `[${11 + i} 0 R]` : '[]' }));
      return buildPdf([{ objects: [...doc.objects, ...chain], xref: 'stream' }]).bytes;
    },
  ],
  [
    'flate-bomb-object-stream.pdf',
    'an object stream of 1 MB of Flate that inflates to 1 GiB of zeros',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      const objects = doc.objects.map((o) => (o.num === 1 ? { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Extra 60 0 R >>' } : o));
      objects.push({ num: 59, body: { dict: '/Type /ObjStm /N 1 /First 5 /Filter /FlateDecode', stream: zeroBomb(1024) } });
      // Object 60 is said to be member 0 of that object stream.
      return buildPdf([{ objects, xref: 'stream', size: 61, xrefRows: { 60: [2, 59, 0] } }]).bytes;
    },
  ],
  ['object-number-2-31-reference.pdf', 'a reference to object 2^31', () => withExtras('/Probe 2147483648 0 R')],
  [
    'object-number-2-31-table.pdf',
    'a table subsection that starts at object 2^31 - 1',
    () => replace(withExtras(''), /trailer/, '2147483647 1\n0000000009 00000 n\r\ntrailer'),
  ],
  [
    'object-number-2-31-in-object-stream.pdf',
    'an object stream whose member is numbered 2^31',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      const pdf = buildPdf([{ objects: doc.objects, xref: 'stream', objectStreams: [{ num: 50, members: [3] }], compress: false }]).bytes;
      // The member list `3 0` of the uncompressed object stream becomes `2147483648 0`.
      return replace(pdf, /(\/Type \/ObjStm[\s\S]*?stream\n)3 0 /, '$12147483648 0 ');
    },
  ],
  [
    'object-stream-10-8-members.pdf',
    'an object stream that claims 10^8 members',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      return replace(buildPdf([{ objects: doc.objects, xref: 'stream', objectStreams: [{ num: 50, members: [3] }] }]).bytes, /\/N 1\b/, '/N 100000000');
    },
  ],
  [
    'size-2-31.pdf',
    'a cross-reference stream that claims /Size 2^31',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      return replace(buildPdf([{ objects: doc.objects, xref: 'stream' }]).bytes, /\/Size \d+/, '/Size 2147483648');
    },
  ],
  ['size-2-31-table.pdf', 'a classic trailer that claims /Size 2^31', () => replace(withExtras(''), /\/Size \d+/, '/Size 2147483648')],
  ['nested-arrays-100000.pdf', 'arrays nested 100,000 deep', () => withExtras(`/Deep ${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
  ['nested-dicts-100000.pdf', 'dictionaries nested 100,000 deep', () => withExtras(`/Deep ${'<< /A '.repeat(100_000)}1${' >>'.repeat(100_000)}`)],
  ['page-tree-10000-deep.pdf', 'a page tree 10,000 levels deep', () => deepPageTree(10_000)],
  [
    'page-tree-cycle.pdf',
    'a page-tree node that lists itself and its parent as kids',
    () => {
      const doc = simpleDoc(['HOSTILE', 'CYCLE']);
      const objects = doc.objects.map((o) => (o.num === 2 ? { num: 2, body: '<< /Type /Pages /Kids [4 0 R 30 0 R 2 0 R] /Count 3 >>' } : o));
      objects.push({ num: 30, body: '<< /Type /Pages /Parent 2 0 R /Kids [6 0 R 30 0 R 2 0 R] /Count 2 >>' });
      return buildPdf([{ objects }]).bytes;
    },
  ],
  ...OUTLINE_CASES.map(([name, about, make]) => [name, `an outline with ${about}`, make]),
  ['name-tree-dests-loop.pdf', 'a /Dests name tree whose /Kids loop', () => nameTreeLoop('Dests')],
  ['name-tree-embedded-files-loop.pdf', 'an /EmbeddedFiles name tree whose /Kids loop', () => nameTreeLoop('EmbeddedFiles')],
  [
    'form-field-kids-loop.pdf',
    'form fields whose /Kids and /Parent loop',
    () =>
      withExtras('/AcroForm << /Fields [30 0 R] >>', [
        { num: 30, body: '<< /T (a) /FT /Tx /Kids [31 0 R] /Parent 31 0 R >>' },
        { num: 31, body: '<< /T (b) /Kids [30 0 R] /Parent 30 0 R >>' },
      ]),
  ],
  [
    'annotation-parent-loop.pdf',
    'a widget annotation whose /Parent chain loops',
    () =>
      withPageEntries('/Annots [40 0 R]', [
        { num: 40, body: '<< /Type /Annot /Subtype /Widget /Rect [72 72 200 100] /P 4 0 R /Parent 41 0 R >>' },
        { num: 41, body: '<< /T (loop) /FT /Tx /Parent 42 0 R /Kids [40 0 R] >>' },
        { num: 42, body: '<< /T (back) /Parent 41 0 R /Kids [41 0 R] >>' },
      ]),
  ],
  [
    'xref-prev-self.pdf',
    'a cross-reference section whose /Prev is itself',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      return buildPdf([{ objects: doc.objects }, { objects: [], prev: 1 }]).bytes;
    },
  ],
  [
    'xref-prev-loop.pdf',
    'two cross-reference sections whose /Prev point at each other',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      return buildPdf([
        { objects: doc.objects, prev: 1 },
        { objects: [], prev: 0 },
      ]).bytes;
    },
  ],
  [
    'absurd-length.pdf',
    'a content stream whose /Length is 2^40',
    () => {
      const doc = simpleDoc(['HOSTILE']);
      const objects = doc.objects.map((o) =>
        o.num === doc.contents[0] ? { num: o.num, body: { dict: '', stream: drawText('HOSTILE'), length: 2 ** 40 } } : o,
      );
      return buildPdf([{ objects }]).bytes;
    },
  ],
  [
    'absurd-count.pdf',
    'a page tree whose /Count is 2^31 - 1, and an outline /Count of 10^9',
    () =>
      replace(
        withOutline([item(21, 'a', '/Parent 20 0 R /Count 1000000000')]),
        /\/Type \/Pages \/Kids \[([^\]]*)\] \/Count \d+/,
        '/Type /Pages /Kids [$1] /Count 2147483647',
      ),
  ],
  [
    'truncated-in-stream.pdf',
    'a file cut off inside its first content stream',
    () => {
      const pdf = buildPdf([{ objects: simpleDoc(['HOSTILE', 'TRUNCATED']).objects }]);
      return pdf.bytes.slice(0, pdf.text.indexOf('stream\n') + 12);
    },
  ],
  ['unterminated-string.pdf', 'a string that never closes, where a key belongs', () => withExtras('(never closed')],
];

// ---------------------------------------------------------------------------
// Images for add_image_watermark: [file name, what it is, builder]

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function pngChunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  let c = 0xffffffff;
  for (const b of out.subarray(4, 8 + data.length)) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0, 8 + data.length);
  return out;
}

/** A PNG that declares width x height 8-bit grey pixels, with `idat` as its pixel data. */
export function png(width, height, idat) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An 8 x 8 baseline JPEG (pdftoppm): its frame header (SOF0) is at TINY_JPEG_SOF. */
const TINY_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAYABgAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAIAAgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD0CiiigD//2Q==',
  'base64',
);
const TINY_JPEG_SOF = TINY_JPEG.indexOf(Buffer.from([0xff, 0xc0]));

export const HOSTILE_IMAGES = [
  // 20000 rows of a filter byte and 20000 zeros: 400 MB of zeros, which deflate to about 400 KB.
  ['png-20000x20000-zeros.png', 'a PNG of 20000 x 20000 pixels of zeros', () => png(20_000, 20_000, zeroBomb(382))],
  ['png-100000x100000.png', 'a PNG that declares 100000 x 100000 pixels over 4 MB of zeros', () => png(100_000, 100_000, zeroBomb(4))],
  ['png-2-31-wide.png', 'a PNG 2^31 pixels wide and one high', () => png(2 ** 31, 1, deflateSync(Buffer.alloc(1024)))],
  [
    'png-truncated.png',
    'a 64 x 64 PNG cut off inside its pixel data',
    () => png(64, 64, deflateSync(Buffer.alloc(64 * 65, 0x55), { level: 0 })).subarray(0, 2000),
  ],
  [
    'jpeg-65535x65535.jpg',
    'a JPEG whose frame header declares 65535 x 65535 pixels',
    () => {
      const jpeg = Buffer.from(TINY_JPEG);
      // SOF0: marker, length (2), precision (1), then height and width (2 each).
      jpeg.writeUInt16BE(65535, TINY_JPEG_SOF + 5);
      jpeg.writeUInt16BE(65535, TINY_JPEG_SOF + 7);
      return jpeg;
    },
  ],
  ['jpeg-truncated.jpg', 'a JPEG cut off before its image data', () => TINY_JPEG.subarray(0, TINY_JPEG_SOF + 40)],
];

/** Every hostile file's name under fixtures/out/hostile/. */
export const HOSTILE_OUTPUTS = [...HOSTILE_PDFS, ...HOSTILE_IMAGES].map(([name]) => `hostile/${name}`);

/** Builds the set with `write(name, bytes)` (name relative to fixtures/out/). */
export function buildHostileFixtures(write) {
  for (const [name, , make] of [...HOSTILE_PDFS, ...HOSTILE_IMAGES]) write(`hostile/${name}`, make());
}
