/* The auction's order form: one sealed bid for each of the seat's collectors, between 0 and the
 * coins in the purse (legal_orders gives the range); the same check as the rules make. */
"use strict";

(function () {
  var D = PBEM.data, el = PBEM.el;

  function render(form) {
    D.powers.forEach(function (p) {
      var range = D.legal[p].bid;
      form.appendChild(el("label", {}, ["bid (" + range.min + "-" + range.max + "): ",
        el("input", { type: "number", id: "bid-" + p, min: range.min, max: range.max, value: range.min })]));
    });
  }

  function collect() {
    var orders = {};
    D.powers.forEach(function (p) { orders[p] = { bid: Number(document.getElementById("bid-" + p).value) }; });
    return orders;
  }

  function check(orders) {
    var problems = [];
    D.powers.forEach(function (p) {
      var bid = orders[p].bid, purse = D.legal[p].bid.max;
      if (bid > purse) problems.push({ path: "orders." + p + ".bid", message: bid + " is more than the " + purse + " coins in your purse" });
    });
    return { problems: problems, notes: [] };
  }

  PBEM.register({ render: render, collect: collect, check: check });
})();
