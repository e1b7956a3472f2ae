/* The offline key page: makes a player's Ed25519 signing key and X25519 report key with
 * WebCrypto and offers NAME.key (the exact text `pbem keygen` writes) and NAME.pub.
 *
 * Plain hand-written JavaScript, no build step and nothing fetched. The name rule and the words
 * come from pbem (data.name_pattern, data.text); the key file's format is pbem.core.keys'
 * format_private_key, byte for byte, so `pbem sign`, `pbem decrypt` and the order page load it.
 */
"use strict";

(function () {
  var data = JSON.parse(document.getElementById("pbem-data").textContent);
  var NAME = new RegExp(data.name_pattern);
  var urls = [];

  function t(msg, name) { return ((data.text && data.text[msg]) || msg).split("{name}").join(name === undefined ? "" : name); }
  function $(id) { return document.getElementById(id); }

  function setStatus(text, kind) {
    $("status").textContent = text;
    $("status").className = "status" + (kind ? " " + kind : "");
  }

  function b64urlToHex(text) {
    var bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    var s = "";
    for (var i = 0; i < bin.length; i++) s += (bin.charCodeAt(i) < 16 ? "0" : "") + bin.charCodeAt(i).toString(16);
    if (s.length !== 64) throw new Error("unexpected key length");
    return s;
  }

  async function exportPair(pair) {
    var jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    return { secret: b64urlToHex(jwk.d), public: b64urlToHex(jwk.x) };
  }

  // Fresh keys for `name`: {key: the NAME.key text, pub: the public key line}.
  async function makeKeys(name) {
    var ed, x;
    try {
      ed = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
      x = await crypto.subtle.generateKey({ name: "X25519" }, true, ["deriveBits"]);
    } catch (e) {
      throw new Error(t("This browser cannot make the keys (WebCrypto Ed25519 and X25519); use a current browser, or 'pbem keygen'."));
    }
    // A self-check before anything is offered: the new key signs, and its public half verifies.
    var probe = new TextEncoder().encode("pbem key check");
    var sig = await crypto.subtle.sign({ name: "Ed25519" }, ed.privateKey, probe);
    if (!(await crypto.subtle.verify({ name: "Ed25519" }, ed.publicKey, sig, probe))) throw new Error("self-check failed");
    var e = await exportPair(ed), k = await exportPair(x);
    var pub = "ed25519:" + e.public + " x25519:" + k.public + " " + name;
    var text = "# pbem private key of " + name + ". Keep it secret: whoever has it can sign your orders.\n" +
      "# Public key: " + pub + "\n" +
      "pbem-key: 1\n" +
      "name: \"" + name + "\"\n" +  // quoted, as pbem keygen writes it
      "ed25519: " + e.secret + "\n" +
      "x25519: " + k.secret + "\n";
    return { key: text, pub: pub };
  }

  function offer(link, text, file, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    urls.push(url);
    link.href = url;
    link.setAttribute("download", file);
    link.textContent = t("Save {name}", file);
  }

  async function onGenerate(ev) {
    ev.preventDefault();
    var name = $("name").value.trim();
    if (!NAME.test(name)) {
      setStatus(t("'{name}' is not a usable key name (letters, digits, '.', '_', '-'; up to 64)", name), "bad");
      return;
    }
    $("generate").disabled = true;
    try {
      var made = await makeKeys(name);
      urls.forEach(function (u) { URL.revokeObjectURL(u); });
      urls = [];
      offer($("save-key"), made.key, name + ".key", "application/octet-stream");
      offer($("save-pub"), made.pub + "\n", name + ".pub", "text/plain;charset=utf-8");
      $("pub").value = made.pub;
      $("secret").hidden = false;
      $("public").hidden = false;
      setStatus(t("Keys made for {name}. Save the secret key, then send the public key.", name), "good");
    } catch (e) {
      setStatus(String(e && e.message || e), "bad");
    } finally {
      $("generate").disabled = false;
    }
  }

  function onCopy() {
    var box = $("pub");
    box.focus();
    box.select();
    var done = function () { $("copy").textContent = t("Copied"); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(box.value).then(done, function () { if (document.execCommand("copy")) done(); });
    else if (document.execCommand("copy")) done();
  }

  $("name").value = data.name || "";
  $("form").addEventListener("submit", onGenerate);
  $("copy").addEventListener("click", onCopy);
  if (!(window.crypto && crypto.subtle)) {
    $("generate").disabled = true;
    setStatus(t("This browser cannot make the keys (WebCrypto Ed25519 and X25519); use a current browser, or 'pbem keygen'."), "bad");
  }
})();
