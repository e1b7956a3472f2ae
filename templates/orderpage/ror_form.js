/* The Republic of Rome's order form, drawn: the situation, then each round's part (revolution,
 * declarations, senate, end game) and the standing orders, from the round's legal choices. Part
 * of the form that ror.js begins. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el, R = PBEM.ror;
  var DECISIONS = R.DECISIONS, model = R.model;
  var senName = R.senName, cardName = R.cardName, legionName = R.legionName, office = R.office, warLine = R.warLine, fmt = R.fmt,
      ruleLinks = R.ruleLinks, heading = R.heading, help = R.help, isStatesman = R.isStatesman, isConcession = R.isConcession,
      isFactionCard = R.isFactionCard, eligible = R.eligible, whole = R.whole, unit = R.unit, collectStanding = R.collectStanding;
  var onChange = function () {};

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
    PBEM.suggest(R.fill);  // the autopilot's suggestion first: a draft the player kept wins over it
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

  R.render = render;
})();
