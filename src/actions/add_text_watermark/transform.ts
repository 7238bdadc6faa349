import type { Transform } from '../../core/action.js';
import { selectPages } from '../../core/pages.js';
import { fieldErrorOf, openInput } from '../inputs.js';
import { PdfError } from '../../pdf/errors.js';
import { addTextWatermark } from '../../pdf/watermark/index.js';
import { LINE_FIELDS, type fields } from './action.js';

const transform: Transform<typeof fields, 'document'> = async (values, context) => {
  const given = LINE_FIELDS.filter((field) => values[field] !== undefined);
  try {
    return await addTextWatermark({
      open: () => openInput(values.file, context),
      pages: values.pages === undefined ? undefined : (count) => selectPages(values.pages!, count, 'pages'),
      lines: given.map((field) => ({ text: values[field]! })),
      fontSize: values.font_size,
      color: values.color,
      transparency: values.transparency,
      rotation: values.rotation,
      position: values.position,
      margin: values.margin,
      layer: values.layer,
    });
  } catch (err) {
    // A line no font can draw: the error names which of the given lines, and so its field.
    if (err instanceof PdfError && err.item !== undefined) throw fieldErrorOf(err, given[err.item]);
    throw err;
  }
};

export default transform;
