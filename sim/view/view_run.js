// squall view: one run: its overview (what ran, report tables, charts), its episodes (full-text search, filters by
// stressor, judge, error code and outcome) and the task x trial grid.
(function () {
  "use strict";
  var S = window.squall;

  function header(page, run, here) {
    var id = run.identity, key = run.key;
    S.crumbs([["runs", "#/"], [key, "#/run/" + S.enc(key)], [here, ""]]);
    S.add(page, "h1", null, (id.label ? id.label + " \u00b7 " : "") + "run " + id.run_id);
    var facts = ["agent", "world", "user", "stressors", "stressor_mode", "setup", "seed", "trials"].filter(function (k) {
      return id[k] !== null && id[k] !== undefined && id[k] !== "" && !(Array.isArray(id[k]) && !id[k].length);
    }).map(function (k) { return k + ": " + (Array.isArray(id[k]) ? id[k].join(", ") : id[k]); });
    facts.push("score set " + (run.score_set || "none yet"));
    if (id.git_commit) facts.push("commit " + id.git_commit);
    S.add(page, "p", "sub", facts.join(" \u00b7 "));
    var planned = id.planned ? " of " + id.planned + " planned" : "";
    S.add(page, "p", "note", run.stored + " episodes stored" + planned + "; " + run.shown + " shown (the worst first).");
    var tabs = S.add(page, "nav", "tabs");
    [["overview", ""], ["episodes", "/episodes"], ["task \u00d7 trial grid", "/grid"]].forEach(function (t) {
      var a = S.link(tabs, "#/run/" + S.enc(key) + t[1], t[0]);
      a.id = "tab-" + (t[1].slice(1) || "overview");
      if (t[0].indexOf(here) === 0) a.className = "on";
    });
  }

  S.views.overview = function (page, parts) {
    return S.load("run/" + parts[1]).then(function (run) {
      header(page, run, "overview");
      if (run.summary_problem) S.add(page, "p", "note warn", "No summary yet: " + run.summary_problem);
      var head = run.sections[0];
      if (head) section(page, head);
      S.add(page, "h2", null, "Charts");
      var plots = S.add(page, "div"); plots.id = "plots";
      run.charts.forEach(function (c) { S.svg(plots, c); });
      run.chart_notes.forEach(function (n) { S.add(page, "p", "note", n); });
      run.sections.slice(1).forEach(function (s) { section(page, s); });
    });
  };

  function section(page, s) {
    S.add(page, "h2", null, /^[a-z]/.test(s.title) ? s.title.charAt(0).toUpperCase() + s.title.slice(1) : s.title);  // τ² stays τ²
    if (s.columns.length) S.table(page, s.columns, s.rows.slice(0, 300), s.key);
    s.notes.forEach(function (n) { S.add(page, "p", "note", n); });
  }

  function options(select, label, values) {
    var o = S.add(select, "option", null, label); o.value = "";
    values.forEach(function (v) { var x = S.add(select, "option", null, v); x.value = v; });
  }
  function uniq(rows, f) {
    var seen = {};
    rows.forEach(function (r) { [].concat(f(r)).forEach(function (v) { if (v !== "" && v !== null) seen[v] = 1; }); });
    return Object.keys(seen).sort();
  }

  S.views.episodes = function (page, parts, params) {
    return S.load("run/" + parts[1]).then(function (run) {
      header(page, run, "episodes");
      var rows = run.episodes, bar = S.add(page, "div", "controls");
      var q = S.add(bar, "input"); q.id = "search"; q.placeholder = "search every message, call and result"; q.type = "search";
      var fs = {
        stressor: [uniq(rows, function (r) { return r.fired.concat(r.variant ? [r.variant] : []); }), "any stressor"],
        judge: [uniq(rows, function (r) {
          return Object.keys(r.judges).filter(function (j) { return r.judges[j] !== null; });
        }), "any judge verdict"],
        code: [uniq(rows, function (r) { return r.codes; }), "any error code"],
        outcome: [["passed", "wrong", "failed", "unscored"], "any outcome"]
      };
      var selects = {};
      Object.keys(fs).forEach(function (k) {
        var s = S.add(bar, "select"); s.id = "filter-" + k; options(s, fs[k][1], fs[k][0]);
        if (k === "judge") Array.prototype.slice.call(s.options, 1).forEach(function (o) { o.textContent = "below 1 on " + o.value; });
        s.value = params[k] || ""; selects[k] = s;
      });
      q.value = params.q || "";
      var count = S.add(bar, "span", "note"); count.id = "ep-count";
      var list = S.add(page, "table", "episodes"), texts = null;
      function draw() {
        var want = { q: q.value.trim(), stressor: selects.stressor.value, judge: selects.judge.value,
          code: selects.code.value, outcome: selects.outcome.value };
        S.go(["run", run.key, "episodes"], want);
        var needle = want.q.toLowerCase();
        if (needle && texts === null) {
          count.textContent = "searching\u2026";
          return S.chunks(run).then(function (chunks) {
            texts = {};
            chunks.forEach(function (c) { c.episodes.forEach(function (ep) { texts[ep.id] = JSON.stringify(ep).toLowerCase(); }); });
            draw();
          });
        }
        var shown = rows.filter(function (r) {
          if (needle && (texts[r.id] || "").indexOf(needle) < 0) return false;
          if (want.stressor && r.fired.indexOf(want.stressor) < 0 && r.variant !== want.stressor) return false;
          if (want.judge && !(r.judges[want.judge] !== null && r.judges[want.judge] < 1)) return false;
          if (want.code && r.codes.indexOf(want.code) < 0) return false;
          if (want.outcome && r.outcome !== want.outcome) return false;
          return true;
        });
        count.textContent = shown.length + " of " + rows.length + " listed";
        list.replaceChildren();
        var head = S.add(list, "tr");
        ["episode", "outcome", "core API acc.", "stressors fired", "error codes", "tokens", "seconds"].forEach(function (h, i) {
          S.add(head, "th", i > 4 ? "num" : null, h);
        });
        shown.slice(0, 500).forEach(function (r) {
          var tr = S.add(list, "tr", "ep-row ep-" + r.outcome);
          var td = S.add(tr, "td");
          S.link(td, "#/run/" + S.enc(run.key) + "/ep/" + S.enc(r.id), r.id);
          S.add(tr, "td", "outcome", r.outcome === "failed" ? r.termination : r.outcome);
          S.add(tr, "td", "num", r.judges.core_api_accuracy == null ? "\u2013" : S.pct(r.judges.core_api_accuracy));
          S.add(tr, "td", "mono", r.fired.join(", ") || (r.variant ? "(" + r.variant + ")" : ""));
          S.add(tr, "td", "mono small", r.codes.slice(0, 4).join(", ") + (r.codes.length > 4 ? " \u2026" : ""));
          S.add(tr, "td", "num", r.tokens ? r.tokens.toLocaleString() : "\u2013");
          S.add(tr, "td", "num", r.duration_s);
        });
      }
      var timer = null;
      q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(draw, 150); });
      Object.keys(selects).forEach(function (k) { selects[k].addEventListener("change", draw); });
      return draw();
    });
  };

  S.views.grid = function (page, parts) {
    return S.load("run/" + parts[1]).then(function (run) {
      header(page, run, "task \u00d7 trial grid");
      var cells = {}, trials = {}, tasks = {};
      run.episodes.forEach(function (r) {
        var row = r.task + (r.variant ? " @ " + r.variant : "") + (r.user && r.user !== run.identity.user ? " \u00b7 " + r.user : "");
        tasks[row] = 1; trials[r.trial] = 1; cells[row + "\u0000" + r.trial] = r;
      });
      var cols = Object.keys(trials).map(Number).sort(function (a, b) { return a - b; });
      S.add(page, "p", "note", "One row per task (and stressor scenario), one column per trial; a cell is one episode: " +
        "Each cell: the episode's core API accuracy; green passed, red not passed, amber failed (not scored), grey no verdict. Click a cell to open it.");
      var t = S.add(page, "table", "grid"), head = S.add(t, "tr");
      S.add(head, "th", null, "task");
      cols.forEach(function (c) { S.add(head, "th", "num", "trial " + c); });
      S.add(head, "th", "num", "passed");
      Object.keys(tasks).sort().forEach(function (row) {
        var tr = S.add(t, "tr"), passed = 0, n = 0;
        S.add(tr, "td", "mono", row);
        cols.forEach(function (c) {
          var r = cells[row + "\u0000" + c], td = S.add(tr, "td", "cell");
          if (!r) { td.textContent = "\u2013"; return; }
          n += 1; passed += r.outcome === "passed" ? 1 : 0;
          var a = S.link(td, "#/run/" + S.enc(run.key) + "/ep/" + S.enc(r.id), r.outcome === "failed" ? "!" : r.judges.core_api_accuracy == null ? "\u2013" : S.pct(r.judges.core_api_accuracy), "g-" + r.outcome);
          a.title = r.id + ": " + r.outcome;
        });
        S.add(tr, "td", "num", passed + " / " + n);
      });
    });
  };
})();
