"use strict";
// The memory palace: everything is drawn from the JSON embedded in the page; nothing is
// fetched (in --serve mode, only the page's own version URL is polled). Untrusted text is set
// with textContent; only the memory files' HTML, rendered and escaped by the server, is parsed.
(function () {
  const D = JSON.parse(document.getElementById("palace-data").textContent);
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };
  const svgNS = "http://www.w3.org/2000/svg";
  const runsById = {};
  D.runs.forEach((r) => { runsById[r.id] = r; });
  const filesByPath = {};
  D.files.forEach((f) => { filesByPath[f.path] = f; });
  const findingsByFile = {};
  D.findings.forEach((f) => { (findingsByFile[f.path] = findingsByFile[f.path] || []).push(f); });

  // -- header and tabs ---------------------------------------------------------------------
  $("#agent-name").textContent = D.agent.name;
  $("#meta").textContent = `${D.agent.model} · memory ${D.head ? D.head.slice(0, 7) : "(no commits)"}` +
    ` · ${D.files.length} files · ${D.runs.length} reflection runs · written ${D.generatedAt}` +
    (D.uncommitted.length ? ` · ${D.uncommitted.length} uncommitted change(s) not shown` : "");
  const tabs = ["memory", "timeline", "conversations", "charts", "doctor", "search"];
  function showTab(name) {
    tabs.forEach((t) => {
      $("#" + t).classList.toggle("on", t === name);
      $(`nav button[data-tab="${t}"]`).classList.toggle("on", t === name);
    });
  }
  tabs.forEach((t) => $(`nav button[data-tab="${t}"]`).addEventListener("click", () => showTab(t)));

  // -- the tree ------------------------------------------------------------------------------
  function bar(tokens, budget) {
    const b = el("span", "bar" + (budget && tokens > budget ? " over" : ""));
    const fill = el("i");
    fill.style.width = budget ? Math.min(100, (100 * tokens) / budget) + "%" : "0";
    b.appendChild(fill);
    b.title = budget ? `~${tokens} of ${budget} tokens` : `~${tokens} tokens (no budget outside system/)`;
    return b;
  }
  function flags(list) {
    const span = el("span");
    ["severe", "warning", "info"].forEach((s) => {
      const n = (list || []).filter((f) => f.severity === s).length;
      if (n) span.appendChild(el("span", "flag " + s, n));
    });
    return span;
  }
  function drawTree() {
    const root = { folders: {}, files: [] };
    D.files.forEach((f) => {
      const parts = f.path.split("/");
      let node = root;
      parts.slice(0, -1).forEach((p) => { node = node.folders[p] = node.folders[p] || { folders: {}, files: [] }; });
      node.files.push(f);
    });
    const tree = $("#tree");
    function draw(node, into, prefix) {
      Object.keys(node.folders).sort().forEach((name) => {
        const d = el("details");
        d.open = prefix === "" && (name === "system" || Object.keys(node.folders).length < 6);
        const s = el("summary", null, name + "/");
        const folderPath = prefix + name + "/";
        if (folderPath === "system/") {
          const total = D.files.filter((f) => f.path.startsWith("system/")).reduce((a, f) => a + f.tokens, 0);
          s.appendChild(bar(total, D.limits.systemTokens));
          s.appendChild(el("span", "count", `~${total}/${D.limits.systemTokens}`));
        }
        s.appendChild(flags(findingsByFile[folderPath]));
        d.appendChild(s);
        draw(node.folders[name], d, folderPath);
        into.appendChild(d);
      });
      node.files.forEach((f) => {
        const row = el("a", "file");
        row.dataset.path = f.path;
        row.appendChild(el("span", "name", f.path.split("/").pop()));
        row.appendChild(bar(f.tokens, f.budget));
        row.appendChild(el("span", "count", f.budget ? `~${f.tokens}/${f.budget}` : `~${f.tokens}`));
        row.appendChild(flags(findingsByFile[f.path]));
        row.appendChild(el("span", "desc", f.error ? "⚠ " + f.error : f.description));
        row.addEventListener("click", () => openFile(f.path));
        into.appendChild(row);
      });
    }
    draw(root, tree, "");
  }

  // -- one file, and a line's provenance -----------------------------------------------------
  let current = null;
  function openFile(path, line) {
    const f = filesByPath[path];
    if (!f) return;
    current = f;
    showTab("memory");
    document.querySelectorAll("#tree .file").forEach((a) => a.classList.toggle("on", a.dataset.path === path));
    const box = $("#file");
    box.textContent = "";
    const head = el("div", "head");
    head.appendChild(el("div", "path", f.path));
    head.appendChild(el("div", "desc", f.error ? "⚠ " + f.error : f.description));
    const size = el("div", "muted", f.budget ? `~${f.tokens} tokens of a ${f.budget}-token budget` :
      `~${f.tokens} tokens (outside system/: listed in the prompt, not inlined)`);
    size.appendChild(bar(f.tokens, f.budget));
    head.appendChild(size);
    (findingsByFile[f.path] || []).filter((x) => !x.line).forEach((x) => {
      head.appendChild(el("div", "line-finding " + x.severity, `${x.severity}: ${x.message} — ${x.advice}`));
    });
    box.appendChild(head);
    const body = el("div", "body");
    body.innerHTML = f.html;  // rendered and escaped by mini_letta.palace.markdown
    box.appendChild(body);
    body.querySelectorAll(".ln").forEach((node) => {
      const n = Number(node.dataset.l);
      const origin = commitOf(f, n);
      if (origin) node.classList.add(origin.run ? "reflected" : "hand");
      (findingsByFile[f.path] || []).filter((x) => x.line === n).forEach((x) => {
        node.classList.add("has-finding");
        const badge = el("span", "line-finding " + x.severity, x.kind.replace("_", " "));
        badge.title = `${x.message} — ${x.advice}`;
        node.appendChild(badge);
      });
      node.addEventListener("click", (ev) => { ev.stopPropagation(); showProvenance(node, n); });
      node.addEventListener("mouseenter", () => { if (!pinned) showProvenance(node, n, true); });
    });
    box.appendChild(popover);
    if (line) {
      const target = body.querySelector(`.ln[data-l="${line}"]`);
      if (target) { target.scrollIntoView({ block: "center" }); showProvenance(target, line); }
    }
  }
  function commitOf(f, n) {
    const index = f.lines[n - 1];
    return index === undefined ? null : D.commits[index];
  }
  const popover = el("div");
  popover.id = "popover";
  let pinned = false;
  document.addEventListener("click", () => { pinned = false; popover.classList.remove("on"); });
  function showProvenance(node, n, hover) {
    const f = current;
    document.querySelectorAll(".ln.sel").forEach((x) => x.classList.remove("sel"));
    node.classList.add("sel");
    pinned = !hover;
    popover.textContent = "";
    popover.appendChild(el("div", "muted", `${f.path}:${n}`));
    const origin = commitOf(f, n);
    if (!origin) {
      popover.appendChild(el("div", "src", "No recorded origin (a line past the end, or history that could not be read)."));
    } else if (origin.run) {
      const run = runsById[origin.run];
      popover.appendChild(el("div", "src", `Written by reflection run ${origin.run}` +
        (run ? ` (${run.status}${run.decision ? ", " + run.decision : ""})` : "")));
      popover.appendChild(el("div", "muted", `commit ${origin.sha.slice(0, 12)} · ${origin.time}`));
      const cited = f.cites[n] || [];
      if (!cited.length) popover.appendChild(el("div", "muted", "No evidence was cited for this line."));
      cited.forEach((id) => {
        const m = D.cited[id];
        const box = el("div", "msg");
        box.appendChild(el("span", "when", m ? `${m.role} · ${m.time} · ${m.conversation}` : id));
        box.appendChild(document.createTextNode(m ? m.text : "(cited, but no longer found)"));
        popover.appendChild(box);
      });
      if (run) {
        const go = el("a", null, "show the run in the timeline");
        go.href = "#run=" + run.id;
        go.addEventListener("click", (ev) => { ev.preventDefault(); openRun(run.id); });
        popover.appendChild(go);
      }
    } else {
      popover.appendChild(el("div", "src", `Written outside reflection: “${origin.subject}”`));
      popover.appendChild(el("div", "muted", `commit ${origin.sha.slice(0, 12)} · ${origin.time}` +
        " (a hand edit, the agent's own memory edit, an import, an undo or a sync)"));
    }
    (findingsByFile[f.path] || []).filter((x) => x.line === n).forEach((x) => {
      popover.appendChild(el("div", "line-finding " + x.severity, `${x.message} — ${x.advice}`));
    });
    popover.style.top = node.offsetTop + node.offsetHeight + 4 + "px";
    popover.style.left = "40px";
    popover.classList.add("on");
  }

  // -- timeline --------------------------------------------------------------------------------
  function diffNode(text) {
    const pre = el("pre", "diff");
    text.split("\n").forEach((line) => {
      const cls = line.startsWith("+") && !line.startsWith("+++") ? "add" :
        line.startsWith("-") && !line.startsWith("---") ? "del" : line.startsWith("@@") ? "hunk" : null;
      pre.appendChild(el("span", cls, line + "\n"));
    });
    return pre;
  }
  function coveredMessages(slice) {
    const conv = D.conversations.find((c) => c.id === slice.conversation);
    if (!conv) return [];
    return conv.messages.filter((m) => m.line >= slice.start && m.line < slice.end);
  }
  function drawTimeline() {
    const list = $("#runs");
    if (!D.runs.length) list.appendChild(el("p", "muted", "No reflection runs yet."));
    D.runs.slice().reverse().forEach((r) => {
      const d = el("details", "run");
      d.id = "run-" + r.id;
      const s = el("summary");
      const waiting = r.status === "rejected" && !r.decision ? " (waiting)" : "";
      s.appendChild(el("span", "status " + r.status, r.status + (r.decision ? ` (${r.decision})` : waiting)));
      s.appendChild(el("span", null, `${r.startedAt} · ${r.id} · ${r.trigger} · ${r.message}`));
      d.appendChild(s);
      d.addEventListener("toggle", () => {
        if (!d.open || d.dataset.drawn) return;
        d.dataset.drawn = "1";
        if (r.reasons.length) {
          d.appendChild(el("div", "src", "The memory gate's reasons:"));
          const ul = el("ul");
          r.reasons.forEach((x) => ul.appendChild(el("li", null, x)));
          d.appendChild(ul);
        }
        if (r.error && !r.reasons.includes(r.error)) d.appendChild(el("div", null, "Error: " + r.error));
        if (r.instruction) d.appendChild(el("div", null, "Instruction: " + r.instruction));
        r.slices.forEach((sl) => {
          const shown = coveredMessages(sl);
          d.appendChild(el("div", "muted", `${sl.mode} ${sl.conversation}: lines ${sl.start}–${sl.end - 1}, ` +
            `${sl.count} message(s)` + (shown.length < sl.count ? ` (${shown.length} of them embedded in this page)` : "")));
          shown.forEach((m) => {
            const box = el("div", "msg");
            box.appendChild(el("span", "when", `${m.role} · ${m.time}`));
            box.appendChild(document.createTextNode(m.text));
            d.appendChild(box);
          });
        });
        d.appendChild(r.diff ? diffNode(r.diff + (r.diffCut ? "\n… (diff cut)" : "")) :
          el("div", "muted", "No diff (nothing merged, or its commits are gone)."));
      });
      list.appendChild(d);
    });
  }
  function openRun(id) {
    showTab("timeline");
    const d = document.getElementById("run-" + id);
    if (d) { d.open = true; d.scrollIntoView({ block: "start" }); }
  }

  // -- conversations and their watermarks ------------------------------------------------------
  function drawConversations() {
    const box = $("#convs");
    if (!D.conversations.length) box.appendChild(el("p", "muted", "No conversations yet."));
    D.conversations.forEach((c) => {
      const div = el("div", "conv");
      div.appendChild(el("div", "src", `${c.title || "(untitled)"} — ${c.id}`));
      const wm = el("div", "wm");
      const fill = el("i");
      fill.style.width = c.length ? (100 * c.reflected) / c.length + "%" : "100%";
      wm.appendChild(fill);
      div.appendChild(wm);
      div.appendChild(el("div", "muted", `reflected through line ${c.reflected} of ${c.length}; ` +
        (c.behind ? `${c.behind} line(s) behind` : "up to date")));
      box.appendChild(div);
    });
  }

  // -- charts (inline SVG) ---------------------------------------------------------------------
  function chart(into, title, points, yMax, yLabel) {
    const box = el("div", "chart");
    box.appendChild(el("h3", null, title));
    if (points.length < 1) { box.appendChild(el("p", "muted", "Nothing to draw yet.")); into.appendChild(box); return; }
    const W = 800, H = 200, L = 50, B = 20;
    const svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H + B}`);
    svg.setAttribute("preserveAspectRatio", "xMinYMid meet");
    const max = yMax || Math.max(1, ...points.map((p) => p.y));
    const x = (i) => L + (points.length === 1 ? (W - L) / 2 : (i * (W - L - 10)) / (points.length - 1));
    const y = (v) => H - (v / max) * (H - 10);
    const axis = document.createElementNS(svgNS, "path");
    axis.setAttribute("d", `M${L} 5 V${H} H${W}`);
    axis.setAttribute("stroke", "#aaa"); axis.setAttribute("fill", "none");
    svg.appendChild(axis);
    [0, max].forEach((v) => {
      const t = document.createElementNS(svgNS, "text");
      t.setAttribute("x", 4); t.setAttribute("y", y(v) + 4); t.setAttribute("font-size", "11");
      t.textContent = yLabel(v);
      svg.appendChild(t);
    });
    const line = document.createElementNS(svgNS, "polyline");
    line.setAttribute("points", points.map((p, i) => `${x(i).toFixed(1)},${y(p.y).toFixed(1)}`).join(" "));
    line.setAttribute("fill", "none"); line.setAttribute("stroke", "#3b5bdb"); line.setAttribute("stroke-width", "2");
    line.setAttribute("class", "series");
    svg.appendChild(line);
    points.forEach((p, i) => {
      const c = document.createElementNS(svgNS, "circle");
      c.setAttribute("cx", x(i)); c.setAttribute("cy", y(p.y)); c.setAttribute("r", points.length > 200 ? 1 : 2.5);
      c.setAttribute("fill", p.mark ? "#c92a2a" : "#3b5bdb");
      const tip = document.createElementNS(svgNS, "title");
      tip.textContent = p.label;
      c.appendChild(tip);
      svg.appendChild(c);
    });
    const first = document.createElementNS(svgNS, "text");
    first.setAttribute("x", L); first.setAttribute("y", H + 15); first.setAttribute("font-size", "11");
    first.textContent = points[0].time.slice(0, 16);
    svg.appendChild(first);
    const last = document.createElementNS(svgNS, "text");
    last.setAttribute("x", W); last.setAttribute("y", H + 15); last.setAttribute("font-size", "11");
    last.setAttribute("text-anchor", "end");
    last.textContent = points[points.length - 1].time.slice(0, 16);
    svg.appendChild(last);
    box.appendChild(svg);
    into.appendChild(box);
  }
  function drawCharts() {
    const into = $("#chart-list");
    chart(into, "Memory size (estimated tokens of every .md file, after each commit)",
      D.sizes.map((s) => ({ y: s.tokens, time: s.time, mark: !!s.run,
        label: `${s.time}: ~${s.tokens} tokens in ${s.files} files${s.run ? " (run " + s.run + ")" : ""}` })),
      0, (v) => `${Math.round(v)}`);
    chart(into, `Context use per model call (input tokens of a ${D.limits.window}-token window)`,
      D.usage.map((u) => ({ y: u.input, time: u.time, label: `${u.time}: ${u.input} in, ${u.output} out (${u.conversation})` })),
      D.limits.window, (v) => `${Math.round((100 * v) / D.limits.window)}%`);
    const cached = D.usage.filter((u) => u.cacheShare !== null);
    chart(into, "Cache share per model call (where the provider reports it)",
      cached.map((u) => ({ y: u.cacheShare, time: u.time, label: `${u.time}: ${Math.round(100 * u.cacheShare)}% from cache` })),
      1, (v) => `${Math.round(100 * v)}%`);
  }

  // -- doctor ----------------------------------------------------------------------------------
  function drawDoctor() {
    const box = $("#findings");
    if (!D.findings.length) { box.appendChild(el("p", "muted", "The doctor found nothing.")); return; }
    const table = el("table", "findings");
    const head = el("tr");
    ["severity", "where", "what", "what to do"].forEach((h) => head.appendChild(el("th", null, h)));
    table.appendChild(head);
    D.findings.forEach((f) => {
      const tr = el("tr");
      tr.appendChild(el("td")).appendChild(el("span", "flag " + f.severity, f.severity));
      tr.appendChild(el("td", null, f.line ? `${f.path}:${f.line}` : f.path));
      tr.appendChild(el("td", null, f.message));
      tr.appendChild(el("td", null, f.advice));
      tr.addEventListener("click", () => openFile(f.path, f.line));
      table.appendChild(tr);
    });
    box.appendChild(table);
  }

  // -- search over what the page embeds ----------------------------------------------------------
  function fileText(f) {
    if (f._text === undefined) { const tmp = el("div"); tmp.innerHTML = f.html; f._text = tmp.textContent; }
    return f._text;
  }
  function snippet(text, at, q) {
    const start = Math.max(0, at - 60);
    const node = el("div");
    node.appendChild(document.createTextNode((start ? "…" : "") + text.slice(start, at)));
    node.appendChild(el("mark", null, text.slice(at, at + q.length)));
    node.appendChild(document.createTextNode(text.slice(at + q.length, at + q.length + 100) + "…"));
    return node;
  }
  function search(q) {
    const out = $("#hits");
    out.textContent = "";
    q = q.trim();
    if (q.length < 2) return;
    const needle = q.toLowerCase();
    let n = 0;
    D.files.forEach((f) => {
      const text = fileText(f);
      const at = text.toLowerCase().indexOf(needle);
      if (at < 0 || n >= 200) return;
      n++;
      const hit = el("div", "hit");
      hit.appendChild(el("div", "src", "memory: " + f.path));
      hit.appendChild(snippet(text, at, q));
      hit.addEventListener("click", () => openFile(f.path));
      out.appendChild(hit);
    });
    D.conversations.forEach((c) => c.messages.forEach((m) => {
      const at = m.text.toLowerCase().indexOf(needle);
      if (at < 0 || n >= 200) return;
      n++;
      const hit = el("div", "hit");
      hit.appendChild(el("div", "src", `${c.title || c.id} · ${m.role} · ${m.time}`));
      hit.appendChild(snippet(m.text, at, q));
      out.appendChild(hit);
    }));
    if (!n) out.appendChild(el("p", "muted", "No match."));
  }
  $("#search-note").textContent = `Searches memory and the most recent ${D.messageLimit} messages of each ` +
    "conversation embedded in this page (older messages are not in the page: `mini-letta search` finds them).";
  $("#search-box").addEventListener("input", (ev) => search(ev.target.value));

  drawTree();
  drawTimeline();
  drawConversations();
  drawCharts();
  drawDoctor();
  if (D.files.length) openFile((D.files.find((f) => f.path === "system/human.md") || D.files[0]).path);

  // Deep links: #file=PATH[:LINE] opens a line's provenance, #run=ID a run, #tab=NAME a tab.
  function follow() {
    const hash = decodeURIComponent(location.hash.slice(1));
    if (hash.startsWith("file=")) {
      const spec = hash.slice(5);
      const colon = spec.lastIndexOf(":");
      const line = colon > 0 ? Number(spec.slice(colon + 1)) : 0;
      openFile(line ? spec.slice(0, colon) : spec, line || undefined);
    } else if (hash.startsWith("run=")) openRun(hash.slice(4));
    else if (hash.startsWith("tab=") && tabs.includes(hash.slice(4))) showTab(hash.slice(4));
  }
  window.addEventListener("hashchange", follow);
  follow();

  // --serve: reload when memory or the runs change (the page's own URL only).
  const poll = document.querySelector('meta[name="palace-version"]');
  if (poll) {
    setInterval(() => {
      fetch("version", { cache: "no-store" }).then((r) => r.text()).then((v) => {
        if (v.trim() && v.trim() !== poll.content) location.reload();
      }).catch(() => {});
    }, 3000);
  }
})();
