// mutool run remove.js <input> <output>: page 1 removed from the document.
// Not `mutool merge 2-N`: that builds a new document from the pages and drops
// the AcroForm, outlines and page labels, which DECISIONS.md says a remove
// keeps. `garbage` drops the objects only page 1 used, as pdfsvc and qpdf do.
var doc = new PDFDocument(scriptArgs[0]);
doc.deletePage(0);
doc.save(scriptArgs[1], 'garbage');
