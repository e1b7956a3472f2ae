/* The bytes of a signed order file, as pbem's Python side makes them: hex and base64, canonical
 * JSON (pbem.common.canonical), the bytes a signature covers, and the YAML that `pbem sign` writes.
 * Plain functions of their arguments, no page and no browser state: orderpage.js signs and saves
 * with them, and hands them on as PBEM.canonical, PBEM.toYaml, PBEM.hexToBytes, PBEM.bytesToHex.
 */
"use strict";

var PBEM_FILE = (function () {
  var FIELD_ORDER = ["pbem", "campaign", "nonce", "player", "phase", "opened", "seq", "entropy_reveal", "entropy_commit", "orders", "request", "signature"];

  // --- bytes -------------------------------------------------------------------------------

  function hexToBytes(hex) {
    if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error("not lowercase hex");
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function bytesToHex(bytes) {
    var s = "";
    bytes = new Uint8Array(bytes);
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return s;
  }

  function bytesToBase64(bytes) {
    bytes = new Uint8Array(bytes);
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s);
  }

  function base64urlToBytes(text) {
    var s = text.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  // --- canonical JSON, byte for byte as Python's -------------------------------------------

  function codePointCompare(a, b) {
    // Python sorts str keys by code point; JS compares UTF-16 units, which differs for astral
    // characters against U+E000..U+FFFF.
    var A = Array.from(a), B = Array.from(b);
    for (var i = 0; i < Math.min(A.length, B.length); i++) {
      var x = A[i].codePointAt(0), y = B[i].codePointAt(0);
      if (x !== y) return x - y;
    }
    return A.length - B.length;
  }

  function checkString(s) {
    if (/[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s)) {
      throw new Error("text with a broken character (lone surrogate)");
    }
    return s;
  }

  function canonical(value) {
    if (value === null) return "null";
    if (value === true) return "true";
    if (value === false) return "false";
    if (typeof value === "number") {
      // Order files hold whole numbers only; Python prints an int in plain decimal.
      if (!Number.isSafeInteger(value)) throw new Error("only whole numbers can be signed: " + value);
      return String(value === 0 ? 0 : value);
    }
    if (typeof value === "string") return JSON.stringify(checkString(value));
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (typeof value === "object") {
      return "{" + Object.keys(value).sort(codePointCompare).map(function (k) {
        return JSON.stringify(checkString(k)) + ":" + canonical(value[k]);
      }).join(",") + "}";
    }
    throw new Error("cannot sign a value of type " + typeof value);
  }

  function signingBytes(doc) {
    var body = {};
    Object.keys(doc).forEach(function (k) { if (k !== "signature") body[k] = doc[k]; });
    return new TextEncoder().encode(canonical(body));
  }

  // --- YAML output: block style, every string JSON-quoted (valid YAML) -----------------------

  var PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
  var YAML_WORDS = /^(y|n|yes|no|on|off|true|false|null)$/i;

  function yamlString(s) {
    // A JSON string is a YAML double-quoted scalar. Characters PyYAML will not read raw (C1
    // controls, U+FFFE/U+FFFF), and those YAML takes for line breaks and would fold (NEL, LS,
    // PS), are written as \u escapes, which keep the same meaning.
    return JSON.stringify(checkString(s)).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, function (c) {
      return "\\u" + ("000" + c.charCodeAt(0).toString(16)).slice(-4);
    });
  }

  function yamlKey(k) { return PLAIN_KEY.test(k) && !YAML_WORDS.test(k) ? k : yamlString(k); }

  function isScalar(v) { return v === null || typeof v !== "object"; }

  function yamlScalar(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") { canonical(v); return String(v === 0 ? 0 : v); }
    return yamlString(v);
  }

  function yamlInline(v) {
    if (isScalar(v)) return yamlScalar(v);
    if (Array.isArray(v) && v.every(isScalar)) return "[" + v.map(yamlScalar).join(", ") + "]";
    if (!Array.isArray(v) && Object.keys(v).length === 0) return "{}";
    return null;
  }

  function yamlLines(v, indent) {
    var pad = " ".repeat(indent), lines = [];
    if (Array.isArray(v)) {
      v.forEach(function (item) {
        var inline = yamlInline(item);
        if (inline !== null) { lines.push(pad + "- " + inline); return; }
        var sub = yamlLines(item, indent + 2);
        sub[0] = pad + "- " + sub[0].slice(indent + 2);
        lines = lines.concat(sub);
      });
      return lines;
    }
    orderedKeys(v).forEach(function (k) {
      var inline = yamlInline(v[k]);
      if (inline !== null) lines.push(pad + yamlKey(k) + ": " + inline);
      else lines = lines.concat([pad + yamlKey(k) + ":"], yamlLines(v[k], indent + 2));
    });
    return lines;
  }

  function orderedKeys(obj) {
    var keys = Object.keys(obj);
    if (keys.indexOf("pbem") === -1) return keys;
    return FIELD_ORDER.filter(function (k) { return k in obj; }).concat(keys.filter(function (k) { return FIELD_ORDER.indexOf(k) === -1; }));
  }

  // No line over 72 characters, as `pbem sign` writes them, so a mail client has nothing to wrap:
  // a long string continues over lines with escaped line breaks ("abc\ then def"), a long flow
  // list over lines after its commas. YAML reads both as the same value.
  var WIDTH = 72;

  function foldLine(line) {
    if (line.length <= WIDTH) return [line];
    var m = /^( *)(- |(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"): )(.*)$/.exec(line);
    if (!m) return [line];
    var head = m[1] + m[2], value = m[3], cont = m[1] + "  ";
    if (/^"(?:[^"\\]|\\.)*"$/.test(value)) return foldString(head, value.slice(1, -1), cont);
    if (value.charAt(0) === "[") return foldList(head, value, cont);
    return [line];
  }

  function foldString(head, body, cont, tail) {
    var units = body.match(/\\u[0-9a-fA-F]{4}|\\.|[\s\S]/g) || [];  // never split an escape
    var lines = [], lead = head + '"', piece = "", room = WIDTH - 1 - (tail || 0);
    units.forEach(function (u) {
      if (lead.length + piece.length + u.length > room && piece) {
        lines.push(lead + piece + "\\");
        lead = cont;
        piece = "";
      }
      // white space that starts a continued line is not content in YAML: escape it
      piece += (!piece && lines.length && u === " ") ? "\\x20" : u;
    });
    lines.push(lead + piece + '"');
    return lines;
  }

  function foldList(head, value, cont) {
    var items = value.slice(1, -1).match(/"(?:[^"\\]|\\.)*"|[^,\s]+/g) || [];
    var lines = [], line = head + "[", fresh = true;
    items.forEach(function (item, i) {
      var tail = i < items.length - 1 ? "," : "]", next = item + tail;
      if (!fresh && line.length + next.length + 1 > WIDTH) {
        lines.push(line);
        line = cont;
        fresh = true;
      }
      if (line.length + next.length > WIDTH && item.charAt(0) === '"') {  // a long string item
        var parts = foldString(line + (fresh ? "" : " "), item.slice(1, -1), cont, 1);
        lines = lines.concat(parts.slice(0, -1));
        line = parts[parts.length - 1] + tail;
      } else {
        line += (fresh ? "" : " ") + next;
      }
      fresh = false;
    });
    lines.push(line);
    return lines;
  }

  function toYaml(doc) {
    var out = [];
    yamlLines(doc, 0).forEach(function (line) { out = out.concat(foldLine(line)); });
    return out.join("\n") + "\n";
  }

  return {
    hexToBytes: hexToBytes, bytesToHex: bytesToHex, bytesToBase64: bytesToBase64, base64urlToBytes: base64urlToBytes,
    canonical: canonical, signingBytes: signingBytes, orderedKeys: orderedKeys, toYaml: toYaml
  };
})();
