/* The Republic of Rome's order form: built from the round's legal choices (legal_orders) and
 * checked with the sentences of pbem.games.ror.orders.validate_orders (what `pbem check` prints),
 * in the same order. The facts those checks need (why a card cannot be played, whose army holds
 * which legion) come computed by the engine (pbem.render.ror.orderpage). Keep the messages here in
 * step with that module; tests/test_orderpage_ror_browser.py compares the two on the same orders. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el;
  var DECISIONS = ["revolt", "lay_down", "manilian", "roll"];
  var onChange = function () {};

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

  // --- widgets ----------------------------------------------------------------------------------

  function option(value, text, selected) { return el("option", { value: value, text: text, selected: !!selected }); }

  function select(name, options, value, onPick) {
    var sel = el("select", { name: name }, options.map(function (o) { return option(o[0], o[1], value === o[0]); }));
    sel.onchange = function () { onPick(sel.value); onChange(); };
    return sel;
  }

  function numberField(name, label, value, onInput, min) {
    return el("label", {}, [label, el("input", { type: "number", name: name, step: 1, min: min, inputmode: "numeric", value: value,
      oninput: function (ev) { onInput(ev.target.value); onChange(); } })]);
  }

  function checkField(name, label, checked, onTick) {
    return el("label", { class: "check" }, [el("input", { type: "checkbox", name: name, checked: !!checked,
      onchange: function (ev) { onTick(ev.target.checked); onChange(); } }), label]);
  }

  // ticks kept in the order ticked (plays, discards, attack and release orders are lists in order)
  function orderedPicks(name, items, chosen) {
    return el("div", {}, PBEM.orderedPicks(name, items, chosen, null, function () { onChange(); }));
  }


  function removeButton(list, item, redraw) {
    return el("button", { type: "button", class: "small", text: t("Remove"), onclick: function () { list.splice(list.indexOf(item), 1); redraw(); } });
  }

  function blank(text) { return "\u2014 " + text + " \u2014"; }

  // --- the situation ------------------------------------------------------------------------------

  function drawOwn(box) {
    box.textContent = "";
    D.powers.forEach(function (p) {
      var own = D.own[p], part = el("div", { class: "power" }, [el("h3", { text: t("Faction") + " " + p })]);
      part.appendChild(el("p", { text: t("Faction Treasury") + ": " + (own.treasury === null || own.treasury === undefined ? "?" : own.treasury) + " " + t("talents") }));
      part.appendChild(el("p", {}, [t("Your hand") + ": "].concat(own.hand.length ? own.hand.map(function (c) { return el("span", { class: "cardchip", text: cardName(c) }); }) : [t("none")])));
      var table = el("table", { class: "op-table" }, [el("tr", {}, [el("th", { text: t("Your senators") }), el("th", { text: "MIL" }), el("th", { text: t("talents") }), el("th", {})])]);
      own.members.forEach(function (sid) {
        var s = D.senators[sid] || {};
        table.appendChild(el("tr", {}, [el("td", { text: senName(sid) }), el("td", { text: String(s.mil) }), el("td", { text: String(s.talents) }),
          el("td", { class: "tag", text: (s.offices || []).map(office).join(", ") + (s.rebel ? " " + t("rebel army") : "") })]));
      });
      part.appendChild(table);
      box.appendChild(part);
    });
    var pub = el("div", { class: "power" });
    var armies = Object.keys(D.armies);
    if (armies.length) {
      pub.appendChild(el("h3", { text: t("Armies") }));
      pub.appendChild(el("ul", {}, armies.map(function (sid) {
        var a = D.armies[sid];
        return el("li", { text: senName(sid) + ": " + a.legions.map(legionName).join(", ") + (a.strength !== null && a.strength !== undefined ? " \u2014 " + t("strength") + " " + a.strength : "") });
      })));
    }
    pub.appendChild(el("p", { text: t("Active Forces") + ": " + (D.active_forces.length ? D.active_forces.map(legionName).join(", ") : t("none")) }));
    if (D.civil_war) {
      pub.appendChild(el("p", { text: t("Civil war") + ": " + t("Primary Rebel") + " " + senName(D.civil_war.primary_rebel) + "; " +
        (D.civil_war.legions || []).map(legionName).join(", ") + " \u2014 " + t("strength") + " " + D.civil_war.strength }));
    }
    var wars = Object.keys(D.wars).filter(function (w) { return D.wars[w].status !== "defeated"; });
    if (wars.length) {
      pub.appendChild(el("p", { text: t("Wars") + " " + t("(land/fleet support/naval)") + ": " + wars.map(warLine).join("; ") }));
    }
    box.appendChild(pub);
  }

  // --- the form, part by part ---------------------------------------------------------------------

  function drawTrades(box, p, legal, redraw) {
    var m = model[p];
    box.appendChild(heading("h3", "Trades and gifts", ["R2.2"]));
    var partners = [["", blank(t("Faction"))]].concat(legal.trade_partners.map(function (f) { return [f, t("Faction") + " " + f]; }));
    m.trades.forEach(function (tr) {
      var give = el("div", { class: "picks" }, legal.hand.map(function (c) {
        return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "give", value: c, checked: tr.give.indexOf(c) !== -1, onchange: function (ev) {
          tr.give = tr.give.filter(function (x) { return x !== c; });
          if (ev.target.checked) tr.give.push(c);
          onChange();
        } }), cardName(c)]);
      }));
      var row = el("div", { class: "row trade" }, [el("strong", { text: t(tr.type === "give" ? "Give cards" : "Trade cards") }),
        el("label", {}, [t("give"), give]),
        el("label", {}, [t(tr.type === "give" ? "to" : "with"), select("partner", partners, tr.partner, function (v) { tr.partner = v; })])]);
      if (tr.type === "trade") {
        row.appendChild(el("label", {}, [t("get (card ids)"), el("input", { type: "text", name: "get", value: tr.get, autocomplete: "off", spellcheck: "false",
          list: "faction-cards", oninput: function (ev) { tr.get = ev.target.value; onChange(); } })]));
      }
      row.appendChild(removeButton(m.trades, tr, redraw));
      box.appendChild(row);
    });
    if (!document.getElementById("faction-cards")) {
      document.body.appendChild(el("datalist", { id: "faction-cards" }, D.cards.statesmen.concat(D.cards.concessions).map(function (c) { return option(c, cardName(c)); })));
    }
    box.appendChild(el("div", { class: "buttons" }, [
      el("button", { type: "button", id: "add-gift-" + p, text: "+ " + t("Add a gift"), onclick: function () { m.trades.push({ type: "give", give: [], partner: "", get: "" }); redraw(); } }),
      el("button", { type: "button", id: "add-trade-" + p, text: "+ " + t("Add a trade"), onclick: function () { m.trades.push({ type: "trade", give: [], partner: "", get: "" }); redraw(); } })]));
  }

  function drawPlays(box, p, legal, redraw) {
    var m = model[p], own = D.own[p];
    box.appendChild(heading("h3", "Card plays", ["R2.3", "R2.10"]));
    box.appendChild(help(t("Plays run in this order; a card due from a trade may be played too.")));
    var statesmen = legal.hand.filter(isStatesman), concessions = legal.hand.filter(isConcession);
    m.plays.forEach(function (pl) {
      var cards = pl.kind === "statesman" ? statesmen : concessions;
      var row = el("div", { class: "row play" }, [el("strong", { text: t(pl.kind === "statesman" ? "Play a Statesman" : "Attach a Concession") }),
        select("play-card", [["", blank(t("card"))]].concat(cards.map(function (c) {
          var why = pl.kind === "statesman" && own.statesman_why[c];
          return [c, cardName(c) + (why ? " \u2014 " + t("cannot be played now") : "")];
        })), pl.card, function (v) { pl.card = v; })]);
      if (pl.kind === "concession") {
        row.appendChild(select("play-senator", [["", blank(t("senator"))]].concat(own.members.map(function (s) {
          return [s, senName(s) + (own.concession_why && own.concession_why[s] ? " \u2014 " + t("this senator cannot take it") : "")];
        })),
          pl.senator, function (v) { pl.senator = v; }));
      }
      row.appendChild(removeButton(m.plays, pl, redraw));
      box.appendChild(row);
    });
    var buttons = [];
    if (statesmen.length) buttons.push(el("button", { type: "button", id: "add-statesman-" + p, text: "+ " + t("Play a Statesman"), onclick: function () { m.plays.push({ kind: "statesman", card: "", senator: "" }); redraw(); } }));
    if (concessions.length) buttons.push(el("button", { type: "button", id: "add-concession-" + p, text: "+ " + t("Attach a Concession"), onclick: function () { m.plays.push({ kind: "concession", card: "", senator: "" }); redraw(); } }));
    box.appendChild(el("div", { class: "buttons" }, buttons.length ? buttons : [el("span", { class: "tag", text: t("none") })]));
  }

  function drawDiscards(box, p, legal) {
    if (!legal.hand.length) return;
    box.appendChild(heading("h3", "Discards", ["R2.11", "R8.4"]));
    box.appendChild(help(t("Tick in order: used only if you hold more than 5 cards after the plays.")));
    if (legal.must_discard) box.appendChild(el("p", { class: "status bad", text: fmt(t("You must discard {n} card(s) unless you play or give them away."), { n: legal.must_discard }) }));
    box.appendChild(orderedPicks("discard-" + p, legal.hand.map(function (c) { return [c, cardName(c)]; }), model[p].discards));
  }

  function declarationEditor(p, sid, info) {
    var kind = D.legal[p].kind, m = model[p];
    var d = m.decl[sid] = m.decl[sid] || { decision: "", war: "", bribes: [], moh_pays: "", moh_joins: false, min_strength: "", only_if_primary: false, secondaries: [], no_roll: false };
    var army = D.armies[sid] ? D.armies[sid].legions : info.legions;
    // a Master of Horse goes with a Dictator only (R4.2, R4.4)
    var dictator = D.senators[sid] && D.senators[sid].offices.indexOf("dictator") !== -1;
    var decisions = info.decisions.slice();
    if (D.two_round && kind !== "revolution-2" && decisions.indexOf("roll") === -1) decisions.push("roll");
    var words = { lay_down: t("lay down command"), revolt: t("revolt"), manilian: t("take the army to a war (Manilian Law)"), roll: t("roll the loyalty dice first") };
    var details = el("div", { class: "plan decision-details" });
    function fill() {
      details.textContent = "";
      details.hidden = ["manilian", "revolt", "roll"].indexOf(d.decision) === -1;
      if (d.decision === "manilian") {
        details.appendChild(el("label", {}, [t("War"), select("war", [["", blank(t("War"))]].concat((info.manilian_wars || []).map(function (w) { return [w, w]; })),
          d.war, function (v) { d.war = v; })]));
      }
      if ((d.decision === "revolt" || d.decision === "roll") && kind !== "revolution-2") {
        details.appendChild(el("label", { class: "wide" }, [el("span", {}, [t("Bribes (1 talent each, +1 on that legion's roll)")].concat(ruleLinks(["R4.2"]))),
          el("div", { class: "picks" }, army.map(function (lid) {
            return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "bribe", value: lid, checked: d.bribes.indexOf(lid) !== -1, onchange: function (ev) {
              d.bribes = d.bribes.filter(function (x) { return x !== lid; });
              if (ev.target.checked) d.bribes.push(lid);
              onChange();
            } }), legionName(lid)]);
          }))]));
        if (dictator) details.appendChild(numberField("moh_pays", t("Master of Horse pays up to"), d.moh_pays, function (v) { d.moh_pays = v; }, 0));
      }
      if (d.decision === "revolt") {
        if (dictator) details.appendChild(checkField("moh_joins", t("Master of Horse joins"), d.moh_joins, function (v) { d.moh_joins = v; }));
        if (kind !== "revolution-2") {
          details.appendChild(numberField("min_strength", t("revolt only with a strength of at least"), d.min_strength, function (v) { d.min_strength = v; }, 0));
          details.appendChild(checkField("only_if_primary", t("only if I become the Primary Rebel"), d.only_if_primary, function (v) { d.only_if_primary = v; }));
          if (D.optional_roll) details.appendChild(checkField("no_roll", t("roll for every legion"), !d.no_roll, function (v) { d.no_roll = !v; }));
        }
        details.appendChild(el("label", { class: "wide" }, [el("span", {}, [t("Secondary Rebels (senators of yours who join)")].concat(ruleLinks(["R4.3"]))),
          el("div", { class: "picks" }, (D.legal[p].secondaries || []).filter(function (s) { return s !== sid; }).map(function (s) {
            return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "secondary", value: s, checked: d.secondaries.indexOf(s) !== -1, onchange: function (ev) {
              d.secondaries = d.secondaries.filter(function (x) { return x !== s; });
              if (ev.target.checked) d.secondaries.push(s);
              onChange();
            } }), senName(s)]);
          }))]));
      }
    }
    fill();
    return el("div", { class: "row declaration", id: "declaration-" + sid }, [
      el("strong", { text: t("Commander") + " " + senName(sid) + " \u2014 " + t("army") + ": " + army.map(legionName).join(", ") }),
      el("label", {}, [t("Decision"), select("decision", [["", blank(t("lay down command") + " (R8.4)")]].concat(decisions.map(function (x) { return [x, words[x] || x]; })),
        d.decision, function (v) { d.decision = v; fill(); })]),
      details]);
  }

  function drawDeclarations(box, p, legal) {
    var sids = eligible(p);
    if (!sids.length) return;
    box.appendChild(heading("h3", "Declarations", ["R3.2", "R4.1", "R8.3"]));
    sids.forEach(function (sid) { box.appendChild(declarationEditor(p, sid, legal.commanders[sid])); });
  }

  function hasMasterOfHorse(p) {
    return model[p].consent_pay.length > 0 || D.own[p].members.some(function (s) { return D.senators[s] && D.senators[s].offices.indexOf("master_of_horse") !== -1; });
  }

  function drawConsentPay(box, p, redraw) {
    var m = model[p], own = D.own[p];
    box.appendChild(heading("h3", "Consent to pay", ["R4.2"]));
    box.appendChild(help(t("Let a rebel Dictator spend your Master of Horse's talents")));
    m.consent_pay.forEach(function (cp) {
      box.appendChild(el("div", { class: "row consent-pay" }, [
        select("moh", [["", blank(t("Master of Horse"))]].concat(own.members.map(function (s) { return [s, senName(s)]; })), cp.moh, function (v) { cp.moh = v; }),
        numberField("n", t("at most"), cp.n, function (v) { cp.n = v; }, 0),
        removeButton(m.consent_pay, cp, redraw)]));
    });
    box.appendChild(el("button", { type: "button", id: "add-consent-pay-" + p, text: "+ " + t("Add a consent"), onclick: function () { m.consent_pay.push({ moh: "", n: "" }); redraw(); } }));
  }

  function armyRows(box, p, key, commanders, legal, redraw) {
    var m = model[p];
    m[key].forEach(function (a) {
      var legions = el("div", { class: "picks" }, legal.active_forces.map(function (lid) {
        return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "legion", value: lid, checked: a.legions.indexOf(lid) !== -1, onchange: function (ev) {
          a.legions = a.legions.filter(function (x) { return x !== lid; });
          if (ev.target.checked) a.legions.push(lid);
          onChange();
        } }), legionName(lid)]);
      }));
      box.appendChild(el("div", { class: "row army " + key }, [
        select(key === "dispatch" ? "commander" : "proconsul", [["", blank(t(key === "dispatch" ? "Commander" : "Proconsul"))]].concat(commanders.map(function (s) { return [s, senName(s)]; })),
          a.commander, function (v) { a.commander = v; }),
        el("label", { class: "wide" }, [t("legions"), legions]),
        numberField("raise", t("raise new legions (10 talents each)"), a.raise, function (v) { a.raise = v; }, 0),
        removeButton(m[key], a, redraw)]));
    });
  }

  function drawSenate(box, p, legal, redraw) {
    var m = model[p];
    box.appendChild(heading("h3", "Dispatch", ["R9.9", "R6.1"]));
    box.appendChild(help(t("The default dispatch is filled in; with no army sent the rebel meets condition 1.")));
    armyRows(box, p, "dispatch", legal.commanders, legal, redraw);
    box.appendChild(el("button", { type: "button", id: "add-dispatch-" + p, text: "+ " + t("Add an army"), onclick: function () { m.dispatch.push({ commander: "", legions: [], raise: "" }); redraw(); } }));
    var proconsuls = Object.keys(D.armies).filter(function (sid) { return D.armies[sid].target === "civil_war"; });
    if (proconsuls.length || m.reinforce.length) {
      box.appendChild(heading("h3", "Reinforce", ["R9.9"]));
      armyRows(box, p, "reinforce", proconsuls, legal, redraw);
      box.appendChild(el("button", { type: "button", id: "add-reinforce-" + p, text: "+ " + t("Add a reinforcement"), onclick: function () { m.reinforce.push({ commander: "", legions: [], raise: "" }); redraw(); } }));
    }
  }

  function warItems(wars) { return wars.map(function (w) { return [w, warLine(w)]; }); }

  function drawEndgame(box, p, legal) {
    box.appendChild(heading("h3", "Order of attack", ["R7.6", "R8.4"]));
    box.appendChild(help(t("Tick the wars in the order to attack them; a listed war the rebel cannot attack is skipped.")));
    box.appendChild(orderedPicks("attack-" + p, warItems(legal.wars || []), model[p].attack));
  }

  function drawStanding(box, p, legal, redraw) {
    var st = model[p].standing, ls = legal.standing, cur = ls.current || {};
    var details = el("details", { class: "standing", open: Object.keys(collectStanding(model[p])).length > 0 }, [
      el("summary", {}, [t("Standing orders")].concat(ruleLinks(["R8.2"]))),
      help(t("Each one you give replaces the one kept from earlier rounds; blank changes nothing."))]);
    if (ls.desert.length) {
      details.appendChild(heading("h4", "Desert (your veterans in the rebel army)", ["R4.6"]));
      ls.desert.forEach(function (lid) {
        details.appendChild(el("label", { class: "inline" }, [legionName(lid) + " ",
          select("desert-" + lid, [["", blank(t("unchanged"))], ["senate_army", t("to a Senate army")], ["active_forces", t("to Active Forces")]],
            st.desert[lid] || "", function (v) { st.desert[lid] = v; })]));
      });
    }
    if (ls.consent.length) {
      details.appendChild(heading("h4", "Consent: may the dispatcher send this senator?", ["R9.9"]));
      details.appendChild(el("div", { class: "plan" }, ls.consent.map(function (sid) {
        var now = cur.consent && sid in cur.consent ? " (" + (cur.consent[sid] === true || cur.consent[sid] === "yes" ? t("yes") : t("no")) + ")" : "";
        return el("label", {}, [senName(sid) + now, select("consent-" + sid, [["", blank(t("unchanged"))], ["yes", t("yes")], ["no", t("no")]],
          st.consent[sid] || "", function (v) { st.consent[sid] = v; })]);
      })));
    }
    if (ls.release.length) {
      details.appendChild(heading("h4", "Release first (rebel legions, in order)", ["R5.3"]));
      details.appendChild(orderedPicks("release-" + p, ls.release.map(function (lid) { return [lid, legionName(lid)]; }), st.release));
    }
    if (D.civil_war) {
      details.appendChild(heading("h4", "Accept released legions", ["R5.4"]));
      var list = el("div", { class: "picks", hidden: st.accept !== "list" }, (D.civil_war.legions || []).map(function (lid) {
        return el("label", { class: "inline" }, [el("input", { type: "checkbox", name: "accept", value: lid, checked: st.acceptList.indexOf(lid) !== -1, onchange: function (ev) {
          st.acceptList = st.acceptList.filter(function (x) { return x !== lid; });
          if (ev.target.checked) st.acceptList.push(lid);
          onChange();
        } }), legionName(lid)]);
      }));
      details.appendChild(select("accept", [["", blank(t("unchanged"))], ["all", t("all")], ["list", t("these legions")]], st.accept,
        function (v) { st.accept = v; list.hidden = v !== "list"; }));
      details.appendChild(list);
    }
    if (ls.attack.length) {
      details.appendChild(heading("h4", "End-game order of attack", ["R7.6"]));
      details.appendChild(orderedPicks("standing-attack-" + p, warItems(ls.attack), st.attack));
    }
    details.appendChild(heading("h4", "Redistribute (used once, at the next Redistribution)", ["R9.5"]));
    var holders = ls.redistribute.holders.map(function (h) { return [h, h === "treasury" ? t("treasury") : senName(h)]; });
    var targets = holders.concat(ls.redistribute.other_treasuries.map(function (f) { return [f, t("Faction Treasury") + " " + f.slice(8)]; }));
    st.redistribute.forEach(function (r) {
      details.appendChild(el("div", { class: "row redistribute" }, [
        el("label", {}, [t("from"), select("from", [["", blank(t("from"))]].concat(holders), r.from, function (v) { r.from = v; })]),
        el("label", {}, [t("to"), select("to", [["", blank(t("to"))]].concat(targets), r.to, function (v) { r.to = v; })]),
        numberField("amount", t("amount"), r.amount, function (v) { r.amount = v; }, 1),
        removeButton(st.redistribute, r, redraw)]));
    });
    details.appendChild(el("button", { type: "button", id: "add-transfer-" + p, text: "+ " + t("Add a transfer"), onclick: function () {
      st.redistribute.push({ from: "", to: "", amount: "" }); redraw(); } }));
    box.appendChild(details);
  }

  var draft = PBEM.draftKeeper(model);  // a reload keeps the form


  function render(formBox, ownBox, refresh) {
    draft.load();
    onChange = function () { draft.save(); refresh(); };
    drawOwn(ownBox);
    function redraw() {
      formBox.textContent = "";
      D.powers.forEach(function (p) {
        var legal = D.legal[p], kind = legal.kind;
        var box = el("div", { class: "power", id: "power-" + p }, [el("h2", { text: t("Orders of faction") + " " + p })]);
        if (!legal.must_send) box.appendChild(el("p", { text: t("Nothing to order for this faction in this round.") }));
        else if (kind === "revolution") {
          drawTrades(box, p, legal, redraw);
          drawPlays(box, p, legal, redraw);
          drawDiscards(box, p, legal);
          drawDeclarations(box, p, legal);
          if (hasMasterOfHorse(p)) drawConsentPay(box, p, redraw);
        } else if (kind === "declare") {
          drawDeclarations(box, p, legal);
          if (hasMasterOfHorse(p)) drawConsentPay(box, p, redraw);
        } else if (kind === "revolution-2") drawDeclarations(box, p, legal);
        else if (kind === "senate") drawSenate(box, p, legal, redraw);
        else if (kind === "endgame") drawEndgame(box, p, legal);
        drawStanding(box, p, legal, redraw);
        formBox.appendChild(box);
      });
      onChange();
    }
    redraw();
  }

  PBEM.register({ render: render, collect: collect, check: check });
  PBEM.checkOrders = check; // the form's checker on any orders of the form's shape (for the tests)
})();
