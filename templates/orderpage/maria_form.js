/* Maria's order form: drawing it, one part per round (stage, set-up, hussars, winter, standing
 * orders), from the legal choices the engine computed (legal_orders). Part of the form that
 * maria.js begins; the political rounds are drawn by maria_politics.js. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el, M = PBEM.maria;
  var PIECES = M.PIECES, CITIES = M.CITIES, model = M.model;
  var cityName = M.cityName, shownCity = M.shownCity, pieceName = M.pieceName, suitOf = M.suitOf, isAdjacent = M.isAdjacent,
      isMain = M.isMain, mine = M.mine, cardLabel = M.cardLabel, cardSuit = M.cardSuit, parsePath = M.parsePath,
      option = M.option, numberInput = M.numberInput, orderedPicks = M.orderedPicks, onChange = M.onChange;
  var PREFS = M.PREFS, collectStanding = M.collectStanding;

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
    M.drawPoliticsSituation(box);
  }

  var draft = PBEM.draftKeeper(model);  // a reload keeps the form


  var redrawForm = function () {};

  function render(formBox, ownBox, refresh) {
    PBEM.suggest(M.fill);  // the autopilot's suggestion first: a draft the player kept wins over it
    draft.load();
    M.prefill();
    function changed() {
      draft.save();
      refresh();
      M.rehash().then(function (moved) { if (moved) refresh(); });
    }
    M.setOnChange(changed);
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
        else if (legal.kind === "commit") M.drawCommit(box, p, legal);
        else if (legal.kind === "politics") M.drawPolitics(box, p, legal, redraw);
        else if (legal.kind === "winter") drawWinter(box, p, legal);
        drawStanding(box, p);
        formBox.appendChild(box);
      });
      changed();
    }
    redrawForm = redraw;
    redraw();
  }

  function storeChanged() { M.prefill(); redrawForm(); }

  M.positions = positions; M.drawHussars = drawHussars; M.render = render; M.storeChanged = storeChanged;
})();
