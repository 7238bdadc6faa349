// mutool run rotate.js <input> <output> <angle>: every page turned by angle (a multiple of 90).
var doc = new PDFDocument(scriptArgs[0]);
// parseInt: MuJS (mutool 1.21) reads Number("-90") as NaN.
var angle = parseInt(scriptArgs[2], 10);
var n = doc.countPages();
for (var i = 0; i < n; i++) {
  var page = doc.findPage(i);
  var now = inherited(page, 'Rotate');
  page.put('Rotate', ((now ? now.valueOf() : 0) + angle + 360) % 360);
}
doc.save(scriptArgs[1], '');
