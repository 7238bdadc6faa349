/**
 * extract_pages: the output has the selected pages, in the input's order and
 * each once, with what the reader had on them; the others and what pointed
 * at them are gone. The tables (test/helpers/page-actions.ts) are those of
 * every page action.
 */
import extractPages from './action.js';
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

pageOrderTable(extractPages, [
  { values: { pages: '2,4' }, order: [2, 4] },
  { values: { pages: '9,2,2,5..3' }, order: [2, 3, 4, 5, 9] },
  { values: { pages: '-3..' }, order: [8, 9, 10] },
  { values: { pages: '10' }, order: [10] },
  { values: {}, order: range(1, 10) },
]);

// Page 5 leaves its /Rotate-carrying /Pages node and keeps its rotation.
rotationTable(extractPages, [{ values: { pages: '5' }, order: [5], rotation: [90] }]);

boxesTable(extractPages, [{ values: { pages: '3,1' }, order: [1, 3] }]);

structureTable(extractPages, [
  { values: { pages: '6' }, order: [6], outline: [['Appendix', 1]] },
  {
    values: { pages: '5,1' },
    order: [1, 5],
    outline: [
      ['Chapter 1', 1],
      ['Chapter 2', 2, [['Section 2.1', 2]]],
    ],
  },
]);

formFieldsTable(extractPages, [{ values: { pages: '2' }, order: [2] }]);

validationTable(extractPages, [
  { file: 'pages-10.pdf', values: { pages: '2,12' }, field: 'pages', message: /\b12\b.*\b10 pages\b/ },
  { file: 'pages-3.pdf', values: { pages: '4..' }, field: 'pages', message: /\b4\b.*\b3 pages\b/ },
  { file: 'pages-10.pdf', values: { pages: 'a' }, field: 'pages', message: /\ba\b/ },
]);

loadingRules(extractPages, { pages: '1' }, [1]);
