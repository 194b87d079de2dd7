// The preview's page around the view: what it shows (view, problem, session, Server-Timing,
// log) and the request panel; start() runs it. Functions of preview-session.js are in scope.

// ---------------------------------------------------------------- showing

function showView(view, meta) {
  const etag = bareTag(meta.etag);
  // The view already shown (the same bytes): keep its DOM (and the images it loaded).
  const unchanged = etag !== null && etag === session.etag && !$("device").hidden && !meta.flash;
  session.etag = etag ?? session.etag;
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
    ["stream", session.live], ["pushed views", String(session.streamUpdates)],
    ["last view", session.updatedAt ? session.updatedBy + " at " + session.updatedAt.toLocaleTimeString() : "–"],
  ];
  for (const [name, value] of rows) facts.append(el("dt", null, name), el("dd", null, value));
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
  for (const [id, key] of [["hub-client", "client"], ["hub-components", "components"], ["accept-language", "language"], ["connectivity", "connectivity"]]) {
    bindField(id, key);
  }
  $("own-components").addEventListener("click", () => {
    $("hub-components").value = KNOWN_COMPONENTS.join(", ");
    $("hub-components").dispatchEvent(new Event("change"));
  });
  $("action-form").addEventListener("submit", performAction);
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
