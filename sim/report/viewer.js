// squall report: the episode viewer. Vanilla JS, no network. Every piece of episode data is inserted with
// textContent (never innerHTML), so a trace holding markup shows as text and cannot run.
(function () {
  "use strict";
  var node = document.getElementById("episodes-data");
  if (!node) return;
  var episodes = JSON.parse(node.textContent);
  var byId = {};
  episodes.forEach(function (ep, i) { byId[ep.id] = i; });
  var $ = function (id) { return document.getElementById(id); };
  var list = $("ep-list"), detail = $("ep-detail"), count = $("ep-count");
  var fTask = $("ep-filter-task"), fTerm = $("ep-filter-term"), fOutcome = $("ep-filter-outcome");
  var visible = [], current = -1;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function json(value, limit) {
    var s = typeof value === "string" ? value : JSON.stringify(value, null, 1);
    if (s === undefined) s = "null";
    return s.length > limit ? s.slice(0, limit) + "\u2026 (" + s.length + " chars)" : s;
  }
  function pct(v) { return v === null || v === undefined ? "n/a" : (100 * v).toFixed(1) + "%"; }

  Array.from(new Set(episodes.map(function (e) { return e.termination; }))).sort().forEach(function (t) {
    var o = el("option", null, t); o.value = t; fTerm.appendChild(o);
  });

  function applyFilters(quiet) {
    var task = fTask.value.trim().toLowerCase(), term = fTerm.value, outcome = fOutcome.value;
    visible = [];
    episodes.forEach(function (ep, i) {
      if (task && ep.id.toLowerCase().indexOf(task) < 0) return;
      if (term && ep.termination !== term) return;
      if (outcome && ep.outcome !== outcome) return;
      visible.push(i);
    });
    list.replaceChildren();
    visible.forEach(function (i) {
      var ep = episodes[i], li = el("li", "ep-item ep-" + ep.outcome);
      li.dataset.index = String(i);
      li.appendChild(el("span", "ep-item-id", ep.id));
      li.appendChild(el("span", "ep-item-score", ep.outcome === "failed" ? ep.termination : pct(ep.rank)));
      li.addEventListener("click", function () { go(i); });
      list.appendChild(li);
    });
    count.textContent = visible.length + " listed";
    if (visible.length && visible.indexOf(current) < 0) show(visible[0], quiet === true);
    else markCurrent();
  }

  function markCurrent() {
    Array.prototype.forEach.call(list.children, function (li) {
      var on = Number(li.dataset.index) === current;
      li.classList.toggle("current", on);
      // Scroll the list box only (scrollIntoView would scroll the page to the viewer too).
      if (on && (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight)) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
      }
    });
  }

  function go(i) { location.hash = "episode=" + encodeURIComponent(episodes[i].id); }

  function step(delta) {
    if (!visible.length) return;
    var at = visible.indexOf(current);
    var next = at < 0 ? 0 : Math.min(visible.length - 1, Math.max(0, at + delta));
    go(visible[next]);
  }

  function fromHash() {
    var m = /^#episode=(.*)$/.exec(location.hash);
    if (!m) return false;
    var i = byId[decodeURIComponent(m[1])];
    if (i === undefined) return false;
    show(i, true);
    return true;
  }

  function kv(parent, label, value) {
    var row = el("div", "kv");
    row.appendChild(el("span", "k", label));
    row.appendChild(el("span", "v", value));
    parent.appendChild(row);
  }

  function scoresTable(scores) {
    var names = Object.keys(scores);
    if (!names.length) return el("p", "note", "No verdicts in this score set (a failed episode is not scored).");
    var t = el("table", "verdicts"), head = el("tr");
    ["judge", "value", "per goal", "errors"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(head);
    names.sort().forEach(function (name) {
      var s = scores[name], tr = el("tr");
      tr.appendChild(el("td", null, name));
      tr.appendChild(el("td", "num", s.value === null ? "n/a" : Number(s.value).toFixed(3)));
      tr.appendChild(el("td", "mono", (s.per_goal || []).map(function (v) {
        return v === null ? "\u2013" : Number(v).toFixed(2);
      }).join(" ")));
      tr.appendChild(el("td", "mono", (s.errors || []).join(", ")));
      t.appendChild(tr);
    });
    return t;
  }

  function tau2Table(t) {  // τ²'s reward component by component, and what failed each (sim.report.episodes)
    var box = el("div");
    box.appendChild(el("p", "note", "\u03c4\u00b2 reward: the product of the task's reward basis (" + t.basis.join(", ") + ")"));
    var table = el("table", "verdicts tau2-components"), head = el("tr");
    ["component", "verdict", "what failed"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    t.rows.forEach(function (r) {
      var tr = el("tr");
      r.forEach(function (c, i) { tr.appendChild(el("td", i === 2 ? "mono" : null, c)); });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function eventNode(ev) {
    var box;
    if (ev.k === "user_message" || ev.k === "agent_message") {
      var who = ev.k === "user_message" ? "user" : "agent";
      box = el("div", "msg msg-" + who + (ev.replayed ? " replayed" : ""));
      var meta = who + " \u00b7 goal " + ev.goal + " \u00b7 turn " + ev.turn + (ev.act ? " \u00b7 " + ev.act : "");
      box.appendChild(el("div", "meta", meta + (ev.replayed ? " \u00b7 replayed gold" : "")));
      box.appendChild(el("div", "text", ev.text || ""));
      return box;
    }
    if (ev.k === "user_tool_call" || ev.k === "user_tool_result") {  // dual control: the user acted on its own side
      var done = ev.k === "user_tool_result";
      box = el("div", "user-act" + (done && !(ev.result && ev.result.status === "success") ? " bad" : ""));
      box.appendChild(el("div", "meta", (done ? "the user's tool answered \u00b7 " + (ev.result ? ev.result.status : "") :
        "the USER called its own tool") + " \u00b7 goal " + ev.goal + " \u00b7 turn " + ev.turn));
      box.appendChild(done ? el("pre", null, json(ev.result ? ev.result.content : null, 4000)) :
        el("code", "sig", ev.call.name + "(" + json(ev.call.args, 2000) + ")"));
      return box;
    }
    if (ev.k === "tool_call") {
      box = el("div", "call" + (ev.replayed ? " replayed" : ""));
      box.appendChild(el("div", "meta", "tool call \u00b7 goal " + ev.goal + (ev.replayed ? " \u00b7 replayed gold" : "")));
      box.appendChild(el("code", "sig", ev.call.name + "(" + json(ev.call.args, 2000) + ")"));
      return box;
    }
    if (ev.k === "tool_result") {
      var ok = ev.result && ev.result.status === "success";
      box = el("div", "result " + (ok ? "ok" : "bad"));
      var line = "observed \u00b7 " + (ev.call ? ev.call.name : "") + " \u00b7 " + (ev.result ? ev.result.status : "");
      if (ev.result && ev.result.code) line += " \u00b7 " + ev.result.code;
      box.appendChild(el("div", "meta", line));
      (ev.scenarios || []).forEach(function (s) { box.appendChild(el("span", "badge", "stressor: " + s)); });
      box.appendChild(el("pre", null, json(ev.result ? ev.result.content : null, 4000)));
      if (ev.raw) {
        box.appendChild(el("div", "meta", "world really returned \u00b7 " + ev.raw.status + (ev.raw.code ? " \u00b7 " + ev.raw.code : "")));
        box.appendChild(el("pre", "raw", json(ev.raw.content, 4000)));
      }
      return box;
    }
    if (ev.k === "world_event") {  // the world changed on its own (a timed event): the agent was not told
      box = el("div", "world-event");
      box.appendChild(el("div", "meta", "world event \u00b7 goal " + ev.goal + " \u00b7 " + (ev.code || "") + " \u00b7 not shown to the agent"));
      (ev.scenarios || []).forEach(function (s) { box.appendChild(el("span", "badge", "stressor: " + s)); });
      box.appendChild(el("div", "text", ev.text || ""));
      return box;
    }
    box = el("div", "error");
    box.appendChild(el("div", "meta", "error \u00b7 fault: " + (ev.fault || "?") + " \u00b7 " + (ev.code || "")));
    box.appendChild(el("div", "text", ev.text || ""));
    return box;
  }

  function show(i, fromRoute) {
    current = i;
    var ep = episodes[i];
    detail.replaceChildren();
    var h = el("h3", null, ep.id);
    h.id = "ep-current-id";
    detail.appendChild(h);
    var facts = el("div", "facts");
    kv(facts, "task", ep.task + (ep.variant ? " @ " + ep.variant : ""));
    kv(facts, "trial", ep.trial);
    kv(facts, "user", ep.user);
    kv(facts, "termination", ep.termination);
    kv(facts, "goals / turns", ep.goals + " / " + ep.turns);
    kv(facts, "duration", ep.duration_s + " s");
    detail.appendChild(facts);
    if (ep.description) detail.appendChild(el("p", "note", ep.description));
    detail.appendChild(el("h4", null, "Verdicts"));
    detail.appendChild(scoresTable(ep.scores));
    if (ep.tau2) detail.appendChild(tau2Table(ep.tau2));
    detail.appendChild(el("h4", null, "Conversation"));
    var lastGoal = null;
    ep.events.forEach(function (ev) {
      if (ev.goal !== lastGoal && ev.k === "user_message" && !ev.replayed) {
        lastGoal = ev.goal;
        var gold = (ep.gold[ev.goal] || []).map(function (g) { return g.name + "(" + json(g.args, 300) + ")"; });
        detail.appendChild(el("div", "goal", "goal " + ev.goal + " \u00b7 gold: " + (gold.join(", ") || "no call")));
      }
      detail.appendChild(eventNode(ev));
    });
    if (!fromRoute) go(i);
    markCurrent();
  }

  [fTask, fTerm, fOutcome].forEach(function (f) { f.addEventListener("input", function () { applyFilters(false); }); });
  $("ep-prev").addEventListener("click", function () { step(-1); });
  $("ep-next").addEventListener("click", function () { step(1); });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") { step(1); e.preventDefault(); }
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") { step(-1); e.preventDefault(); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
  applyFilters(true);
})();
