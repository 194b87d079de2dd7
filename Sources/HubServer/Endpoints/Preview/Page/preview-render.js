// The view model as DOM (HubFramework default schema, as /schema/view-model.json describes it), and
// the JSON Patch (RFC 6902) applier the event stream's patches go through.
// Model text reaches the page only through textContent, dataset, title and checked image URLs,
// never parsed as markup, so a view model cannot inject elements or script.

/** The components this preview renders; anything else is shown as a labelled box with its JSON. */
const KNOWN_COMPONENTS = ["default:header", "default:sectionHeader", "default:row", "default:card", "default:carousel"];

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A model string, or undefined for anything else (the page never trusts a model's types). */
function str(value) {
  return typeof value === "string" ? value : undefined;
}

function json(value) {
  return JSON.stringify(value, null, 2);
}

/** Only http(s) images load; other schemes (javascript:, file:, ...) show the placeholder. */
function imageURL(uri) {
  if (typeof uri !== "string" || uri === "") return null;
  try {
    const url = new URL(uri, location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch (error) {
    return null;
  }
}

function kindOf(model) {
  const identifier = isObject(model.component) ? str(model.component.id) : undefined;
  switch (identifier) {
    case "default:header": return "header";
    case "default:sectionHeader": return "section";
    case "default:row": return "row";
    case "default:card": return "card";
    case "default:carousel": return "carousel";
    default: return "unknown";
  }
}

/** A whole view: header, body (rows as a list, cards as a grid), overlays. */
function renderView(view, options) {
  const root = el("div", "hub-view");
  if (isObject(view.header)) root.append(renderComponent(view.header, options));
  const body = Array.isArray(view.body) ? view.body : [];
  const bodyNode = el("div", "hub-body");
  renderList(body, bodyNode, options);
  root.append(bodyNode);
  if (!isObject(view.header) && body.length === 0) root.append(el("p", "empty", "This view has no header and no body."));
  if (Array.isArray(view.overlays) && view.overlays.length > 0) {
    const overlays = el("div", "hub-overlays");
    renderList(view.overlays, overlays, options);
    root.append(overlays);
  }
  return root;
}

/** Consecutive rows form a list and consecutive cards a grid; other components stand alone. */
function renderList(models, container, options) {
  let group = null;
  let groupKind = null;
  for (const model of models) {
    if (!isObject(model)) continue;
    const kind = kindOf(model);
    if (kind === "row" || kind === "card") {
      if (groupKind !== kind) {
        group = el("div", kind === "row" ? "hub-list" : "hub-grid");
        groupKind = kind;
        container.append(group);
      }
      group.append(renderComponent(model, options));
    } else {
      group = null;
      groupKind = null;
      container.append(renderComponent(model, options));
    }
  }
}

function renderComponent(model, options) {
  const kind = kindOf(model);
  const node = el("div", "hub-component hub-" + kind);
  const identifier = str(model.id);
  const componentID = isObject(model.component) ? str(model.component.id) : undefined;
  if (identifier !== undefined) node.dataset.componentId = identifier;
  node.title = [identifier, componentID].filter((part) => part !== undefined).join(" · ");
  switch (kind) {
    case "header": renderHeader(node, model); break;
    case "section": node.append(renderTexts(model, true)); break;
    case "row": renderRow(node, model); break;
    case "card": renderCard(node, model); break;
    case "carousel": renderCarousel(node, model, options); break;
    default: renderUnknown(node, model);
  }
  if (kind !== "unknown") {
    const texts = node.querySelector(":scope > .hub-texts") ?? node;
    texts.append(...renderMeta(model, options));
  }
  if (kind !== "carousel" && kind !== "unknown" && Array.isArray(model.children) && model.children.length > 0) {
    const children = el("div", "hub-children");
    renderList(model.children, children, options);
    node.append(children);
  }
  if (options.onSelect && identifier !== undefined) {
    node.tabIndex = 0;
    node.setAttribute("role", "button");
    node.addEventListener("click", (event) => {
      if (event.target.closest("a, summary, .hub-initial")) return;
      event.stopPropagation();
      options.onSelect(identifier, node, model);
    });
    node.addEventListener("keydown", (event) => {
      if (event.target !== node || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();
      options.onSelect(identifier, node, model);
    });
  }
  return node;
}

function renderTexts(model, withAccessory) {
  const texts = el("div", "hub-texts");
  const text = isObject(model.text) ? model.text : {};
  if (str(text.title) !== undefined) texts.append(el("div", "hub-title", text.title));
  if (str(text.subtitle) !== undefined) texts.append(el("div", "hub-subtitle", text.subtitle));
  if (withAccessory && str(text.accessory) !== undefined) texts.append(el("div", "hub-subtitle hub-accessory-inline", text.accessory));
  if (str(text.description) !== undefined) texts.append(el("div", "hub-description", text.description));
  return texts;
}

function accessory(model) {
  const text = isObject(model.text) ? str(model.text.accessory) : undefined;
  return text === undefined ? null : el("span", "hub-accessory", text);
}

function images(model) {
  return isObject(model.images) ? model.images : {};
}

/** An image box: the placeholder underneath, the image over it once it loads (never on error). */
function renderImage(spec, className) {
  const box = el("div", "hub-image " + className);
  const image = isObject(spec) ? spec : {};
  const label = str(image.placeholder) ?? (str(image.local) !== undefined ? "local: " + image.local : "image");
  box.append(el("span", "hub-placeholder", label));
  const uri = str(image.uri);
  if (uri !== undefined) box.title = uri;
  const src = imageURL(uri);
  if (src) {
    const img = document.createElement("img");
    img.alt = "";
    img.decoding = "async";
    img.referrerPolicy = "no-referrer";
    img.addEventListener("load", () => box.classList.add("is-loaded"));
    img.addEventListener("error", () => {
      box.classList.add("is-failed");
      img.remove();
    });
    img.src = src;
    box.append(img);
  } else if (uri !== undefined) {
    box.classList.add("is-failed");
  }
  return box;
}

function renderHeader(node, model) {
  const pictures = images(model);
  if (pictures.background !== undefined) node.append(renderImage(pictures.background, "background"));
  if (pictures.main !== undefined) node.append(renderImage(pictures.main, "main"));
  node.append(renderTexts(model, true));
}

function renderRow(node, model) {
  const pictures = images(model);
  if (pictures.main !== undefined) node.append(renderImage(pictures.main, "main"));
  node.append(renderTexts(model, false));
  const side = accessory(model);
  if (side) node.append(side);
}

function renderCard(node, model) {
  const pictures = images(model);
  if (pictures.main !== undefined) node.append(renderImage(pictures.main, "main"));
  node.append(renderTexts(model, true));
}

function renderCarousel(node, model, options) {
  node.append(renderTexts(model, true));
  const track = el("div", "hub-track");
  for (const child of Array.isArray(model.children) ? model.children : []) {
    if (isObject(child)) track.append(renderComponent(child, options));
  }
  node.append(track);
}

function renderUnknown(node, model) {
  const label = el("div", "hub-unknown-label");
  label.append(el("strong", null, "unknown component"));
  const component = isObject(model.component) ? model.component : {};
  label.append(el("span", "hub-chip", str(component.id) ?? "(no component id)"));
  if (str(component.category) !== undefined) label.append(el("span", "hub-chip", "category " + component.category));
  node.classList.add("hub-unknown");
  node.append(label, el("pre", null, json(model)));
}

/** Target (uri, actions, initial view), icon, group, custom images and free-form data, as chips. */
function renderMeta(model, options) {
  const chips = el("div", "hub-meta");
  const extra = [];
  const target = isObject(model.target) ? model.target : {};
  const uri = str(target.uri);
  if (uri !== undefined) {
    const chip = el("span", "hub-chip target", "→ ");
    if (imageURL(uri) === null && !/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) {
      const link = el("a", null, uri);
      link.href = "/preview?uri=" + encodeURIComponent(uri);
      link.title = "Preview " + uri;
      chip.append(link);
    } else {
      chip.append(uri);
    }
    chips.append(chip);
  }
  for (const action of Array.isArray(target.actions) ? target.actions : []) {
    if (str(action) !== undefined) chips.append(el("span", "hub-chip action", "⚡ " + action));
  }
  const pictures = images(model);
  if (str(pictures.icon) !== undefined) chips.append(el("span", "hub-chip", "icon " + pictures.icon));
  if (isObject(pictures.custom)) {
    for (const [key, image] of Object.entries(pictures.custom)) {
      const chip = el("span", "hub-chip", "image " + key);
      if (isObject(image) && str(image.uri) !== undefined) chip.title = image.uri;
      chips.append(chip);
    }
  }
  if (str(model.group) !== undefined) chips.append(el("span", "hub-chip", "group " + model.group));
  for (const key of ["custom", "metadata", "logging"]) {
    if (!isObject(model[key])) continue;
    const chip = el("span", "hub-chip", key + " {…}");
    chip.title = json(model[key]);
    chips.append(chip);
  }
  if (chips.childElementCount > 0) extra.push(chips);
  if (isObject(target.view)) {
    const initial = el("details", "hub-initial");
    initial.append(el("summary", null, "initial view of the target"));
    const frame = el("div");
    frame.append(renderView(target.view, { onSelect: null }));
    initial.append(frame);
    extra.push(initial);
  }
  return extra;
}

// ---------------------------------------------------------------- JSON Patch (RFC 6902)

function byteLength(text) {
  return new TextEncoder().encode(text).length;
}

/** RFC 6902 on a copy of `document`: add, remove, replace, move, copy, test; throws on any error. */
function applyPatch(document, operations) {
  if (!Array.isArray(operations)) throw new Error("a patch is an array");
  let root = structuredClone(document);
  const tokens = (pointer) => {
    if (pointer === "") return [];
    if (typeof pointer !== "string" || !pointer.startsWith("/")) throw new Error("bad pointer " + pointer);
    return pointer.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  };
  const parentOf = (path) => {
    const parts = tokens(path);
    if (parts.length === 0) return { parent: null, key: null };
    let parent = root;
    for (const part of parts.slice(0, -1)) {
      if (parent === null || typeof parent !== "object" || !(part in parent)) throw new Error("no " + path);
      parent = parent[part];
    }
    if (parent === null || typeof parent !== "object") throw new Error("no parent for " + path);
    return { parent, key: parts[parts.length - 1] };
  };
  const index = (array, key, adding) => {
    if (adding && key === "-") return array.length;
    const value = Number(key);
    if (!/^(0|[1-9][0-9]*)$/.test(key) || value > array.length || (!adding && value === array.length)) {
      throw new Error("bad index " + key);
    }
    return value;
  };
  const get = (path) => {
    const { parent, key } = parentOf(path);
    if (parent === null) return root;
    if (Array.isArray(parent)) return parent[index(parent, key, false)];
    if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new Error("no " + path);
    return parent[key];
  };
  const remove = (path) => {
    const value = get(path);
    const { parent, key } = parentOf(path);
    if (Array.isArray(parent)) parent.splice(index(parent, key, false), 1); else delete parent[key];
    return value;
  };
  const add = (path, value) => {
    const { parent, key } = parentOf(path);
    if (parent === null) root = value;
    else if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, value);
    else parent[key] = value;
  };
  for (const operation of operations) {
    const { op, path } = operation;
    if (op === "add") add(path, structuredClone(operation.value));
    else if (op === "remove") remove(path);
    else if (op === "replace") { remove(path); add(path, structuredClone(operation.value)); }
    else if (op === "move") add(path, remove(operation.from));
    else if (op === "copy") add(path, structuredClone(get(operation.from)));
    else if (op === "test") { if (JSON.stringify(get(path)) !== JSON.stringify(operation.value)) throw new Error("test failed"); }
    else throw new Error("unknown op " + op);
  }
  return root;
}
