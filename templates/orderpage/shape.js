/* Shape first, as pbem check and intake do (pbem.core.shape): the orders are checked against the
 * round's JSON Schema before any rule, and only the first problem is said, the one jsonschema's
 * best_match picks, in shape.py's words. This covers the keywords pbem's order schemas use (type,
 * enum, const, pattern, the bounds, required, properties, additionalProperties, propertyNames,
 * items, anyOf, oneOf, not, $ref; tests/test_orderpage_ror.py keeps that list complete); a schema
 * with another keyword is not judged here (the page then shows the rules' problems only). */
"use strict";

PBEM.shape = (function () {
  var WEAK = ["anyOf", "oneOf"];
  var MESSAGES = {
    type: "must be %(expected)s, not %(actual)s", "enum": "must be one of: %(choices)s", "const": "must be %(choices)s",
    pattern: "'%(value)s' is not of the right form", minLength: "is too short: at least %(limit)s characters",
    maxLength: "is too long: at most %(limit)s characters", minimum: "must be at least %(limit)s",
    maximum: "must be at most %(limit)s", exclusiveMinimum: "must be more than %(limit)s",
    exclusiveMaximum: "must be less than %(limit)s", minItems: "must list at least %(limit)s entries",
    maxItems: "may list at most %(limit)s entries", minProperties: "must hold at least %(limit)s entries",
    maxProperties: "may hold at most %(limit)s entries", uniqueItems: "lists an entry twice",
    additionalProperties: "'%(value)s' is not allowed here", propertyNames: "'%(value)s' is not allowed here",
    required: "the field '%(value)s' is missing", other: "does not have an allowed form"
  };
  var TYPE_WORDS = { integer: "a whole number", number: "a number", float: "a number with a decimal point", string: "a name or text",
                     array: "a list", object: "a mapping (key: value lines)", "boolean": "yes or no", "null": "empty" };
  var QUOTE = 40;

  function isType(v, type) {
    switch (type) {
      case "integer": return typeof v === "number" && Number.isInteger(v);
      case "number": return typeof v === "number";
      case "string": return typeof v === "string";
      case "array": return Array.isArray(v);
      case "object": return v !== null && typeof v === "object" && !Array.isArray(v);
      case "boolean": return typeof v === "boolean";
      case "null": return v === null;
    }
    return false;
  }
  function typeName(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return "boolean";
    if (typeof v === "number") return Number.isInteger(v) ? "integer" : "float";
    if (typeof v === "string") return "string";
    if (Array.isArray(v)) return "array";
    if (typeof v === "object") return "object";
    return "other";
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b) && typeof a === typeof b; }
  function chars(s) { return Array.from(s).length; }

  /* jsonschema's iter_errors for the keywords above, in its order: each error is
   * {kw, value (the keyword's), instance, schema, path (absolute), context (oneOf's)}. */
  function errors(root, schema, inst, path) {
    var out = [];
    if (schema === true) return out;
    if (schema === false) return [{ kw: "false", value: false, instance: inst, schema: {}, path: path, context: [] }];
    Object.keys(schema).forEach(function (kw) {
      var val = schema[kw];
      function add(extra) { out.push(Object.assign({ kw: kw, value: val, instance: inst, schema: schema, path: path, context: [] }, extra || {})); }
      switch (kw) {
        case "$ref":
          var target = root;
          val.replace(/^#\//, "").split("/").forEach(function (part) { if (part) target = target[part.replace(/~1/g, "/").replace(/~0/g, "~")]; });
          out = out.concat(errors(root, target, inst, path));
          break;
        case "type":
          var types = Array.isArray(val) ? val : [val];
          if (!types.some(function (ty) { return isType(inst, ty); })) add();
          break;
        case "enum":
          if (!val.some(function (x) { return same(x, inst); })) add();
          break;
        case "const":
          if (!same(val, inst)) add();
          break;
        case "pattern":
          if (typeof inst === "string" && !new RegExp(val, "u").test(inst)) add();
          break;
        case "minimum":
          if (typeof inst === "number" && inst < val) add();
          break;
        case "exclusiveMinimum":
          if (typeof inst === "number" && inst <= val) add();
          break;
        case "exclusiveMaximum":
          if (typeof inst === "number" && inst >= val) add();
          break;
        case "minLength":
          if (typeof inst === "string" && chars(inst) < val) add();
          break;
        case "minItems":
          if (Array.isArray(inst) && inst.length < val) add();
          break;
        case "uniqueItems":
          if (val && Array.isArray(inst) && inst.some(function (x, i) { return inst.slice(i + 1).some(function (y) { return same(x, y); }); })) add();
          break;
        case "minProperties":
          if (isType(inst, "object") && Object.keys(inst).length < val) add();
          break;
        case "not":
          if (!errors(root, val, inst, path).length) add();
          break;
        case "maximum":
          if (typeof inst === "number" && inst > val) add();
          break;
        case "maxLength":
          if (typeof inst === "string" && chars(inst) > val) add();
          break;
        case "maxItems":
          if (Array.isArray(inst) && inst.length > val) add();
          break;
        case "maxProperties":
          if (isType(inst, "object") && Object.keys(inst).length > val) add();
          break;
        case "required":
          if (isType(inst, "object") && val.some(function (k) { return !(k in inst); })) {
            val.forEach(function (k) { if (!(k in inst)) add(); });
          }
          break;
        case "properties":
          if (isType(inst, "object")) {
            Object.keys(val).forEach(function (k) { if (k in inst) out = out.concat(errors(root, val[k], inst[k], path.concat([k]))); });
          }
          break;
        case "additionalProperties":
          if (isType(inst, "object")) {
            var known = schema.properties || {};
            var extra = Object.keys(inst).filter(function (k) { return !(k in known); });
            if (val === false) { if (extra.length) add(); }
            else extra.forEach(function (k) { out = out.concat(errors(root, val, inst[k], path.concat([k]))); });
          }
          break;
        case "propertyNames":
          if (isType(inst, "object")) Object.keys(inst).forEach(function (k) { out = out.concat(errors(root, val, k, path)); });
          break;
        case "items":
          if (Array.isArray(inst)) inst.forEach(function (x, i) { out = out.concat(errors(root, val, x, path.concat([i]))); });
          break;
        case "anyOf":
          var anyContext = [], anyValid = false;
          val.forEach(function (sub) {
            var errs = errors(root, sub, inst, path);
            if (!errs.length) anyValid = true;
            anyContext = anyContext.concat(errs);
          });
          if (!anyValid) add({ context: anyContext });
          break;
        case "oneOf":
          var context = [], valid = 0;
          val.forEach(function (sub, i) {
            var errs = errors(root, sub, inst, path);
            if (!errs.length) valid += 1;
            errs.forEach(function (e) { e.branch = i; });
            context = context.concat(errs);
          });
          if (valid === 0) add({ context: context });
          else if (valid > 1) add({ kw: "oneOf" });
          break;
        case "description": case "$schema": case "$id": case "title": case "$defs":
          break;
        default:
          throw new Error("unsupported schema keyword " + kw);
      }
    });
    return out;
  }

  // best_match: the most relevant error by jsonschema's key (a path it cannot order: the first)
  function compare(a, b) {
    if (a === b) return 0;
    if (typeof a !== typeof b) throw new TypeError("unorderable");
    return a < b ? -1 : 1;
  }
  function relevance(e) {
    var types = e.schema && e.schema.type, matches = false;
    if (types !== undefined) matches = (Array.isArray(types) ? types : [types]).some(function (ty) { return isType(e.instance, ty); });
    return [-e.path.length, e.path, WEAK.indexOf(e.kw) === -1, false, !matches];
  }
  function cmpKey(x, y) {
    for (var i = 0; i < x.length; i++) {
      var c;
      if (Array.isArray(x[i])) {
        c = 0;
        for (var j = 0; j < Math.min(x[i].length, y[i].length) && c === 0; j++) c = compare(x[i][j], y[i][j]);
        if (c === 0) c = x[i].length - y[i].length;
      } else c = compare(x[i] === true ? 1 : x[i] === false ? 0 : x[i], y[i] === true ? 1 : y[i] === false ? 0 : y[i]);
      if (c !== 0) return c;
    }
    return 0;
  }
  function bestMatch(errs) {
    var best = errs[0];
    errs.slice(1).forEach(function (e) { if (cmpKey(relevance(e), relevance(best)) > 0) best = e; });
    while (best.context.length) {
      var sorted = best.context.slice().sort(function (a, b) { return cmpKey(relevance(a), relevance(b)); });
      if (sorted.length >= 2 && cmpKey(relevance(sorted[0]), relevance(sorted[1])) === 0) return best;
      best = sorted[0];
    }
    return best;
  }

  function quote(v) {
    var text = typeof v === "string" ? v : JSON.stringify(v);
    var cs = Array.from(text);
    return cs.length <= QUOTE ? text : cs.slice(0, QUOTE).join("") + "\u2026";
  }
  function joinPath(parts, prefix) {
    var out = prefix;
    parts.forEach(function (p) { out = typeof p === "number" ? out + "[" + p + "]" : (out ? out + "." + p : String(p)); });
    return out;
  }

  // shape.py's _problem_of and ShapeProblem.sentence: [path, english, shown]
  function said(e, prefix, t) {
    var path = joinPath(e.path, prefix), kw = e.kw, values = {}, hint = "", allowed = null;
    var schema = e.schema || {}, description = typeof schema.description === "string" ? schema.description : "";
    if (kw === "type") {
      values = { expected: Array.isArray(e.value) ? e.value : [e.value], actual: typeName(e.instance) };
      hint = description;
    } else if (kw === "enum" || kw === "const") {
      values = { choices: (kw === "enum" ? e.value : [e.value]).map(quote).join(", ") };
    } else if (kw === "pattern") {
      values = { value: quote(e.instance) };
      hint = description;
    } else if (kw === "additionalProperties" && isType(e.instance, "object")) {
      var known = Object.keys(schema.properties || {});
      var extra = Object.keys(e.instance).filter(function (k) { return known.indexOf(k) === -1; }).sort(compareCodePoints);
      var key = extra.length ? extra[0] : "";
      if (key) path = joinPath([key], path);
      values = { value: quote(key) };
      allowed = known.slice().sort(compareCodePoints);
    } else if (kw === "required" && isType(e.instance, "object")) {
      values = { value: (e.value.filter(function (k) { return !(k in e.instance); })[0]) || "" };
    } else if (MESSAGES[kw] && kw !== "other") {
      values = { limit: e.value };
      if (/Length$/.test(kw)) hint = description;
    } else {
      kw = "other";
      hint = description;
    }
    function sentence(tr) {
      var v = Object.assign({}, values);
      if (kw === "type") {
        v.expected = v.expected.map(function (ty) { return tr(TYPE_WORDS[ty] || ty); }).join(tr(" or "));
        v.actual = tr(TYPE_WORDS[v.actual] || v.actual);
      }
      var text = tr(MESSAGES[kw] || MESSAGES.other).replace(/%\((\w+)\)s/g, function (all, k) { return k in v ? String(v[k]) : all; });
      if (allowed && allowed.length) text += "; " + tr("allowed: %(choices)s").replace("%(choices)s", allowed.join(", "));
      if (hint) text += "; " + tr("expected: %(hint)s").replace("%(hint)s", hint);
      return text;
    }
    return { path: path, message: sentence(function (m) { return m; }), text: sentence(t) };
  }
  function compareCodePoints(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  /* The first problem of ``data`` against ``schema`` as {path, message (pbem check's English),
   * text (in the page's language)}, or null when it fits (or the schema is beyond this checker). */
  function problem(schema, data, prefix, t) {
    var errs;
    try { errs = errors(schema, schema, data, []); } catch (e) { return null; }
    if (!errs.length) return null;
    var best;
    try { best = bestMatch(errs); } catch (e) { best = errs[0]; }
    return said(best, prefix, t || function (m) { return m; });
  }

  return { problem: problem };
})();
