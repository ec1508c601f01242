// The pages' actions: a form with data-api="URL" is sent to the JSON API from the browser, with the
// session cookie and the X-Requested-With header the server requires of such calls (ADR 0014).
// Success reloads the page and shows data-success; failure shows the problem+json's own words.
const FLASH_KEY = "tensafe.flash";

export function showError(text) {
  const box = document.getElementById("error");
  box.textContent = text;
  box.hidden = false;
  box.focus?.();
}

export function showFlash(text) {
  const box = document.getElementById("flash");
  box.textContent = text;
  box.hidden = false;
}

/** The readable message of a failed response: its problem's title and detail, and field errors. */
export async function problemText(response) {
  if (response.status === 499 || response.status === 401) {
    return "Your session has expired. Reload the page to sign in again.";
  }
  let problem = null;
  try {
    problem = await response.json();
  } catch (e) {
    return `The server answered ${response.status} ${response.statusText}.`;
  }
  return problemMessage(problem, response.status);
}

export function problemMessage(problem, status) {
  const parts = [problem.title || `Error ${status}`];
  if (problem.detail) parts.push(problem.detail);
  for (const e of problem.errors || []) parts.push(`${e.field}: ${e.message}`);
  return parts.join(": ");
}

/** An amount typed in currency units ("1.25") as exact integer micro-units (1250000). */
export function micros(text, label) {
  const m = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) throw new Error(`${label || "amount"}: "${text}" is not an amount with at most 6 decimals`);
  return Number(m[1]) * 1_000_000 + Number((m[2] || "").padEnd(6, "0"));
}

function bodyOf(form) {
  if (!form.hasAttribute("data-json")) return null;
  const body = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled || el.name.startsWith("_")) continue;
    const kind = el.dataset.type;
    if (kind === "number") body[el.name] = Number(el.value);
    else if (kind === "micros") body[el.name] = micros(el.value, el.labels?.[0]?.textContent);
    else if (kind === "local-time") body[el.name] = new Date(el.value).toISOString();
    else body[el.name] = el.value;
  }
  return JSON.stringify(body);
}

async function submit(event) {
  const form = event.target.closest("form[data-api]");
  if (!form) return;
  event.preventDefault();
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  document.getElementById("error").hidden = true;
  const button = form.querySelector("button[type=submit]");
  if (button) button.disabled = true;
  try {
    let body;
    try {
      body = bodyOf(form);
    } catch (e) {
      showError(`Please check the form: ${e.message}`);
      return;
    }
    const headers = { "X-Requested-With": "TenSafe", Accept: "application/json" };
    if (body !== null) headers["Content-Type"] = "application/json";
    // A form may choose its endpoint with a field named _api (e.g. which version to price).
    const url = form.elements._api ? form.elements._api.value : form.dataset.api;
    const response = await fetch(url, {
      method: form.dataset.method || "POST",
      headers,
      body,
      credentials: "same-origin",
    });
    if (response.ok) {
      sessionStorage.setItem(FLASH_KEY, form.dataset.success || "Done.");
      window.location.reload();
    } else {
      showError(await problemText(response));
    }
  } catch (e) {
    showError(`The request could not be sent: ${e.message}`);
  } finally {
    if (button) button.disabled = false;
  }
}

document.addEventListener("submit", submit);
const flash = sessionStorage.getItem(FLASH_KEY);
if (flash) {
  sessionStorage.removeItem(FLASH_KEY);
  showFlash(flash);
}

// The overview's "Refresh every 30 s" box: remembered in this browser, reloads while checked.
const autoRefresh = document.getElementById("auto-refresh");
if (autoRefresh) {
  const KEY = "tensafe.auto-refresh";
  autoRefresh.checked = localStorage.getItem(KEY) === "on";
  let timer = null;
  const schedule = () => {
    clearTimeout(timer);
    if (autoRefresh.checked) timer = setTimeout(() => window.location.reload(), 30_000);
  };
  autoRefresh.addEventListener("change", () => {
    localStorage.setItem(KEY, autoRefresh.checked ? "on" : "off");
    schedule();
  });
  schedule();
}
