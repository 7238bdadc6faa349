import { defineAction } from '../../core/action.js';
import type { ChoiceField, FieldMap, NumberField, TextField } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';
import { ValidationErrors } from '../../core/errors.js';

/** Fields both watermark actions share (docs/contract.md, "Fields"). */
export const transparency = {
  kind: 'number',
  min: 0,
  max: 100,
  unit: 'percent',
  default: 50,
  example: 30,
  help: 'How much of the page shows through the watermark: 0 is opaque, 100 invisible.',
} as const satisfies NumberField;

export const margin = {
  kind: 'number',
  min: 0,
  max: 1000,
  unit: 'points',
  default: 36,
  example: 72,
  help: 'Distance from the visible page edges the watermark is anchored to (reduced on pages too small for it: at most a quarter of the shorter side).',
} as const satisfies NumberField;

export const position = {
  kind: 'choice',
  values: ['center', 'top-left', 'top', 'top-right', 'left', 'right', 'bottom-left', 'bottom', 'bottom-right'],
  default: 'center',
  example: 'bottom-right',
  help: "Where on the page, as the reader sees it (after the page's rotation, inside its crop box).",
} as const satisfies ChoiceField;

export const layer = {
  kind: 'choice',
  values: ['over', 'under'],
  default: 'over',
  example: 'under',
  help: 'Draw above the page content (over) or beneath it (under; hidden wherever the page paints an opaque background).',
} as const satisfies ChoiceField;

const line = (n: number): TextField => ({
  kind: 'text',
  minLength: 1,
  maxLength: 200,
  ...(n === 1 ? { required: true } : {}),
  // Line 2's example shows that text beyond Latin-1 is drawn too (with an embedded font).
  example: n === 1 ? 'DRAFT' : n === 2 ? 'Черновик · Προσχέδιο' : `Line ${n}`,
  help: n === 1 ? 'The first (or only) line of the watermark text.' : `Line ${n} of the watermark text, below line ${n - 1}.`,
});

export const fields = {
  file: pdfFile,
  line_1: { ...line(1), required: true },
  line_2: line(2),
  line_3: line(3),
  line_4: line(4),
  line_5: line(5),
  font_size: {
    kind: 'number',
    min: 4,
    max: 400,
    unit: 'points',
    example: 48,
    defaultHelp: "fitted: the longest line spans about 60 % of the visible page's shorter side",
    help: 'Font size of the text.',
  },
  color: { kind: 'color', default: '#808080', example: '#c00000', help: 'Text colour.' },
  transparency,
  rotation: {
    kind: 'number',
    min: -360,
    max: 360,
    unit: 'degrees',
    example: 45,
    defaultHelp: "along the visible page's diagonal, bottom-left to top-right",
    help: 'Angle of the text as the reader sees it, counter-clockwise (45 rises to the right, -45 falls).',
  },
  position,
  margin,
  layer,
  pages: { ...selectedPages, help: 'The pages to watermark; omitted means every page.' },
} as const satisfies FieldMap;

export const LINE_FIELDS = ['line_1', 'line_2', 'line_3', 'line_4', 'line_5'] as const;

export default defineAction({
  name: 'add_text_watermark',
  group: 'watermark',
  summary: 'Draw up to five lines of text on pages, upright and placed as the reader sees each page.',
  description:
    "Lines are centred on each other. Placement is in the visible area (the crop box) after the page's rotation, so rotated pages and boxes away from the origin get the watermark upright and where asked. Text outside Latin-1 is drawn with Noto Sans (Latin, Greek, Cyrillic, Devanagari), Noto Sans Arabic, Noto Sans Hebrew, Noto Sans SC (Chinese, Japanese) and Noto Sans KR (Korean), embedded as subsets; Arabic and Hebrew run right to left, with Latin words and numbers among them in bidirectional order. A character none of those fonts has is refused with the line named.",
  fields,
  check: (values) => {
    const errors = new ValidationErrors();
    for (const name of LINE_FIELDS) {
      const text = values[name];
      const bad = text === undefined ? null : /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.exec(text);
      if (bad) {
        const cp = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
        errors.add(
          name,
          (words) => `contains the control character U+${cp}; a line is one line of text (use ${words.name('line_1')} … ${words.name('line_5')} for several)`,
        );
      }
    }
    errors.throwIfAny();
  },
  output: 'document',
  transform: () => import('./transform.js'),
});
