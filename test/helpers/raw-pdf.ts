/**
 * The byte-level PDF assembler for reader tests. It lives in
 * scripts/raw-pdf.mjs (types in scripts/raw-pdf.d.mts), so that the fixture
 * builder makes the hostile files with the same code the tests use.
 */
export * from '../../scripts/raw-pdf.mjs';
