import { defineAction } from '../../core/action.js';
import type { FieldMap } from '../../core/fields.js';
import { pdfFile, selectedPages } from '../../core/common-fields.js';

export const fields = {
  file: pdfFile,
  angle: {
    kind: 'integer',
    required: true,
    // Readers only honour quarter turns (/Rotate must be a multiple of 90).
    oneOf: [0, 90, 180, 270, -90, -180, -270],
    example: 90,
    help: 'Degrees to add to the current rotation; positive is clockwise.',
  },
  pages: { ...selectedPages, help: 'The pages to rotate; omitted means every page.' },
} as const satisfies FieldMap;

export default defineAction({
  name: 'rotate_pages',
  aliases: ['rotate'],
  group: 'pages',
  summary: 'Rotate pages by a multiple of 90 degrees.',
  description: "Positive angles rotate clockwise, negative counter-clockwise; the angle adds to each page's current rotation. Only the selected pages change.",
  fields,
  output: 'document',
  transform: () => import('./transform.js'),
});
