import type { Transform } from '../../core/action.js';
import { selectPages } from '../../core/pages.js';
import { fieldErrorOf, openInput } from '../inputs.js';
import { addImageWatermark } from '../../pdf/watermark/index.js';
import type { fields } from './action.js';

const transform: Transform<typeof fields, 'document'> = async (values, context) => {
  try {
    return await addImageWatermark({
      open: () => openInput(values.file, context),
      pages: values.pages === undefined ? undefined : (count) => selectPages(values.pages!, count, 'pages'),
      image: values.image,
      transparency: values.transparency,
      margin: values.margin,
      position: values.position,
      scale: values.scale,
      layer: values.layer,
    });
  } catch (err) {
    // The document's refusals are field errors already (openInput): what the PDF layer still throws is about the image.
    throw fieldErrorOf(err, 'image');
  }
};

export default transform;
