// The preview's page around the view: what it shows (view, problem, session, Server-Timing,
// log) and the request panel; start() runs it. Functions of preview-session.js are in scope.

// ---------------------------------------------------------------- showing

function showView(view, meta) {
  const etag = bareTag(meta.etag);
  // The view already shown (the same bytes): keep its DOM (and the images it loaded).
  const unchanged = etag !== null && etag === session.etag && !$("device").hidden && !meta.flash;
  session.etag = etag ?? session.etag;
  rememberView(etag, view);
  if (meta.version) session.version = meta.version;
  session.updatedBy = meta.source;
  session.updatedAt = new Date();
  $("problem").hidden = true;
  $("device").hidden = false;
  const headerText = isObject(view.header) && isObject(view.header.text) ? str(view.header.text.title) : undefined;
  const title = str(view.title) ?? headerText ?? "";
  $("view-title").textContent = title || "(no title)";
  $("view-uri").textContent = viewURI;
  document.title = (title ? title + " · " : "") + "HubServer preview";
  const canvas = $("canvas");
  if (!unchanged) canvas.replaceChildren(renderView(view, { onSelect: select }));
  canvas.dataset.etag = session.etag ?? "";
  canvas.dataset.streamUpdates = String(session.streamUpdates);
  if (meta.flash) {
    canvas.classList.add("flash");
    setTimeout(() => canvas.classList.remove("flash"), 700);
  }
  $("raw").textContent = json(view);
  if (meta.timing !== undefined) showTiming(meta.timing, meta.source);
  showFacts();
}

function showProblem(response) {
  const box = $("problem");
  box.replaceChildren();
  const problem = isObject(response.json) ? response.json : {};
  const heading = response.status ? response.status + " " + (str(problem.title) ?? "") : str(problem.title) ?? "No answer";
  box.append(el("strong", null, heading), el("span", "mono", (str(problem.code) ?? "") + " "),
    el("span", null, str(problem.detail) ?? response.error ?? ""));
  box.hidden = false;
  if (!session.etag) $("device").hidden = true;
}

function setLive(state, text) {
  session.live = state;
  $("live").dataset.state = state;
  $("live").textContent = text;
  showFacts();
}

function showFacts() {
  const facts = $("session");
  facts.replaceChildren();
  facts.dataset.token = session.token ?? "";
  const rows = [
    ["Hub-Session", session.token ?? "–"], ["ETag", session.etag ?? "–"], ["Hub-Version", session.version ?? "–"],
    ["Content-Language", session.language ?? "–"],
    ["stream", session.live], ["pushed views", String(session.streamUpdates)],
    ["last view", session.updatedAt ? session.updatedBy + " at " + session.updatedAt.toLocaleTimeString() : "–"],
    ["patches", patchSummary()],
  ];
  for (const [name, value] of rows) facts.append(el("dt", null, name), el("dd", null, value));
  facts.dataset.patchEvents = String(session.patches.events);
  facts.dataset.patchBytes = String(session.patches.patchBytes);
  facts.dataset.viewBytes = String(session.patches.viewBytes);
}

/** "2 · 310 B instead of 5.2 kB (94% saved)": the patch events and the bytes they saved. */
function patchSummary() {
  const { events, patchBytes, viewBytes } = session.patches;
  if (events === 0) return "none yet";
  const saved = viewBytes > 0 ? Math.round((100 * (viewBytes - patchBytes)) / viewBytes) : 0;
  return events + " · " + formatBytes(patchBytes) + " instead of " + formatBytes(viewBytes) + " (" + saved + "% saved)";
}

function formatBytes(bytes) {
  return bytes < 1024 ? bytes + " B" : (bytes / 1024).toFixed(1) + " kB";
}

// ---------------------------------------------------------------- explain mode

// With server.json "debug": {"explain": true}, hovering a component shows the operations of the
// session's latest run that created, modified, moved or removed it (GET /view?session=T&explain=1,
// asked once per view). Off, the first answer is 400 explain_disabled and the page stops asking.
const explain = { state: "unknown", etag: null, operations: null, pending: null, hovered: null };

function onHover(event) {
  const node = event.target.closest ? event.target.closest("[data-component-id]") : null;
  if (!node || node.dataset.componentId === explain.hovered) return;
  explain.hovered = node.dataset.componentId;
  showExplain(explain.hovered);
}

async function explainOperations() {
  if (explain.state === "off" || !session.token) return null;
  if (explain.etag === session.etag && explain.operations) return explain.operations;
  if (!explain.pending) {
    const etag = session.etag;
    explain.pending = call("GET", "/view?session=" + encodeURIComponent(session.token) + "&explain=1").then((response) => {
      explain.pending = null;
      if (response.status === 400 && isObject(response.json) && response.json.code === "explain_disabled") {
        explain.state = "off";
        return null;
      }
      const operations = isObject(response.json) && isObject(response.json.explain) ? response.json.explain.operations : null;
      if (!response.ok || !Array.isArray(operations)) return null;
      Object.assign(explain, { state: "on", etag, operations });
      return operations;
    });
  }
  return explain.pending;
}

async function showExplain(identifier) {
  const box = $("explain");
  const operations = await explainOperations();
  if (identifier !== explain.hovered) return;  // the pointer moved on meanwhile
  box.replaceChildren();
  box.dataset.component = identifier;
  box.dataset.state = explain.state;
  if (explain.state === "off") {
    box.append(el("p", "hint", "Explain mode is off: set \"debug\": {\"explain\": true} in server.json."));
    return;
  }
  if (!operations) {
    box.append(el("p", "hint", "No explanation for this view."));
    return;
  }
  box.append(el("p", "mono", identifier));
  const list = el("ol");
  let touched = 0;
  for (const operation of operations) {
    if (!isObject(operation)) continue;
    const what = ["created", "modified", "moved", "removed"]
      .filter((kind) => Array.isArray(operation[kind]) && operation[kind].includes(identifier));
    if (what.length === 0) continue;
    touched += 1;
    const item = el("li");
    item.dataset.operation = str(operation.name) ?? "";
    const ms = typeof operation.durationMs === "number" ? operation.durationMs.toFixed(2) + " ms" : "";
    item.append(el("span", "mono", (str(operation.name) ?? "?") + " (" + (str(operation.kind) ?? "?") + ")"),
      " " + what.join(", ") + " · " + (str(operation.outcome) ?? "") + " " + ms);
    list.append(item);
  }
  box.dataset.touched = String(touched);
  if (touched === 0) box.append(el("p", "hint", "No operation of the latest run touched it."));
  else box.append(list);
}

/** `op0;desc="static";dur=0.012, op1;...`: one row per operation, with a bar. */
function showTiming(header, source) {
  const box = $("timing");
  box.replaceChildren();
  const entries = parseServerTiming(header || "");
  if (entries.length === 0) {
    box.append(el("p", "hint", "No Server-Timing on the last view response."));
    return;
  }
  const longest = Math.max(...entries.map((entry) => entry.duration || 0), 0.001);
  const table = el("table");
  for (const entry of entries) {
    const row = el("tr");
    const barCell = el("td");
    const bar = el("div", "bar");
    bar.style.width = Math.max(2, (100 * (entry.duration || 0)) / longest) + "%";
    barCell.append(bar);
    row.append(el("td", "op", entry.name), el("td", null, entry.description), barCell,
      el("td", "ms", entry.duration === null ? "–" : entry.duration.toFixed(3) + " ms"));
    table.append(row);
  }
  box.append(table, el("p", "source", "from " + source + " (pushed views and actions carry none)"));
}

function parseServerTiming(header) {
  const entries = [];
  for (const part of splitOutsideQuotes(header, ",")) {
    const fields = splitOutsideQuotes(part, ";").map((field) => field.trim());
    if (!fields[0]) continue;
    const entry = { name: fields[0], description: "", duration: null };
    for (const field of fields.slice(1)) {
      const equals = field.indexOf("=");
      if (equals < 0) continue;
      let value = field.slice(equals + 1).trim();
      if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, "$1");
      const key = field.slice(0, equals).trim();
      if (key === "desc") entry.description = value;
      if (key === "dur" && value !== "" && !Number.isNaN(Number(value))) entry.duration = Number(value);
    }
    entries.push(entry);
  }
  return entries;
}

function splitOutsideQuotes(text, separator) {
  const parts = [];
  let current = "";
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === '"' && text[index - 1] !== "\\") quoted = !quoted;
    if (character === separator && !quoted) {
      parts.push(current);
      current = "";
    } else {
      current += character;
    }
  }
  parts.push(current);
  return parts;
}

function log(text) {
  const list = $("log");
  const item = el("li");
  item.append(el("time", null, new Date().toLocaleTimeString()), text);
  list.prepend(item);
  while (list.childElementCount > 60) list.lastElementChild.remove();
}

// ---------------------------------------------------------------- the panel

/** The toggles GET /features lists (each once, with the features that read it). */
async function loadToggles() {
  const box = $("toggles");
  listedToggles = new Map();
  const response = await call("GET", "/features");
  const features = response.ok && isObject(response.json) && Array.isArray(response.json.features) ? response.json.features : [];
  for (const feature of features) {
    for (const toggle of Array.isArray(feature.toggles) ? feature.toggles : []) {
      if (!isObject(toggle) || str(toggle.name) === undefined) continue;
      const known = listedToggles.get(toggle.name) ?? { toggle, features: [] };
      known.features.push(str(feature.id) ?? "?");
      listedToggles.set(toggle.name, known);
    }
  }
  box.replaceChildren();
  if (listedToggles.size === 0) {
    box.append(el("span", "hint", "Toggles"), el("span", "hint", "none listed (none configured, or allowToggleOverride is off)"));
    return;
  }
  for (const [name, { toggle, features: readers }] of listedToggles) {
    const id = "toggle-" + name.replace(/[^A-Za-z0-9_-]/g, "_");
    const label = el("label", null, name);
    label.htmlFor = id;
    label.append(el("small", null, "Hub-Toggle · " + readers.join(", ")));
    const select = el("select");
    select.id = id;
    select.dataset.toggle = name;
    select.append(new Option("not forced (default " + (str(toggle.default) ?? "?") + ")", ""));
    for (const value of Array.isArray(toggle.values) ? toggle.values : []) {
      if (str(value) !== undefined) select.append(new Option(value, value));
    }
    select.value = str(panel.toggles[name]) ?? "";
    select.addEventListener("change", () => {
      panel.toggles[name] = select.value;
      panelChanged("Hub-Toggle " + name + "=" + (select.value || "(not forced)"));
    });
    box.append(label, select);
  }
}

function panelChanged(what) {
  savePanel();
  log("panel: " + what + "; opening a new session");
  openSession();
}

/** The locales server.json names (the page lists them in #hub-locales); none without locales. */
function supportedLocales() {
  const list = $("hub-locales");
  return list ? (list.dataset.locales || "").split(" ").filter((tag) => tag) : [];
}

/** The Hub-Locale picker: one option per supported locale; hidden when the server has none. */
function fillLocales() {
  const select = $("hub-locale");
  const locales = supportedLocales();
  for (const tag of locales) select.append(new Option(tag, tag));
  if (!locales.includes(panel.locale)) panel.locale = "";
  select.hidden = locales.length === 0;
  $("hub-locale-label").hidden = locales.length === 0;
}

function bindField(id, key) {
  const input = $(id);
  input.value = panel[key];
  input.addEventListener("change", () => {
    panel[key] = input.value;
    panelChanged(key + " " + (input.value || "(none)"));
  });
}

function markCurrentFeature() {
  for (const link of document.querySelectorAll(".feature-link")) {
    if (new URL(link.href).searchParams.get("uri") === viewURI) link.setAttribute("aria-current", "page");
  }
}

async function start() {
  if (viewURI === null) return;
  document.body.classList.remove("index");
  $("intro").hidden = true;
  $("panel").hidden = false;
  $("uri-input").value = viewURI;
  markCurrentFeature();
  fillLocales();
  for (const [id, key] of [["hub-client", "client"], ["hub-components", "components"], ["accept-language", "language"], ["hub-locale", "locale"], ["connectivity", "connectivity"]]) {
    bindField(id, key);
  }
  $("own-components").addEventListener("click", () => {
    $("hub-components").value = KNOWN_COMPONENTS.join(", ");
    $("hub-components").dispatchEvent(new Event("change"));
  });
  $("action-form").addEventListener("submit", performAction);
  $("canvas").addEventListener("mouseover", onHover);
  $("canvas").addEventListener("focusin", onHover);
  $("next-page").addEventListener("click", nextPage);
  addEventListener("pagehide", () => {
    if (session.token) endSession(session.token);
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted) openSession();  // back from the page cache: its session was ended
  });
  showFacts();
  await loadToggles();
  await openSession();
}

start();
