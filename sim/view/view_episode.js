// squall view: one episode: verdicts, what the agent was shown (system prompt, tool schemas), every model request
// with its tokens (cached input, reasoning), latency and response (a reply cut at the output limit marked), the model's
// reasoning where the provider returned it, the conversation with the stressors that fired (what the world returned
// and what the agent observed), and per goal the world state against the gold's.
(function () {
  "use strict";
  var S = window.squall;

  function verdicts(parent, scores) {
    var names = Object.keys(scores).sort();
    if (!names.length) { S.add(parent, "p", "note", "No verdicts in this score set (a failed episode is not scored)."); return; }
    S.table(parent, ["judge", "value", "per goal", "errors"], names.map(function (n) {
      var s = scores[n];
      return [n, s.value === null ? "n/a" : Number(s.value).toFixed(3),
        (s.per_goal || []).map(function (v) { return v === null ? "\u2013" : Number(v).toFixed(2); }).join(" "),
        (s.errors || []).join(", ")];
    }), "verdicts");
  }

  function tau2(parent, t) {  // τ²'s reward component by component, and what failed each (sim.report.episodes)
    if (!t) return;
    S.add(parent, "p", "note", "\u03c4\u00b2 reward: the product of the task's reward basis (" + t.basis.join(", ") + ")");
    S.table(parent, ["component", "verdict", "what failed"], t.rows, "tau2-components");
  }

  function shown(parent, ep, shared) {
    var d = S.add(parent, "details", "shown"); d.id = "shown-prompt";
    S.add(d, "summary", null, "System prompt (" + shared[ep.instructions].length + " chars)");
    S.add(d, "pre", null, shared[ep.instructions] || "(none)");
    var tools = shared[ep.tools], t = S.add(parent, "details", "shown"); t.id = "shown-tools";
    S.add(t, "summary", null, "Tools shown to the agent (" + tools.length + ")");
    tools.forEach(function (tool) {
      var one = S.add(t, "details", "tool");
      S.add(one, "summary", "mono", tool.name + (tool.read_only ? "  (read-only)" : ""));
      S.add(one, "p", "note", tool.description);
      S.add(one, "pre", null, S.json(tool.parameters, 8000));
    });
    Object.keys(ep.goal_tools || {}).forEach(function (g) {
      S.add(parent, "p", "note", "goal " + g + ": callable tools were " + ep.goal_tools[g].join(", "));
    });
  }

  function responseOf(ep, call, final) {  // [the step's tool calls, else (the turn's last request) its message;
    var calls = [], msg = null, first = -1, last = -1;  // the events before it]
    ep.events.forEach(function (ev, i) {
      if (ev.turn !== call.turn || ev.replayed) return;
      if (ev.k === "tool_call" && ep.steps[i] === call.step) {
        calls.push(ev.call.name + "(" + S.json(ev.call.args, 200) + ")");
        if (first < 0) first = i;
      }
      if (ev.k === "agent_message") { msg = ev.text; last = i; }
    });
    if (calls.length) return ["calls " + calls.join(", "), first];
    if (!final) return ["its calls were not run", -1];  // refused (malformed, unknown) or cut: no call event
    return msg !== null ? ["says: " + S.json(msg, 300), last] : ["", -1];
  }

  function tokens(n, part, what) {  // "1,024 (512 cached)": a detail of the count, where the provider gave it
    return (n || 0).toLocaleString() + (part ? " (" + part.toLocaleString() + " " + what + ")" : "");
  }

  function requests(parent, ep) {
    var calls = ep.calls || [];
    if (!calls.length) {
      S.add(parent, "p", "note", ep.usage.requests ? "This trace predates per-request records: " + ep.usage.requests +
        " requests, " + ep.usage.in + " tokens in, " + ep.usage.out + " out." : "No model requests: a scripted agent " +
        "(oracle, null) and a scripted user call no model.");
      return;
    }
    S.table(parent, ["#", "role", "turn \u00b7 step", "request", "tokens in", "tokens out", "latency s", "waiting s",
      "response"], calls.map(function (c, i) {
      var final = !calls.some(function (d) { return d.role === "agent" && d.turn === c.turn && (d.step || 0) > (c.step || 0); });
      var answer = c.role === "agent" ? responseOf(ep, c, final) : ["", -1];
      var before = answer[1] >= 0 ? answer[1] : ep.times.filter(function (t) { return t <= c.t; }).length;
      var request = "system prompt + tools + " + before + " events" + (c.cached ? " (cache)" : "") +
        (c.retries ? " (" + c.retries + " retries)" : "");
      var cut = c.truncated ? "CUT at " + (c.output_limit ? "the output limit of " + c.output_limit + " tokens" :
        "the provider's own output limit") + (answer[0] ? ": " : "") : "";
      return [String(i + 1), c.role, c.turn + " \u00b7 " + (c.step || 0), request,
        tokens(c.input_tokens, c.cached_input_tokens, "cached"), tokens(c.output_tokens, c.reasoning_tokens, "reasoning"),
        (c.latency_s || 0).toFixed(3), (c.waiting_s || 0).toFixed(3), cut + answer[0]];
    }), "requests");
    reasoning(parent, calls);
  }

  function reasoning(parent, calls) {  // what the model thought before it answered, where the provider returned it
    var thought = calls.map(function (c, i) { return [c, i]; }).filter(function (p) { return p[0].reasoning; });
    if (!thought.length) return;
    var box = S.add(parent, "div", "reasoning-list"); box.id = "reasoning";
    thought.forEach(function (p) {
      var c = p[0], d = S.add(box, "details", "reasoning");
      S.add(d, "summary", null, "Reasoning of request " + (p[1] + 1) + " (" + c.role + ", turn " + c.turn + " \u00b7 step " +
        (c.step || 0) + ", " + c.reasoning.length.toLocaleString() + " chars)");
      S.add(d, "pre", null, c.reasoning);
    });
  }

  function eventNode(ev, step) {
    var box;
    if (ev.k === "user_message" || ev.k === "agent_message") {
      var who = ev.k === "user_message" ? "user" : "agent";
      box = S.el("div", "msg msg-" + who + (ev.replayed ? " replayed" : ""));
      S.add(box, "div", "meta", who + " \u00b7 goal " + ev.goal + " \u00b7 turn " + ev.turn + (ev.act ? " \u00b7 " + ev.act : "") +
        (ev.replayed ? " \u00b7 replayed gold" : ""));
      S.add(box, "div", "text", ev.text || "");
      return box;
    }
    if (ev.k === "user_tool_call" || ev.k === "user_tool_result") {  // dual control: the user acted on its own side
      var done = ev.k === "user_tool_result";
      box = S.el("div", "user-act" + (done && !(ev.result && ev.result.status === "success") ? " bad" : ""));
      S.add(box, "div", "meta", (done ? "the user's tool answered \u00b7 " + (ev.result ? ev.result.status : "") :
        "the USER called its own tool") + " \u00b7 goal " + ev.goal + " \u00b7 turn " + ev.turn);
      if (done) S.add(box, "pre", null, S.json(ev.result ? ev.result.content : null, 4000));
      else S.add(box, "code", "sig", ev.call.name + "(" + S.json(ev.call.args, 2000) + ")");
      return box;
    }
    if (ev.k === "tool_call") {
      box = S.el("div", "call" + (ev.replayed ? " replayed" : ""));
      S.add(box, "div", "meta", "tool call \u00b7 goal " + ev.goal + " \u00b7 step " + step + (ev.replayed ? " \u00b7 replayed gold" : ""));
      S.add(box, "code", "sig", ev.call.name + "(" + S.json(ev.call.args, 2000) + ")");
      return box;
    }
    if (ev.k === "tool_result") {
      var ok = ev.result && ev.result.status === "success";
      box = S.el("div", "result " + (ok ? "ok" : "bad") + (ev.scenarios ? " stressed" : ""));
      S.add(box, "div", "meta", "observed by the agent \u00b7 " + (ev.call ? ev.call.name : "") + " \u00b7 " +
        (ev.result ? ev.result.status : "") + (ev.result && ev.result.code ? " \u00b7 " + ev.result.code : ""));
      (ev.scenarios || []).forEach(function (s) { S.add(box, "span", "badge", "stressor fired: " + s); });
      S.add(box, "pre", null, S.json(ev.result ? ev.result.content : null, 4000));
      if (ev.raw) {
        S.add(box, "div", "meta", "raw: the world really returned \u00b7 " + ev.raw.status + (ev.raw.code ? " \u00b7 " + ev.raw.code : ""));
        S.add(box, "pre", "raw", S.json(ev.raw.content, 4000));
      } else if (ev.scenarios) {
        S.add(box, "div", "meta", "raw: the world was not called (the stressor answered in its place) or returned the same");
      }
      return box;
    }
    if (ev.k === "world_event") {  // the world changed on its own (a timed event): the agent was not told
      box = S.el("div", "world-event");
      S.add(box, "div", "meta", "world event \u00b7 goal " + ev.goal + " \u00b7 " + (ev.code || "") + " \u00b7 not shown to the agent");
      (ev.scenarios || []).forEach(function (s) { S.add(box, "span", "badge", "stressor fired: " + s); });
      S.add(box, "div", "text", ev.text || "");
      return box;
    }
    box = S.el("div", "error");
    S.add(box, "div", "meta", "error \u00b7 fault: " + (ev.fault || "?") + " \u00b7 " + (ev.code || ""));
    S.add(box, "div", "text", ev.text || "");
    return box;
  }

  function states(parent, ep) {
    if (!ep.states.length) { S.add(parent, "p", "note", "This world keeps no task state (or the episode played no goal)."); return; }
    ep.states.forEach(function (g) {
      var off = g.rows.filter(function (r) { return r.diff; }).length;
      var verdict = !g.gold ? "gold not replayable" : !g.at_stake ? "nothing at stake" : off ? off + " path(s) differ" : "matches";
      S.add(parent, "h5", "state-goal " + (off ? "bad" : "ok"), "goal " + g.goal + ": " + verdict);
      if (g.rows.length) S.table(parent, ["path", "before", "agent after", "gold after", "difference"], g.rows.map(function (r) {
        return [r.path, S.json(r.before, 200), S.json(r.agent, 200), S.json(r.gold, 200), r.diff || "\u2713"];
      }), "state");
    });
  }

  S.views.ep = function (page, parts) {
    var key = parts[1], id = parts[3];
    return S.load("run/" + key).then(function (run) {
      var row = run.episodes.filter(function (r) { return r.id === id; })[0];
      if (!row) throw new Error("episode " + id + " is not among the run's " + run.shown + " shown episodes");
      return S.load("chunk/" + key + "/" + row.chunk).then(function (chunk) {
        var ep = chunk.episodes.filter(function (e) { return e.id === id; })[0];
        S.crumbs([["runs", "#/"], [key, "#/run/" + S.enc(key)], ["episodes", "#/run/" + S.enc(key) + "/episodes"], [id, ""]]);
        var h = S.add(page, "h1", null, id); h.id = "ep-current-id";
        var at = run.episodes.indexOf(row), nav = S.add(page, "div", "controls");
        [["\u25c0 prev", at - 1], ["next \u25b6", at + 1]].forEach(function (p) {
          if (p[1] >= 0 && p[1] < run.episodes.length) S.link(nav, "#/run/" + S.enc(key) + "/ep/" + S.enc(run.episodes[p[1]].id), p[0], "button");
        });
        S.add(page, "p", "sub", ["task " + ep.task + (ep.variant ? " @ " + ep.variant : ""), "trial " + ep.trial, "user " + ep.user,
          "agent " + ep.agent, ep.termination, ep.goals + " goals / " + ep.turns + " turns", ep.duration_s + " s",
          ep.usage.requests + " requests, " + ep.usage.in + " in / " + ep.usage.out + " out tokens"].join(" \u00b7 "));
        if (ep.description) S.add(page, "p", "note", ep.description);
        S.add(page, "h2", null, "Verdicts"); verdicts(page, ep.scores); tau2(page, ep.tau2);
        S.add(page, "h2", null, "What the agent was shown"); shown(page, ep, chunk.shared);
        var rq = S.add(page, "h2", null, "Model requests"); rq.id = "requests-h"; requests(page, ep);
        S.add(page, "h2", null, "Conversation");
        var lastGoal = null;
        ep.events.forEach(function (ev, i) {
          if (ev.goal !== lastGoal && ev.k === "user_message" && !ev.replayed) {
            lastGoal = ev.goal;
            var gold = (ep.gold[ev.goal] || []).map(function (g) { return g.name + "(" + S.json(g.args, 300) + ")"; });
            S.add(page, "div", "goal", "goal " + ev.goal + " \u00b7 gold: " + (gold.join(", ") || "no call"));
          }
          page.appendChild(eventNode(ev, ep.steps[i]));
        });
        var st = S.add(page, "h2", null, "World state against the gold, per goal"); st.id = "state-h"; states(page, ep);
      });
    });
  };
})();
