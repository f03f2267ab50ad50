// skillshelf ui: one page, five views, no dependencies. Every text from skills, memories or
// files is put in the page with textContent (never parsed as HTML): skill files are untrusted.
"use strict";

const TOKEN = document.querySelector('meta[name="skillshelf-token"]').content;
const VIEWS = ["budget", "task", "problems", "memory", "usage"];
const WINDOWS = [
  ["", "From the config (or Codex's)"],
  ["128000", "128,000 tokens"],
  ["200000", "200,000 tokens (Claude)"],
  ["272000", "272,000 tokens (GPT-5 in Codex)"],
  ["400000", "400,000 tokens"],
  ["1000000", "1,000,000 tokens"],
];
const STATE_LABEL = { full: "full", cut: "cut", name_only: "name only", omitted: "omitted" };
const PART_COLORS = ["instructions", "catalog", "pinned", "memory", "suggestions", "mentioned"];
const settings = {
  profile: "codex", window: "", validate: "codex", query: "", top: "10",
  stateFilter: "all", skillFilter: "", severities: { error: true, warning: true, info: false }, problemFilter: "",
};
const page = { view: null, version: 0, overview: null, loads: new Map(), source: null, live: null, watching: true };
window.__skillshelf = { rendered: {}, errors: [], page };  // for the browser tests and bench/ui.py
window.addEventListener("error", (e) => window.__skillshelf.errors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.__skillshelf.errors.push(String(e.reason)));
document.addEventListener("securitypolicyviolation", (e) => window.__skillshelf.errors.push(`CSP: ${e.violatedDirective} ${e.blockedURI}`));

// ---- small helpers -----------------------------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}
const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : n ?? "–");
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const when = (ms) => (ms ? new Date(ms).toLocaleString() : "never");
const shortPath = (p, root) => (root && p.startsWith(root + "/") ? p.slice(root.length + 1) : p);

class ApiError extends Error {
  constructor(data, status) {
    super(data.message || `HTTP ${status}`);
    this.data = data;
  }
}

async function api(path, params = {}, init = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params)) if (v !== "" && v !== null && v !== undefined) url.searchParams.set(k, v);
  const res = await fetch(url, { ...init, headers: { "X-Skillshelf-Token": TOKEN, ...(init.headers || {}) } });
  const data = await res.json().catch(() => ({ message: `HTTP ${res.status}` }));
  if (!res.ok) throw new ApiError(data, res.status);
  return data;
}

function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.hidden = true), 4000);
}

function problem(err) {
  const data = err instanceof ApiError ? err.data : { message: String(err) };
  return h("div", { class: "callout error" },
    h("strong", { text: data.error ? `${data.error}: ` : "Error: " }), data.message || "",
    data.fix ? h("div", { class: "fix", text: `Fix: ${data.fix}` }) : null);
}

function select(id, value, options, onchange) {
  const el = h("select", { id, onchange: (e) => onchange(e.target.value) },
    options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
  return el;
}

function card(label, value, testid, note) {
  return h("div", { class: "card", dataset: { testid } },
    h("div", { class: "card-value", text: value }), h("div", { class: "card-label", text: label }),
    note ? h("div", { class: "card-note", text: note }) : null);
}

function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", { text: title }), ...children);
}

function painted(view) {
  requestAnimationFrame(() => {
    const at = performance.now();
    window.__skillshelf.rendered[view] = window.__skillshelf.rendered[view] || at;
    document.getElementById("view").dataset.ready = `${view}:${page.version}`;
  });
}

// ---- budget ------------------------------------------------------------------------------
async function showBudget(main) {
  const data = await api("/api/budget", { profile: settings.profile, window: settings.window });
  const report = data.catalog || {};
  const counts = { full: 0, cut: 0, name_only: 0, omitted: 0 };
  for (const s of data.skills) counts[s.state] += 1;
  const controls = h("div", { class: "controls" },
    h("label", {}, "Agent ", select("profile", settings.profile,
      [["codex", "Codex (AGENTS.md)"], ["claude", "Claude Code (CLAUDE.md)"]], (v) => { settings.profile = v; refresh(); })),
    h("label", {}, "Context window ", windowPicker()));
  const budget = report.budget || {};
  const cards = h("div", { class: "cards" },
    card("skills listed", `${fmt(report.included)} of ${fmt(report.total)}`, "included"),
    card("descriptions cut", fmt(report.truncated_count), "truncated-count", `${fmt(report.truncated_chars)} characters`),
    card("left out", fmt(report.omitted), "omitted"),
    card(`catalog budget (${budget.unit || "–"})`, `${fmt(budget.used)} / ${fmt(budget.limit)}`, "budget-used",
      `level ${report.level ?? "–"}${report.aliased ? ", root aliases" : ""}; entries only, the intro is free`),
    card("skills found", fmt(data.found), "found", report.hidden ? `${report.hidden} hidden` : null));
  fill(main, 
    h("div", { class: "view-head" }, h("h1", { text: "Context budget" }), controls),
    cards,
    budgetBar(data),
    report.warning ? h("div", { class: "callout warn", dataset: { testid: "budget-warning" }, text: report.warning }) : null,
    skillsPanel(data, counts),
    rootsPanel(data.roots),
    duplicatesPanel(data.duplicates),
    section("The catalog the model reads", h("details", {}, h("summary", { text: `${fmt(data.catalog_text.length)} characters` }),
      h("pre", { class: "text", text: data.catalog_text || "(empty: no skill is listed)" }))));
}

function windowPicker() {
  const known = WINDOWS.some(([v]) => v === settings.window);
  const options = known ? WINDOWS : [...WINDOWS, [settings.window, `${fmt(Number(settings.window))} tokens`]];
  const wrap = h("span", { class: "window" });
  const input = h("input", { type: "number", min: "0", step: "1000", placeholder: "tokens", id: "window-custom",
    value: known ? "" : settings.window,
    onchange: (e) => { settings.window = e.target.value; refresh(); } });
  wrap.append(select("window", settings.window, options, (v) => { settings.window = v; refresh(); }), input);
  return wrap;
}

function budgetBar(data) {
  const parts = data.parts.filter((p) => p.tokens > 0);
  const total = parts.reduce((a, p) => a + p.tokens, 0) || 1;
  const bar = h("div", { class: "bar", role: "img", "aria-label": "Context parts by tokens" });
  const legend = h("ul", { class: "legend" });
  for (const part of parts) {
    const seg = h("div", { class: `seg part-${PART_COLORS.includes(part.name) ? part.name : "other"}${part.reserved ? " reserved" : ""}`,
      title: `${part.title}: ${fmt(part.tokens)} tokens` });
    seg.style.width = `${(100 * part.tokens) / total}%`;
    bar.append(seg);
    legend.append(h("li", { dataset: { part: part.name } },
      h("span", { class: `swatch part-${part.name}${part.reserved ? " reserved" : ""}` }),
      h("span", { class: "legend-title", text: part.title }), h("span", { class: "legend-value", text: `${fmt(part.tokens)} tokens` })));
  }
  const used = data.parts.filter((p) => !p.reserved).reduce((a, p) => a + p.tokens, 0);
  const caption = data.window
    ? `${fmt(used)} tokens before the task, ${pct(used / data.window)} of a ${fmt(data.window)}-token window${data.model ? ` (${data.model})` : ""}; the catalog gets ${data.budget.text}: ${data.budget.source}`
    : `${fmt(used)} tokens before the task; the catalog gets ${data.budget.text}: ${data.budget.source}`;
  return section("What the context holds", h("p", { class: "muted", dataset: { testid: "bar-caption" }, text: caption }), bar, legend);
}

function skillsPanel(data, counts) {
  const tbody = h("tbody");
  const filterRows = () => {
    const needle = settings.skillFilter.toLowerCase();
    let shown = 0;
    for (const row of tbody.children) {
      const ok = (settings.stateFilter === "all" || row.dataset.state === settings.stateFilter)
        && (!needle || row.dataset.name.includes(needle));
      row.hidden = !ok;
      shown += ok ? 1 : 0;
    }
    status.textContent = `${fmt(shown)} shown`;
  };
  const status = h("span", { class: "muted" });
  const chips = h("div", { class: "chips" }, ["all", "full", "cut", "name_only", "omitted"].map((key) =>
    h("button", { type: "button", class: `chip state-${key}${settings.stateFilter === key ? " on" : ""}`, dataset: { state: key },
      onclick: (e) => { settings.stateFilter = key; for (const c of chips.children) c.classList.toggle("on", c === e.currentTarget); filterRows(); } },
      `${key === "all" ? "all" : STATE_LABEL[key]} `, h("b", { dataset: { count: key }, text: fmt(key === "all" ? data.skills.length : counts[key]) }))));
  const rows = document.createDocumentFragment();
  for (const s of data.skills) {
    const shown = s.state === "cut" ? `${fmt(s.kept_chars)} of ${fmt(s.description_chars)} chars`
      : s.state === "full" ? `${fmt(s.description_chars)} chars` : s.state === "name_only" ? "name" : "–";
    rows.append(h("tr", { dataset: { state: s.state, name: s.name.toLowerCase() } },
      h("td", {}, h("span", { class: `badge state-${s.state}`, text: STATE_LABEL[s.state] })),
      h("td", { class: "name", title: s.path }, h("span", { text: s.name }), h("div", { class: "path", text: s.path })),
      h("td", { class: "num", text: shown }),
      h("td", { text: s.scope }),
      h("td", { class: "reason", text: s.reason })));
  }
  tbody.append(rows);
  const search = h("input", { type: "search", placeholder: "Filter by name", value: settings.skillFilter,
    oninput: (e) => { settings.skillFilter = e.target.value; filterRows(); } });
  const table = h("table", { class: "grid", id: "skills-table" },
    h("thead", {}, h("tr", {}, ["state", "skill", "shown", "scope", "why"].map((c) => h("th", { text: c })))), tbody);
  filterRows();
  return section("Every skill and what the catalog did with it", h("div", { class: "toolbar" }, chips, search, status),
    h("div", { class: "scroll" }, table));
}

function rootsPanel(roots) {
  return section("Roots and aliases", h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, ["alias", "root", "scope", "origin", "SKILL.md files", "status"].map((c) => h("th", { text: c })))),
    h("tbody", {}, roots.map((r) => h("tr", {},
      h("td", {}, r.alias ? h("code", { text: r.alias }) : "–"), h("td", { class: "path-cell", text: r.path }),
      h("td", { text: r.scope }), h("td", { text: r.origin }), h("td", { class: "num", text: fmt(r.skill_files) }),
      h("td", { text: !r.exists ? "not there" : r.truncated ? `scan stopped (${r.limit})` : "scanned" }))))));
}

function duplicatesPanel(groups) {
  if (!groups.length) return section("Duplicate names", h("p", { class: "muted", text: "Every skill name is unique." }));
  return section(`Duplicate names (${groups.length})`, h("div", { class: "dups" }, groups.map((g) =>
    h("details", { class: "dup" }, h("summary", {}, h("b", { text: g.name }), ` ${g.copies.length} copies`),
      h("p", { text: g.why }), h("p", { class: "muted", text: g.mention }),
      h("ol", {}, g.copies.map((c) => h("li", { class: c.path === g.winner ? "winner" : "" },
        c.path === g.winner ? h("span", { class: "badge state-full", text: "wins" }) : null,
        h("span", { class: "path-cell", text: ` ${c.path} ` }),
        h("span", { class: "muted", text: `${c.scope} · ${c.origin}${c.listed ? " · listed" : ""}${c.loadable ? "" : " · disabled"}` }))))))));
}

// ---- task --------------------------------------------------------------------------------
async function showTask(main) {
  const box = h("textarea", { id: "task-input", rows: "3", placeholder: "Describe a task, e.g. merge two PDF files, or mention a skill with $name" });
  const out = h("div", { id: "task-out" });
  const run = async () => {
    settings.query = box.value;
    delete main.dataset.ready;
    try {
      await rankTask(out);
    } catch (err) {
      fill(out, problem(err));
    }
    painted("task");
  };
  box.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); run(); } });
  const form = h("div", { class: "ask" }, box, h("div", { class: "ask-side" },
    h("label", {}, "Show ", select("top", settings.top, [["5", "5"], ["10", "10"], ["20", "20"], ["50", "50"]], (v) => (settings.top = v)), " skills"),
    h("button", { type: "button", id: "task-run", class: "primary", onclick: run }, "Rank")));
  fill(main, h("div", { class: "view-head" }, h("h1", { text: "Try a task" })), form, out);
  box.value = settings.query;
  await rankTask(out);
}

async function rankTask(out) {
  if (!settings.query.trim()) {
    fill(out, h("p", { class: "muted", text: "Type a request: the page shows the skills the ranking puts first, why, and what the model would be given." }));
    return;
  }
  fill(out, h("p", { class: "muted", text: "Ranking…" }));
  const data = await api("/api/task", { q: settings.query, profile: settings.profile, window: settings.window, top: settings.top });
  fill(out, rankedPanel(data), suggestionPanel(data), mentionsPanel(data));
}

function rankedPanel(data) {
  const best = Math.max(...data.ranked.map((r) => r.score), 1e-9);
  const names = Object.keys(data.signals);
  const rows = data.ranked.map((r) => {
    const bar = h("div", { class: "sigbar" });
    for (const name of names) {
      const value = r.signals[name] || 0;
      if (value <= 0) continue;
      const seg = h("div", { class: `seg sig-${name}`, title: `${name}: +${value.toFixed(3)}` });
      seg.style.width = `${(100 * value) / best}%`;
      bar.append(seg);
    }
    const detail = h("tr", { class: "detail", hidden: true }, h("td", { colspan: "6" }, loadDetail(r)));
    const row = h("tr", { class: "ranked", dataset: { name: r.name }, onclick: () => { detail.hidden = !detail.hidden; if (!detail.hidden) fillLoad(detail, r); } },
      h("td", { class: "num", text: r.rank }),
      h("td", { class: "name" }, h("span", { text: r.name }), h("div", { class: "desc", text: r.description })),
      h("td", { class: "num", text: r.score.toFixed(3) }),
      h("td", { class: "sigcell" }, bar, h("div", { class: "sigtext", text: names.filter((n) => Math.abs(r.signals[n] || 0) >= 0.005).map((n) => `${n} ${r.signals[n] > 0 ? "+" : ""}${r.signals[n].toFixed(2)}`).join(" · ") })),
      h("td", {}, r.suggested ? h("span", { class: "badge state-full", text: "suggested" }) : r.never_suggested ? null : h("span", { class: "muted", text: "–" }),
        r.never_suggested ? h("div", { class: "muted never-suggested", text: `never suggested (${r.never_suggested})` }) : null),
      h("td", { class: "num", text: r.load.tokens !== undefined ? `${fmt(r.load.tokens)} tok` : r.load.error }));
    return [row, detail];
  });
  const legend = h("ul", { class: "legend" }, names.map((n) => h("li", {}, h("span", { class: `swatch sig-${n}` }), h("b", { text: n }), h("span", { class: "muted", text: ` ${data.signals[n]}` }))));
  const models = data.models.length ? ` + ${data.models.join(" + ")}` : "";
  return section(`Ranked skills (default ranking${models}; ${fmt(data.searched)} searched)`,
    data.ranked.length ? h("table", { class: "grid", id: "ranked-table" },
      h("thead", {}, h("tr", {}, ["#", "skill", "score", "signals", "model sees", "load_skill"].map((c) => h("th", { text: c })))),
      h("tbody", {}, rows)) : h("p", { class: "muted", text: "No skill matches this request." }),
    h("details", { class: "signals-legend" }, h("summary", { text: "What the signals are" }), legend),
    h("p", { class: "muted", text: "Click a skill to see what load_skill would inject." }));
}

function loadDetail(r) {
  return h("div", { class: "load" }, h("p", { class: "muted", text: r.load.shadowed ? `load_skill ${r.name} loads another copy: ${r.load.loads_path}` : `load_skill ${r.name}: ${fmt(r.load.tokens)} tokens, ${fmt(r.load.files)} bundled file(s)` }),
    h("pre", { class: "text", text: "Loading…" }));
}

async function fillLoad(detail, r) {
  const pre = detail.querySelector("pre");
  try {
    const data = page.loads.get(r.name) || await api("/api/load", { name: r.name });
    page.loads.set(r.name, data);
    pre.textContent = data.text;
  } catch (err) {
    pre.replaceWith(problem(err));
  }
}

function suggestionPanel(data) {
  const s = data.suggestions;
  return section("The suggestion fragment the model gets this turn",
    s ? h("div", {}, h("p", { class: "muted", text: `${fmt(s.tokens)} tokens, ${s.sources.length} skill(s)` }), h("pre", { class: "text", id: "suggestion-text", text: s.text }))
      : h("p", { class: "muted", text: "Nothing: no skill scored high enough for this request." }));
}

function mentionsPanel(data) {
  const rows = data.mentions.map((m) => h("li", {}, h("code", { text: m.mention }), " → ",
    m.selected ? h("span", { class: "path-cell", text: m.selected }) : h("span", { class: "badge state-omitted", text: "nothing" }),
    h("span", { class: "muted", text: ` (${m.why})` })));
  const loaded = data.mentioned;
  return section("Mentions", rows.length ? h("ul", { class: "mentions" }, rows) : h("p", { class: "muted", text: "The request mentions no skill ($name, [$name](path) or a leading /name)." }),
    loaded ? h("details", {}, h("summary", { text: `The mentioned skills, loaded: ${fmt(loaded.tokens)} tokens` }), h("pre", { class: "text", text: loaded.text })) : null);
}

// ---- problems ----------------------------------------------------------------------------
async function showProblems(main) {
  const data = await api("/api/problems", { profile: settings.validate });
  const list = h("div", { class: "groups" });
  const status = h("span", { class: "muted" });
  const apply = () => {
    const needle = settings.problemFilter.toLowerCase();
    let groups = 0;
    for (const g of list.children) {
      let any = false;
      for (const d of g.querySelectorAll("li.finding")) {
        const ok = settings.severities[d.dataset.severity] && (!needle || g.dataset.text.includes(needle) || d.textContent.toLowerCase().includes(needle));
        d.hidden = !ok;
        any = any || ok;
      }
      g.hidden = !any;
      groups += any ? 1 : 0;
    }
    status.textContent = `${fmt(groups)} of ${fmt(data.groups.length)} shown`;
  };
  for (const g of data.groups) {
    const badges = g.kind === "skill" ? [
      h("span", { class: `badge ${g.loaded ? "state-full" : "state-omitted"}`, text: g.loaded ? "loads" : "not loaded" }),
      g.listed === false && g.loaded ? h("span", { class: "badge state-name_only", text: "not listed" }) : null] : [h("span", { class: "badge", text: g.kind })];
    list.append(h("article", { class: "group", dataset: { text: `${g.name} ${g.path}`.toLowerCase() } },
      h("header", {}, h("b", { text: g.name }), ...badges, h("div", { class: "path", text: g.path })),
      h("ul", {}, g.diagnostics.map((d) => h("li", { class: "finding", dataset: { severity: d.severity } },
        h("span", { class: `badge sev-${d.severity}`, text: d.severity }), h("code", { text: d.code }),
        h("span", { text: ` ${d.message}` }), d.line ? h("span", { class: "muted", text: ` (line ${d.line})` }) : null,
        h("div", { class: "fix", text: `Fix: ${d.fix}` }))))));
  }
  const toggles = ["error", "warning", "info"].map((sev) => h("label", { class: `toggle sev-${sev}` },
    h("input", { type: "checkbox", checked: settings.severities[sev], dataset: { severity: sev }, onchange: (e) => { settings.severities[sev] = e.target.checked; apply(); } }),
    ` ${sev} `, h("b", { dataset: { count: sev }, text: fmt(data.counts[sev] || 0) })));
  fill(main, 
    h("div", { class: "view-head" }, h("h1", { text: "Problems" }), h("div", { class: "controls" },
      h("label", {}, "Judge by ", select("validate-profile", settings.validate,
        [["codex", "what Codex loads"], ["claude", "what Claude Code lists"], ["spec", "the Agent Skills spec"]], (v) => { settings.validate = v; refresh(); })))),
    h("p", { class: "muted", text: `${fmt(data.checked)} skill file(s) checked in ${data.roots.length} root(s)` }),
    h("div", { class: "toolbar" }, ...toggles, h("input", { type: "search", placeholder: "Filter by skill, code or text", value: settings.problemFilter,
      oninput: (e) => { settings.problemFilter = e.target.value; apply(); } }), status),
    data.groups.length ? list : h("p", { class: "callout ok", text: "No problem found." }));
  apply();
}

// ---- memory ------------------------------------------------------------------------------
async function showMemory(main) {
  const data = await api("/api/memory");
  const scopes = data.scopes.map((s) => h("section", { class: "panel scope", dataset: { scope: s.scope } },
    h("h2", {}, s.title,
      s.in_context ? h("span", { class: "badge state-full", text: "in the context" }) : null),
    h("div", { class: "path", text: s.folder }),
    s.in_context && data.in_context
      ? fileBlock("Memory summary, as the model reads it", data.in_context, true)
      : fileBlock("Memory summary", s.summary, true),
    fileBlock("MEMORY.md", s.memory_md, false),
    memoriesTable(s)));
  fill(main, h("div", { class: "view-head" }, h("h1", { text: "Memory" })),
    data.db ? h("p", { class: "muted", text: `Database: ${data.db}` }) : h("div", { class: "callout", text: "No memory database yet: `skillshelf memory run` distils agent sessions into memories." }),
    ...scopes);
}

function fileBlock(title, file, open) {
  if (!file) return h("p", { class: "muted", text: `${title}: none yet.` });
  if (file.error) return h("div", { class: "callout error", text: `${title}: ${file.error}` });
  return h("details", { open }, h("summary", { text: `${title} (${fmt(file.tokens)} tokens${file.truncated ? ", cut" : ""})` }), h("pre", { class: "text", text: file.text }));
}

function memoriesTable(scope) {
  if (!scope.memories.length) return h("p", { class: "muted", text: "No memory from any session in this scope." });
  return h("table", { class: "grid memories" },
    h("thead", {}, h("tr", {}, ["session", "what it says", "source", "updated", "cited", ""].map((c) => h("th", { text: c })))),
    h("tbody", {}, scope.memories.map((m) => {
      const detail = h("tr", { class: "detail", hidden: true }, h("td", { colspan: "6" },
        h("div", { class: "muted", text: `transcript ${m.transcript} · cwd ${m.cwd}${m.git_branch ? ` · branch ${m.git_branch}` : ""}` }),
        h("pre", { class: "text", text: m.summary || "(scrubbed)" }), m.memory ? h("pre", { class: "text", text: m.memory + (m.memory_cut ? "\n…" : "") }) : null));
      const first = (m.summary || m.memory || "").split("\n")[0];
      return [h("tr", { dataset: { session: m.session_id }, class: m.forgotten ? "forgotten" : "" },
        h("td", {}, h("code", { text: m.session_id })),
        h("td", { class: "gist" }, h("button", { type: "button", class: "link", title: "Show the whole memory", onclick: () => (detail.hidden = !detail.hidden) }, first || "(scrubbed)")),
        h("td", { text: m.source || "–" }), h("td", { class: "num", text: when(m.updated_ms) }),
        h("td", { class: "num", title: `last cited: ${when(m.last_cited_ms)}`, text: fmt(m.citations) }),
        h("td", { class: "num" }, m.forgotten ? h("span", { class: "muted", text: "forgotten" })
          : h("button", { type: "button", class: "danger small", dataset: { forget: m.session_id }, onclick: () => forget(m) }, "Forget…"))), detail];
    })));
}

function confirmDialog(title, text) {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  return new Promise((resolve) => {
    const done = (answer) => { dialog.close(); ok.onclick = cancel.onclick = null; resolve(answer); };
    const ok = document.getElementById("confirm-ok");
    const cancel = document.getElementById("confirm-cancel");
    ok.onclick = () => done(true);
    cancel.onclick = () => done(false);
    dialog.oncancel = () => done(false);
    dialog.showModal();
  });
}

async function forget(memory) {
  const sure = await confirmDialog("Forget this memory?",
    `The memory of session ${memory.session_id} is scrubbed from the database now and never extracted again; the next \`skillshelf memory run\` removes it from the memory folder.`);
  if (!sure) return;
  try {
    const data = await api("/api/memory/forget", {}, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ session_id: memory.session_id }) });
    toast(`Forgot ${data.forgotten}; ${data.next}`);
  } catch (err) {
    toast(`Not forgotten: ${err.message}`);
  }
  refresh();
}

// ---- usage -------------------------------------------------------------------------------
async function showUsage(main) {
  const data = await api("/api/usage");
  const stats = data.stats;
  const ks = stats.selectors.length ? Object.keys(stats.selectors[0]).filter((k) => k.startsWith("hit@")) : ["hit@1", "hit@5", "hit@10"];
  const never = data.never_used;
  const neverList = h("ul", { class: "never" }, never.slice(0, 300).map((s) => h("li", { title: s.path, text: s.name })));
  fill(main, h("div", { class: "view-head" }, h("h1", { text: "Usage" })),
    h("div", { class: "cards" }, card("turns recorded", fmt(stats.turns), "turns"), card("skill loads", fmt(stats.loads), "loads"),
      card("scored loads", fmt(stats.scored_loads), "scored"), card("never loaded", `${fmt(never.length)} of ${fmt(data.loadable)}`, "never")),
    h("p", { class: "muted", text: `Usage log: ${stats.log}` }),
    section("Hit rate per selector", stats.selectors.length ? h("table", { class: "grid", id: "selectors-table" },
      h("thead", {}, h("tr", {}, ["selector", "loads", ...ks, "MRR"].map((c) => h("th", { text: c })))),
      h("tbody", {}, stats.selectors.map((s) => h("tr", {}, h("td", { text: s.selector }), h("td", { class: "num", text: fmt(s.loads) }),
        ks.map((k) => h("td", { class: "num" }, meter(s[k]))), h("td", { class: "num" }, meter(s.mrr))))))
      : h("p", { class: "muted", text: "No scored load yet: the agent records each turn's candidates and the skills the model loads." })),
    section("Most used", data.most_used.length ? h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["skill", "loads", "path"].map((c) => h("th", { text: c })))),
      h("tbody", {}, data.most_used.map((s) => h("tr", {}, h("td", { text: s.name || "(not here)" }), h("td", { class: "num", text: fmt(s.loads) }), h("td", { class: "path-cell", text: s.path })))))
      : h("p", { class: "muted", text: "No skill was loaded yet." })),
    section(`Never loaded (${fmt(never.length)})`, neverList, never.length > 300 ? h("p", { class: "muted", text: `and ${fmt(never.length - 300)} more` }) : null));
}

function meter(value) {
  const bar = h("span", { class: "meter" }, h("span", { class: "meter-fill" }));
  bar.firstChild.style.width = `${Math.round(100 * (value || 0))}%`;
  return h("span", { class: "metered" }, bar, h("span", { text: (value ?? 0).toFixed(3) }));
}

// ---- page --------------------------------------------------------------------------------
const SHOW = { budget: showBudget, task: showTask, problems: showProblems, memory: showMemory, usage: showUsage };

function currentView() {
  const name = location.hash.replace(/^#/, "").split("?")[0];
  return VIEWS.includes(name) ? name : "budget";
}

async function refresh() {
  const view = currentView();
  const main = document.getElementById("view");
  page.view = view;
  for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("on", a.dataset.view === view);
  delete main.dataset.ready;
  if (!main.firstChild || main.dataset.shown !== view) fill(main, h("p", { class: "muted loading", text: "Loading…" }));
  main.dataset.shown = view;
  try {
    await SHOW[view](main);
  } catch (err) {
    if (page.view === view) fill(main, problem(err));
  }
  if (page.view === view) painted(view);
}

async function overview() {
  try {
    const data = await api("/api/overview");
    page.overview = data;
    page.version = data.snapshot;
    if (data.watching === false) page.watching = false;
    const where = document.getElementById("where");
    const failed = data.error ? `${data.error_code ? `${data.error_code}: ` : ""}${data.error}${data.error_fix ? `\nFix: ${data.error_fix}` : ""}` : null;
    fill(where, h("span", { class: "path", title: data.roots.join("\n"), text: data.cwd }),
      h("span", { class: "muted", text: ` · ${fmt(data.skills)} skills` }),
      failed ? h("span", { class: "badge sev-error", id: "reload-failed", title: failed, text: `reload failed${data.error_code ? ` (${data.error_code})` : ""}` }) : null);
    showLive();
  } catch (err) {
    document.getElementById("where").textContent = err.message;
  }
}

// The badge says whether the page follows changes: "live" only while this tab's event stream is
// open and the server still watches the skill folders.
function showLive() {
  const live = document.getElementById("live");
  const [text, on, title] = !page.watching
    ? ["not following changes", false, "The server no longer watches the skill folders (see its log, SV210): start `skillshelf ui` again to follow changes"]
    : !page.source ? ["paused", false, "Follows changes again when this tab is shown"]
      : page.source.readyState === EventSource.OPEN && page.live ? ["live", true, "Follows changes to the skill folders"]
        : [page.live === false ? "reconnecting" : "connecting", false, "Follows changes to the skill folders"];
  live.textContent = text;
  live.className = `live ${on ? "on" : "off"}`;
  live.title = title;
}

// One event stream per visible tab: a browser keeps 6 connections per host, and a stream holds
// one for as long as it is open, so hidden tabs close theirs (and catch up when shown again).
function listen() {
  if (page.source || document.hidden) return;
  const source = new EventSource(`/api/events?token=${encodeURIComponent(TOKEN)}`);
  page.source = source;
  page.live = null;
  source.addEventListener("hello", () => { page.live = true; showLive(); });
  source.addEventListener("watch", () => { page.watching = false; showLive(); });
  source.addEventListener("change", async () => {
    await overview();
    if (page.overview && page.overview.error) {
      const o = page.overview;
      toast(`Reload failed: ${o.error_code ? `${o.error_code}: ` : ""}${o.error}; the page keeps what it read last`);
      return;
    }
    toast("The skills changed: updated");
    refresh();
  });
  source.onerror = () => { page.live = false; showLive(); };
  showLive();
}

function unlisten() {
  if (page.source) page.source.close();
  page.source = null;
  showLive();
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden) {
    unlisten();
  } else if (!page.source) {  // catch up with what changed while hidden, unless a reload failed
    listen();
    overview().then(() => { if (!(page.overview && page.overview.error)) refresh(); });
  }
});
window.addEventListener("pagehide", unlisten);
window.addEventListener("pageshow", (e) => { if (e.persisted) { listen(); overview(); refresh(); } });
window.addEventListener("hashchange", refresh);
document.addEventListener("DOMContentLoaded", () => {
  overview();
  refresh();
  listen();
});
