// The preview's session: it only calls the public JSON API, same origin.
//
// EventSource cannot send headers, so the headers of the panel reach the session another way:
// - every fetch (GET /view, POST /action) sends them, and the session keeps the latest
//   request's headers: chain runs pushed over the stream (actions, config reloads) use them;
// - a change in the panel opens a new session (GET /view?uri= with the new headers) and
//   subscribes again (the old session is deleted);
// - before every subscription, GET /view?session=T&uri=U with the headers makes sure the
//   session is held with them: a memoized view's token is lazy (GET /view?uri= stored no
//   session), and the bare events request would create the session without the panel's
//   headers. The same when the stream drops (restart, drain, another replica): the page does
//   not let EventSource reconnect by itself, it fetches first (the session held, rebuilt or
//   reopened with the headers), then subscribes again;
// - Hub-Components is applied to each response, not kept by the session: with it set, an event
//   is only a signal, and the page fetches GET /view?session=T to get the view rendered for
//   those components.
// - The stream asks for JSON Patch events (patch=json-patch): a patch applies to a recent view
//   the page has (by its ETag); without that view the page fetches the whole one.

const params = new URLSearchParams(location.search);
const viewURI = params.get("uri");
const PANEL_KEY = "hub-preview-panel";
const $ = (id) => document.getElementById(id);

const session = {
  token: null, etag: null, eventID: null, version: null, source: null, generation: 0,
  retryDelay: 1000, retryTimer: 0, refreshing: false, refreshAgain: false,
  streamUpdates: 0, updatedBy: "", updatedAt: null, live: "off", language: null,
  // Recent views by bare ETag (what patches apply to), and what patches saved.
  views: new Map(), patches: { events: 0, patchBytes: 0, viewBytes: 0 },
};
const panel = loadPanel();
let listedToggles = new Map();

function loadPanel() {
  const initial = { toggles: {}, client: "", components: "", language: "", locale: "", connectivity: "online" };
  try {
    const saved = JSON.parse(sessionStorage.getItem(PANEL_KEY) || "null");
    if (isObject(saved)) {
      for (const key of ["client", "components", "language", "locale", "connectivity"]) {
        if (typeof saved[key] === "string") initial[key] = saved[key];
      }
      if (isObject(saved.toggles)) initial.toggles = saved.toggles;
    }
  } catch (error) { /* storage off or garbage: defaults */ }
  return initial;
}

function savePanel() {
  try { sessionStorage.setItem(PANEL_KEY, JSON.stringify(panel)); } catch (error) { /* storage off */ }
}

/** The headers the panel sets (toggles only when /features lists them). */
function panelHeaders() {
  const headers = {};
  const toggles = Object.entries(panel.toggles)
    .filter(([name, value]) => value && listedToggles.has(name))
    .map(([name, value]) => name + "=" + value).join(", ");
  if (toggles) headers["Hub-Toggle"] = toggles;
  if (panel.client.trim()) headers["Hub-Client"] = panel.client.trim();
  if (panel.components.trim()) headers["Hub-Components"] = panel.components.trim();
  if (panel.language.trim()) headers["Accept-Language"] = panel.language.trim();
  if (panel.locale && supportedLocales().includes(panel.locale)) headers["Hub-Locale"] = panel.locale;
  headers["Hub-Connectivity"] = panel.connectivity === "offline" ? "offline" : "online";
  return headers;
}

// ---------------------------------------------------------------- requests

function shortPath(path) {
  return path.replace(/session=([^&]{8})[^&]*/, "session=$1…");
}

/** A fetch with the panel's headers; resolves to {status, ok, headers, json} (status 0: no answer). */
async function call(method, path, body, extraHeaders) {
  const started = performance.now();
  const init = { method, cache: "no-store", headers: { ...panelHeaders(), ...(extraHeaders || {}) } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    log(method + " " + shortPath(path) + ": " + error.message);
    return { ok: false, status: 0, headers: new Headers(), json: null, error: error.message };
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch (error) { /* not JSON */ }
  log(method + " " + shortPath(path) + " → " + response.status + " (" + Math.round(performance.now() - started) + " ms)");
  return { ok: response.ok, status: response.status, headers: response.headers, json: parsed };
}

function endSession(token) {
  fetch("/view?session=" + encodeURIComponent(token), { method: "DELETE", keepalive: true }).catch(() => {});
}

/** An ETag or event id as the bare tag: W/"x", "x" and x are the same view. */
function bareTag(tag) {
  return tag ? tag.replace(/^W\//, "").replace(/^"|"$/g, "") : null;
}

// ---------------------------------------------------------------- the session and its stream

async function openSession() {
  const generation = ++session.generation;
  stopStream();
  clearTimeout(session.retryTimer);
  if (session.token) endSession(session.token);
  Object.assign(session, { token: null, etag: null, eventID: null, version: null, retryDelay: 1000 });
  setLive("connecting", "opening");
  const response = await call("GET", "/view?uri=" + encodeURIComponent(viewURI));
  if (generation !== session.generation) return;
  if (!acceptView(response, "GET /view?uri=")) {
    setLive("off", "not live");
    return;
  }
  await resync();
}

/** Shows a view response; false (and the problem) when it is not a view. */
function acceptView(response, source) {
  if (!response.ok || !isObject(response.json)) {
    showProblem(response);
    return false;
  }
  adoptToken(response.headers.get("Hub-Session"));
  session.language = response.headers.get("Content-Language");
  showView(response.json, {
    etag: response.headers.get("ETag"), version: response.headers.get("Hub-Version"),
    timing: response.headers.get("Server-Timing"), source,
  });
  return true;
}

/** A response may name another token (a session reopened from `uri`): follow that one. */
function adoptToken(token) {
  if (!token || token === session.token) return;
  const streaming = session.source !== null;
  session.token = token;
  session.eventID = null;
  if (streaming) subscribe();
}

function subscribe() {
  stopStream();
  const source = new EventSource("/view/events?session=" + encodeURIComponent(session.token) + "&patch=json-patch");
  session.source = source;
  source.addEventListener("open", () => {
    if (session.source !== source) return;
    session.retryDelay = 1000;
    setLive("live", "live");
    log("stream open");
  });
  source.addEventListener("view", (event) => {
    if (session.source === source) onViewEvent(event);
  });
  source.addEventListener("patch", (event) => {
    if (session.source === source) onPatchEvent(event);
  });
  // A config reload removed the view's feature: the session ended and its token answers 404.
  source.addEventListener("end", (event) => {
    if (session.source !== source) return;
    stopStream();
    let detail = "the session ended";
    try { detail = str(JSON.parse(event.data).detail) ?? detail; } catch (error) { /* keep the default */ }
    log("event end: " + detail);
    setLive("ended", "ended");
    showProblem({ status: 0, json: { title: "Session ended", detail }, error: detail });
  });
  source.addEventListener("error", () => {
    if (session.source !== source) return;
    stopStream();
    log("stream closed; reconnecting through GET /view with the panel's headers");
    setLive("reconnecting", "reconnecting");
    scheduleResync();
  });
}

function stopStream() {
  if (session.source) session.source.close();
  session.source = null;
}

function scheduleResync() {
  clearTimeout(session.retryTimer);
  session.retryTimer = setTimeout(resync, session.retryDelay);
  session.retryDelay = Math.min(session.retryDelay * 2, 10000);
}

/** Before subscribing again: the session held, rebuilt or reopened with the panel's headers. */
async function resync() {
  const generation = session.generation;
  const path = "/view?session=" + encodeURIComponent(session.token) + "&uri=" + encodeURIComponent(viewURI);
  const response = await call("GET", path);
  if (generation !== session.generation) return;
  if ([0, 429, 502, 503, 504].includes(response.status)) {
    scheduleResync();
    return;
  }
  if (!acceptView(response, "GET /view?session=")) {
    setLive("ended", "ended");
    return;
  }
  subscribe();
}

function onViewEvent(event) {
  const id = event.lastEventId;
  // The same view again (a run that changed nothing): nothing to show.
  if (id && id === session.eventID) return;
  session.eventID = id;
  if (panelHeaders()["Hub-Components"]) {
    refresh();
    return;
  }
  if (id && id === session.etag) return;
  let view;
  try { view = JSON.parse(event.data); } catch (error) { log("event: not JSON"); return; }
  session.streamUpdates += 1;
  log("event view " + id);
  showView(view, { etag: id, version: null, source: "event stream", flash: true });
}

/** `event: patch`: {"base": id, "patch": [RFC 6902]} applied to the view with that id. */
function onPatchEvent(event) {
  const id = event.lastEventId;
  if (id && id === session.eventID) return;
  session.eventID = id;
  if (panelHeaders()["Hub-Components"]) {
    refresh();
    return;
  }
  if (id && id === session.etag) return;
  let view;
  try {
    const data = JSON.parse(event.data);
    const base = session.views.get(str(data.base));
    if (base === undefined) throw new Error("its base view " + str(data.base) + " is not here");
    view = applyPatch(base, data.patch);
  } catch (error) {
    log("event patch " + id + ": " + error.message + "; fetching the view");
    refresh();
    return;
  }
  const patchBytes = byteLength(event.data);
  const viewBytes = byteLength(JSON.stringify(view));
  session.patches.events += 1;
  session.patches.patchBytes += patchBytes;
  session.patches.viewBytes += viewBytes;
  session.streamUpdates += 1;
  log("event patch " + id + ": " + patchBytes + " bytes instead of about " + viewBytes);
  showView(view, { etag: id, version: null, source: "event stream (patch)", flash: true });
}

/** Remembers a shown view by its bare ETag: a later patch may apply to it (the last 4 kept). */
function rememberView(tag, view) {
  if (!tag) return;
  session.views.delete(tag);
  session.views.set(tag, view);
  while (session.views.size > 4) session.views.delete(session.views.keys().next().value);
}

/** The session's view rendered for this panel's Hub-Components (one fetch at a time). */
async function refresh() {
  if (session.refreshing) {
    session.refreshAgain = true;
    return;
  }
  session.refreshing = true;
  try {
    do {
      session.refreshAgain = false;
      const generation = session.generation;
      const response = await call("GET", "/view?session=" + encodeURIComponent(session.token));
      if (generation !== session.generation) return;
      if (response.ok && bareTag(response.headers.get("ETag")) !== session.etag) session.streamUpdates += 1;
      acceptView(response, "GET /view?session= (after an event)");
    } while (session.refreshAgain);
  } finally {
    session.refreshing = false;
  }
}

// ---------------------------------------------------------------- actions

async function select(identifier, node, model) {
  if (!session.token) return;
  node.classList.add("is-busy");
  const response = await call("POST", "/action", { session: session.token, uri: viewURI, component: identifier });
  node.classList.remove("is-busy");
  showOutcome("select " + identifier, response, model);
}

async function performAction(event) {
  event.preventDefault();
  const action = $("action-name").value.trim();
  const customText = $("action-custom").value.trim();
  const body = { session: session.token, uri: viewURI, action };
  if (customText) {
    let custom;
    try { custom = JSON.parse(customText); } catch (error) { custom = undefined; }
    if (!isObject(custom)) {
      showOutcome(action, { ok: false, status: 0, json: null, error: "custom must be a JSON object" }, null);
      return;
    }
    body.custom = custom;
  }
  if (!session.token) delete body.session;
  showOutcome(action, await call("POST", "/action", body), null);
}

/** POST /view/next-page: the view with the next page appended (a no-op when nothing pages). */
async function nextPage() {
  if (!session.token) return;
  const response = await call("POST", "/view/next-page", { session: session.token });
  const result = $("result");
  result.replaceChildren();
  const line = el("p");
  if (acceptView(response, "POST /view/next-page")) {
    const count = Array.isArray(response.json.body) ? response.json.body.length : 0;
    line.append(el("span", "outcome performed", "next page"), count + " body components");
    result.dataset.outcome = "next-page";
  } else {
    line.append(el("span", "outcome failed", String(response.status || "error")), "next page");
    result.dataset.outcome = "failed";
  }
  result.append(line);
}

function showOutcome(what, response, model) {
  const result = $("result");
  result.replaceChildren();
  const line = el("p");
  if (response.ok && isObject(response.json) && typeof response.json.performed === "boolean") {
    const performed = response.json.performed;
    line.append(el("span", "outcome " + (performed ? "performed" : "vetoed"), performed ? "performed" : "not performed"));
    line.append(what + (performed ? "" : ": vetoed, or no action performed it"));
    result.dataset.outcome = performed ? "performed" : "not-performed";
    adoptToken(response.headers.get("Hub-Session"));
    if (isObject(response.json.view)) {
      showView(response.json.view, {
        etag: response.headers.get("ETag"), version: response.headers.get("Hub-Version"), source: "POST /action",
      });
    }
  } else {
    const problem = isObject(response.json) ? response.json : {};
    line.append(el("span", "outcome failed", response.status ? String(response.status) : "error"));
    line.append(what + ": " + (str(problem.code) ?? "") + " " + (str(problem.detail) ?? response.error ?? ""));
    result.dataset.outcome = "failed";
  }
  result.append(line);
  if (model) result.append(el("pre", null, json(model)));
}

