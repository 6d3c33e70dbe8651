// squall view: the run list with the leaderboard, and the compare view (paired differences, flipped tasks).
(function () {
  "use strict";
  var S = window.squall;

  // One line per run at any count: the table is laid out fixed to the page's width and a long agent, label or
  // stressor list is cut with an ellipsis, its full text in the cell's tooltip.
  function clip(text, cls) {
    var span = S.el("span", "clip" + (cls ? " " + cls : ""), text);
    span.title = text;
    return span;
  }

  function runLink(key, text) {
    var a = S.el("a", "clip mono", text); a.href = "#/run/" + S.enc(key); a.title = text;
    return a;
  }

  function runsTable(page, runs) {
    S.add(page, "h2", null, "Runs");
    var pick = { a: null, b: null };
    var rows = runs.map(function (r, i) {
      var radios = S.el("span", "pick");
      ["a", "b"].forEach(function (side) {
        var input = S.add(radios, "input"); input.type = "radio"; input.name = "pick-" + side;
        input.title = "compare: run " + side.toUpperCase(); input.id = "pick-" + side + "-" + i;
        input.addEventListener("change", function () { pick[side] = r.key; });
      });
      var faults = r.failed_episodes ? String(r.failed_episodes) : "0";
      return [runLink(r.key, r.run_id), clip(r.label || "\u2013", "label"), radios, clip(r.agent || ""),
        clip(r.world || ""), clip(r.stressors || "\u2013"), S.pct(r.core_api_accuracy), S.pct(r.conversation_success),
        r.episodes === null || r.episodes === undefined ? "writing" : String(r.episodes), faults,
        (r.created_at || "").replace("T", " ").slice(0, 16)];
    });
    var table = S.table(page, ["run id", "label", "A B", "agent", "world", "stressors", "core acc.", "success",
      "episodes", "failed", "created"], rows, "runs-table");
    var heads = table.querySelectorAll("th");
    heads[6].title = "core API accuracy"; heads[7].title = "conversation success";
    var bar = S.add(page, "div", "controls");
    var button = S.add(bar, "button", null, "compare A \u2192 B"); button.type = "button"; button.id = "compare-go";
    var hint = S.add(bar, "span", "note", "Pick run A and run B in the A B column.");
    button.addEventListener("click", function () {
      if (!pick.a || !pick.b || pick.a === pick.b) { hint.textContent = "Pick two different runs first."; return; }
      location.hash = "#/compare/" + S.enc(pick.a) + "/" + S.enc(pick.b);
    });
  }

  function oneBoard(box, b) {
    var part = S.add(box, "section", "board-world");
    S.add(part, "h3", null, b.world + " \u2014 " + b.plan + " (" + b.rows.reduce(function (n, r) {
      return n + r.runs.length; }, 0) + " runs)");
    var rows = b.rows.map(function (r) {
      return [String(r.rank), clip(r.name, "name"), String(r.runs.length), String(r.shared_episodes), S.pct(r.score),
        S.ci(r.ci95), r.delta === null ? "reference" : (100 * r.delta).toFixed(1) + " pts", S.ci(r.delta_ci95)];
    });
    // The reference is named in the note (a long agent in the header would widen the table past the page).
    S.table(part, ["rank", "name", "runs", "shared episodes", b.metric, "95% CI", "\u0394", "\u0394 95% CI"], rows,
      "leaderboard");
    if (b.chart) S.svg(part, b.chart);
    S.add(part, "p", "note", b.note + " Shared: " + b.shared_episodes + " episodes over " + b.shared_tasks + " tasks.");
    (b.warnings || []).forEach(function (w) { S.add(part, "p", "note warn", "warning: " + w); });
  }

  function notComparable(box, doc, keys) {
    var part = S.add(box, "section", "not-comparable");
    S.add(part, "h3", null, "Not comparable (" + doc.not_comparable.length + ")");
    S.add(part, "p", "note", "Runs rank only against runs of the same world and planned tasks that share episodes " +
      "with a verdict on " + doc.metric + ".");
    S.table(part, ["run id", "label", "agent", "world", "plan", "why"], doc.not_comparable.map(function (n) {
      return [keys[n.run_id] ? runLink(keys[n.run_id], n.run_id) : clip(n.run_id, "mono"), clip(n.label || "\u2013"),
        clip(n.agent), clip(n.world), clip(n.plan), clip(n.reason)];
    }), "not-comparable");
  }

  function leaderboard(page, doc, params) {
    var boards = doc.leaderboards, keys = {};
    doc.runs.forEach(function (r) { if (!(r.run_id in keys)) keys[r.run_id] = r.key; });
    S.add(page, "h2", null, "Leaderboard");
    var bar = S.add(page, "div", "controls"), box = S.add(page, "div", "board");
    var metric = S.add(bar, "select"), by = S.add(bar, "select");
    metric.id = "board-metric"; by.id = "board-by";
    var metrics = [], groups = [];
    Object.keys(boards).forEach(function (k) {
      var p = k.split("/");
      if (metrics.indexOf(p[0]) < 0) metrics.push(p[0]);
      if (groups.indexOf(p[1]) < 0) groups.push(p[1]);
    });
    metrics.forEach(function (m) { var o = S.add(metric, "option", null, m); o.value = m; });
    groups.forEach(function (g) { var o = S.add(by, "option", null, "by " + g); o.value = g; });
    metric.value = params.metric || metrics[0]; by.value = params.by || groups[0];
    function draw() {
      S.go([""], { metric: metric.value, by: by.value });
      box.replaceChildren();
      var b = boards[metric.value + "/" + by.value];
      if (!b || b.problem) { S.add(box, "p", "note", b ? b.problem : "No leaderboard."); return; }
      (b.notes || []).forEach(function (w) { S.add(box, "p", "note warn", "warning: " + w); });
      if (!b.boards.length) S.add(box, "p", "note", "No two runs share a world, planned tasks and episodes to rank.");
      b.boards.forEach(function (one) { oneBoard(box, one); });
      if (b.not_comparable.length) notComparable(box, b, keys);
    }
    metric.addEventListener("change", draw); by.addEventListener("change", draw);
    draw();
  }

  S.views.runs = function (page, parts, params) {
    S.crumbs([["runs", "#/"]]);
    return S.load("runs").then(function (doc) {
      S.add(page, "h1", null, "Runs (" + doc.runs.length + ")");
      runsTable(page, doc.runs);
      leaderboard(page, doc, params);
    });
  };

  S.views.compare = function (page, parts) {
    var a = parts[1], b = parts[2];
    S.crumbs([["runs", "#/"], ["compare " + a + " \u2192 " + b, ""]]);
    return S.load("compare/" + a + "/" + b).catch(function (e) {
      if (document.body.dataset.mode !== "static") throw e;
      throw new Error("these static files hold comparisons for up to 8 runs; `squall view` served compares any two");
    }).then(function (doc) {
      S.add(page, "h1", null, "Compare " + a + " \u2192 " + b);
      S.add(page, "p", "sub", doc.paired + " episodes in both runs; differences are B \u2212 A on the paired episodes, " +
        "95% intervals resample tasks.");
      if (doc.problem) S.add(page, "p", "note warn", doc.problem);
      doc.warnings.forEach(function (w) { S.add(page, "p", "note warn", "warning: " + w); });
      S.add(page, "h2", null, "Paired differences");
      S.table(page, ["judge", "A", "B", "B \u2212 A", "95% CI", "pairs", "tasks"], doc.diffs.map(function (d) {
        return [d.judge, S.pct(d.a), S.pct(d.b), d.diff === null ? "n/a" : (100 * d.diff).toFixed(1) + " pts",
          S.ci(d.ci95), String(d.pairs), String(d.tasks)];
      }), "diffs");
      S.add(page, "h2", null, "Tasks that flipped (" + doc.flipped.length + ")");
      if (!doc.flipped.length) S.add(page, "p", "note", "No paired episode passed in one run and not in the other.");
      else S.table(page, ["task", "stressor", "passed in A", "passed in B", "", "episodes"], doc.flipped.map(function (f) {
        var links = S.el("span");
        f.episodes.forEach(function (id) {
          S.link(links, "#/run/" + S.enc(a) + "/ep/" + S.enc(id), id + " (A)", "ep-link");
          S.link(links, "#/run/" + S.enc(b) + "/ep/" + S.enc(id), "(B)", "ep-link");
        });
        return [f.task, f.variant || "\u2013", f.a + " / " + f.pairs, f.b + " / " + f.pairs,
          S.el("span", "flip flip-" + f.way, f.way), links];
      }), "flipped");
    });
  };
})();
