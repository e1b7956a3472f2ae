/* The offline order page: key loading, entropy, Ed25519 signing, the page itself. The signed
 * file's bytes (canonical JSON, YAML output) are orderfile.js's, which the page loads first.
 *
 * Plain hand-written JavaScript, no build step and nothing fetched: the page works from a file
 * on disk with the network off. A game's form (maria.js) registers itself with PBEM.register;
 * PBEM.boot() then draws the page. What the signed file must be is fixed by pbem's Python side:
 * canonical JSON = json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False), the
 * signature covers every field but `signature`, and seq/entropy are filled as `pbem sign` does.
 */
"use strict";

var PBEM = (function () {
  var data = JSON.parse(document.getElementById("pbem-data").textContent);
  var PKCS8_PREFIX = "302e020100300506032b657004220420";
  var STORE_KEY = "pbem:entropy";
  var game = null;
  var key = null; // {privateKey, id}
  var lastUrl = null;
  var overlay = null; // the layer over the map that a game draws the planned orders on
  var SVG_NS = "http://www.w3.org/2000/svg";

  function t(msg) { return (data.text && data.text[msg]) || msg; }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else if (v === true) node.setAttribute(k, "");
      else node.setAttribute(k, String(v));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  // the signed file's bytes: hex, base64, canonical JSON, YAML (orderfile.js)
  var hexToBytes = PBEM_FILE.hexToBytes, bytesToHex = PBEM_FILE.bytesToHex, bytesToBase64 = PBEM_FILE.bytesToBase64;
  var base64urlToBytes = PBEM_FILE.base64urlToBytes, canonical = PBEM_FILE.canonical, signingBytes = PBEM_FILE.signingBytes;
  var orderedKeys = PBEM_FILE.orderedKeys, toYaml = PBEM_FILE.toYaml;

  // --- the key --------------------------------------------------------------------------------

  function parseKeyFile(text) {
    var fields = {};
    text.split(/\r?\n/).forEach(function (line) {
      var m = /^\s*(pbem-key|name|ed25519|x25519)\s*:\s*["']?([^"'#\s]*)["']?\s*(#.*)?$/.exec(line);
      if (m) fields[m[1]] = m[2];
    });
    if (fields["pbem-key"] !== "1" || !/^[0-9a-f]{64}$/.test(fields.ed25519 || "")) {
      throw new Error(t("Not a pbem private key file (made by 'pbem keygen')"));
    }
    return fields;
  }

  async function importSeed(seedHex) {
    var der = hexToBytes(PKCS8_PREFIX + seedHex);
    var privateKey;
    try {
      privateKey = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, true, ["sign"]);
    } catch (e) {
      if (e && e.name === "NotSupportedError") throw new Error(t("This browser cannot sign with Ed25519; use 'pbem sign' instead."));
      throw e;
    }
    // Exported once for its public half; the key kept for signing cannot be exported at all.
    var jwk = await crypto.subtle.exportKey("jwk", privateKey);
    jwk.d = "";
    var signing = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
    der.fill(0);
    return { privateKey: signing, id: "ed25519:" + bytesToHex(base64urlToBytes(jwk.x)) };
  }

  async function loadKey(text) {
    var fields = parseKeyFile(text);
    var loaded = await importSeed(fields.ed25519);
    loaded.name = fields.name || "";
    return loaded;
  }

  // --- entropy, kept per campaign and seat as `pbem sign` keeps it in KEY.state.json ---------

  var memoryStore = null; // used when the browser keeps nothing for file pages

  function loadStore() {
    try {
      var text = window.localStorage.getItem(STORE_KEY);
      return text ? JSON.parse(text) : {};
    } catch (e) {
      return memoryStore || {};
    }
  }

  function saveStore(store) {
    memoryStore = store;
    try {
      window.localStorage.setItem(STORE_KEY, JSON.stringify(store));
      return true;
    } catch (e) {
      return false;
    }
  }

  function slotName() { return data.campaign + "/" + data.seat; }

  async function sha256Hex(bytes) { return bytesToHex(await crypto.subtle.digest("SHA-256", bytes)); }

  /* The same steps as pbem.core.signer.prepare: a correction in the same phase reveals the same
   * value and keeps the same commitment with a higher seq; a new phase reveals the value
   * committed last time and commits a fresh one. */
  async function prepare(orders, wantedSeq, store) {
    var slot = store[slotName()] || {};
    var reveal, value, seq;
    var samePhase = slot.phase === data.phase;
    // a phase reopened by a rollback (data.opened: the record that reopened it) is a new round
    if (samePhase && (!data.opened || data.opened === slot.opened)) {
      reveal = slot.reveal || null;
      value = slot.value;
      seq = Math.max(wantedSeq || 0, (parseInt(slot.seq, 10) || 0) + 1);
    } else {
      reveal = slot.value || null;
      value = bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
      seq = Math.max(wantedSeq || 0, samePhase ? (parseInt(slot.seq, 10) || 0) + 1 : 1);
    }
    var doc = { pbem: 1, campaign: data.campaign };
    if (data.nonce) doc.nonce = data.nonce;  // binds the file to this campaign (an equal id elsewhere does not count)
    Object.assign(doc, { player: data.seat, phase: data.phase });
    if (data.opened) doc.opened = data.opened;
    doc.seq = seq;
    if (reveal) doc.entropy_reveal = reveal;
    doc.entropy_commit = await sha256Hex(hexToBytes(value));
    doc.orders = orders;
    var newStore = Object.assign({}, store);
    newStore[slotName()] = { phase: data.phase, reveal: reveal, value: value, seq: seq };
    var kept = data.opened || (samePhase ? slot.opened : null);
    if (kept) newStore[slotName()].opened = kept;
    return { doc: doc, store: newStore };
  }

  async function signDocument(doc, signer) {
    var sig = await crypto.subtle.sign({ name: "Ed25519" }, signer.privateKey, signingBytes(doc));
    var out = {};
    orderedKeys(doc).forEach(function (k) { if (k !== "signature") out[k] = doc[k]; });
    out.signature = { key: signer.id, value: bytesToBase64(sig) };
    return out;
  }

  // --- the page ----------------------------------------------------------------------------

  function $(id) { return document.getElementById(id); }

  function setStatus(id, text, kind) {
    var node = $(id);
    node.textContent = text || "";
    node.className = "status" + (kind ? " " + kind : "");
  }

  function current() {
    var orders = game ? game.collect() : {};
    var result = game ? game.check(orders) : { problems: [], notes: [] };
    return { orders: orders, problems: result.problems || [], notes: result.notes || [] };
  }

  function refresh() {
    var cur = current();
    var list = $("problems");
    list.textContent = "";
    if (!cur.problems.length) list.appendChild(el("li", { class: "ok", text: t("No problems found.") }));
    // shown in the page's language; data-check (and the tooltip) keeps pbem check's own line
    function line(cls, p, lead) {
      var check = p.path + ": " + p.message, shown = p.path + ": " + (p.text || p.message);
      var attrs = { class: cls, text: (lead ? lead + " " : "") + shown, "data-check": check };
      if (shown !== check) attrs.title = check;
      return el("li", attrs);
    }
    cur.problems.forEach(function (p) { list.appendChild(line("problem", p)); });
    var notes = $("notes");
    notes.textContent = "";
    cur.notes.forEach(function (p) {
      notes.appendChild(line("note", p, t("The page cannot check this; the adjudicator checks it when the phase runs:")));
    });
    if (overlay && game && game.draw) game.draw(overlay, SVG_NS);
    $("sign").disabled = cur.problems.length > 0 || !key;
    if (cur.problems.length) setStatus("sign-status", t("Fix the problems above before signing."), "bad");
    else if (!key) setStatus("sign-status", t("Load your key first."), "");
    else setStatus("sign-status", "", "");
    return cur;
  }

  async function onSign() {
    if (refresh().problems.length || !key) return; // the page refuses to sign orders pbem check refuses
    try {
      // a game may have values to finish first (a bid's commitment is hashed asynchronously)
      if (game && game.beforeSign) await game.beforeSign();
    } catch (e) {
      setStatus("sign-status", String(e && e.message || e), "bad");
      return;
    }
    var cur = refresh(); // again: the finished values are checked too
    if (cur.problems.length) return;
    try {
      var prepared = await prepare(cur.orders, parseInt($("seq").value, 10) || 0, loadStore());
      var signed = await signDocument(prepared.doc, key);
      // what the game keeps for a later phase (a committed bid and its salt) goes in the same store
      if (game && game.keep) game.keep(prepared.store, signed);
      var kept = saveStore(prepared.store);
      var text = toYaml(signed);
      $("signed").value = text;
      if (lastUrl) URL.revokeObjectURL(lastUrl);
      lastUrl = URL.createObjectURL(new Blob([text], { type: "text/yaml;charset=utf-8" }));
      $("save").href = lastUrl;
      $("save").setAttribute("download", "orders-" + data.phase.replace(/[^A-Za-z0-9_-]+/g, "_") + "-" + data.seat + "-seq" + signed.seq + ".yaml");
      $("result").hidden = false;
      setStatus("sign-status", t("Signed with") + " " + key.id.slice(0, 24) + "\u2026 (seq " + signed.seq + ")", "good");
      if (!kept) setStatus("entropy-status", t("This browser does not keep data for this page; export after signing and import before the next phase."), "bad");
      $("result").scrollIntoView({ behavior: "smooth", block: "start" });
    } catch (e) {
      setStatus("sign-status", String(e && e.message || e), "bad");
    }
  }

  async function onKeyFile(ev) {
    var file = ev.target.files && ev.target.files[0];
    if (!file) return;
    try {
      key = await loadKey(await file.text());
      var msg = t("Key loaded") + ": " + (key.name || file.name) + " \u2014 " + key.id.slice(0, 24) + "\u2026";
      if (data.pubkey && data.pubkey !== key.id) setStatus("key-status", msg + " \u2014 " + t("This key is not the roster key of this seat; the GM will refuse the file."), "bad");
      else setStatus("key-status", msg, "good");
    } catch (e) {
      key = null;
      setStatus("key-status", String(e && e.message || e), "bad");
    }
    ev.target.value = "";
    refresh();
  }

  function sortKeys(v) {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (!v || typeof v !== "object") return v;
    var out = {};
    Object.keys(v).sort().forEach(function (k) { out[k] = sortKeys(v[k]); });
    return out;
  }

  function onExport() {
    // the layout of json.dumps(sort_keys=True, indent=1), as pbem sign writes KEY.state.json
    var text = JSON.stringify(sortKeys(loadStore()), null, 1) + "\n";
    var a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: (data.seat || "pbem") + ".key.state.json" });
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  async function onImport(ev) {
    var file = ev.target.files && ev.target.files[0];
    if (!file) return;
    try {
      var incoming = JSON.parse(await file.text());
      if (!incoming || typeof incoming !== "object" || Array.isArray(incoming)) throw new Error("not an entropy file");
      var store = loadStore();
      Object.keys(incoming).forEach(function (k) {
        var s = incoming[k];
        var entropy = s && typeof s === "object" && /^[0-9a-f]{32,128}$/.test(s.value || "");
        var bid = s && typeof s === "object" && s.bid && typeof s.bid === "object" && typeof s.salt === "string";
        if (entropy || bid) store[k] = s;
      });
      saveStore(store);
      setStatus("entropy-status", t("Imported") + ": " + Object.keys(incoming).length, "good");
      if (game && game.storeChanged) game.storeChanged();
    } catch (e) {
      setStatus("entropy-status", String(e && e.message || e), "bad");
    }
    ev.target.value = "";
  }

  async function showMap() {
    var box = $("map");
    var packed = $("pbem-map").textContent.trim();
    if (!packed) { $("situation").removeChild(box); return; }
    try {
      var stream = new Blob([PBEM_BYTES(packed)]).stream().pipeThrough(new DecompressionStream("gzip"));
      // An <img> keeps the map's own styles from touching the page's and the page's from it.
      var svg = await new Response(stream).blob();
      var wrap = el("div", { class: "mapwrap" }, [
        el("img", { id: "map-image", alt: data.title || data.phase, src: URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })) })]);
      box.appendChild(wrap);
      if (data.view_box) {
        // The planned moves and battles are drawn on a layer over the map, in its coordinates.
        var layer = document.createElementNS(SVG_NS, "svg");
        layer.setAttribute("viewBox", data.view_box.join(" "));
        layer.setAttribute("class", "overlay");
        layer.setAttribute("aria-hidden", "true");
        wrap.appendChild(layer);
        overlay = layer;
      }
      var levels = [1, 2.5, 5], level = 0;
      var zoom = el("button", { type: "button", class: "small", id: "map-zoom", text: "\u2295 1\u00d7", onclick: function () {
        level = (level + 1) % levels.length;
        wrap.style.width = (levels[level] * 100) + "%";
        zoom.textContent = (level === levels.length - 1 ? "\u2296 " : "\u2295 ") + levels[level] + "\u00d7";
        var focus = game && game.focus ? game.focus() : null;
        if (focus && data.view_box) {
          box.scrollLeft = focus[0] / data.view_box[2] * wrap.clientWidth - box.clientWidth / 2;
          box.scrollTop = focus[1] / data.view_box[3] * wrap.clientHeight - box.clientHeight / 2;
        }
      } });
      box.parentNode.insertBefore(el("div", { class: "map-tools" }, [zoom]), box);
      // On a phone the whole map is too small to read: open it zoomed on the player's pieces.
      var img = $("map-image");
      var narrow = function () { if (window.innerWidth < 760 && level === 0) zoom.click(); };
      if (img.complete) narrow(); else img.addEventListener("load", narrow);
      refresh();
    } catch (e) {
      box.appendChild(el("p", { class: "status bad", text: t("The map needs a newer browser (DecompressionStream).") }));
    }
  }

  function header() {
    var meta = [[t("Campaign"), data.campaign], [t("Player"), data.seat], [t("Phase"), data.phase]];
    if (data.deadline) meta.push([t("Deadline"), data.deadline]);
    $("top").appendChild(el("h1", { text: t("Order page") + " \u2014 " + (data.title || data.phase) }));
    $("top").appendChild(el("div", { class: "meta" }, meta.map(function (m) { return el("span", { text: m[0] + ": " + m[1] }); })));
  }

  function boot() {
    header();
    [["h-situation", "The situation"], ["h-key", "Your key"], ["h-orders", "Orders"], ["h-problems", "Problems"],
     ["h-result", "Signed order file"], ["h-entropy", "Entropy"], ["sign", "Sign"], ["copy", "Copy"], ["save", "Save as file"],
     ["export", "Export"], ["import-text", "Import"], ["seq-label", "Sequence number (blank: automatic)"],
     ["key-help", "Load your key file (NAME.key, made by the key page or by pbem keygen). It stays in this page and is never sent anywhere."],
     ["result-help", "Copy it into the body of a mail to the GM, or save it and attach it."],
     ["entropy-help", "Your pending entropy value is kept in this browser. Export it to move to another machine or to 'pbem sign' (KEY.state.json); import it there."]
    ].forEach(function (p) { $(p[0]).textContent = t(p[1]); });
    $("key-file").addEventListener("change", onKeyFile);
    $("sign").addEventListener("click", onSign);
    $("copy").addEventListener("click", function () {
      var area = $("signed");
      area.select();
      var done = function () { $("copy").textContent = t("Copied"); };
      if (navigator.clipboard) navigator.clipboard.writeText(area.value).then(done, function () { document.execCommand("copy"); done(); });
      else { document.execCommand("copy"); done(); }
    });
    $("export").addEventListener("click", onExport);
    $("import-file").addEventListener("change", onImport);
    if (data.seq) $("seq").value = String(data.seq);  // a reopened phase: above the seqs it set aside
    $("seq").addEventListener("input", refresh);
    showMap();
    if (game) game.render($("form"), $("own"), refresh);
    else $("form").appendChild(el("p", { text: t("Nothing to order for this power in this phase.") }));
    refresh();
  }

  /* Tick boxes ([value, label] items) whose ticking order is kept in ``chosen`` (an array changed
   * in place); the order shows below them, each value as ``short`` names it (else its label).
   * ``changed`` runs after every tick. Returns [the boxes, the line that shows the order]. */
  function orderedPicks(name, items, chosen, short, changed) {
    var labels = {}, shown = el("p", { class: "tag" });
    items.forEach(function (it) { labels[it[0]] = it[1]; });
    function show() { shown.textContent = chosen.map(function (v, i) { return (i + 1) + ". " + (short ? short(v) : labels[v] || v); }).join("  "); }
    var picks = el("div", { class: "picks" }, items.map(function (it) {
      return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: name, value: it[0], checked: chosen.indexOf(it[0]) !== -1, onchange: function (ev) {
        var at = chosen.indexOf(it[0]);
        if (at !== -1) chosen.splice(at, 1);
        if (ev.target.checked) chosen.push(it[0]);
        show();
        changed();
      } }), it[1]]);
    }));
    show();
    return [picks, shown];
  }

  // A game's form kept as a draft in the browser, so a reload (or a phone closing the tab) does
  // not lose it; only this page reads it back, for this campaign, seat and phase. ``model`` maps
  // each power to its form's fields, which are replaced in place by the saved ones of the same type.
  /* The autopilot's orders for the seat (data.suggested, when the GM lets it suggest): ``fill``
   * (power, orders) puts them in the game's form and says whether it could; the note above the
   * form then says they are only a suggestion. A draft the player kept is loaded after them. */
  function suggest(fill) {
    var used = Object.keys(data.suggested || {}).filter(function (p) { return fill(p, data.suggested[p]); });
    if (!used.length) return;
    $("suggested").hidden = false;
    $("suggested").textContent = t("The form starts from the autopilot's suggestion for your seat, made from what your seat knows. It is only a suggestion: change it as you like. If you send nothing, your default orders count, not these.");
  }

  function draftKeeper(model) {
    var slot = "pbem:draft:" + data.campaign + "/" + data.seat + "/" + data.phase;
    return {
      load: function () {
        try {
          var saved = JSON.parse(window.localStorage.getItem(slot) || "null");
          if (!saved || saved.version !== 1) return;
          data.powers.forEach(function (p) {
            Object.keys(model[p]).forEach(function (k) {
              if (saved.model[p] && typeof saved.model[p][k] === typeof model[p][k]) model[p][k] = saved.model[p][k];
            });
          });
        } catch (e) { /* no storage or a broken draft: start afresh */ }
      },
      save: function () {
        try { window.localStorage.setItem(slot, JSON.stringify({ version: 1, model: model })); } catch (e) { /* none kept */ }
      }
    };
  }

  return {
    data: data, t: t, el: el, boot: boot, refresh: refresh, draftKeeper: draftKeeper, orderedPicks: orderedPicks, suggest: suggest,
    register: function (impl) { game = impl; },
    // exposed for the tests and for a game's form
    canonical: canonical, toYaml: toYaml, loadKey: loadKey, prepare: prepare, signDocument: signDocument,
    current: current, loadStore: loadStore, saveStore: saveStore, hexToBytes: hexToBytes, bytesToHex: bytesToHex,
    sha256Hex: sha256Hex
  };
})();
