/** Fields that several actions share, declared once. */
import type { FileField, PagesField } from './fields.js';

export const pdfFile = {
  kind: 'file',
  accepts: 'pdf',
  required: true,
  help: 'The input PDF.',
  example: 'pages-3.pdf',
} as const satisfies FileField;

export const selectedPages = {
  kind: 'pages',
  form: 'set',
  help: 'The pages to change; omitted means every page.',
  example: '1..2',
} as const satisfies PagesField;
