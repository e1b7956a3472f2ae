/* The Republic of Rome's order form: built from the round's legal choices (legal_orders) and
 * checked with the sentences of pbem.games.ror.orders.validate_orders (what `pbem check` prints),
 * in the same order. The facts those checks need (why a card cannot be played, whose army holds
 * which legion) come computed by the engine (pbem.render.ror.orderpage). Keep the messages here in
 * step with that module; tests/test_orderpage_ror_browser.py compares the two on the same orders.
 *
 * This script holds the names, the model of each faction's orders, the orders collected from it
 * and their checks; ror_form.js draws the form. The two share the namespace PBEM.ror (R). */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el;
  var R = PBEM.ror = {};  // ror_form.js adds render; PBEM.boot() calls render, collect and check
  var DECISIONS = ["revolt", "lay_down", "manilian", "roll"];

  // --- names and rule links -------------------------------------------------------------------

  function senName(sid) { var s = D.senators[sid]; return s ? s.name + " (" + sid + ")" : String(sid); }
  function cardName(c) { return D.cards.names[c] ? D.cards.names[c] + " (" + c + ")" : String(c); }
  function legionName(lid) {
    var lg = D.legions[lid];
    if (!lg) return String(lid);
    return lid + (lg.veteran ? " \u2605 " + t("veteran") + (lg.allegiance ? ", " + t("loyal to") + " " + senName(lg.allegiance) : "") : "");
  }
  var OFFICES = { dictator: "Dictator", rome_consul: "Rome Consul", field_consul: "Field Consul", censor: "Censor",
                  master_of_horse: "Master of Horse", pontifex_maximus: "Pontifex Maximus", proconsul: "Proconsul",
                  consul_for_life: "Consul for Life", governor: "Governor" };
  function office(o) { return OFFICES[o] ? t(OFFICES[o]) : o; }
  function warLine(w) {
    var x = D.wars[w] || {};
    return w + (x.land !== undefined ? " " + x.land + "/" + x.fleet_support + "/" + x.naval : "") + (x.status && x.status !== "active" ? " " + t(x.status) : "");
  }
  function fmt(text, args) { return String(text).replace(/\{(\w+)\}/g, function (all, k) { return k in args ? String(args[k]) : all; }); }
  function anchor(rule) { return rule.toLowerCase().replace(/\./g, "-"); }
  /* A rule id links to its anchor in the rules reference pbem ships; the rule's text comes with the
   * page, so a click shows it here, with no network (a second click hides it). */
  function ruleLinks(rules) {
    var out = [" ("];
    rules.forEach(function (r, i) {
      if (i) out.push(", ");
      var text = (D.rule_texts || {})[r];
      out.push(el("a", { class: "rule", href: D.rules_doc + "#" + anchor(r), target: "_blank", rel: "noopener", text: r, title: text || null,
        onclick: text ? function (ev) { ev.preventDefault(); showRule(ev.target, r, text); } : null }));
    });
    out.push(")");
    return out;
  }
  function showRule(link, rule, text) {
    var host = link.closest("h3, h4, summary, label, span") || link.parentNode, next = host.nextElementSibling;
    if (next && next.classList.contains("rule-text") && next.getAttribute("data-rule") === rule) { next.remove(); return; }
    if (next && next.classList.contains("rule-text")) next.remove();
    host.insertAdjacentElement("afterend", el("p", { class: "rule-text", "data-rule": rule }, [text + " ",
      el("a", { href: D.rules_doc + "#" + anchor(rule), target: "_blank", rel: "noopener", text: D.rules_doc + "#" + anchor(rule) })]));
  }
  function heading(tag, text, rules) { return el(tag, {}, [t(text)].concat(rules ? ruleLinks(rules) : [])); }
  function help(text) { return el("p", { class: "help", text: text }); }

  // --- the form's model, one entry per faction --------------------------------------------------

  var model = {};
  D.powers.forEach(function (p) {
    var legal = D.legal[p], m = model[p] = {
      trades: [], plays: [], discards: [], decl: {}, consent_pay: [], dispatch: [], reinforce: [], attack: [],
      standing: { desert: {}, consent: {}, release: [], accept: "", acceptList: [], attack: [], redistribute: [] } };
    if (legal.kind === "senate" && legal.must_send) {
      // the default (R8.4) filled in: sending nothing would leave the rebel unopposed (R6.1)
      m.dispatch = (legal["default"] || []).map(function (a) {
        return { commander: String(a.commander), legions: a.legions.map(String), raise: a.raise ? String(a.raise) : "" };
      });
    }
    if (legal.kind === "endgame" && legal.must_send) m.attack = (legal.wars || []).slice();
  });

  function isStatesman(c) { return D.cards.statesmen.indexOf(String(c)) !== -1; }
  function isConcession(c) { return D.cards.concessions.indexOf(String(c)) !== -1; }
  function isFactionCard(c) { c = String(c); return isStatesman(c) || isConcession(c) || c.indexOf("intrigue") === 0 || c.indexOf("law") === 0; }
  function eligible(p) {
    var c = D.legal[p].commanders;
    return c && !Array.isArray(c) ? Object.keys(c) : [];
  }
  function whole(v) { return v === "" || v === null || v === undefined || isNaN(Number(v)) ? v : Number(v); }
  function unit(v) { return /^[0-9]+$/.test(String(v)) ? Number(v) : v; }

  // --- collecting the orders ----------------------------------------------------------------

  function collectDeclaration(p, sid, d) {
    var kind = D.legal[p].kind, out = { commander: sid, decision: d.decision };
    if (d.decision === "manilian") out.war = d.war;
    if (d.decision === "revolt" || d.decision === "roll") {
      if (kind !== "revolution-2") {
        if (d.bribes.length) out.bribes = d.bribes.map(unit);
        if (d.moh_pays !== "") out.moh_pays = whole(d.moh_pays);
      }
    }
    if (d.decision === "revolt") {
      if (d.moh_joins) out.moh_joins = true;
      if (kind !== "revolution-2") {
        if (d.min_strength !== "") out.min_strength = whole(d.min_strength);
        if (d.only_if_primary) out.only_if_primary = true;
        if (D.optional_roll && d.no_roll) out.roll = false;
      }
      if (d.secondaries.length) out.secondaries = d.secondaries.slice();
    }
    return out;
  }

  function collectStanding(m) {
    var st = m.standing, out = {};
    var desert = Object.keys(st.desert).filter(function (lid) { return st.desert[lid]; })
      .map(function (lid) { return { legion: unit(lid), to: st.desert[lid] }; });
    if (desert.length) out.desert = desert;
    var consent = {};
    Object.keys(st.consent).forEach(function (sid) { if (st.consent[sid]) consent[sid] = st.consent[sid] === "yes"; });
    if (Object.keys(consent).length) out.consent = consent;
    if (st.release.length) out.release = st.release.map(unit);
    if (st.accept === "all") out.accept = "all";
    else if (st.accept === "list") out.accept = st.acceptList.map(unit);
    if (st.attack.length) out.attack = st.attack.slice();
    if (st.redistribute.length) {
      out.redistribute = st.redistribute.map(function (r) { return { from: r.from, to: r.to, amount: whole(r.amount) }; });
    }
    return out;
  }

  function collectPower(p) {
    var legal = D.legal[p], m = model[p], o = {}, kind = legal.kind;
    if (legal.must_send) {
      if (kind === "revolution") {
        var trades = m.trades.map(function (tr) {
          var x = { give: tr.give.slice() };
          if (tr.type === "give") x.to = tr.partner;
          else { x.get = String(tr.get || "").split(/[\s,;]+/).filter(function (c) { return c; }); x["with"] = tr.partner; }
          return x;
        });
        if (trades.length) o.trades = trades;
        var plays = m.plays.filter(function (pl) { return pl.card; }).map(function (pl) {
          return pl.kind === "statesman" ? { statesman: pl.card } : { concession: pl.card, senator: pl.senator };
        });
        if (plays.length) o.plays = plays;
        if (m.discards.length) o.discards = m.discards.slice();
      }
      if (kind === "revolution" || kind === "declare" || kind === "revolution-2") {
        var decl = eligible(p).filter(function (sid) { return m.decl[sid] && m.decl[sid].decision; })
          .map(function (sid) { return collectDeclaration(p, sid, m.decl[sid]); });
        if (decl.length) o.declarations = decl;
      }
      if ((kind === "revolution" || kind === "declare") && m.consent_pay.length) {
        o.consent_pay = m.consent_pay.map(function (c) { return { moh: c.moh, n: whole(c.n) }; });
      }
      if (kind === "senate") {
        ["dispatch", "reinforce"].forEach(function (key) {
          var who = key === "dispatch" ? "commander" : "proconsul";
          var rows = m[key].map(function (a) {
            var x = {};
            x[who] = a.commander;
            x.legions = a.legions.map(unit);
            if (a.raise !== "") x.raise = whole(a.raise);
            return x;
          });
          if (rows.length) o[key] = rows;
        });
      }
      if (kind === "endgame" && m.attack.length) o.attack = m.attack.slice();
    }
    var standing = collectStanding(m);
    if (Object.keys(standing).length) o.standing = standing;
    return o;
  }

  function collect() {
    var orders = {};
    D.powers.forEach(function (p) { orders[p] = collectPower(p); });
    return orders;
  }

  // --- the model filled from orders (the autopilot's suggestion): collectPower the other way --

  function ids(list) { return (list || []).map(String); }
  function field(v) { return v === undefined || v === null ? "" : String(v); }

  /* Fill the form of faction ``p`` with the orders ``o``; whether it could. */
  function fill(p, o) {
    var m = model[p], st = m.standing;
    if (!D.legal[p].must_send || !o) return false;
    m.trades = (o.trades || []).map(function (x) {
      return x.to !== undefined ? { type: "give", give: ids(x.give), partner: x.to, get: "" }
        : { type: "trade", give: ids(x.give), partner: x["with"], get: ids(x.get).join(" ") };
    });
    m.plays = (o.plays || []).map(function (x) {
      return x.statesman !== undefined ? { kind: "statesman", card: String(x.statesman), senator: "" }
        : { kind: "concession", card: String(x.concession), senator: String(x.senator) };
    });
    m.discards = ids(o.discards);
    (o.declarations || []).forEach(function (d) {
      m.decl[String(d.commander)] = { decision: d.decision, war: field(d.war), bribes: ids(d.bribes), moh_pays: field(d.moh_pays),
        moh_joins: !!d.moh_joins, min_strength: field(d.min_strength), only_if_primary: !!d.only_if_primary,
        secondaries: ids(d.secondaries), no_roll: d.roll === false };
    });
    m.consent_pay = (o.consent_pay || []).map(function (c) { return { moh: String(c.moh), n: field(c.n) }; });
    if (o.dispatch || o.reinforce) {
      ["dispatch", "reinforce"].forEach(function (key) {
        var who = key === "dispatch" ? "commander" : "proconsul";
        m[key] = (o[key] || []).map(function (a) { return { commander: String(a[who]), legions: ids(a.legions), raise: field(a.raise) }; });
      });
    }
    if (o.attack) m.attack = o.attack.slice();
    var s = o.standing || {};
    (s.desert || []).forEach(function (d) { st.desert[String(d.legion)] = d.to; });
    Object.keys(s.consent || {}).forEach(function (sid) { st.consent[sid] = s.consent[sid] ? "yes" : "no"; });
    if (s.release) st.release = ids(s.release);
    if (s.accept === "all") st.accept = "all";
    else if (Array.isArray(s.accept)) { st.accept = "list"; st.acceptList = ids(s.accept); }
    if (s.attack) st.attack = s.attack.slice();
    if (s.redistribute) st.redistribute = s.redistribute.map(function (r) { return { from: r.from, to: r.to, amount: field(r.amount) }; });
    return true;
  }

  // --- the checks of pbem.games.ror.orders.validate_orders, in its order -----------------------

  /* A problem in pbem check's English words (``message``) and as the page shows it (``text``); a
   * name given as [english, shown] reads as each language has it. */
  function sentence(template, args, shown) {
    return String(template).replace(/\{(\w+)\}/g, function (all, k) {
      if (!args || !(k in args)) return all;
      var v = args[k];
      return String(Array.isArray(v) ? v[shown ? 1 : 0] : v);
    });
  }
  function pyStr(v) {
    if (v === undefined || v === null) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    return String(v);
  }
  function Checker(power) { this.power = power; this.problems = []; }
  function where(power, path) { return ("orders." + power + path).replace(/\.$/, ""); } // as pbem check prints it
  Checker.prototype.bad = function (path, template, args) {
    this.problems.push({ path: where(this.power, path), message: sentence(template, args, false), text: sentence(t(template), args, true) });
  };
  Checker.prototype.reason = function (path, why) { // a rule function's own sentence: [english, shown]
    this.problems.push({ path: where(this.power, path), message: why[0], text: why[1] });
  };
  Checker.prototype.intOk = function (x, path, lo) {
    if (typeof x !== "number" || !Number.isInteger(x) || x < lo) { this.bad(path, "must be a whole number of at least {lo}", { lo: lo }); return false; }
    return true;
  };
  Checker.prototype.ownSenator = function (x, path) {
    var sid = pyStr(x);
    if (D.own[this.power].members.indexOf(sid) === -1) { this.bad(path, "'{x}' is not a living senator of your faction", { x: sid }); return null; }
    return sid;
  };
  Checker.prototype.list = function (x) { return Array.isArray(x) ? x : []; };

  function concessionWhy(p, sid) {
    var own = D.own[p];
    if (own.concession_why && own.concession_why[sid]) return own.concession_why[sid];
    if (own.members.indexOf(sid) !== -1) return null;
    var english = "senator {senator} is not in your faction";
    return [fmt(english, { senator: sid }), fmt(t(english), { senator: sid })];
  }

  function manilianWhy(p, sid, war) {
    var english;
    if (!D.manilian_law) english = ["the Manilian Law is not in play", {}];
    else {
      var w = pyStr(war), known = (D.own[p].manilian_why || {})[sid] || {};
      if (known[w]) return known[w];
      if (w in D.wars) return null;
      english = ["there is no war '{war}'", { war: w }];
    }
    return [fmt(english[0], english[1]), fmt(t(english[0]), english[1])];
  }

  function checkRevolution(c, o) {
    var p = c.power, own = D.own[p], hand = own.hand;
    var others = D.factions.filter(function (f) { return f !== p; });
    c.list(o.trades).forEach(function (tr, i) {
      var path = ".trades[" + i + "]";
      if (("to" in tr) === ("with" in tr)) { c.bad(path, "a GIVE names 'to', a TRADE names 'with' and 'get'"); return; }
      var partner = "to" in tr ? tr.to : tr["with"];
      if (others.indexOf(pyStr(partner)) === -1) {
        c.bad(path + "." + ("to" in tr ? "to" : "with"), "'{partner}' is not another faction ({others})", { partner: pyStr(partner), others: others.join(", ") });
      }
      c.list(tr.give).forEach(function (card, j) {
        if (hand.indexOf(String(card)) === -1) c.bad(path + ".give[" + j + "]", "card '{x}' is not in your hand", { x: card });
      });
      if ("with" in tr) {
        c.list(tr.get).forEach(function (card, j) {
          if (!isFactionCard(card)) c.bad(path + ".get[" + j + "]", "'{c}' is not a Faction card", { c: card });
        });
      }
      if (!(tr.give && tr.give.length) && !(tr.get && tr.get.length)) c.bad(path, "names no card");
    });
    c.list(o.plays).forEach(function (pl, i) {
      var path = ".plays[" + i + "]", card;
      if ("statesman" in pl) {
        card = String(pl.statesman);
        if (!isStatesman(card)) c.bad(path + ".statesman", "'{c}' is not a Statesman card", { c: card });
        else if (hand.indexOf(card) !== -1) {
          var why = own.statesman_why[card];
          if (why && why[0].indexOf("not in your hand") === -1) c.bad(path + ".statesman", "{c} cannot be played now: {why}", { c: card, why: why });
        }
      } else if ("concession" in pl) {
        card = String(pl.concession);
        if (!isConcession(card)) c.bad(path + ".concession", "'{c}' is not a Concession card", { c: card });
        else if (!("senator" in pl)) c.bad(path, "say on which 'senator' the Concession goes");
        else if (hand.indexOf(card) !== -1) {
          var cwhy = concessionWhy(p, String(pl.senator));
          if (cwhy) c.reason(path + ".senator", cwhy);
        }
      } else c.bad(path, "a play names a 'statesman' or a 'concession' (with 'senator')");
    });
    c.list(o.discards).forEach(function (card, i) {
      if (!isFactionCard(card)) c.bad(".discards[" + i + "]", "'{c}' is not a Faction card", { c: card });
    });
    var mine = eligible(p), kind = D.legal[p].kind;
    c.list(o.declarations).forEach(function (d, i) {
      var path = ".declarations[" + i + "]", sid = pyStr(d.commander);
      if (mine.indexOf(sid) === -1) {
        c.bad(path + ".commander", "'{commander}' is not a land victor of your faction who must decide (eligible: {eligible})",
          { commander: pyStr(d.commander), eligible: mine.slice().sort().join(", ") || "none" });
      }
      var dec = d.decision;
      if (DECISIONS.indexOf(dec) === -1) c.bad(path + ".decision", "must be revolt, lay_down, manilian or roll");
      else if (dec === "roll" && (!D.two_round || kind === "revolution-2")) c.bad(path + ".decision", "ROLL is sent only in the first round under the two_round loyalty test (R8.3)");
      if (dec === "manilian" && mine.indexOf(sid) !== -1) {
        var why = manilianWhy(p, sid, d.war);
        if (why) c.reason(path + ".war", why);
      }
      var lids = D.armies[sid] ? D.armies[sid].legions : [];
      c.list(d.bribes).forEach(function (lid, j) {
        if (lids.indexOf(String(lid)) === -1) c.bad(path + ".bribes[" + j + "]", "legion {lid} is not in {sid}'s army", { lid: lid, sid: sid });
      });
      ["moh_pays", "min_strength"].forEach(function (k) { if (k in d) c.intOk(d[k], path + "." + k, 0); });
      ["moh_joins", "only_if_primary", "roll"].forEach(function (k) {
        if (k in d && typeof d[k] !== "boolean") c.bad(path + "." + k, "must be true or false");
      });
      c.list(d.secondaries).forEach(function (s, j) {
        if (c.ownSenator(s, path + ".secondaries[" + j + "]") === sid) c.bad(path + ".secondaries[" + j + "]", "the commander cannot be his own Secondary");
      });
    });
    c.list(o.consent_pay).forEach(function (cp, i) {
      var path = ".consent_pay[" + i + "]";
      c.ownSenator(cp.moh, path + ".moh");
      c.intOk(cp.n, path + ".n", 0);
    });
  }

  function checkSenate(c, o) {
    var seen = {};
    [["dispatch", "commander"], ["reinforce", "proconsul"]].forEach(function (kw) {
      c.list(o[kw[0]]).forEach(function (e, i) {
        var path = "." + kw[0] + "[" + i + "]", sid = pyStr(e[kw[1]]);
        if (D.aligned.indexOf(sid) === -1) c.bad(path + "." + kw[1], "'{x}' is not a living aligned senator", { x: sid });
        c.list(e.legions).forEach(function (lid, j) {
          var id = String(lid);
          if (D.active_forces.indexOf(id) === -1) c.bad(path + ".legions[" + j + "]", "legion {lid} is not in Active Forces", { lid: lid });
          else if (seen[id]) c.bad(path + ".legions[" + j + "]", "legion {lid} is already sent", { lid: lid });
          seen[id] = true;
        });
        if ("raise" in e) c.intOk(e.raise, path + ".raise", 0);
      });
    });
  }

  function checkAttack(c, attack, path) {
    c.list(attack).forEach(function (w, i) {
      if (!(String(w) in D.wars)) c.bad(path + "[" + i + "]", "there is no war '{w}'", { w: w });
    });
  }

  function checkStanding(c, s) {
    c.list(s.desert).forEach(function (d, i) {
      var path = ".standing.desert[" + i + "]";
      if (!(pyStr(d.legion) in D.legions)) c.bad(path + ".legion", "there is no legion {lid}", { lid: pyStr(d.legion) });
      if (d.to !== "senate_army" && d.to !== "active_forces") c.bad(path + ".to", "must be senate_army or active_forces");
    });
    if (s.consent) {
      Object.keys(s.consent).forEach(function (sid) {
        c.ownSenator(sid, ".standing.consent." + sid);
        if ([true, false, "yes", "no"].indexOf(s.consent[sid]) === -1) c.bad(".standing.consent." + sid, "must be yes or no");
      });
    }
    c.list(s.release).forEach(function (lid, i) {
      if (!(String(lid) in D.legions)) c.bad(".standing.release[" + i + "]", "there is no legion {lid}", { lid: lid });
    });
    if (s.accept !== undefined && s.accept !== "all") {
      c.list(s.accept).forEach(function (lid, i) {
        if (!(String(lid) in D.legions)) c.bad(".standing.accept[" + i + "]", "there is no legion {lid}", { lid: lid });
      });
    }
    checkAttack(c, s.attack, ".standing.attack");
    c.list(s.redistribute).forEach(function (r, i) {
      var path = ".standing.redistribute[" + i + "]";
      ["from", "to"].forEach(function (end) {
        var x = r[end];
        if (x === "treasury" || (end === "to" && typeof x === "string" && x.indexOf("faction:") === 0 && D.factions.indexOf(x.slice(8)) !== -1)) return;
        c.ownSenator(x, path + "." + end);
      });
      c.intOk(r.amount, path + ".amount", 1);
    });
  }

  function check(orders) {
    // pbem check and intake hold the file to the round's schema first and stop at its first problem
    var shaped = D.schema && PBEM.shape ? PBEM.shape.problem(D.schema, orders, "orders", t) : null;
    if (shaped) return { problems: [shaped], notes: [] };
    var problems = [];
    D.powers.forEach(function (p) {
      var o = orders[p] || {}, c = new Checker(p);
      checkRevolution(c, o);
      checkSenate(c, o);
      checkAttack(c, o.attack, ".attack");
      if (o.standing) checkStanding(c, o.standing);
      problems = problems.concat(c.problems);
    });
    return { problems: problems, notes: [] };
  }

  R.DECISIONS = DECISIONS; R.model = model;
  R.senName = senName; R.cardName = cardName; R.legionName = legionName; R.office = office; R.warLine = warLine; R.fmt = fmt;
  R.ruleLinks = ruleLinks; R.heading = heading; R.help = help; R.isStatesman = isStatesman; R.isConcession = isConcession;
  R.isFactionCard = isFactionCard; R.eligible = eligible; R.whole = whole; R.unit = unit; R.collectStanding = collectStanding;
  R.collect = collect; R.check = check; R.fill = fill;
  PBEM.register(R);
  PBEM.checkOrders = check; // the form's checker on any orders of the form's shape (for the tests)
})();
