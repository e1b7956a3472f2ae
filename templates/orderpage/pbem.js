/* The rounds before the deal (deal/commit, deal/reveal; pbem.core.deal): no orders, only the
 * entropy that signing fills in. The form says so, and its orders are an empty mapping for each
 * of the seat's entries, as the YAML order form has them. */
"use strict";

(function () {
  var D = PBEM.data, t = PBEM.t, el = PBEM.el;

  function render(form) {
    form.appendChild(el("p", { class: "note", text: D.phase === "deal/commit"
      ? t("Nothing is dealt yet. This round takes no orders: load your key and sign. The signed file commits to a fresh random value that this page keeps for the next round.")
      : t("This round takes no orders: load your key and sign. The signed file reveals the value you committed; the deal is made from every player's value.") }));
  }

  function collect() {
    var orders = {};
    D.powers.forEach(function (p) { orders[p] = {}; });
    return orders;
  }

  function check() { return { problems: [], notes: [] }; }

  PBEM.register({ render: render, collect: collect, check: check });
})();
