// mutool run split.js <input> <output-dir> <pages-per-part>: consecutive parts 00001.pdf, 00002.pdf, …
var src = new PDFDocument(scriptArgs[0]);
var per = parseInt(scriptArgs[2], 10);
var n = src.countPages();
for (var first = 0, part = 1; first < n; first += per, part++) {
  var out = new PDFDocument();
  // One graft map per part: objects shared by its pages (fonts, images) are copied once.
  var map = out.newGraftMap();
  for (var i = first; i < Math.min(first + per, n); i++) map.graftPage(-1, src, i);
  out.save(scriptArgs[1] + '/' + ('0000' + part).slice(-5) + '.pdf', '');
}
