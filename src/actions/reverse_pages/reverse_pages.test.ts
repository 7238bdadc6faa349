/**
 * reverse_pages: the output has every page, last first, each keeping what the
 * reader had on it. The tables (test/helpers/page-actions.ts) are those of
 * every page action.
 */
import reversePages from './action.js';
import {
  boxesTable,
  formFieldsTable,
  loadingRules,
  pageOrderTable,
  range,
  rotationTable,
  structureTable,
  validationTable,
} from '../../../test/helpers/page-actions.js';

pageOrderTable(reversePages, [{ values: {}, order: range(1, 10).reverse() }]);

// Rotation follows pages that move, including page 5 leaving its /Rotate-carrying /Pages node.
rotationTable(reversePages, [{ values: {}, order: [5, 4, 3, 2, 1], rotation: [90, 270, 180, 90, 0] }]);

boxesTable(reversePages, [{ values: {}, order: [3, 2, 1] }]);

structureTable(reversePages, [
  {
    values: {},
    order: [6, 5, 4, 3, 2, 1],
    outline: [
      [
        'Chapter 1',
        6,
        [
          ['Section 1.1', 5],
          ['Section 1.2', 4],
        ],
      ],
      ['Chapter 2', 3, [['Section 2.1', 2]]],
      ['Appendix', 1],
    ],
  },
]);

formFieldsTable(reversePages, [{ values: {}, order: [3, 2, 1] }]);

validationTable(reversePages, [{ file: 'pages-10.pdf', values: { pages: '1' }, field: 'pages', message: /unknown/ }]);

loadingRules(reversePages, {}, [2, 1]);
