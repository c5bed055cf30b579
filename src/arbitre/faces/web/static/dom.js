// Small helpers: elements built with text nodes only (ids and names are user text, never
// parsed as HTML), and the page's texts by id.
const SVG = "http://www.w3.org/2000/svg";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, v);
  }
  el.append(...children.filter((c) => c != null && c !== false));
  return el;
}

export function s(tag, attrs = {}, text = null) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) el.setAttribute(k, v);
  if (text != null) el.textContent = text;
  return el;
}

export function fmt(template, params = {}) {
  return String(template).replace(/\{(\w+)\}/g, (_, k) => (params[k] == null ? "" : String(params[k])));
}

export function setTexts(T) {
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = T[el.dataset.t] || el.dataset.t;
  document.title = T.title;
  document.documentElement.lang = T.lang_code || "en";
}
