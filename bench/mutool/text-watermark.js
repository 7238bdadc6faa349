// mutool run text-watermark.js <input> <output> <text>: the text in Helvetica 48 pt, grey, centred on every page.
var doc = new PDFDocument(scriptArgs[0]);
var text = scriptArgs[2];
var font = doc.addSimpleFont(new Font('Helvetica'), 'Latin');
stampEveryPage(doc, 'Font', 'PdfsvcBenchF', font, function (w, h, x0, y0) {
  var x = x0 + w / 2 - text.length * 48 * 0.3;
  var y = y0 + h / 2;
  return 'q 0.5 g BT /PdfsvcBenchF 48 Tf ' + x + ' ' + y + ' Td (' + text + ') Tj ET Q\n';
});
doc.save(scriptArgs[1], '');
