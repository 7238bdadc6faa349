// What the watermark jobs of bench.mjs need, made once into bench/out/ and
// reused: the watermark image (an RGBA PNG), and for qpdf --overlay a
// one-page stamp PDF carrying the same watermark on a blank Letter page
// (made by the pdfsvc under test, so both tools draw the same thing).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { OUT_DIR } from './make-documents.mjs';

const DIR = `${OUT_DIR}watermark/`;

/** The text job's watermark, as pdfsvc arguments. */
export const TEXT_ARGS = ['add-text-watermark', '--line-1', 'CONFIDENTIAL', '--line-2', 'pdfsvc bench'];
/** The image job's watermark, as pdfsvc arguments (the image path follows). */
export const IMAGE_ARGS = ['add-image-watermark', '--scale', '40', '--image'];

/** A 600 × 200 RGBA PNG: a colour ramp whose alpha fades out towards the edges. */
export function watermarkImage() {
  const path = `${DIR}watermark.png`;
  if (existsSync(path)) return path;
  mkdirSync(DIR, { recursive: true });
  const width = 600,
    height = 200;
  const raw = Buffer.alloc(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * (1 + width * 4) + 1 + x * 4;
      const edge = Math.min(x, width - 1 - x, y, height - 1 - y);
      raw[i] = (x * 255) / width;
      raw[i + 1] = 64;
      raw[i + 2] = (y * 255) / height;
      raw[i + 3] = Math.min(255, edge * 8);
    }
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b) => {
    let c = 0xffffffff;
    for (const v of b) c = crcTable[(c ^ v) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'latin1');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
  return path;
}

/** A blank Letter page, written by hand. */
function blankPage() {
  const path = `${DIR}blank.pdf`;
  if (existsSync(path)) return path;
  mkdirSync(DIR, { recursive: true });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> >>',
  ];
  let body = '%PDF-1.7\n';
  const offsets = objects.map((o, i) => {
    const at = body.length;
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f\r\n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n\r\n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(path, body, 'latin1');
  return path;
}

/** The one-page stamp for qpdf --overlay: the same watermark pdfsvc draws, made with `cli`. */
export function watermarkStamp(kind, cli) {
  const path = `${DIR}stamp-${kind}.pdf`;
  if (existsSync(path)) return path;
  const args = kind === 'text' ? TEXT_ARGS : [...IMAGE_ARGS, watermarkImage()];
  const made = spawnSync(process.execPath, [cli, ...args, blankPage(), '-o', path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`could not make the ${kind} stamp: ${made.stderr}`);
  return path;
}
