import type { Transform } from '../../core/action.js';
import { addTextWatermark } from '../../pdf/watermark/index.js';
import { LINE_FIELDS, type fields } from './action.js';

const transform: Transform<typeof fields, 'document'> = async (values, { action }) =>
  addTextWatermark({
    file: values.file,
    action,
    pages: values.pages,
    lines: LINE_FIELDS.flatMap((field) => (values[field] === undefined ? [] : [{ field, text: values[field] }])),
    fontSize: values.font_size,
    color: values.color,
    transparency: values.transparency,
    rotation: values.rotation,
    position: values.position,
    margin: values.margin,
    layer: values.layer,
  });

export default transform;
