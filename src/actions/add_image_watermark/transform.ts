import type { Transform } from '../../core/action.js';
import { addImageWatermark } from '../../pdf/watermark/index.js';
import type { fields } from './action.js';

const transform: Transform<typeof fields, 'document'> = async (values, { action }) =>
  addImageWatermark({
    file: values.file,
    action,
    pages: values.pages,
    image: values.image,
    transparency: values.transparency,
    margin: values.margin,
    position: values.position,
    scale: values.scale,
    layer: values.layer,
  });

export default transform;
