/* earnest report: filters and the reply/trajectory viewer.
 * Model output is untrusted: it is only ever put on the page with textContent, never as markup.
 * The data comes from the JSON data element #earnest-data: parsed, never run. */
(function () {
  "use strict";
  var dataEl = document.getElementById("earnest-data");
  var DATA = dataEl ? JSON.parse(dataEl.textContent) : {};
  var ITEMS = Object.assign({}, DATA.samples || {}, DATA.trajectories || {});
  var PROMPTS = DATA.prompts || {};
  var FIXTURES = DATA.fixtures || {};
  var KEYS = ["verdict", "fixture", "profile", "arm"];
  var filters = { verdict: "", fixture: "", profile: "", arm: "" };
  var viewer = document.getElementById("viewer");
  var current = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function verdictMatches(value, want) {
    if (!want) { return true; }
    if (want === "any-failure") { return value.indexOf("fail-") === 0; }
    return value === want;
  }

  function matches(node) {
    for (var i = 0; i < KEYS.length; i++) {
      var k = KEYS[i];
      var want = filters[k];
      var have = node.getAttribute("data-" + k);
      if (!want || have === null) { continue; }
      if (k === "verdict" ? !verdictMatches(have, want) : have !== want) { return false; }
    }
    return true;
  }

  function apply() {
    var rows = document.querySelectorAll("tr.item, tr.sditem");
    var shown = 0, total = 0;  // samples: a said-versus-did row (tr.sditem) is not another one
    rows.forEach(function (r) {
      var ok = matches(r);
      r.classList.toggle("hidden", !ok);
      if (r.classList.contains("item")) { total++; if (ok) { shown++; } }
    });
    document.querySelectorAll("[data-filter-scope] [data-fixture]:not(.item):not(.sditem), [data-filter-scope] [data-profile]:not(.item):not(.sditem)")
      .forEach(function (n) {
        if (n.classList.contains("sq")) { return; }
        var keep = true;
        ["fixture", "profile", "arm"].forEach(function (k) {
          var have = n.getAttribute("data-" + k);
          if (filters[k] && have !== null && have !== filters[k]) { keep = false; }
        });
        n.classList.toggle("hidden", !keep);
      });
    document.querySelectorAll(".sq[data-verdict]").forEach(function (s) {
      if (s.closest(".legend")) { return; }
      s.classList.toggle("dim", !verdictMatches(s.getAttribute("data-verdict"), filters.verdict));
    });
    var count = document.getElementById("filter-count");
    if (count) { count.textContent = "showing " + shown + " of " + total; }
    KEYS.forEach(function (k) {
      var s = document.getElementById("filter-" + k);
      if (s && s.value !== filters[k]) { s.value = filters[k]; }
    });
    writeHash();
  }

  function writeHash() {
    var p = new URLSearchParams();
    KEYS.forEach(function (k) { if (filters[k]) { p.set(k, filters[k]); } });
    if (current) { p.set("open", current); }
    var h = p.toString();
    try { history.replaceState(null, "", h ? "#" + h : location.pathname + location.search); } catch (e) { /* file: URLs in some browsers */ }
  }

  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    KEYS.forEach(function (k) { filters[k] = p.get(k) || ""; });
    return p.get("open");
  }

  function visibleKeys() {
    var keys = [];
    var item = current ? ITEMS[current] : null;
    var rows = item && item.kind === "trajectory" ? "tr.titem:not(.hidden)" : "tr.item:not(.hidden)";
    document.querySelectorAll(rows).forEach(function (r) { keys.push(r.getAttribute("data-key")); });
    return keys;
  }

  function addRow(dl, term, value) {
    if (value === undefined || value === null || value === "") { return; }
    dl.appendChild(el("dt", "", term));
    dl.appendChild(el("dd", "", value));
  }

  function block(parent, title, text, collapsed) {
    if (collapsed) {
      var d = el("details");
      d.appendChild(el("summary", "", title));
      d.appendChild(el("pre", "", text));
      parent.appendChild(d);
    } else {
      parent.appendChild(el("h4", "", title));
      parent.appendChild(el("pre", "", text));
    }
  }

  function renderSample(body, s) {
    var fx = FIXTURES[s.fixture_id] || {};
    var dl = el("dl");
    addRow(dl, "fixture", s.fixture_id + (fx.title ? " — " + fx.title : ""));
    addRow(dl, "rule", s.rule + (fx.rule_title ? " — " + fx.rule_title : ""));
    addRow(dl, "agent", s.agent);
    addRow(dl, "profile", s.profile);
    if (s.model && s.model !== s.profile) { addRow(dl, "model", s.model); }
    addRow(dl, "arm", s.arm + (s.gating ? "" : " (RED baseline: the rule removed; never gates)"));
    addRow(dl, "epoch", s.epoch === null ? "" : s.epoch);
    addRow(dl, "source", s.source);
    addRow(dl, "envelope", s.envelope);
    body.appendChild(dl);
    body.appendChild(el("h4", "", "Verdict"));
    body.appendChild(el("p", "", (s.verdict || "void") + ": " + (s.reason || s.error || "")));
    if (s.criteria && s.criteria.length) {
      var ul = el("ul");
      s.criteria.forEach(function (c) {
        var cls = c.passed === true ? "crit-pass" : (c.passed === false ? "crit-fail" : "crit-na");
        ul.appendChild(el("li", cls, c.name + (c.detail ? ": " + c.detail : "")));
      });
      body.appendChild(ul);
    }
    if (s.action && s.action.did) {
      var a = s.action, d = a.did, sd = el("dl");
      body.appendChild(el("h4", "", "Said versus did"));
      addRow(sd, "said", (a.said || "-") + (a.said_text ? " — " + a.said_text : ""));
      addRow(sd, "commands", (d.commands || []).map(function (c) {
        return (c.ok ? "ok" : "failed") + ": $ " + c.command;
      }).join(" | ") || "none");
      addRow(sd, "created", (d.created || []).join(", ") || "none");
      addRow(sd, "changed", (d.changed || []).join(", ") || "none");
      addRow(sd, "deleted", (d.deleted || []).join(", ") || "none");
      addRow(sd, "found", (a.found || []).join("; ") || "none");
      addRow(sd, "missing", (a.missing || []).join("; ") || "none");
      body.appendChild(sd);
    }
    if (s.verdict && s.verdict !== "pass") {
      body.appendChild(el("h4", "", "Rationalizations"));
      if (s.matched && s.matched.length) {
        var ru = el("ul");
        s.matched.forEach(function (m) { ru.appendChild(el("li", "", m)); });
        body.appendChild(ru);
      } else if (s.unmatched_failure) {
        body.appendChild(el("p", "warnbox", "None of the fixture's recorded excuses matched: read the reply, and record the new excuse with its counter."));
      } else {
        body.appendChild(el("p", "note", "none (the reply has no prose besides its decision)"));
      }
    }
    block(body, "Reply", s.reply === "" ? "(empty reply)" : s.reply, false);
    if (s.raw_reply) { block(body, "Raw reply (" + (s.envelope || "envelope") + ")", s.raw_reply, true); }
    var p = s.prompt ? PROMPTS[s.prompt] : null;
    if (p) {
      body.appendChild(el("h4", "", "Prompt it answered"));
      if (p.note) { body.appendChild(el("p", "note", p.note)); }
      block(body, "System prompt (agent doc, " + s.arm + " arm)", p.system, true);
      block(body, "User prompt", p.user, false);
    } else {
      body.appendChild(el("p", "note", "No prompt to show for this sample."));
    }
  }

  function renderTrajectory(body, t) {
    var dl = el("dl");
    addRow(dl, "source", t.source);
    addRow(dl, "id", t.id);
    addRow(dl, "format", t.format);
    addRow(dl, "termination", t.termination);
    addRow(dl, "tool calls", String((t.tool_calls || []).length));
    addRow(dl, "aggregate", t.aggregate === null || t.aggregate === undefined ? "" : t.aggregate.toFixed(2));
    body.appendChild(dl);
    body.appendChild(el("h4", "", "Outcome"));
    body.appendChild(el("p", "", t.outcome + ": " + (t.reason || "")));
    if (t.scores && t.scores.length) {
      body.appendChild(el("h4", "", "Dimension scores"));
      var ul = el("ul");
      t.scores.forEach(function (sc) {
        ul.appendChild(el("li", "", sc.dimension + ": " + sc.score.toFixed(2) +
          " (confidence " + sc.confidence.toFixed(2) + ")" + (sc.detail ? " — " + sc.detail : "")));
      });
      body.appendChild(ul);
    }
    block(body, "Request (the prompt it answered)", t.request || "(no user request found)", false);
    if (t.tool_calls && t.tool_calls.length) {
      body.appendChild(el("h4", "", "Tool calls"));
      var ol = el("ol");
      t.tool_calls.forEach(function (c) {
        var li = el("li");
        li.appendChild(el("strong", "", c.name));
        li.appendChild(el("span", "note", " " + c.outcome + (c.target ? " · " + c.target : "")));
        var d = el("details");
        d.appendChild(el("summary", "", "input and output"));
        d.appendChild(el("pre", "", c.input || "{}"));
        if (c.output) { d.appendChild(el("pre", "", c.output)); }
        li.appendChild(d);
        ol.appendChild(li);
      });
      body.appendChild(ol);
    }
    block(body, "Final message", t.final_message || "(none)", false);
    if (t.messages && t.messages.length) {
      var md = el("details");
      md.appendChild(el("summary", "", "Conversation (" + t.messages.length + " messages)"));
      t.messages.forEach(function (m) {
        md.appendChild(el("h4", "", m.role));
        md.appendChild(el("pre", "", m.text));
      });
      body.appendChild(md);
    }
  }

  function open(key) {
    var item = ITEMS[key];
    if (!item || !viewer) { return; }
    current = key;
    var head = viewer.querySelector(".vhead");
    var body = viewer.querySelector(".vbody");
    head.textContent = "";
    body.textContent = "";
    var verdict = item.kind === "trajectory" ? item.outcome : (item.verdict || "void");
    head.appendChild(el("span", "badge " + verdict, verdict));
    var title = item.kind === "trajectory" ? String(item.source).split("/").pop() : item.fixture_id + " · " + item.profile + " · " + item.arm +
      (item.epoch === null || item.epoch === undefined ? "" : " · epoch " + item.epoch);
    head.appendChild(el("h3", "", title));
    head.appendChild(el("span", "sp"));
    [["prev", "‹ previous"], ["next", "next ›"], ["close", "close"]].forEach(function (b) {
      var btn = el("button", "open", b[1]);
      btn.setAttribute("data-act", b[0]);
      head.appendChild(btn);
    });
    if (item.kind === "trajectory") { renderTrajectory(body, item); } else { renderSample(body, item); }
    if (!viewer.open) { viewer.showModal(); }
    viewer.scrollTop = 0;
    writeHash();
  }

  function step(delta) {
    var keys = visibleKeys();
    if (!keys.length) { return; }
    var i = keys.indexOf(current);
    var next = i < 0 ? 0 : (i + delta + keys.length) % keys.length;
    open(keys[next]);
  }

  function close() {
    current = null;
    if (viewer && viewer.open) { viewer.close(); }
    writeHash();
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!(t instanceof Element)) { return; }
    var act = t.closest("[data-act]");
    if (act) {
      var a = act.getAttribute("data-act");
      if (a === "prev") { step(-1); } else if (a === "next") { step(1); } else if (a === "close") { close(); }
      else if (a === "reset") { KEYS.forEach(function (k) { filters[k] = ""; }); apply(); }
      return;
    }
    var opener = t.closest("[data-open]");
    if (opener) { ev.preventDefault(); open(opener.getAttribute("data-open")); return; }
    var cell = t.closest("td.cell[data-cell]");
    if (cell) {
      filters.fixture = cell.getAttribute("data-cell-fixture") || "";
      filters.profile = cell.getAttribute("data-profile") || "";
      filters.arm = cell.getAttribute("data-arm") || "";
      apply();
      var list = document.getElementById("replies");
      if (list) { list.scrollIntoView(); }
      return;
    }
    var row = t.closest("tr.item[data-key], tr.titem[data-key], tr.sditem[data-key]");
    if (row && !t.closest("a,button,select,summary")) { open(row.getAttribute("data-key")); }
  });

  KEYS.forEach(function (k) {
    var s = document.getElementById("filter-" + k);
    if (s) { s.addEventListener("change", function () { filters[k] = s.value; apply(); }); }
  });

  // Trajectories: the outcome filter and the search box together decide what is shown.
  var outcome = document.getElementById("filter-outcome");
  var search = document.getElementById("search-trajectories");
  function filterTrajectories() {
    var want = outcome ? outcome.value : "";
    var words = search ? search.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    document.querySelectorAll("tr.titem").forEach(function (r) {
      var text = (r.textContent + " " + (r.cells[0] ? r.cells[0].title : "")).toLowerCase();
      var hide = (!!want && r.getAttribute("data-outcome") !== want) ||
        words.some(function (w) { return text.indexOf(w) < 0; });
      r.classList.toggle("hidden", hide);
    });
  }
  if (outcome) { outcome.addEventListener("change", filterTrajectories); }
  if (search) { search.addEventListener("input", filterTrajectories); }

  // Sortable tables: a click on a heading sorts by that column, again reverses.
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      var kind = th.getAttribute("data-type");
      if (kind === "none") { return; }
      th.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
          if (kind === "num") {
            var nx = x === "" ? -Infinity : parseFloat(x), ny = y === "" ? -Infinity : parseFloat(y);
            return (nx - ny) * dir;
          }
          return x.localeCompare(y, undefined, { numeric: true }) * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  if (viewer) {
    viewer.addEventListener("close", function () { current = null; writeHash(); });
    viewer.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowRight") { step(1); } else if (ev.key === "ArrowLeft") { step(-1); }
    });
  }

  var toOpen = readHash();
  apply();
  if (toOpen) { open(toOpen); }
  document.documentElement.setAttribute("data-ready", "1");
})();
