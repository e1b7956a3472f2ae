/* Maria's order form: the checks of pbem.games.maria.orders.validate, with the same sentences as
 * that module (what `pbem check` prints). Keep the messages here in step with it;
 * tests/test_orderpage_browser.py compares the two on the same orders. Part of the form that
 * maria.js begins. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el, M = PBEM.maria;
  var PIECES = M.PIECES, CITIES = M.CITIES, model = M.model;
  var cityName = M.cityName, shownCity = M.shownCity, pieceName = M.pieceName, suitOf = M.suitOf, isAdjacent = M.isAdjacent,
      isMain = M.isMain, mine = M.mine, cardLabel = M.cardLabel, cardSuit = M.cardSuit, parsePath = M.parsePath,
      option = M.option, numberInput = M.numberInput, orderedPicks = M.orderedPicks, onChange = M.onChange;
  var CARD_ID = M.CARD_ID, PLAN_INTS = M.PLAN_INTS;

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
      else if (legal.kind === "commit") M.checkCommit(c, o, legal);
      else if (legal.kind === "politics") M.checkPolitics(c, o, legal);
      problems = problems.concat(c.problems);
      notes = notes.concat(c.notes);
    });
    return { problems: problems, notes: notes };
  }

  M.check = check; M.checkHussars = checkHussars;
})();
