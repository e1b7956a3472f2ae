/* Maria's order form over the map: the planned moves and battles drawn on the seat's map, and
 * where a zoomed map opens. Part of the form that maria.js begins. */
"use strict";

(function () {
  var D = PBEM.data, M = PBEM.maria;
  var PIECES = M.PIECES, POS = M.POS, model = M.model, parsePath = M.parsePath;

  // the powers' colours as the map has them: [fill, edge] (Austria's white is drawn on its dark edge)
  var COLOURS = D.colours || {};

  function shape(ns, tag, attrs) {
    var node = document.createElementNS(ns, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    return node;
  }

  function draw(layer, ns) {
    while (layer.firstChild) layer.removeChild(layer.firstChild);
    var pos = M.positions();
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


  M.draw = draw; M.focus = focus;
})();
