"""`sparkfold explain --format html`: one self-contained page (no network fetch) showing
how each statement was optimized.

The page carries the explain JSON (`explain.explain_dict`, one entry per statement, as
`explain --format json` prints it) in a `<script type="application/json">` block, and a
small script of its own that draws, per statement:

- the source text with each finding marked where it is (hover for the message), and
  the findings listed;
- the analyzed and the optimized plans as trees (collapsible), with the operators the
  rewrites removed (analyzed) or made (optimized) highlighted;
- every rewrite step: rule, batch, iteration, time, and the changed subtree's line diff;
- the rule timeline: each rule's time, runs and effective runs, as bars;
- the optimized SQL.

When it has drawn everything it sets `data-rendered` on the page's root element to the
number of statements drawn; a script error sets `data-errors` (tests/test_explain_html.py
opens the page in headless Chromium and checks both).
"""

from __future__ import annotations

import html
import json

_STYLE = """
:root { --bg: #fff; --fg: #1d2330; --muted: #667085; --line: #d0d5dd; --add: #e7f6ec;
        --add-fg: #05603a; --del: #fdecea; --del-fg: #b42318; --mark: #fff3c4; --accent: #3538cd; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
       background: var(--bg); }
header.page { padding: 14px 24px; border-bottom: 1px solid var(--line); }
header.page h1 { margin: 0; font-size: 18px; }
header.page p { margin: 4px 0 0; color: var(--muted); }
section.statement { padding: 8px 24px 28px; border-bottom: 1px solid var(--line); }
h2 { font-size: 16px; margin: 16px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; color: var(--muted); text-transform: uppercase;
     letter-spacing: .04em; }
pre, code, .tree { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 0; padding: 10px 12px; background: #f8f9fb; border: 1px solid var(--line);
      border-radius: 6px; overflow-x: auto; white-space: pre; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
         background: #eef4ff; color: var(--accent); margin-left: 6px; }
.badge.same { background: #f2f4f7; color: var(--muted); }
.badge.pass { background: #fffaeb; color: #b54708; }
mark.finding { background: var(--mark); border-bottom: 2px solid #f79009; cursor: help; }
mark.finding.error { border-bottom-color: var(--del-fg); }
ul.findings { margin: 6px 0; padding-left: 20px; }
ul.findings li { margin: 2px 0; }
.sev-error { color: var(--del-fg); font-weight: 600; }
.sev-warning { color: #b54708; font-weight: 600; }
.sev-info { color: var(--accent); font-weight: 600; }
.plans { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.src { display: flex; border: 1px solid var(--line); border-radius: 6px; background: #f8f9fb; overflow-x: auto; }
.src pre { border: 0; border-radius: 0; background: transparent; overflow: visible; }
.src pre.gutter { color: var(--muted); text-align: right; user-select: none; border-right: 1px solid var(--line);
                  padding-right: 8px; }
.src .comment { color: var(--muted); }
p.settings { color: var(--muted); margin: 10px 24px 0; }
.tree { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow-x: auto; }
.tree ul { list-style: none; margin: 0; padding-left: 18px; border-left: 1px dotted var(--line); }
.tree > ul { padding-left: 0; border-left: 0; }
.tree li { margin: 1px 0; white-space: nowrap; }
.tree .node { padding: 0 4px; border-radius: 3px; }
.tree .node.changed { background: var(--add); color: var(--add-fg); }
.tree .node.removed { background: var(--del); color: var(--del-fg); }
.tree .toggle { cursor: pointer; color: var(--muted); user-select: none; display: inline-block; width: 14px; }
.tree li.closed > ul { display: none; }
details.step { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.step > summary { padding: 6px 10px; cursor: pointer; }
details.step > summary .rule { font-weight: 600; }
details.step > summary .meta { color: var(--muted); margin-left: 8px; }
.diff { padding: 6px 10px; }
.diff .path { color: var(--muted); margin: 6px 0 2px; }
.diff .line { display: block; white-space: pre; }
.diff .line.add { background: var(--add); color: var(--add-fg); }
.diff .line.del { background: var(--del); color: var(--del-fg); }
.timeline { display: grid; grid-template-columns: max-content 1fr max-content; gap: 3px 10px;
            align-items: center; }
.timeline .bar { height: 12px; background: #c7d7fe; border-radius: 2px; min-width: 2px; }
.timeline .bar.effective { background: var(--accent); }
.timeline .num { color: var(--muted); font-variant-numeric: tabular-nums; }
.empty { color: var(--muted); font-style: italic; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var root = document.documentElement;
  window.addEventListener("error", function (ev) {
    root.dataset.errors = (root.dataset.errors ? root.dataset.errors + " | " : "") + ev.message;
  });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "cls") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function ms(seconds) { return (seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1) + " ms"; }

  // Plan text (Catalyst's tree string) -> nested nodes, by the depth of each line's prefix.
  function parsePlan(text) {
    var top = { text: "", kids: [], depth: -1 }, stack = [top];
    (text || "").split("\n").forEach(function (raw) {
      if (!raw.trim()) return;
      var m = raw.match(/^([ :|]*[+:]- )(.*)$/);
      var node = m ? { text: m[2], kids: [], depth: m[1].length } : { text: raw, kids: [], depth: 0 };
      while (stack.length > 1 && stack[stack.length - 1].depth >= node.depth) stack.pop();
      stack[stack.length - 1].kids.push(node);
      stack.push(node);
    });
    return top.kids;
  }

  function countLines(text) {
    var seen = {};
    (text || "").split("\n").forEach(function (l) {
      var t = l.replace(/^[ :|]*[+:]- /, "");
      seen[t] = (seen[t] || 0) + 1;
    });
    return seen;
  }

  function drawTree(text, other, mark) {
    var others = countLines(other), box = el("div", { cls: "tree" });
    function draw(nodes) {
      var ul = el("ul");
      nodes.forEach(function (n) {
        var li = el("li"), toggle = el("span", { cls: "toggle", text: n.kids.length ? "\u25be" : "" });
        var label = el("span", { cls: "node", text: n.text, title: n.text });
        if (others[n.text]) others[n.text] -= 1; else label.className += " " + mark;
        if (n.kids.length) {
          toggle.addEventListener("click", function () {
            li.classList.toggle("closed");
            toggle.textContent = li.classList.contains("closed") ? "\u25b8" : "\u25be";
          });
        }
        li.appendChild(toggle); li.appendChild(label);
        if (n.kids.length) li.appendChild(draw(n.kids));
        ul.appendChild(li);
      });
      return ul;
    }
    box.appendChild(draw(parsePlan(text)));
    return box;
  }

  // The source text with each finding's span marked, the comments written just above the
  // statement (its description, most often) before it, and the file's line numbers beside.
  function drawSource(doc, sql, findings) {
    var lead = doc.comments || "", text = lead + sql;
    var lines = sql.split("\n"), starts = [0];
    for (var i = 0; i < lines.length; i++) starts.push(starts[i] + lines[i].length + 1);
    function offset(line, column) { return lead.length + Math.min(sql.length, (starts[line - 1] || 0) + column - 1); }
    var spans = findings.filter(function (f) { return f.line; }).map(function (f) {
      // end_line / end_column point at the finding's last character
      var a = offset(f.line, f.column), b = f.end_line ? offset(f.end_line, f.end_column) + 1 : a + 1;
      return { a: a, b: Math.max(b, a + 1), f: f };
    }).sort(function (x, y) { return x.a - y.a || y.b - x.b; });
    // text [a, b) into node, each finding inside it marked; a finding inside another one's
    // span is marked inside that one's mark (one that only overlaps it is not marked)
    function fill(node, a, b, within) {
      var at = a;
      within.forEach(function (s) {
        if (s.a < at) return;
        node.appendChild(document.createTextNode(text.slice(at, s.a)));
        var mark = el("mark", { cls: "finding " + s.f.severity, title: s.f.code + ": " + s.f.message });
        fill(mark, s.a, s.b, within.filter(function (t) { return t !== s && t.a >= s.a && t.b <= s.b; }));
        node.appendChild(mark);
        at = s.b;
      });
      node.appendChild(document.createTextNode(text.slice(at, b)));
    }
    var pre = el("pre", { cls: "source" });
    if (lead) pre.appendChild(el("span", { cls: "comment", text: lead }));
    fill(pre, lead.length, text.length, spans);
    var first = (doc.line || 1) - (lead.split("\n").length - 1), numbers = [];
    for (var n = 0; n < text.split("\n").length; n++) numbers.push(String(first + n));
    return el("div", { cls: "src" }, [el("pre", { cls: "gutter", text: numbers.join("\n") }), pre]);
  }

  // A finding's position in its file: its own counts from the statement's first character.
  function where(doc, f) {
    if (!f.line) return "";
    var line = (doc.line || 1) + f.line - 1, column = f.line === 1 ? (doc.column || 1) + f.column - 1 : f.column;
    return (doc.source || "") + ":" + line + ":" + column + " ";
  }

  function drawFindings(doc, findings) {
    if (!findings.length) return el("p", { cls: "empty", text: "No findings." });
    var ul = el("ul", { cls: "findings" });
    findings.forEach(function (f) {
      ul.appendChild(el("li", {}, [
        el("span", { cls: "sev-" + f.severity, text: f.severity }),
        document.createTextNode(" " + where(doc, f) + f.message + " "),
        el("code", { text: "[" + f.code + "]" }),
        f.suggestion ? document.createTextNode(" \u2014 " + f.suggestion) : null
      ]));
    });
    return ul;
  }

  function drawSteps(rewrites) {
    if (!rewrites.length) return el("p", { cls: "empty", text: "No rule changed the plan." });
    var box = el("div");
    rewrites.forEach(function (r) {
      var body = el("div", { cls: "diff" });
      (r.places || []).forEach(function (p) {
        body.appendChild(el("div", { cls: "path", text: "at " + (p.path || []).join(" \u203a ") }));
        (p.diff || []).forEach(function (line) {
          var kind = line.charAt(0) === "+" ? " add" : line.charAt(0) === "-" ? " del" : "";
          body.appendChild(el("span", { cls: "line" + kind, text: line }));
        });
      });
      if (r.more_places) body.appendChild(el("p", { cls: "empty", text: "\u2026 and " + r.more_places + " more places" }));
      box.appendChild(el("details", { cls: "step" }, [
        el("summary", {}, [el("span", { cls: "rule", text: "#" + (r.index + 1) + " " + r.rule }),
                           el("span", { cls: "meta", text: r.batch + ", iteration " + r.iteration + ", " + ms(r.seconds) })]),
        body]));
    });
    return box;
  }

  function drawTimeline(summary) {
    var rules = (summary.rules || []).slice().sort(function (a, b) { return b.seconds - a.seconds; });
    if (!rules.length) return el("p", { cls: "empty", text: "No rule ran." });
    var most = Math.max.apply(null, rules.map(function (r) { return r.seconds; }).concat([1e-9]));
    var grid = el("div", { cls: "timeline" });
    rules.forEach(function (r) {
      grid.appendChild(el("span", { text: r.name }));
      var bar = el("div", { cls: "bar" + (r.effective ? " effective" : ""), title: r.runs + " runs, " + r.effective + " effective" });
      bar.style.width = (100 * r.seconds / most).toFixed(1) + "%";
      grid.appendChild(bar);
      grid.appendChild(el("span", { cls: "num", text: ms(r.seconds) + " \u00b7 " + r.effective + "/" + r.runs }));
    });
    return grid;
  }

  function drawStatement(doc) {
    if (doc.error) {  // a statement that could not be analyzed: its error, where it is
      var e = el("section", { cls: "statement", id: "statement-" + doc.statement });
      e.appendChild(el("h2", {}, [document.createTextNode((doc.source || "statement") + ":" + doc.line),
                                  el("span", { cls: "badge pass", text: "not analyzed" })]));
      e.appendChild(el("p", { cls: "sev-error", text: doc.error }));
      return e;
    }
    var d = doc.explain, s = el("section", { cls: "statement", id: "statement-" + doc.statement });
    var state = d.passthrough ? el("span", { cls: "badge pass", text: "passed through: " + d.passthrough })
      : d.changed ? el("span", { cls: "badge", text: (d.rewrites || []).length + " rewrites" })
      : el("span", { cls: "badge same", text: "unchanged" });
    s.appendChild(el("h2", {}, [document.createTextNode((doc.source || "statement") + ":" + doc.line), state]));
    s.appendChild(el("h3", { text: "Source and findings" }));
    s.appendChild(drawSource(doc, d.original_sql || "", d.findings || []));
    s.appendChild(drawFindings(doc, d.findings || []));
    if (d.plans && d.plans.analyzed) {
      s.appendChild(el("h3", { text: "Plans (analyzed | optimized)" }));
      s.appendChild(el("div", { cls: "plans" }, [
        drawTree(d.plans.analyzed, d.plans.optimized, "removed"),
        drawTree(d.plans.optimized, d.plans.analyzed, "changed")]));
    }
    s.appendChild(el("h3", { text: "Rewrites" }));
    s.appendChild(drawSteps(d.rewrites || []));
    s.appendChild(el("h3", { text: "Rule timeline (time \u00b7 effective/runs)" }));
    s.appendChild(drawTimeline(d.summary || {}));
    s.appendChild(el("h3", { text: "Optimized SQL" }));
    s.appendChild(el("pre", { text: d.sql || "" }));
    return s;
  }

  var data = JSON.parse(document.getElementById("sparkfold-data").textContent);
  var main = document.getElementById("statements");
  // SET / RESET statements change the settings the queries after them run with: one line
  // each above the cards, not cards of their own
  var settings = data.statements.filter(function (doc) {
    return !doc.error && /^\s*(SET|RESET)\b/i.test(doc.explain.original_sql || "");
  });
  if (settings.length) {
    main.appendChild(el("p", { cls: "settings", text: "Settings: " + settings.map(function (doc) {
      return doc.explain.original_sql.trim() + " (" + (doc.source || "statement") + ":" + doc.line + ")";
    }).join("; ") }));
  }
  data.statements.forEach(function (doc) { if (settings.indexOf(doc) < 0) main.appendChild(drawStatement(doc)); });
  root.dataset.rendered = String(data.statements.length);
  // the page's width against the window's: wide plans scroll in their own boxes
  root.dataset.width = document.documentElement.scrollWidth + "/" + window.innerWidth;
})();
"""


def render_html(doc: dict, title: str = "sparkfold explain") -> str:
    """The page for `doc`, the document `explain --format json` prints
    (`{"format_version": ..., "statements": [...]}`)."""
    data = json.dumps(doc, default=str).replace("</", "<\\/").replace("<!--", "<\\!--")
    n = len(doc.get("statements", []))
    explained = [s["explain"] for s in doc.get("statements", []) if "explain" in s]
    rewritten = sum(1 for d in explained if d.get("changed"))
    findings = sum(len(d.get("findings") or []) for d in explained)
    failed = n - len(explained)
    subtitle = f"{n} statement{'s' * (n != 1)}, {rewritten} rewritten, {findings} finding{'s' * (findings != 1)}" + \
        (f", {failed} not analyzed" if failed else "")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header class="page"><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header>
<main id="statements"></main>
<noscript><p>This page draws the plans with its own script; the data is in the page's
sparkfold-data block (the JSON of <code>sparkfold explain --format json</code>).</p></noscript>
<script type="application/json" id="sparkfold-data">{data}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
