// squall view: documents, routing, live refresh and the small DOM helpers the views share. Vanilla JS, no network
// beyond this page's own server. Trace data is only ever inserted with textContent; the one exception is the
// charts, SVG drawn and escaped by squall itself (sim/report/svg.py).
(function () {
  "use strict";
  var S = (window.squall = { views: {} });
  var mode = document.body.dataset.mode;
  var cache = {}, waiting = {};
  var app = document.getElementById("app");

  S.el = function (tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };
  S.add = function (parent, tag, cls, text) { var e = S.el(tag, cls, text); parent.appendChild(e); return e; };
  S.link = function (parent, href, text, cls) { var a = S.add(parent, "a", cls, text); a.href = href; return a; };
  S.pct = function (v) { return v === null || v === undefined ? "n/a" : (100 * v).toFixed(1) + "%"; };
  S.ci = function (c) { return c ? "[" + (100 * c[0]).toFixed(1) + ", " + (100 * c[1]).toFixed(1) + "]" : ""; };
  S.json = function (value, limit) {
    var s = typeof value === "string" ? value : JSON.stringify(value, null, 1);
    if (s === undefined) s = "null";
    return s.length > limit ? s.slice(0, limit) + "\u2026 (" + s.length + " chars)" : s;
  };
  S.enc = function (s) { return encodeURIComponent(s); };
  S.table = function (parent, header, rows, cls) {
    var t = S.add(parent, "table", cls || ""), head = S.add(S.add(t, "thead"), "tr"), body = S.add(t, "tbody");
    header.forEach(function (h, i) { S.add(head, "th", i ? "num" : null, h); });
    rows.forEach(function (r) {
      var tr = S.add(body, "tr");
      r.forEach(function (c, i) {
        var td = S.add(tr, "td", i ? "num" : null);
        if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
      });
    });
    return t;
  };
  S.svg = function (parent, markup) {  // squall's own escaped SVG (see the header comment)
    var box = S.add(parent, "div", "chart-box");
    box.innerHTML = markup;
    return box;
  };
  S.crumbs = function (parts) {  // [[text, href], ...]; the last is the page itself
    var nav = document.getElementById("crumbs");
    nav.replaceChildren();
    parts.forEach(function (p, i) {
      S.add(nav, "span", "sep", " / ");
      if (p[1] && i < parts.length - 1) S.link(nav, p[1], p[0]); else S.add(nav, "span", null, p[0]);
    });
  };

  // ---- documents: served from api/NAME.json, or static data/NAME.js calling squallData(NAME, doc)
  window.squallData = function (name, doc) {
    var w = waiting[name];
    if (w) { delete waiting[name]; w.resolve(doc); }
  };
  function fetchDoc(name) {
    if (mode === "served") {
      return fetch("api/" + name.split("/").map(S.enc).join("/") + ".json", { cache: "no-store" }).then(function (r) {
        if (!r.ok) return r.json().then(function (e) { throw new Error(e.error || r.statusText); });
        return r.json();
      });
    }
    return new Promise(function (resolve, reject) {
      waiting[name] = { resolve: resolve };
      var s = document.createElement("script");
      s.src = "data/" + encodeURIComponent(name).replace(/%/g, "_") + ".js";
      s.onerror = function () { delete waiting[name]; reject(new Error("no document " + name)); };
      s.onload = function () { s.remove(); };
      document.body.appendChild(s);
    });
  }
  S.load = function (name) {
    if (!cache[name]) cache[name] = fetchDoc(name).catch(function (e) { delete cache[name]; throw e; });
    return cache[name];
  };
  S.forget = function (prefix) { Object.keys(cache).forEach(function (k) { if (k.indexOf(prefix) === 0) delete cache[k]; }); };
  S.chunks = function (run) {  // every episode of a run, full (what the search reads)
    var all = [];
    for (var i = 0; i < run.chunks; i++) all.push(S.load("chunk/" + run.key + "/" + i));
    return Promise.all(all);
  };

  // ---- routing: #/ | #/run/KEY[/episodes|/grid|/ep/ID][?query] | #/compare/A/B
  S.route = function () {
    var h = location.hash.replace(/^#\/?/, ""), q = "", at = h.indexOf("?");
    if (at >= 0) { q = h.slice(at + 1); h = h.slice(0, at); }
    var parts = h ? h.split("/").map(decodeURIComponent) : [];
    var params = {};
    new URLSearchParams(q).forEach(function (v, k) { params[k] = v; });
    return { parts: parts, params: params };
  };
  S.go = function (parts, params) {
    var q = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) { if (params[k]) q.set(k, params[k]); });
    var hash = "#/" + parts.map(S.enc).join("/") + (q.toString() ? "?" + q.toString() : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
  };
  var renderId = 0;
  S.render = function (keepScroll) {
    var r = S.route(), id = ++renderId, y = window.scrollY;
    var name = r.parts[0] === "run" ? (r.parts[2] || "overview") : r.parts[0] || "runs";
    var view = S.views[name] || S.views.runs;
    var page = S.el("div", "page");
    S.current = r;
    return Promise.resolve(view(page, r.parts, r.params)).then(function () {
      if (id !== renderId) return;
      app.replaceChildren(page);
      document.body.dataset.view = name;
      if (keepScroll) window.scrollTo(0, y);
    }).catch(function (e) {
      if (id !== renderId) return;
      app.replaceChildren(S.el("p", "error", "Could not show this page: " + e.message));
    });
  };
  window.addEventListener("hashchange", function () { S.render(false); });

  // ---- live refresh (served only): poll the runs' file states; re-render what changed
  var versions = null;
  function poll() {
    fetchDoc("version").then(function (v) {
      var live = document.getElementById("live");
      if (versions === null) { versions = v.runs; live.textContent = "live: following the runs' files"; return; }
      var r = S.route(), changed = [];
      Object.keys(v.runs).forEach(function (k) { if (versions[k] !== v.runs[k]) changed.push(k); });
      var listChanged = Object.keys(v.runs).length !== Object.keys(versions).length;
      versions = v.runs;
      if (!changed.length && !listChanged) return;
      changed.forEach(function (k) { S.forget("run/" + k); S.forget("chunk/" + k + "/"); S.forget("compare/"); });
      S.forget("runs");
      live.textContent = "live: updated " + new Date().toLocaleTimeString();
      var shown = r.parts[0] === "run" ? [r.parts[1]] : r.parts[0] === "compare" ? r.parts.slice(1) : Object.keys(v.runs);
      if (listChanged || shown.some(function (k) { return changed.indexOf(k) >= 0; })) S.render(true);
    }).catch(function () {
      document.getElementById("live").textContent = "live: server not answering";
    });
  }
  window.addEventListener("load", function () {
    S.render(false);
    if (mode === "served") { poll(); setInterval(poll, 2000); }
  });
})();
