/* Maria's order form: built from the legal choices the engine computed (legal_orders), checked
 * with the same sentences as pbem.games.maria.orders.validate (what `pbem check` prints).
 * Keep the messages here in step with that module; tests/test_orderpage_browser.py compares
 * the two on the same orders. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el;
  // The map comes packed (see pbem.render.orderpage.maria_static): unpack it once.
  var PIECES = D.pieces, CITIES = {}, ADJ = {}, POS = {}, IDS = [];
  D.map.cities.forEach(function (c, i) {
    IDS.push(c[0]);
    CITIES[c[0]] = [c[1], c[2], D.map.maps[c[3]], c[4]];
    if (D.map.pos.length && D.map.pos[2 * i] >= 0) POS[c[0]] = [D.map.pos[2 * i], D.map.pos[2 * i + 1]];
  });
  for (var r = 0; r < D.map.roads.length; r += 3) {
    var a = IDS[D.map.roads[r]], b = IDS[D.map.roads[r + 1]], main = D.map.roads[r + 2] === 1;
    (ADJ[a] = ADJ[a] || {})[b] = main;
    (ADJ[b] = ADJ[b] || {})[a] = main;
  }
  var CARD_ID = /^([SHDC](10|[2-9])(\.[1-4])?|R(\.[1-4][ab]?)?)$/;
  var PLAN_INTS = ["max_cards", "max_points", "concede_if_behind_by"];
  var SUIT_SIGN = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

  function cityName(c) { return CITIES[c] ? CITIES[c][0] : c; }           // pbem check's name
  function shownCity(c) { return CITIES[c] ? (CITIES[c][3] || CITIES[c][0]) : c; }
  function pieceName(p) { return PIECES[p] ? PIECES[p].name : p; }
  function suitOf(c) { return CITIES[c] ? CITIES[c][1] : null; }
  function isAdjacent(a, b) { return !!(ADJ[a] && b in ADJ[a]); }
  function isMain(a, b) { return !!(ADJ[a] && ADJ[a][b]); }
  function mine(power) { return D.seat_powers.indexOf(power) !== -1; }
  function cardLabel(c) {
    var s = c.charAt(0);
    return (SUIT_SIGN[s] || "") + c;
  }
  function cardSuit(c) { return c.charAt(0); }

  // --- the form's model, one entry per power ------------------------------------------------
  var model = {};
  D.powers.forEach(function (p) {
    model[p] = { moves: [], reentries: [], payments: {}, battles: [], plan: {}, troops: {}, hussarOrder: [], recruits: {}, returns: {},
                 standing: { plan: {}, policy: "", payUpTo: "", prefs: {} },
                 pol: { bid: { S: "", H: "", D: "", C: "" }, salt: "", trump: "", choices: [], cards: {}, peace: "", subsidies: [] } };
    var legal = D.legal[p];
    if (legal.kind === "setup" && legal.generals) {
      Object.keys(legal.generals).forEach(function (g) { model[p].troops[g] = legal.generals[g].min; });
    }
  });
  var onChange = function () {};

  function parsePath(text) { return String(text || "").split(/[\s,;>\u2192]+/).filter(function (x) { return x; }); }

  function planOut(plan) {
    var out = {};
    PLAN_INTS.forEach(function (k) {
      if (plan[k] !== undefined && plan[k] !== "") out[k] = Number(plan[k]);
    });
    if (plan.use_reserve) out.use_reserve = true;
    if (plan.prefer && plan.prefer.length) out.prefer = plan.prefer.slice();
    var retreat = parsePath(plan.retreat);
    if (retreat.length) out.retreat = retreat;
    return out;
  }

  // The owner's answers to choices political cards leave to it (M9.19, M12.3), advanced game.
  var PREFS = [["troop_gain_preference", "Generals to receive troops first (E5)"],
               ["troop_loss_preference", "Generals to lose troops first (E6)"],
               ["withdraw_preference", "Generals to withdraw first (M9.11, E9)"],
               ["discard_preference", "Cards to discard first (E4)"],
               ["train_site_preference", "Sites for a supply train placed free (E14, M9.15)"]];

  function collectStanding(m) {
    var st = {}, plan = planOut(m.standing.plan);
    if (Object.keys(plan).length) st.default_plan = plan;
    PREFS.forEach(function (pr) { var v = m.standing.prefs[pr[0]]; if (v && v.length) st[pr[0]] = v.slice(); });
    if (m.standing.policy === "pay_up_to") st.hussar_policy = { pay_up_to: m.standing.payUpTo === "" ? "" : Number(m.standing.payUpTo) };
    else if (m.standing.policy) st.hussar_policy = m.standing.policy;
    return st;
  }

  function collectPower(p) {
    var legal = D.legal[p], m = model[p], o = {};
    var standing = collectStanding(m);
    if (Object.keys(standing).length) o.standing = standing;
    if (!legal.phase_power) return o;
    if (legal.kind === "stage") {
      var moves = m.moves.filter(function (mv) { return mv.piece; }).map(function (mv) {
        var out = {};
        if (mv.piece.indexOf("+") !== -1) out.stack = mv.piece.split("+");
        else out.piece = mv.piece;
        out.path = parsePath(mv.path);
        if (mv.force) out.force_march = true;
        return out;
      });
      if (moves.length) o.moves = moves;
      var re = m.reentries.filter(function (r) { return r.site; }).map(function (r) {
        return r.train ? { train: r.train, site: r.site } : { site: r.site };
      });
      if (re.length) o.reentries = re;
      var pay = (legal.hand || []).filter(function (c) { return m.payments[c]; });
      if (pay.length) o.payments = pay;
      var battles = m.battles.filter(function (b) { return b.att && b.def; });
      if (battles.length) o.battles = battles.map(function (b) { return b.att + ">" + b.def; });
      var plans = {};
      battles.forEach(function (b) {
        var pl = planOut(b.plan);
        if (Object.keys(pl).length) plans[b.att + ">" + b.def] = pl;
      });
      var stage = planOut(m.plan);
      if (Object.keys(stage).length) plans.stage = stage;
      if (Object.keys(plans).length) o.plans = plans;
    } else if (legal.kind === "setup") {
      var troops = {};
      Object.keys(m.troops).sort().forEach(function (g) {
        var v = m.troops[g];
        troops[g] = v === "" || v === null || isNaN(Number(v)) ? v : Number(v);
      });
      o.troops = troops;
    } else if (legal.kind === "hussars") {
      o.hussars = m.hussarOrder.slice(); // in the order ticked: the first valid ones are used (M7.1)
    } else if (legal.kind === "winter") {
      var rec = Object.keys(m.recruits).sort().filter(function (g) { return Number(m.recruits[g]) > 0; })
        .map(function (g) { return { general: g, troops: Number(m.recruits[g]) }; });
      var ret = Object.keys(m.returns).sort().filter(function (g) { return m.returns[g]; })
        .map(function (g) { return { general: g, site: m.returns[g], troops: 1 }; });
      if (rec.length) o.recruits = rec;
      if (ret.length) o.returns = ret;
      var wpay = (legal.hand || []).filter(function (c) { return m.payments[c]; });
      if (wpay.length) o.payments = wpay;
    } else if (legal.kind === "commit") {
      if (commitments[p]) o.commitment = commitments[p];
    } else if (legal.kind === "politics") {
      collectPolitics(p, legal, m, o);
    }
    return o;
  }

  function collect() {
    var orders = {};
    D.powers.forEach(function (p) { orders[p] = collectPower(p); });
    return orders;
  }

  // --- the checks of pbem.games.maria.orders.validate -----------------------------------------

  function Checker(power) {
    this.power = power;
    this.problems = [];
    this.notes = [];
  }
  /* A problem in pbem check's English words (``message``), and as the page shows it: the same
   * sentence in the page's language. ``args`` fill the {names} of the sentence; a value given as
   * [english, shown] (a city's name) reads as each language has it. */
  function sentence(template, args, shown) {
    return String(template).replace(/\{(\w+)\}/g, function (all, k) {
      if (!args || !(k in args)) return all;
      var v = args[k];
      return String(Array.isArray(v) ? v[shown ? 1 : 0] : v);
    });
  }
  function said(path, template, args) {
    return { path: path, message: sentence(template, args, false), text: sentence(t(template), args, true) };
  }
  Checker.prototype.add = function (path, template, args) { this.problems.push(said("orders." + this.power + path, template, args)); };
  Checker.prototype.note = function (path, template, args) { this.notes.push(said("orders." + this.power + path, template, args)); };
  function place(city) { return [cityName(city), shownCity(city)]; }
  function named(pid) { return [pid, PIECES[pid] ? pieceName(pid) : pid]; } // pbem check says the id
  Checker.prototype.city = function (path, city) {
    if (typeof city !== "string" || !(city in CITIES)) {
      this.add(path, "there is no city '{city}' on the map", { city: city });
      return false;
    }
    return true;
  };
  function isInt(v) { return typeof v === "number" && Number.isInteger(v); }

  function checkPlan(c, path, plan) {
    Object.keys(plan).forEach(function (key) {
      var value = plan[key], p = path + "." + key;
      if (PLAN_INTS.indexOf(key) !== -1) {
        if (!isInt(value) || value < 0) c.add(p, "must be a whole number of at least 0");
      } else if (key === "prefer") {
        value.forEach(function (card, i) {
          if (!CARD_ID.test(card)) c.add(p + "[" + i + "]", "'{card}' is not a card id (e.g. H7.2, H7, R.3a, R)", { card: card });
        });
      } else if (key === "retreat") {
        value.forEach(function (city, i) { c.city(p + "[" + i + "]", city); });
      }
    });
  }

  function checkStage(c, orders, legal) {
    var seen = {};
    (orders.moves || []).forEach(function (m, i) {
      var base = ".moves[" + i + "]";
      var ids = m.stack ? m.stack : [m.piece];
      var start = null;
      ids.forEach(function (pid, j) {
        var ppath = m.stack ? base + ".stack[" + j + "]" : base + ".piece";
        var piece = PIECES[pid];
        if (!piece) { c.add(ppath, "there is no piece '{piece}'", { piece: named(pid) }); return; }
        if (!mine(piece.power)) { c.add(ppath, "{piece} is not yours to move", { piece: named(pid) }); return; }
        if (m.stack && piece.kind !== "general") { c.add(ppath, "{piece} is a supply train; only generals form stacks", { piece: named(pid) }); return; }
        if (piece.city === null) { c.add(ppath, "{piece} is not on the map", { piece: named(pid) }); return; }
        if (seen[pid]) c.add(ppath, "{piece} has a second move this stage (M3.5)", { piece: named(pid) });
        seen[pid] = true;
        start = start || piece.city;
      });
      var isTrain = !m.stack && PIECES[m.piece] && PIECES[m.piece].kind === "train";
      if (m.force_march && isTrain) c.add(base + ".force_march", "supply trains may not force march (M3.6)");
      var path = m.path;
      if (!path.length) { c.add(base + ".path", "must list the cities entered, in order"); return; }
      var prev = start, off = 0;
      if (prev !== null && path[0] === prev) { path = path.slice(1); off = 1; }
      var allMain = true;
      path.forEach(function (city, j) {
        var p = base + ".path[" + (j + off) + "]";
        if (!c.city(p, city)) { prev = null; return; }
        if (prev !== null && !isAdjacent(prev, city)) c.add(p, "'{city}' is not a road neighbour of '{prev}'", { city: place(city), prev: place(prev) });
        else if (prev !== null && !isMain(prev, city)) allMain = false;
        prev = city;
      });
      var cap;
      if (m.force_march) {
        cap = 8;
        if (!allMain) c.add(base + ".path", "a force march must keep to main roads (M3.6)");
      } else if (isTrain) cap = allMain ? 3 : 2;
      else cap = allMain ? 4 : 3;
      if (path.length > cap) {
        c.add(base + ".path", isTrain ? "the path enters {n} cities; a supply train may move at most {cap} here (M3.1)"
          : "the path enters {n} cities; a general may move at most {cap} here (M3.1)", { n: path.length, cap: cap });
      }
      // What only the adjudicator can judge: occupied cities, enemies, supply, the order of moves.
      var key = m.stack ? m.stack.join("+") : m.piece;
      var choice = (m.stack ? legal.stacks[key] : legal.moves[key]) || null;
      if (choice && path.length) {
        var table = m.force_march ? choice.force_march || {} : choice.paths || {};
        var known = table[path[path.length - 1]];
        if (!known || known.join(" ") !== path.join(" ")) c.note(base + ".path", "this path is not one the engine found legal now (occupied cities, enemies, supply)");
      }
    });
    (orders.reentries || []).forEach(function (r, i) {
      if (c.city(".reentries[" + i + "].site", r.site) && D.reentry_sites[c.power].indexOf(r.site) === -1) {
        c.add(".reentries[" + i + "].site", "{city} is not a re-entry site of {power} (M4.1)", { city: place(r.site), power: [D.power_names[c.power], D.power_titles[c.power] || D.power_names[c.power]] });
      }
    });
    checkPayments(c, orders);
    var after = afterMoves(orders);
    (orders.battles || []).forEach(function (b, i) {
      var path = ".battles[" + i + "]", cut = b.indexOf(">");
      if (cut === -1) { c.add(path, "a battle is named attacker>defender, e.g. broglie>neipperg"); return; }
      var a = b.slice(0, cut), d = b.slice(cut + 1);
      // as battle.unmatched_battle says it before the stage: a general off the map, or not adjacent
      var off = [a, d].filter(function (g) { return !PIECES[g] || PIECES[g].kind !== "general" || !after[g]; })[0];
      if (off !== undefined) c.add(path, "'{general}' is not a general on the map, so there is no battle {battle} (M5.1)", { general: off, battle: b });
      else if (!isAdjacent(after[a], after[d])) {
        c.add(path, "{attacker} ({at}) and {defender} ({dt}) do not stand on adjacent cities, so there is no battle {battle} (M5.1)",
          { attacker: named(a), at: place(after[a]), defender: named(d), dt: place(after[d]), battle: b });
      }
    });
    Object.keys(orders.plans || {}).forEach(function (k) { checkPlan(c, ".plans." + k, orders.plans[k]); });
    if ((orders.battles || []).length) c.note(".battles", "a battle is named by the commanding generals as the stacks stand when the battles start (M12.4); an entry that matches no battle is VOID");
  }

  // Where each general stands once this power's own moves are made (orders.py's _after_moves).
  function afterMoves(orders) {
    var pos = {};
    Object.keys(PIECES).forEach(function (id) { if (PIECES[id].kind === "general") pos[id] = PIECES[id].city; });
    (orders.moves || []).forEach(function (m) {
      var path = Array.isArray(m.path) ? m.path : [], last = path[path.length - 1];
      var ids = m.stack !== undefined ? m.stack : [m.piece];
      if (typeof last === "string" && last in CITIES && Array.isArray(ids)) {
        ids.forEach(function (g) { if (typeof g === "string" && g in pos) pos[g] = last; });
      }
    });
    return pos;
  }

  function checkStanding(c, st) {
    // the parts of orders.py's _standing the form can produce
    Object.keys(st).forEach(function (key) {
      var value = st[key], path = ".standing." + key;
      if (key === "hussar_policy") {
        var ok = value === "pay" || value === "refuse" || (value && typeof value === "object" && Object.keys(value).length === 1 &&
          isInt(value.pay_up_to) && value.pay_up_to >= 0);
        if (!ok) c.add(path, "must be pay, refuse or {pay_up_to: N} (M12.3)");
      } else if (key === "default_plan") {
        checkPlan(c, path, value);
      }
    });
  }

  function checkPayments(c, orders) {
    (orders.payments || []).forEach(function (card, i) {
      if (!CARD_ID.test(card)) c.add(".payments[" + i + "]", "'{card}' is not a card id (e.g. H7.2 or H7)", { card: card });
    });
  }

  function checkSetup(c, orders, legal) {
    // pbem.games.maria.adjudicate.split_problem: the first problem only, as there.
    var split = orders.troops, top = null, gens = Object.keys(legal.generals);
    gens.forEach(function (g) { top = legal.generals[g].max; });
    var name = [D.power_names[c.power], D.power_titles[c.power] || D.power_names[c.power]];
    var extra = Object.keys(split).filter(function (g) { return gens.indexOf(g) === -1; }).sort();
    if (extra.length) { c.add(".troops", "{general} is not a general of {power}", { general: named(extra[0]), power: name }); return; }
    var byRank = gens.slice().sort(function (a, b) { return D.ranks[a] - D.ranks[b]; });
    for (var i = 0; i < byRank.length; i++) {
      var g = byRank[i], n = split[g], low = legal.generals[g].min;
      if (!isInt(n)) { c.add(".troops", "{general} needs a number of troops", { general: named(g) }); return; }
      if (!(low <= n && n <= top)) { c.add(".troops", "{general} must get {low} to {top} troops, not {n}", { general: named(g), low: low, top: top, n: n }); return; }
    }
    var total = gens.reduce(function (s, g) { return s + split[g]; }, 0);
    if (total !== legal.total) c.add(".troops", "the split adds up to {total}, but {power} has {has} troops", { total: total, power: name, has: legal.total });
  }

  function checkHussars(c, orders, count) {
    (orders.hussars || []).forEach(function (city, i) {
      if (c.city(".hussars[" + i + "]", city) && CITIES[city][2] !== "bohemia") c.add(".hussars[" + i + "]", "{city} is not on the Bohemia map (M7.1)", { city: place(city) });
    });
    if ((orders.hussars || []).length > count) c.note(".hussars", "the first {n} valid cities in this order are used; the others stand by (M7.1)", { n: count });
  }

  function check(orders) {
    var problems = [], notes = [];
    D.powers.forEach(function (p) {
      var legal = D.legal[p], c = new Checker(p), o = orders[p] || {};
      if (o.standing) checkStanding(c, o.standing);
      if (!legal.phase_power) { /* standing orders only */ }
      else if (legal.kind === "stage") checkStage(c, o, legal);
      else if (legal.kind === "setup" && o.troops) checkSetup(c, o, legal);
      else if (legal.kind === "hussars") checkHussars(c, o, legal.count);
      else if (legal.kind === "winter") checkPayments(c, o);
      else if (legal.kind === "commit") checkCommit(c, o, legal);
      else if (legal.kind === "politics") checkPolitics(c, o, legal);
      problems = problems.concat(c.problems);
      notes = notes.concat(c.notes);
    });
    return { problems: problems, notes: notes };
  }

  // --- drawing the form ------------------------------------------------------------------------

  function option(value, text, selected) { return el("option", { value: value, text: text, selected: !!selected }); }

  function numberInput(value, attrs, onInput) {
    var a = Object.assign({ type: "number", step: 1, inputmode: "numeric", value: value === undefined ? "" : value }, attrs);
    a.oninput = a.onchange = function (ev) { onInput(ev.target.value === "" ? "" : Number(ev.target.value)); };
    return el("input", a);
  }

  // Where each own general stands once the planned moves are made (for battle suggestions).
  function positions() {
    var pos = {};
    Object.keys(PIECES).forEach(function (id) { if (PIECES[id].kind === "general") pos[id] = PIECES[id].city; });
    D.powers.forEach(function (p) {
      model[p].moves.forEach(function (mv) {
        var path = parsePath(mv.path);
        if (!mv.piece || !path.length) return;
        mv.piece.split("+").forEach(function (g) { if (g in pos && path[path.length - 1] in CITIES) pos[g] = path[path.length - 1]; });
      });
    });
    return pos;
  }

  function commanders(pos, powers) {
    // the general with the lowest rank number in each city, per the powers given
    var best = {};
    Object.keys(pos).forEach(function (g) {
      var piece = PIECES[g];
      if (!pos[g] || powers.indexOf(piece.power) === -1) return;
      var cur = best[pos[g]];
      if (!cur || piece.rank < PIECES[cur].rank) best[pos[g]] = g;
    });
    return best;
  }

  function planEditor(plan, cards, redraw) {
    var box = el("div", { class: "plan" });
    [["max_cards", "at most this many cards"], ["max_points", "at most this many points"], ["concede_if_behind_by", "concede when behind by more than"]].forEach(function (f) {
      box.appendChild(el("label", {}, [t(f[1]), numberInput(plan[f[0]], { name: f[0] }, function (v) { plan[f[0]] = v; onChange(); })]));
    });
    box.appendChild(el("label", { class: "check" }, [
      el("input", { type: "checkbox", name: "use_reserve", checked: !!plan.use_reserve, onchange: function (ev) { plan.use_reserve = ev.target.checked; onChange(); } }),
      t("play a reserve to draw level")]));
    var picks = el("div", { class: "picks" });
    plan.prefer = (plan.prefer || []).filter(function (c) { return cards.indexOf(c) !== -1; });
    cards.forEach(function (card) {
      picks.appendChild(el("label", { class: "inline cardchip suit-" + cardSuit(card) }, [
        el("input", { type: "checkbox", name: "prefer", value: card, checked: plan.prefer.indexOf(card) !== -1, onchange: function (ev) {
          if (ev.target.checked) plan.prefer.push(card);
          else plan.prefer = plan.prefer.filter(function (x) { return x !== card; });
          onChange();
        } }), cardLabel(card)]));
    });
    box.appendChild(el("label", { class: "wide" }, [t("cards to play first") + (cards.length ? "" : ": " + t("none")), picks]));
    box.appendChild(el("label", { class: "wide" }, [t("retreat cities for a beaten enemy (ids)"),
      el("input", { type: "text", name: "retreat", value: plan.retreat || "", autocomplete: "off", oninput: function (ev) { plan.retreat = ev.target.value; onChange(); } })]));
    return box;
  }

  function moveRow(p, mv, legal, redraw) {
    var pieceSel = el("select", { name: "piece" }, [option("", "\u2014 " + t("Piece") + " \u2014")]);
    Object.keys(legal.moves).forEach(function (id) {
      var where = PIECES[id] ? shownCity(PIECES[id].city) : "";
      pieceSel.appendChild(option(id, pieceName(id) + " (" + where + ")", mv.piece === id));
    });
    Object.keys(legal.stacks || {}).forEach(function (id) {
      var st = legal.stacks[id].stack;
      pieceSel.appendChild(option(id, st.map(pieceName).join(" + ") + " (" + shownCity(PIECES[st[0]].city) + ")", mv.piece === id));
    });
    var choice = mv.piece ? (mv.piece.indexOf("+") !== -1 ? legal.stacks[mv.piece] : legal.moves[mv.piece]) : null;
    var destSel = el("select", { name: "destination", disabled: !choice }, [option("", "\u2014 " + t("Destination") + " \u2014")]);
    if (choice) {
      var byName = function (tbl) { return Object.keys(tbl || {}).sort(function (a, b) { return shownCity(a).localeCompare(shownCity(b)); }); };
      var normal = el("optgroup", { label: t("Moves") });
      byName(choice.paths).forEach(function (c) { normal.appendChild(option("n:" + c, shownCity(c) + " (" + choice.paths[c].length + ")", !mv.force && mv.dest === c)); });
      destSel.appendChild(normal);
      if (choice.force_march && Object.keys(choice.force_march).length) {
        var fm = el("optgroup", { label: t("Force march") });
        byName(choice.force_march).forEach(function (c) { fm.appendChild(option("f:" + c, shownCity(c) + " (" + choice.force_march[c].length + ", " + t("force march") + ")", mv.force && mv.dest === c)); });
        destSel.appendChild(fm);
      }
    }
    var pathInput = el("input", { type: "text", name: "path", value: mv.path || "", autocomplete: "off", spellcheck: "false", placeholder: t("Path (city ids, in order)"), "aria-label": t("Path (city ids, in order)") });
    var force = el("input", { type: "checkbox", name: "force_march", checked: !!mv.force });
    var names = el("div", { class: "pathnames" });
    function showNames() {
      var path = parsePath(mv.path);
      names.textContent = path.length ? "\u2192 " + path.map(shownCity).join(" \u2192 ") : "";
    }
    pieceSel.onchange = function () { mv.piece = pieceSel.value; mv.dest = ""; mv.path = ""; mv.force = false; redraw(); };
    destSel.onchange = function () {
      var v = destSel.value;
      mv.force = v.charAt(0) === "f";
      mv.dest = v.slice(2);
      var tbl = mv.force ? choice.force_march : choice.paths;
      mv.path = v ? tbl[mv.dest].join(" ") : "";
      pathInput.value = mv.path;
      force.checked = mv.force;
      showNames();
      onChange();
    };
    pathInput.oninput = function () { mv.path = pathInput.value; showNames(); onChange(); };
    force.onchange = function () { mv.force = force.checked; onChange(); };
    showNames();
    return el("div", { class: "row move" }, [pieceSel, destSel, pathInput,
      el("label", { class: "inline" }, [force, t("Force march")]),
      el("button", { type: "button", class: "small", text: t("Remove"), onclick: function () { model[p].moves.splice(model[p].moves.indexOf(mv), 1); redraw(); } }),
      names]);
  }

  function battleRow(p, b, redraw) {
    var own = D.seat_powers, enemies = D.enemies[p] || [];
    var pos = positions();
    var attackers = Object.keys(PIECES).filter(function (g) { return PIECES[g].kind === "general" && PIECES[g].power === p && pos[g]; });
    var defenders = Object.keys(PIECES).filter(function (g) { return PIECES[g].kind === "general" && enemies.indexOf(PIECES[g].power) !== -1 && pos[g]; });
    var enemyCmd = commanders(pos, enemies);
    var attSel = el("select", { name: "attacker" }, [option("", "\u2014 " + t("Attacker") + " \u2014")]);
    attackers.forEach(function (g) { attSel.appendChild(option(g, pieceName(g) + " (" + shownCity(pos[g]) + ")", b.att === g)); });
    var defSel = el("select", { name: "defender" }, [option("", "\u2014 " + t("Defender") + " \u2014")]);
    var near = [], far = [];
    defenders.forEach(function (g) {
      var adjacent = b.att && pos[b.att] && isAdjacent(pos[b.att], pos[g]) && enemyCmd[pos[g]] === g;
      (adjacent ? near : far).push(g);
    });
    if (near.length) {
      var og = el("optgroup", { label: t("next to you after your moves") });
      near.forEach(function (g) { og.appendChild(option(g, "\u2605 " + pieceName(g) + " (" + shownCity(pos[g]) + ")", b.def === g)); });
      defSel.appendChild(og);
    }
    far.forEach(function (g) { defSel.appendChild(option(g, pieceName(g) + " (" + shownCity(pos[g]) + ")", b.def === g)); });
    attSel.onchange = function () { b.att = attSel.value; redraw(); };
    defSel.onchange = function () { b.def = defSel.value; onChange(); };
    // Cards of the right suit: those of the attacker's sector once it has moved, and reserves.
    var suit = b.att && pos[b.att] ? suitOf(pos[b.att]) : null;
    var cards = (D.legal[p].hand || []).filter(function (c) { return c.charAt(0) === "R" || !suit || cardSuit(c) === suit; });
    void own;
    return el("div", { class: "row battle" }, [attSel, defSel,
      el("button", { type: "button", class: "small", text: t("Remove"), onclick: function () { model[p].battles.splice(model[p].battles.indexOf(b), 1); redraw(); } }),
      planEditor(b.plan, cards, redraw)]);
  }

  function drawStage(box, p, legal, redraw) {
    var m = model[p];
    box.appendChild(el("h3", { text: t("Moves") }));
    m.moves.forEach(function (mv) { box.appendChild(moveRow(p, mv, legal, redraw)); });
    box.appendChild(el("button", { type: "button", id: "add-move-" + p, text: "+ " + t("Add a move"), onclick: function () { m.moves.push({ piece: "", dest: "", path: "", force: false }); redraw(); } }));
    if ((legal.reentries || []).length) {
      box.appendChild(el("h3", { text: t("Re-entries") + " (" + legal.reentry_cost + ")" }));
      m.reentries.forEach(function (r) {
        var sel = el("select", { name: "reentry" }, [option("", "\u2014")]);
        legal.reentries.forEach(function (x, i) { sel.appendChild(option(String(i), x.train + " \u2192 " + shownCity(x.site), r.train === x.train && r.site === x.site)); });
        sel.onchange = function () { var x = legal.reentries[Number(sel.value)]; r.train = x ? x.train : ""; r.site = x ? x.site : ""; onChange(); };
        box.appendChild(el("div", { class: "row" }, [sel, el("button", { type: "button", class: "small", text: t("Remove"), onclick: function () { m.reentries.splice(m.reentries.indexOf(r), 1); redraw(); } })]));
      });
      box.appendChild(el("button", { type: "button", text: "+ " + t("Add a re-entry"), onclick: function () { m.reentries.push({ train: "", site: "" }); redraw(); } }));
    }
    drawPayments(box, p, legal);
    box.appendChild(el("h3", { text: t("Battles") }));
    m.battles.forEach(function (b) { box.appendChild(battleRow(p, b, redraw)); });
    box.appendChild(el("button", { type: "button", id: "add-battle-" + p, text: "+ " + t("Add a battle"), onclick: function () { m.battles.push({ att: "", def: "", plan: {} }); redraw(); } }));
    box.appendChild(el("h3", { text: t("Plan for every battle of the stage") }));
    var stagePlan = planEditor(m.plan, legal.hand || [], redraw);
    stagePlan.classList.add("stage-plan");
    box.appendChild(stagePlan);
  }

  function drawPayments(box, p, legal) {
    var hand = legal.hand || [];
    if (!hand.length) return;
    var m = model[p], picks = el("div", { class: "picks" });
    hand.forEach(function (card) {
      picks.appendChild(el("label", { class: "inline cardchip suit-" + cardSuit(card) }, [
        el("input", { type: "checkbox", name: "payment", value: card, checked: !!m.payments[card], onchange: function (ev) { m.payments[card] = ev.target.checked; onChange(); } }), cardLabel(card)]));
    });
    box.appendChild(el("h3", { text: t("Payment cards") }));
    box.appendChild(picks);
  }

  function drawSetup(box, p, legal) {
    var m = model[p];
    var sum = el("p", { class: "tag" });
    function showSum() {
      var s = Object.keys(m.troops).reduce(function (a, g) { return a + (Number(m.troops[g]) || 0); }, 0);
      sum.textContent = t("total") + ": " + s + " / " + legal.total;
    }
    box.appendChild(el("h3", { text: t("Troop split") }));
    var table = el("table", { class: "op-table" });
    Object.keys(legal.generals).sort(function (a, b) { return D.ranks[a] - D.ranks[b]; }).forEach(function (g) {
      var lim = legal.generals[g];
      table.appendChild(el("tr", {}, [el("td", { text: pieceName(g) }),
        el("td", {}, [numberInput(m.troops[g], { name: "troops-" + g, min: lim.min, max: lim.max }, function (v) { m.troops[g] = v; showSum(); onChange(); })]),
        el("td", { class: "tag", text: lim.min + "\u2013" + lim.max })]));
    });
    box.appendChild(table);
    showSum();
    box.appendChild(sum);
  }

  function drawHussars(box, p, cities, count) {
    box.appendChild(el("h3", { text: t("Hussar cities") + (count === undefined ? "" : " (" + count + ")") }));
    box.appendChild(el("p", { class: "help", text: t("Tick cities in order of preference; the first valid ones are used.") }));
    var items = cities.slice().sort(function (a, b) { return shownCity(a).localeCompare(shownCity(b)); })
      .map(function (c) { return [c, shownCity(c)]; });
    orderedPicks("hussar", items, model[p].hussarOrder).forEach(function (n) { box.appendChild(n); });
  }

  function drawWinter(box, p, legal) {
    var m = model[p];
    if (Object.keys(legal.recruits || {}).length) {
      box.appendChild(el("h3", { text: t("Recruits") + " (" + legal.cost + ")" }));
      var table = el("table", { class: "op-table" });
      Object.keys(legal.recruits).sort().forEach(function (g) {
        table.appendChild(el("tr", {}, [el("td", { text: pieceName(g) }),
          el("td", {}, [numberInput(m.recruits[g], { name: "recruit-" + g, min: 0, max: legal.recruits[g] }, function (v) { m.recruits[g] = v; onChange(); })]),
          el("td", { class: "tag", text: "0\u2013" + legal.recruits[g] })]));
      });
      box.appendChild(table);
    }
    if (Object.keys(legal.returns || {}).length) {
      box.appendChild(el("h3", { text: t("Returns") }));
      Object.keys(legal.returns).sort().forEach(function (g) {
        var sel = el("select", { name: "return-" + g, onchange: function (ev) { m.returns[g] = ev.target.value; onChange(); } }, [option("", "\u2014 " + t("none") + " \u2014")]);
        legal.returns[g].forEach(function (s) { sel.appendChild(option(s, shownCity(s), m.returns[g] === s)); });
        box.appendChild(el("div", { class: "row" }, [el("span", { text: pieceName(g) }), sel]));
      });
    }
    drawPayments(box, p, legal);
  }

  function drawStanding(box, p) {
    // Standing orders stay until replaced (M12.3); blank fields leave the current ones alone.
    var st = model[p].standing;
    var details = el("details", { class: "standing", open: Object.keys(collectStanding(model[p])).length > 0 || !!st.policy }, [
      el("summary", { text: t("Standing orders") }),
      el("p", { class: "help", text: t("They stay until you replace them (M12.3); fields left blank change nothing.") }),
      el("h3", { text: t("Default battle plan") }),
      planEditor(st.plan, (D.own[p] || {}).hand || [], null)]);
    if (D.advanced) drawPreferences(details, p, st);
    if (p !== "AU") {
      var amount = numberInput(st.payUpTo, { name: "pay_up_to", min: 0, disabled: st.policy !== "pay_up_to" }, function (v) { st.payUpTo = v; onChange(); });
      var policy = el("select", { name: "hussar_policy", onchange: function (ev) {
        st.policy = ev.target.value;
        amount.disabled = st.policy !== "pay_up_to";
        onChange();
      } }, [option("", "\u2014 " + t("unchanged") + " \u2014", !st.policy), option("pay", t("pay"), st.policy === "pay"),
        option("refuse", t("refuse"), st.policy === "refuse"), option("pay_up_to", t("pay up to (points per supply step)"), st.policy === "pay_up_to")]);
      details.appendChild(el("h3", { text: t("Hussar policy") + " (M6.3)" }));
      details.appendChild(el("div", { class: "row policy" }, [policy, amount]));
    }
    box.appendChild(details);
  }

  // ordered tick boxes (PBEM.orderedPicks): the form is redrawn after every tick
  function orderedPicks(name, items, chosen, short) {
    return PBEM.orderedPicks(name, items, chosen, short, function () { onChange(); });
  }


  function drawPreferences(details, p, st) {
    var generals = Object.keys(PIECES).filter(function (g) { return PIECES[g].kind === "general" && PIECES[g].power === p; })
      .sort(function (a, b) { return (D.ranks[a] || 0) - (D.ranks[b] || 0); })
      .map(function (g) { return [g, pieceName(g)]; });
    details.appendChild(el("h3", { text: t("Answers to the choices political cards leave to you") + " (M9.19)" }));
    details.appendChild(el("p", { class: "help", text: t("Tick in order of preference; whatever you leave out follows the rule's default.") }));
    PREFS.forEach(function (pr) {
      var items = pr[0] === "train_site_preference" ? (D.reentry_sites[p] || []).map(function (c) { return [c, shownCity(c)]; })
        : pr[0] === "discard_preference" ? ((D.own[p] || {}).hand || []).map(function (c) { return [c, cardLabel(c)]; })
        : generals;
      if (!items.length) return;
      st.prefs[pr[0]] = st.prefs[pr[0]] || [];
      details.appendChild(el("h4", { text: t(pr[1]) }));
      orderedPicks(pr[0] + "-" + p, items, st.prefs[pr[0]]).forEach(function (n) { details.appendChild(n); });
    });
  }

  function drawOwn(box) {
    box.textContent = "";
    D.powers.forEach(function (p) {
      var own = D.own[p] || {};
      var part = el("div", { class: "power" }, [el("h3", { text: D.power_titles[p] })]);
      var troops = own.troops || {};
      if (Object.keys(troops).length) {
        var table = el("table", { class: "op-table" }, [el("tr", {}, [el("th", { text: t("Troops") }), el("th", {})])]);
        Object.keys(troops).sort(function (a, b) { return (D.ranks[a] || 0) - (D.ranks[b] || 0); }).forEach(function (g) {
          table.appendChild(el("tr", {}, [el("td", { text: pieceName(g) + (PIECES[g] && PIECES[g].city ? " \u2014 " + shownCity(PIECES[g].city) : "") }), el("td", { text: String(troops[g]) })]));
        });
        part.appendChild(table);
      }
      var hand = own.hand || [];
      part.appendChild(el("div", { class: "tag", text: t("Your hand") + " (" + hand.length + ")" }));
      part.appendChild(el("div", { class: "hand" }, hand.map(function (c) { return el("span", { class: "cardchip suit-" + cardSuit(c), text: cardLabel(c) }); })));
      box.appendChild(part);
    });
    drawPoliticsSituation(box);
  }

  // --- politics: the commit round (trustless mode, M11.4) and the politics round (M9, M12.8) ---

  var SUITS = ["S", "H", "D", "C"];
  var SUIT_WORD = { S: t("spades"), H: t("hearts"), D: t("diamonds"), C: t("clubs") };
  var FULL_CARD = /^([SHDC](10|[2-9])\.[1-4]|R\.[1-4][ab])$/; // cards.is_card_id: full ids only
  var DIRECTIONS = { saxony: "prussia austria", russia: "down up", italy: "france austria" }; // politics._directions
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
    if (orders.hussars) checkHussars(c, orders, undefined);
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
    if (legal.hussar_cities) drawHussars(box, p, legal.hussar_cities);
  }

  /* The instructions for one revealed card: only the fields its effects can use (politics.
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

  var draft = PBEM.draftKeeper(model);  // a reload keeps the form


  var redrawForm = function () {};

  function render(formBox, ownBox, refresh) {
    draft.load();
    prefill();
    var changed = onChange = function () {
      draft.save();
      refresh();
      rehash().then(function (moved) { if (moved) refresh(); });
    };
    drawOwn(ownBox);
    function redraw() {
      formBox.textContent = "";
      D.powers.forEach(function (p) {
        var legal = D.legal[p];
        var box = el("div", { class: "power", id: "power-" + p }, [el("h2", { text: t("Orders of") + " " + D.power_titles[p] })]);
        if (!legal.phase_power) box.appendChild(el("p", { text: t("Nothing to order for this power in this phase.") }));
        else if (legal.kind === "stage") drawStage(box, p, legal, redraw);
        else if (legal.kind === "setup") drawSetup(box, p, legal);
        else if (legal.kind === "hussars") drawHussars(box, p, legal.cities, legal.count);
        else if (legal.kind === "commit") drawCommit(box, p, legal);
        else if (legal.kind === "politics") drawPolitics(box, p, legal, redraw);
        else if (legal.kind === "winter") drawWinter(box, p, legal);
        drawStanding(box, p);
        formBox.appendChild(box);
      });
      changed();
    }
    redrawForm = redraw;
    redraw();
  }

  function storeChanged() { prefill(); redrawForm(); }

  // --- the planned orders over the map --------------------------------------------------------

  // the powers' colours as the map has them: [fill, edge] (Austria's white is drawn on its dark edge)
  var COLOURS = D.colours || {};

  function shape(ns, tag, attrs) {
    var node = document.createElementNS(ns, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    return node;
  }

  function draw(layer, ns) {
    while (layer.firstChild) layer.removeChild(layer.firstChild);
    var pos = positions();
    D.powers.forEach(function (p) {
      var colour = (COLOURS[p] || ["#000000"])[0];
      var halo = colour.toLowerCase() === "#ffffff" ? (COLOURS[p] || [])[1] || "#000000" : "#fff";
      model[p].moves.forEach(function (mv) {
        if (!mv.piece) return;
        var first = mv.piece.split("+")[0];
        var start = PIECES[first] ? PIECES[first].city : null;
        var cities = [start].concat(parsePath(mv.path)).filter(function (c) { return c && POS[c]; });
        if (cities.length < 2) return;
        var points = cities.map(function (c) { return POS[c].join(","); }).join(" ");
        layer.appendChild(shape(ns, "polyline", { points: points, fill: "none", stroke: halo, "stroke-width": 9, "stroke-linejoin": "round", "stroke-linecap": "round", opacity: 0.9 }));
        layer.appendChild(shape(ns, "polyline", { points: points, fill: "none", stroke: colour, "stroke-width": 4.5, "stroke-linejoin": "round", "stroke-linecap": "round", "stroke-dasharray": mv.force ? "10 6" : "none", class: "planned-move" }));
        var end = POS[cities[cities.length - 1]];
        layer.appendChild(shape(ns, "circle", { cx: end[0], cy: end[1], r: 9, fill: colour, stroke: halo, "stroke-width": 3 }));
      });
      model[p].battles.forEach(function (b) {
        var a = b.att && POS[pos[b.att]], d = b.def && POS[pos[b.def]];
        if (!a || !d) return;
        layer.appendChild(shape(ns, "line", { x1: a[0], y1: a[1], x2: d[0], y2: d[1], stroke: "#c0281c", "stroke-width": 4, "stroke-dasharray": "6 5" }));
        layer.appendChild(shape(ns, "circle", { cx: d[0], cy: d[1], r: 22, fill: "none", stroke: "#c0281c", "stroke-width": 5, class: "planned-battle" }));
      });
    });
  }

  function focus() {
    // the middle of the seat's own generals, where a zoomed map opens
    var xs = [], ys = [];
    Object.keys(PIECES).forEach(function (id) {
      var piece = PIECES[id];
      if (D.powers.indexOf(piece.power) !== -1 && piece.city && POS[piece.city]) { xs.push(POS[piece.city][0]); ys.push(POS[piece.city][1]); }
    });
    if (!xs.length) return null;
    var avg = function (v) { return v.reduce(function (a, b) { return a + b; }, 0) / v.length; };
    return [avg(xs), avg(ys)];
  }

  PBEM.register({ render: render, collect: collect, check: check, draw: draw, focus: focus,
                  beforeSign: rehash, keep: keep, storeChanged: storeChanged });
})();
