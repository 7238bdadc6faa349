// mutool run image-watermark.js <input> <output> <image.png>: the image, 200 pt wide, centred on every page.
var doc = new PDFDocument(scriptArgs[0]);
var image = new Image(scriptArgs[2]);
var ref = doc.addImage(image);
var iw = 200;
var ih = (200 * image.getHeight()) / image.getWidth();
stampEveryPage(doc, 'XObject', 'PdfsvcBenchI', ref, function (w, h, x0, y0) {
  return 'q ' + iw + ' 0 0 ' + ih + ' ' + (x0 + (w - iw) / 2) + ' ' + (y0 + (h - ih) / 2) + ' cm /PdfsvcBenchI Do Q\n';
});
doc.save(scriptArgs[1], '');
