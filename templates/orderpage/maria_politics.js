/* Maria's order form: the political rounds, the commit round (trustless mode, M11.4) and the
 * politics round (M9, M12.8): the bid and its commitment, the cards taken and what they do, the
 * checks of orders._politics in that module's sentences. Part of the form that maria.js begins. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el, M = PBEM.maria;
  var PIECES = M.PIECES, CITIES = M.CITIES, model = M.model;
  var cityName = M.cityName, shownCity = M.shownCity, pieceName = M.pieceName, suitOf = M.suitOf, isAdjacent = M.isAdjacent,
      isMain = M.isMain, mine = M.mine, cardLabel = M.cardLabel, cardSuit = M.cardSuit, parsePath = M.parsePath,
      option = M.option, numberInput = M.numberInput, orderedPicks = M.orderedPicks, onChange = M.onChange;
  var SUIT_SIGN = M.SUIT_SIGN;

  var SUITS = ["S", "H", "D", "C"];
  var SUIT_WORD = { S: t("spades"), H: t("hearts"), D: t("diamonds"), C: t("clubs") };
  var FULL_CARD = /^([SHDC](10|[2-9])\.[1-4]|R\.[1-4][ab])$/; // cards.is_card_id: full ids only
  var DIRECTIONS = { saxony: "prussia austria", russia: "down up", italy: "france austria" }; // effects._directions
  var TRACK = { saxony: t("Saxony track"), russia: t("Russia track"), italy: t("Italy track") };
  var TOWARD = { prussia: t("toward Prussia"), austria: t("toward Austria"), france: t("toward France"), down: t("down (good for Prussia)"),
                 up: t("up (bad for Prussia)"), taker_choice: t("in the direction the taker chooses") };
  var BOX = { bohemian_crown: t("Bohemian crown box"), emperor: t("Emperor box"), italy: t("Italy box"), silesia: t("Silesia box"),
              saxon_defection: t("Saxon defection box"), electoral: t("electoral fortresses box"), major_victory: t("major victory box") };
  var commitments = {}; // power -> the commitment of the bid and salt in the form (hashed asynchronously)

  function fmt(text, args) { return text.replace(/\{(\w+)\}/g, function (all, k) { return k in args ? String(args[k]) : all; }); }
  function suitName(s) { return SUIT_SIGN[s] + " " + SUIT_WORD[s]; }
  function who(x) {
    if (x === "taker") return t("the taker");
    if (x === "habsburg") return t("the Habsburg side");
    if (x === "coalition") return t("the coalition");
    return D.power_titles[x] || x;
  }
  // the regions and city tags of M9.19 the default deck names; a GM's own tag shows as written
  var REGION = { core_austria: t("the Austrian core lands"), bohemian_crown: t("Prague, the Bohemian crown"), silesia: t("Silesia"),
                 poland: t("Poland"), neutral: t("the neutral territories"), bohemia: t("the Bohemia map"), flanders: t("the Flanders map") };
  function region(r) {
    if (D.power_titles[r]) return fmt(t("the home country of {power}"), { power: D.power_titles[r] });
    return REGION[r] || String(r).replace(/_/g, " ");
  }
  function signed(n) { return (n > 0 ? "+" : "") + n; }
  function target(arg, p) { return arg === "taker" ? p : arg; }

  function condition(cond) {
    var name = Object.keys(cond)[0], a = cond[name];
    if (name === "track_in") return fmt(t("the {track} is between {low} and {high}"), { track: (TRACK[a[0]] || a[0]), low: a[1], high: a[2] });
    if (name === "controls") return fmt(t("{who} controls a fortress of {region}"), { who: who(a[0]), region: region(a[1]) });
    if (name === "no_general_in") return fmt(t("{power} has no general in {region}"), { power: who(a[0]), region: region(a[1]) });
    if (name === "peace_made") return a[0] ? t("peace has been made") : t("no peace has been made");
    if (name === "neutral") return fmt(t("{power} is neutral"), { power: who(a[0]) });
    return name + " " + JSON.stringify(a);
  }

  /* One effect of a political card (M9.19) as a sentence in the page's language. */
  function describe(eff) {
    var a = eff.args || [], s, by = { owner: t("its owner chooses"), taker: t("the taker chooses"), random: t("at random") };
    var text = {
      move_track: function () { return fmt(t("{track}: {n} step(s) {toward}"), { track: (TRACK[a[0]] || a[0]), n: a[1], toward: (TOWARD[a[2]] || a[2]) }); },
      draw: function () { return fmt(t("{power} draws {n} card(s)"), { power: who(a[0]), n: a[1] }); },
      draw_modifier: function () { return fmt(t("{power}'s draw changes by {delta} in each of its next {stages} stage(s)"), { power: who(a[0]), delta: signed(a[1]), stages: a[2] }); },
      discard: function () { return fmt(t("{power} discards {n} card(s); {by}"), { power: who(a[0]), n: a[1], by: by[a[2]] || a[2] }); },
      add_troops: function () {
        var where = { any: t("any of its generals"), home: t("its generals in its home country"), in_supply: t("its generals in supply") };
        return fmt(t("{power} adds {n} troop(s) to {where}"), { power: who(a[0]), n: a[1], where: where[a[2]] || a[2] });
      },
      lose_troops: function () { return fmt(t("{power} loses {n} troop(s)"), { power: who(a[0]), n: a[1] }); },
      block_generals: function () { return fmt(t("{n} general(s) of {power} are blocked for {stages} stage(s); {by}"), { power: who(a[0]), n: a[1], stages: a[2], by: by[a[3]] || a[3] }); },
      block_trains: function () { return fmt(t("{n} supply train(s) of {power} are blocked for {stages} stage(s); {by}"), { power: who(a[0]), n: a[1], stages: a[2], by: by[a[3]] || a[3] }); },
      withdraw_general: function () { return fmt(t("a general of {power} is withdrawn for {turns} turn(s); {by}"), { power: who(a[0]), turns: a[1], by: by[a[2]] || a[2] }); },
      place_marker: function () {
        var holder = String(a[0]).indexOf("controller_of:") === 0 ? fmt(t("the controller of {place}"), { place: region(a[0].slice(14)) }) : who(a[0]);
        return fmt(t("{power} fills the {box}"), { power: holder, box: (BOX[a[1]] || a[1]) });
      },
      return_markers: function () { return fmt(t("{n} marker(s) of {power} in {region} go back to its pool"), { power: who(a[0]), n: a[1], region: region(a[2]) }); },
      retire_markers: function () { return fmt(t("the markers of {power} in {region} are removed; half of them leave the game"), { power: who(a[0]), region: region(a[1]) }); },
      hussars: function () { return fmt(t("Austria's hussars change by {delta} in each of its next {turns} hussar step(s)"), { delta: signed(a[0]), turns: a[1] }); },
      restore_train: function () { return fmt(t("{power} brings back an eliminated supply train, free"), { power: who(a[0]) }); },
      trigger_election: function () { return t("the imperial election is held now (M9.14)"); },
      offer_peace: function () { return t("peace is offered; Austria accepts or refuses (M9.15)"); },
      end_neutrality: function () { return fmt(t("{power} stops being neutral"), { power: who(a[0]) }); }
    }[eff.effect];
    s = text ? text() : eff.effect + "(" + a.join(", ") + ")";
    if (eff.if) s += " \u2014 " + fmt(t("if {condition}"), { condition: condition(eff.if) });
    if (eff.optional) s += " (" + t("optional") + ")";
    return s;
  }

  function cardTitle(legal, card) {
    var name = legal.cards[card].name;
    return card + " \u00ab" + ((D.card_titles || {})[name] || name) + "\u00bb";
  }

  function fullBid(bid) {
    // in the canonical bid map's order (C, D, H, S), so the file, pbem check and the page list
    // the suits alike
    var out = {};
    ["C", "D", "H", "S"].forEach(function (s) { var v = String(bid[s] || "").trim(); out[s] = v === "" ? "pass" : v; });
    return out;
  }

  /* politics.bid_commitment: hex SHA-256 of maria|turn|power|canonical bid map|salt (M11.4). */
  function commitmentOf(p, bid, salt) {
    return PBEM.sha256Hex(new TextEncoder().encode("maria|" + D.turn + "|" + p + "|" + PBEM.canonical(fullBid(bid)) + "|" + salt));
  }

  function trustless(p) { var l = D.legal[p]; return l.phase_power && l.trustless && (l.kind === "commit" || l.kind === "politics"); }

  async function rehash() {
    var changed = false;
    for (var i = 0; i < D.powers.length; i++) {
      var p = D.powers[i];
      if (!trustless(p)) continue;
      var c = await commitmentOf(p, model[p].pol.bid, model[p].pol.salt.trim());
      if (c !== commitments[p]) { commitments[p] = c; changed = true; }
      showMatch(p);
    }
    return changed;
  }

  function showMatch(p) {
    var node = document.getElementById("commitment-" + p);
    if (!node) return;
    if (D.legal[p].kind === "commit") { node.textContent = t("Commitment") + ": " + (commitments[p] || ""); return; }
    var want = D.commitments[p];
    var ok = want && commitments[p] === want;
    node.className = "status " + (ok ? "good" : "bad");
    node.textContent = !want ? t("No commitment of yours was published this turn: your bid counts as a pass (M11.4).")
      : ok ? t("The bid and salt match your published commitment.")
      : t("The bid and salt do not match your published commitment; the bid would count as a pass (M11.4).");
  }

  function bidSlot(p) { return "bid:" + D.campaign + "/" + D.seat + "/" + D.turn + "/" + p; }

  /* The commit round draws the salt; the politics round fills in the bid and salt kept when the
   * commitment was signed (unless the player has already typed them). */
  function prefill() {
    var store = PBEM.loadStore();
    D.powers.forEach(function (p) {
      if (!trustless(p)) return;
      var pol = model[p].pol, kept = store[bidSlot(p)];
      pol.kept = !!(kept && kept.bid && typeof kept.salt === "string");
      if (pol.kept && !pol.salt.trim()) {
        SUITS.forEach(function (s) { pol.bid[s] = kept.bid[s] && kept.bid[s] !== "pass" ? kept.bid[s] : ""; });
        pol.salt = kept.salt;
      }
      if (D.legal[p].kind === "commit" && !pol.salt) pol.salt = PBEM.bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
    });
  }

  function keep(store, doc) {
    // a new turn's commitment: the bids and salts of this seat's earlier turns are spent
    var mine = "bid:" + D.campaign + "/" + D.seat + "/";
    Object.keys(store).forEach(function (k) {
      if (k.indexOf(mine) === 0 && Number(k.slice(mine.length).split("/")[0]) < D.turn) delete store[k];
    });
    D.powers.forEach(function (p) {
      var o = (doc.orders || {})[p] || {};
      if (D.legal[p].kind === "commit" && o.commitment) {
        store[bidSlot(p)] = { phase: D.phase, bid: fullBid(model[p].pol.bid), salt: model[p].pol.salt.trim(), commitment: o.commitment };
      }
    });
  }

  function collectPolitics(p, legal, m, o) {
    var pol = m.pol, bid = fullBid(pol.bid);
    // an all-pass bid is the same as none (politics.normal_bid), and sends no bid a commitment lacks
    if (SUITS.some(function (s) { return bid[s] !== "pass"; })) o.bid = bid;
    if (legal.trustless && pol.salt.trim()) o.salt = pol.salt.trim();
    if (legal.names_trump && pol.trump) o.trump = pol.trump;
    var choices = pol.choices.filter(function (c) { return c === "keep" || legal.revealed.indexOf(c) !== -1; });
    if (choices.length) o.choices = choices;
    var cards = {};
    legal.revealed.forEach(function (card) {
      var ins = pol.cards[card], out = {}, effects = {};
      if (!ins) return;
      if (ins.execute) out.execute = ins.execute === "yes";
      if (ins.execute !== "no") {
        Object.keys(ins.effects || {}).sort().forEach(function (i) {
          var e = ins.effects[i], x = {};
          if (e.skip) x.skip = true;
          if (e.steps !== undefined && e.steps !== "") x.steps = Number(e.steps);
          if (e.toward) x.toward = e.toward;
          if (e.pieces && e.pieces.length) x.pieces = e.pieces.slice();
          if (e.site) x.site = e.site;
          if (Object.keys(x).length) effects[i] = x;
        });
        if (Object.keys(effects).length) out.effects = effects;
      }
      if (Object.keys(out).length) cards[card] = out;
    });
    if (Object.keys(cards).length) o.cards = cards;
    if (legal.accept_peace && pol.peace) o.accept_peace = pol.peace === "yes";
    var subs = pol.subsidies.filter(function (x) { return x.to && x.card; }).map(function (x) { return { to: x.to, card: x.card }; });
    if (subs.length) o.subsidies = subs;
    if (legal.hussar_cities && m.hussarOrder.length) o.hussars = m.hussarOrder.slice();
  }

  // the bid checks of orders._politics; the commit round checks the bid it hides the same way
  function checkBid(c, bid, hand) {
    Object.keys(bid).forEach(function (suit) {
      var card = bid[suit];
      if (SUITS.indexOf(suit) === -1) c.add(".bid." + suit, "bids are given per suit: S, H, D, C");
      else if (card !== "pass" && !FULL_CARD.test(card)) c.add(".bid." + suit, "'{card}' is not a full card id or pass (M11.4)", { card: card });
      else if (card !== "pass" && card.charAt(0) === "R") c.add(".bid." + suit, "a reserve may not be bid (M9.4)");
      else if (card !== "pass" && hand.indexOf(card) === -1) c.add(".bid." + suit, "{card} is not in your hand", { card: card });
    });
  }

  function checkCommit(c, orders, legal) {
    var cm = orders.commitment;
    if (cm !== undefined && !/^[0-9a-f]{64}$/.test(String(cm).trim().toLowerCase())) c.add(".commitment", "a commitment is the 64 hex digits of SHA-256 of maria|turn|power|bid map|salt (M11.4)");
    checkBid(c, fullBid(model[c.power].pol.bid), legal.hand);
  }

  function checkPolitics(c, orders, legal) {
    var p = c.power;
    if (orders.bid) checkBid(c, orders.bid, legal.hand);
    if ("salt" in orders && !legal.trustless) c.add(".salt", "a salt is sent only in trustless mode (M11.4)");
    if ("trump" in orders) {
      if (!legal.names_trump) c.add(".trump", "you do not name the trump this turn (M5.11, M9.3)");
      else if (SUITS.indexOf(orders.trump) === -1) c.add(".trump", "the trump is one of S, H, D, C");
    }
    (orders.choices || []).forEach(function (entry, i) {
      if (entry !== "keep" && legal.revealed.indexOf(entry) === -1) c.add(".choices[" + i + "]", "'{entry}' is neither keep nor a revealed card ({cards})", { entry: entry, cards: legal.revealed.join(", ") });
    });
    Object.keys(orders.cards || {}).forEach(function (card) {
      if (legal.revealed.indexOf(card) === -1) c.add(".cards." + card, "'{card}' is not a revealed political card", { card: card });
    });
    if ("accept_peace" in orders && p !== "AU") c.add(".accept_peace", "only Austria accepts or refuses peace (M9.15)");
    (orders.subsidies || []).forEach(function (sub, i) {
      if (!(sub.to in D.power_names)) c.add(".subsidies[" + i + "]", "a subsidy is {to: POWER, card: ID} (M9.9)");
      else if ((D.enemies[p] || []).indexOf(sub.to) !== -1 || sub.to === p) c.add(".subsidies[" + i + "].to", "{power} cannot receive your subsidy (M9.9)", { power: sub.to });
      else if (legal.hand.indexOf(sub.card) === -1) c.add(".subsidies[" + i + "].card", "{card} is not in your hand", { card: sub.card });
    });
    if (orders.hussars) M.checkHussars(c, orders, undefined);
  }

  // --- drawing the political forms ---

  function select(name, options, value, onPick, attrs) {
    var sel = el("select", Object.assign({ name: name }, attrs || {}), options.map(function (o) { return option(o[0], o[1], value === o[0]); }));
    sel.onchange = function () { onPick(sel.value); onChange(); };
    return sel;
  }

  function bidInputs(box, p, legal) {
    var pol = model[p].pol, grid = el("div", { class: "plan bids" });
    SUITS.forEach(function (s) {
      var list = "bid-cards-" + p + "-" + s;
      grid.appendChild(el("label", {}, [suitName(s) + (legal.trump === s ? " (" + t("trump") + ")" : ""),
        el("input", { type: "text", name: "bid-" + s, list: list, value: pol.bid[s], placeholder: t("pass"), autocomplete: "off", spellcheck: "false",
          oninput: function (ev) { pol.bid[s] = ev.target.value; onChange(); } }),
        el("datalist", { id: list }, [option("pass", t("pass"))].concat(legal.bid_cards[s].map(function (c) { return option(c, cardLabel(c)); })))]));
    });
    box.appendChild(el("h3", { text: t("Bid") + " (M9.4, M11.4)" }));
    box.appendChild(el("p", { class: "help", text: t("One card of each suit from your hand, or pass; only the bid in the trump suit counts.") }));
    box.appendChild(grid);
  }

  function drawCommit(box, p, legal) {
    var pol = model[p].pol;
    bidInputs(box, p, legal);
    box.appendChild(el("p", { class: "help", text: t("Only the commitment is sent now. This page keeps your bid and its salt in this browser for the politics round; use Export (below) to take them to another machine.") }));
    box.appendChild(el("div", { class: "tag salt", text: t("Salt") + ": " + pol.salt }));
    box.appendChild(el("p", { class: "tag commitment", id: "commitment-" + p }));
  }

  function drawPolitics(box, p, legal, redraw) {
    var m = model[p], pol = m.pol;
    if (legal.trustless) {
      box.appendChild(el("p", { class: "status " + (pol.kept ? "good" : "bad"), id: "record-" + p, text: pol.kept
        ? t("Your bid and salt are filled in from this browser's record of your commitment.")
        : t("This browser has no record of the bid you committed this turn (it was made on another machine, or not imported). Import your exported file below, or type the bid and the salt you committed.") }));
    }
    bidInputs(box, p, legal);
    if (legal.trustless) {
      box.appendChild(el("label", { class: "salt" }, [t("Salt") + " ", el("input", { type: "text", name: "salt", value: pol.salt, autocomplete: "off", spellcheck: "false",
        oninput: function (ev) { pol.salt = ev.target.value; onChange(); } })]));
      box.appendChild(el("p", { class: "status", id: "commitment-" + p }));
    }
    if (legal.names_trump) {
      box.appendChild(el("h3", { text: t("Trump suit") + " (M9.3)" }));
      box.appendChild(select("trump", [["", "\u2014 " + t("default (M12.6)") + " \u2014"]].concat(SUITS.map(function (s) { return [s, suitName(s)]; })),
        pol.trump, function (v) { pol.trump = v; }));
    }
    if (legal.revealed.length) {
      box.appendChild(el("h3", { text: t("Choice list") + " (M9.7)" }));
      box.appendChild(el("p", { class: "help", text: t("Tick in order of preference: the first card still there when your turn to choose comes is taken; keep keeps your bid on the display.") }));
      var choiceName = function (c) { return c === "keep" ? t("keep") : c; };
      orderedPicks("choice", legal.revealed.concat(["keep"]).map(function (c) { return [c, c === "keep" ? t("keep") : cardTitle(legal, c)]; }),
        pol.choices, choiceName).forEach(function (n) { box.appendChild(n); });
      box.appendChild(el("h3", { text: t("If you take a card") + " (M9.8, M9.19)" }));
      legal.revealed.forEach(function (card) { box.appendChild(cardEditor(p, legal, card)); });
    }
    if (legal.accept_peace) {
      box.appendChild(el("h3", { text: t("Peace offered to Prussia") + " (M9.15)" }));
      box.appendChild(select("accept_peace", [["", "\u2014 " + t("standing order (default: refuse)") + " \u2014"], ["yes", t("accept")], ["no", t("refuse")]],
        pol.peace, function (v) { pol.peace = v; }));
    }
    if (legal.subsidy_to.length && legal.hand.length) {
      box.appendChild(el("h3", { text: t("Subsidies") + " (M9.9)" }));
      pol.subsidies.forEach(function (sub) {
        box.appendChild(el("div", { class: "row" }, [
          select("subsidy-to", [["", "\u2014 " + t("to") + " \u2014"]].concat(legal.subsidy_to.map(function (q) { return [q, D.power_titles[q]]; })), sub.to, function (v) { sub.to = v; }),
          select("subsidy-card", [["", "\u2014 " + t("card") + " \u2014"]].concat(legal.hand.map(function (c) { return [c, cardLabel(c)]; })), sub.card, function (v) { sub.card = v; }),
          el("button", { type: "button", class: "small", text: t("Remove"), onclick: function () { pol.subsidies.splice(pol.subsidies.indexOf(sub), 1); redraw(); } })]));
      });
      box.appendChild(el("button", { type: "button", id: "add-subsidy-" + p, text: "+ " + t("Add a subsidy"), onclick: function () { pol.subsidies.push({ to: "", card: "" }); redraw(); } }));
    }
    if (legal.hussar_cities) M.drawHussars(box, p, legal.hussar_cities);
  }

  /* The instructions for one revealed card: only the fields its effects can use (effects.
   * _instruction and run_effect): skip for an optional effect, steps for an optional move_track,
   * toward for taker_choice, pieces for a block or withdrawal the taker chooses, site for E14. */
  function cardEditor(p, legal, card) {
    var ins = model[p].pol.cards[card] = model[p].pol.cards[card] || { execute: "", effects: {} };
    var items = legal.cards[card].effects.map(function (eff, k) {
      var i = String(k + 1), e = ins.effects[i] = ins.effects[i] || {}, a = eff.args, controls = [];
      var set = function (field) { return function (v) { if (v === "") delete e[field]; else e[field] = v; }; };
      var name = card + "-" + i;
      if (eff.optional) {
        controls.push(el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "skip-" + name, checked: !!e.skip, onchange: function (ev) {
          if (ev.target.checked) e.skip = true; else delete e.skip;
          onChange();
        } }), t("skip this effect")]));
      }
      if (eff.effect === "move_track" && eff.optional) {
        var steps = [["", fmt(t("all {n} step(s)"), { n: a[1] })]];
        for (var n = 0; n < a[1]; n++) steps.push([String(n), fmt(t("{n} step(s)"), { n: n })]);
        controls.push(select("steps-" + name, steps, e.steps === undefined ? "" : String(e.steps), function (v) { if (v === "") delete e.steps; else e.steps = Number(v); }));
      }
      if (eff.effect === "move_track" && a[2] === "taker_choice") {
        controls.push(select("toward-" + name, [["", "\u2014 " + t("default: toward your side") + " \u2014"]].concat(
          DIRECTIONS[a[0]].split(" ").map(function (d) { return [d, TOWARD[d]]; })), e.toward || "", set("toward")));
      }
      var kind = eff.effect === "block_trains" ? "train" : "general";
      var byTaker = (eff.effect === "block_generals" || eff.effect === "block_trains") ? a[3] === "taker" : eff.effect === "withdraw_general" && a[2] === "taker";
      if (byTaker) {
        var whose = target(a[0], p), most = eff.effect === "withdraw_general" ? 1 : a[1];
        e.pieces = (e.pieces || []).filter(function (x) { return PIECES[x]; });
        controls.push(el("div", { class: "picks" }, Object.keys(PIECES).filter(function (id) {
          return PIECES[id].kind === kind && PIECES[id].power === whose && PIECES[id].city;
        }).map(function (id) {
          return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "pieces-" + name, value: id, checked: e.pieces.indexOf(id) !== -1, onchange: function (ev) {
            e.pieces = e.pieces.filter(function (x) { return x !== id; });
            if (ev.target.checked) e.pieces.push(id);
            if (e.pieces.length > most) e.pieces = e.pieces.slice(-most);
            onChange();
            ev.target.closest(".picks").querySelectorAll("input").forEach(function (box) { box.checked = e.pieces.indexOf(box.value) !== -1; });
          } }), pieceName(id) + " (" + shownCity(PIECES[id].city) + ")"]);
        })));
      }
      if (eff.effect === "restore_train" && target(a[0], p) === p) {
        // the site is the owner's choice (E14): asked only when this power takes its own train back;
        // another power's train comes back where its standing train_site_preference says
        controls.push(select("site-" + name, [["", "\u2014 " + t("default: the lowest city id") + " \u2014"]].concat(
          (D.reentry_sites[p] || []).map(function (c) { return [c, shownCity(c)]; })), e.site || "", set("site")));
      }
      return el("li", {}, [el("span", { text: describe(eff) })].concat(controls.length ? [el("div", { class: "effect-controls" }, controls)] : []));
    });
    return el("div", { class: "row pcard", id: "card-" + p + "-" + card }, [
      el("strong", { text: cardTitle(legal, card) }),
      select("execute-" + card, [["", "\u2014 " + t("default: carry it out") + " \u2014"], ["yes", t("carry it out")], ["no", t("discard it without effect")]],
        ins.execute, function (v) { ins.execute = v; }),
      el("ol", { class: "effects" }, items)]);
  }

  /* The situation of the political phase, shown once: the revealed cards and what they do, the
   * trump and the bids on the display. */
  function drawPoliticsSituation(box) {
    var p = D.powers.filter(function (q) { return D.legal[q].phase_power && D.legal[q].revealed; })[0];
    if (!p) return;
    var legal = D.legal[p], part = el("div", { class: "power politics" }, [el("h3", { text: t("Political cards") })]);
    if (!legal.revealed.length) part.appendChild(el("p", { text: t("none") }));
    legal.revealed.forEach(function (card) {
      part.appendChild(el("div", { class: "pcard-info" }, [el("strong", { text: cardTitle(legal, card) }),
        el("ol", {}, legal.cards[card].effects.map(function (eff) { return el("li", { text: describe(eff) }); }))]));
    });
    part.appendChild(el("p", { text: t("Trump suit") + ": " + (legal.trump ? suitName(legal.trump) : t("named in the politics round (M9.3)")) }));
    var shown = Object.keys(legal.display).filter(function (q) { return legal.display[q].length; });
    if (shown.length) {
      part.appendChild(el("p", { text: t("Bids on the display") + ": " + shown.map(function (q) { return D.power_titles[q] + " " + legal.display[q].map(cardLabel).join(" "); }).join("; ") }));
    }
    box.appendChild(part);
  }

  M.commitments = commitments; M.collectPolitics = collectPolitics; M.checkCommit = checkCommit; M.checkPolitics = checkPolitics;
  M.drawCommit = drawCommit; M.drawPolitics = drawPolitics; M.drawPoliticsSituation = drawPoliticsSituation;
  M.prefill = prefill; M.rehash = rehash; M.beforeSign = rehash; M.keep = keep;
})();
