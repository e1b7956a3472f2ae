/* Maria's order form, its data and model: the form is built from the legal choices the engine
 * computed (legal_orders) and checked with the same sentences as pbem.games.maria.orders.validate
 * (what `pbem check` prints).
 * Keep the messages here in step with that module; tests/test_orderpage_browser.py compares
 * the two on the same orders.
 *
 * The form comes in five scripts that share the namespace PBEM.maria (M), loaded in this order:
 * maria.js (the unpacked map, the model of each power's orders and the orders collected from it),
 * maria_check.js (the checks), maria_form.js (drawing the form), maria_map.js (the planned orders
 * over the map) and maria_politics.js (the political rounds). A script takes another's functions
 * from M when it calls them, so the order matters only for maria.js, which comes first. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el;
  var M = PBEM.maria = {};  // filled by each of Maria's scripts; PBEM.boot() calls its render, collect, check...
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
  // every input of the form calls this; render() puts the page's own in its place
  var changed = function () {};
  function onChange() { changed(); }
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
      if (M.commitments[p]) o.commitment = M.commitments[p];
    } else if (legal.kind === "politics") {
      M.collectPolitics(p, legal, m, o);
    }
    return o;
  }

  function collect() {
    var orders = {};
    D.powers.forEach(function (p) { orders[p] = collectPower(p); });
    return orders;
  }

  // --- the model filled from orders (the autopilot's suggestion): collectPower the other way --

  function planIn(plan) {
    var out = {};
    PLAN_INTS.forEach(function (k) { if (typeof plan[k] === "number") out[k] = plan[k]; });
    if (plan.use_reserve) out.use_reserve = true;
    if (Array.isArray(plan.prefer)) out.prefer = plan.prefer.slice();
    if (Array.isArray(plan.retreat)) out.retreat = plan.retreat.join(" ");
    return out;
  }

  /* Fill the form of power ``p`` with the orders ``o``; whether any of them could be shown. A
   * commitment (the commit round) cannot be: it hides a bid the page does not know. */
  function fill(p, o) {
    var legal = D.legal[p], m = model[p], used = false;
    if (!legal.phase_power || !o) return false;
    if (legal.kind === "stage") {
      m.moves = (o.moves || []).map(function (mv) {
        var path = mv.path || [];
        return { piece: mv.stack ? mv.stack.join("+") : mv.piece, dest: path[path.length - 1] || "", path: path.join(" "), force: !!mv.force_march };
      });
      m.reentries = (o.reentries || []).map(function (r) { return { train: r.train || "", site: r.site }; });
      m.battles = (o.battles || []).map(function (b) {
        var cut = b.indexOf(">");
        return { att: b.slice(0, cut), def: b.slice(cut + 1), plan: planIn((o.plans || {})[b] || {}) };
      });
      m.plan = planIn((o.plans || {}).stage || {});
      used = true;
    } else if (legal.kind === "setup" && o.troops) {
      Object.keys(o.troops).forEach(function (g) { m.troops[g] = o.troops[g]; });
      used = true;
    } else if (legal.kind === "hussars" && o.hussars) {
      m.hussarOrder = o.hussars.slice();
      used = true;
    } else if (legal.kind === "winter") {
      (o.recruits || []).forEach(function (r) { m.recruits[r.general] = r.troops; });
      (o.returns || []).forEach(function (r) { m.returns[r.general] = r.site; });
      used = true;
    } else if (legal.kind === "politics") {
      var pol = m.pol;
      // in trustless mode the bid is the one committed to, which only the player knows
      if (o.bid && !legal.trustless) ["S", "H", "D", "C"].forEach(function (s) { pol.bid[s] = o.bid[s] && o.bid[s] !== "pass" ? o.bid[s] : ""; });
      if (o.trump) pol.trump = o.trump;
      if (o.choices) pol.choices = o.choices.slice();
      Object.keys(o.cards || {}).forEach(function (card) {
        var ins = o.cards[card];
        pol.cards[card] = { execute: ins.execute === true ? "yes" : ins.execute === false ? "no" : "", effects: JSON.parse(JSON.stringify(ins.effects || {})) };
      });
      if (typeof o.accept_peace === "boolean") pol.peace = o.accept_peace ? "yes" : "no";
      pol.subsidies = (o.subsidies || []).map(function (x) { return { to: x.to, card: x.card }; });
      if (o.hussars) m.hussarOrder = o.hussars.slice();
      used = true;
    }
    (o.payments || []).forEach(function (c) { m.payments[c] = true; });
    return used;
  }

  // --- widgets the other scripts share ------------------------------------------------------

  function option(value, text, selected) { return el("option", { value: value, text: text, selected: !!selected }); }

  function numberInput(value, attrs, onInput) {
    var a = Object.assign({ type: "number", step: 1, inputmode: "numeric", value: value === undefined ? "" : value }, attrs);
    a.oninput = a.onchange = function (ev) { onInput(ev.target.value === "" ? "" : Number(ev.target.value)); };
    return el("input", a);
  }

  // ordered tick boxes (PBEM.orderedPicks): the form is redrawn after every tick
  function orderedPicks(name, items, chosen, short) {
    return PBEM.orderedPicks(name, items, chosen, short, function () { onChange(); });
  }

  M.PIECES = PIECES; M.CITIES = CITIES; M.POS = POS; M.CARD_ID = CARD_ID; M.PLAN_INTS = PLAN_INTS; M.SUIT_SIGN = SUIT_SIGN;
  M.PREFS = PREFS; M.model = model;
  M.cityName = cityName; M.shownCity = shownCity; M.pieceName = pieceName; M.suitOf = suitOf; M.isAdjacent = isAdjacent;
  M.isMain = isMain; M.mine = mine; M.cardLabel = cardLabel; M.cardSuit = cardSuit; M.parsePath = parsePath;
  M.planOut = planOut; M.collectStanding = collectStanding; M.collect = collect; M.fill = fill;
  M.option = option; M.numberInput = numberInput; M.orderedPicks = orderedPicks; M.onChange = onChange;
  M.setOnChange = function (f) { changed = f; };
  PBEM.register(M);
})();
