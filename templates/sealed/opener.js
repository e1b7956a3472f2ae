/* The sealed report page: opens a private report that pbem encrypted to the player's key
 * (pbem/core/privacy.py, PBEM-SEALED-1), in the browser, offline.
 *
 * blob = ephemeral X25519 public key (32) || nonce (12) || ChaCha20-Poly1305 ciphertext
 * key  = HKDF-SHA256(X25519(player, ephemeral), salt = ephemeral || player public, info)
 *
 * X25519 and HKDF are WebCrypto's. WebCrypto has no ChaCha20-Poly1305, so that is here: a
 * direct transcription of RFC 8439 (sections 2.3, 2.4, 2.5 and 2.8), checked against the RFC's
 * test vectors and against pbem's Python seal by the tests. The tag is checked before anything
 * is decrypted. The key file is read in this page and never leaves it.
 */
var SEALED = (function () {
  "use strict";
  var INFO = new TextEncoder().encode("pbem sealed report v1");
  var PKCS8_X25519 = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20];

  function hexToBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }

  function concat(parts) {
    var n = 0, at = 0;
    parts.forEach(function (p) { n += p.length; });
    var out = new Uint8Array(n);
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }

  // --- ChaCha20 (RFC 8439 2.3, 2.4) --------------------------------------------------------

  function rotl(v, c) { return (v << c) | (v >>> (32 - c)); }

  function quarter(s, a, b, c, d) {
    s[a] = (s[a] + s[b]) | 0; s[d] = rotl(s[d] ^ s[a], 16);
    s[c] = (s[c] + s[d]) | 0; s[b] = rotl(s[b] ^ s[c], 12);
    s[a] = (s[a] + s[b]) | 0; s[d] = rotl(s[d] ^ s[a], 8);
    s[c] = (s[c] + s[d]) | 0; s[b] = rotl(s[b] ^ s[c], 7);
  }

  function block(key, counter, nonce) {
    var kv = new DataView(key.buffer, key.byteOffset, 32), nv = new DataView(nonce.buffer, nonce.byteOffset, 12);
    var init = new Uint32Array(16);
    init[0] = 0x61707865; init[1] = 0x3320646e; init[2] = 0x79622d32; init[3] = 0x6b206574;
    for (var i = 0; i < 8; i++) init[4 + i] = kv.getUint32(4 * i, true);
    init[12] = counter;
    for (i = 0; i < 3; i++) init[13 + i] = nv.getUint32(4 * i, true);
    var s = new Uint32Array(init);
    for (i = 0; i < 10; i++) {
      quarter(s, 0, 4, 8, 12); quarter(s, 1, 5, 9, 13); quarter(s, 2, 6, 10, 14); quarter(s, 3, 7, 11, 15);
      quarter(s, 0, 5, 10, 15); quarter(s, 1, 6, 11, 12); quarter(s, 2, 7, 8, 13); quarter(s, 3, 4, 9, 14);
    }
    var out = new Uint8Array(64), ov = new DataView(out.buffer);
    for (i = 0; i < 16; i++) ov.setUint32(4 * i, (s[i] + init[i]) >>> 0, true);
    return out;
  }

  function chacha20(key, counter, nonce, data) {
    var out = new Uint8Array(data.length);
    for (var at = 0, j = 0; at < data.length; at += 64, j++) {
      var ks = block(key, counter + j, nonce);
      for (var i = 0; i < 64 && at + i < data.length; i++) out[at + i] = data[at + i] ^ ks[i];
    }
    return out;
  }

  // --- Poly1305 (RFC 8439 2.5), on BigInt -------------------------------------------------

  function leNumber(bytes) {
    var n = 0n;
    for (var i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
    return n;
  }

  function poly1305(key, msg) {
    var r = leNumber(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
    var s = leNumber(key.subarray(16, 32));
    var p = (1n << 130n) - 5n, acc = 0n;
    for (var at = 0; at < msg.length; at += 16) {
      var chunk = msg.subarray(at, Math.min(at + 16, msg.length));
      acc = ((acc + leNumber(chunk) + (1n << BigInt(8 * chunk.length))) * r) % p;
    }
    acc = (acc + s) & ((1n << 128n) - 1n);
    var tag = new Uint8Array(16);
    for (var i = 0; i < 16; i++) { tag[i] = Number(acc & 0xffn); acc >>= 8n; }
    return tag;
  }

  function le64(n) {
    var out = new Uint8Array(8), v = new DataView(out.buffer);
    v.setUint32(0, n >>> 0, true);
    v.setUint32(4, Math.floor(n / 4294967296), true);
    return out;
  }

  function pad16(n) { return new Uint8Array((16 - (n % 16)) % 16); }

  // --- AEAD (RFC 8439 2.8) -----------------------------------------------------------------

  function open(key, nonce, sealed, aad) {
    if (sealed.length < 16) throw new Error("too short");
    var ct = sealed.subarray(0, sealed.length - 16), tag = sealed.subarray(sealed.length - 16);
    var otk = block(key, 0, nonce).subarray(0, 32);
    var mac = poly1305(otk, concat([aad, pad16(aad.length), ct, pad16(ct.length), le64(aad.length), le64(ct.length)]));
    var diff = 0;
    for (var i = 0; i < 16; i++) diff |= mac[i] ^ tag[i];
    if (diff !== 0) return null;
    return chacha20(key, 1, nonce, ct);
  }

  function seal(key, nonce, plain, aad) {  // for the tests: RFC 8439's vectors
    var ct = chacha20(key, 1, nonce, plain);
    var otk = block(key, 0, nonce).subarray(0, 32);
    return concat([ct, poly1305(otk, concat([aad, pad16(aad.length), ct, pad16(ct.length), le64(aad.length), le64(ct.length)]))]);
  }

  // --- the sealed report --------------------------------------------------------------------

  function armoured(text) {
    var m = /-----BEGIN PBEM SEALED REPORT-----([\s\S]*?)-----END PBEM SEALED REPORT-----/.exec(text);
    if (!m) throw new Error("no sealed report in this page");
    var bin = atob(m[1].replace(/\s+/g, ""));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function x25519Hex(keyText) {
    var m = /^\s*x25519\s*:\s*["']?([0-9a-f]{64})["']?\s*(#.*)?$/m.exec(keyText);
    if (!/^\s*pbem-key\s*:\s*1\s*$/m.test(keyText) || !m) return null;
    return m[1];
  }

  // The report as HTML text, or null when the key cannot open it.
  async function unseal(armour, keyHex) {
    var blob = armoured(armour);
    if (blob.length < 32 + 12 + 16) throw new Error("too short");
    var ephPub = blob.subarray(0, 32), nonce = blob.subarray(32, 44), sealed = blob.subarray(44);
    var subtle = crypto.subtle;
    var priv = await subtle.importKey("pkcs8", concat([new Uint8Array(PKCS8_X25519), hexToBytes(keyHex)]), { name: "X25519" }, true, ["deriveBits"]);
    var jwk = await subtle.exportKey("jwk", priv);
    var rcptPub = Uint8Array.from(atob(jwk.x.replace(/-/g, "+").replace(/_/g, "/")), function (c) { return c.charCodeAt(0); });
    var eph = await subtle.importKey("raw", ephPub, { name: "X25519" }, false, []);
    var shared = new Uint8Array(await subtle.deriveBits({ name: "X25519", public: eph }, priv, 256));
    var hkdf = await subtle.importKey("raw", shared, "HKDF", false, ["deriveBits"]);
    var key = new Uint8Array(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: concat([ephPub, rcptPub]), info: INFO }, hkdf, 256));
    var plain = open(key, nonce, sealed, INFO);
    if (plain === null) return null;
    if (plain[0] === 0x1f && plain[1] === 0x8b) {  // sealed gzip-compressed (pbem seals mails so)
      return new Response(new Blob([plain]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
    }
    return new TextDecoder().decode(plain);
  }

  function boot() {
    var words = JSON.parse(document.getElementById("pbem-words").textContent);
    var input = document.getElementById("key-file"), status = document.getElementById("status");
    input.addEventListener("change", function () {
      var file = input.files[0];
      if (!file) return;
      status.textContent = "";
      file.text().then(function (text) {
        var hex = x25519Hex(text);
        if (!hex) { status.textContent = words.notkey; return null; }
        return unseal(document.getElementById("sealed").textContent, hex).then(function (html) {
          if (html === null) { status.textContent = words.wrong; return; }
          document.open();
          document.write(html);
          document.close();
        });
      }).catch(function () { status.textContent = words.browser; });
    });
  }

  return { boot: boot, unseal: unseal, x25519Hex: x25519Hex, open: open, seal: seal, poly1305: poly1305, chacha20: chacha20 };
})();
