// Shared by the mutool run scripts (loaded first: `mutool run` has no modules,
// so bench/real.mjs passes this file's text ahead of each script's).

/** A page's own value of `key`, or its nearest ancestor's (Rotate, Resources and MediaBox are inheritable). */
function inherited(page, key) {
  for (var node = page; !absent(node); node = node.get('Parent')) {
    var value = node.get(key);
    if (!absent(value)) return value;
  }
  return null;
}

/** A missing key reads as JavaScript null in some MuPDF versions, a PDF null object in others. */
function absent(value) {
  return value === null || value === undefined || value.isNull();
}

/** The page's /Resources as its own dictionary (a copy of an inherited one), with sub-dictionary `kind` present. */
function resourcesWith(doc, page, kind) {
  var res = page.get('Resources');
  if (absent(res)) {
    var up = inherited(page, 'Resources');
    res = doc.newDictionary();
    if (up)
      up.forEach(function (value, key) {
        res.put(key, value);
      });
    page.put('Resources', res);
  }
  var sub = res.get(kind);
  if (absent(sub)) {
    sub = doc.newDictionary();
    res.put(kind, sub);
  }
  return sub;
}

/**
 * Draws `drawing` (content stream text, using resource `name` of `kind` that
 * points to `object`) over every page: the old contents are wrapped in q … Q
 * so their graphics state cannot move the mark.
 */
function stampEveryPage(doc, kind, name, object, drawingFor) {
  var open = doc.addStream('q\n', null);
  var n = doc.countPages();
  for (var i = 0; i < n; i++) {
    var page = doc.findPage(i);
    resourcesWith(doc, page, kind).put(name, object);
    var box = inherited(page, 'MediaBox');
    var w = box.get(2).valueOf() - box.get(0).valueOf();
    var h = box.get(3).valueOf() - box.get(1).valueOf();
    var contents = doc.newArray();
    contents.push(open);
    var old = page.get('Contents');
    if (!absent(old) && old.isArray()) for (var k = 0; k < old.length; k++) contents.push(old.get(k));
    else if (!absent(old)) contents.push(old);
    contents.push(doc.addStream('Q\n' + drawingFor(w, h, box.get(0).valueOf(), box.get(1).valueOf()), null));
    page.put('Contents', contents);
  }
}
