// The bytes of a packed block (pbem.render.pagekit.pack): base 85 in an alphabet that HTML
// leaves alone inside <script> (no < > & quotes, backslash or backquote), 4 bytes in 5
// characters, a short last group; line breaks are skipped. A quarter over the bytes, where
// base 64 costs a third.
var PBEM_BYTES = function (text) {
  "use strict";
  var A = "!#%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz{|}~";
  var at = {};
  for (var k = 0; k < A.length; k++) at[A.charCodeAt(k)] = k;
  text = text.replace(/\s+/g, "");
  var n = text.length, rest = n % 5;
  var out = new Uint8Array(Math.floor(n / 5) * 4 + (rest ? rest - 1 : 0)), o = 0;
  for (var i = 0; i < n; i += 5) {
    var v = 0;
    for (var j = 0; j < 5; j++) v = v * 85 + (i + j < n ? at[text.charCodeAt(i + j)] : 84);
    for (j = 3; j >= 0 && o < out.length; j--) out[o++] = Math.floor(v / Math.pow(256, j)) % 256;
  }
  return out;
};
