// The creator's upload: sends the chosen .tgsp to the JSON API with a progress bar, then says in
// plain words what the marketplace verified, or why it refused the package (its problem+json).
import { problemMessage } from "/ui/actions.js";

const form = document.getElementById("upload-form");
const progressBox = document.getElementById("progress-box");
const progress = document.getElementById("upload-progress");
const percent = document.getElementById("upload-percent");
const result = document.getElementById("upload-result");
const title = document.getElementById("result-title");
const text = document.getElementById("result-text");

function show(ok, heading, body) {
  result.hidden = false;
  result.classList.toggle("error", !ok);
  result.classList.toggle("flash", ok);
  title.textContent = heading;
  text.textContent = body;
}

function setProgress(value) {
  progress.value = value;
  percent.textContent = `${value}%`;
}

function verified(v) {
  const mib = (v.packageBytes / 1048576).toFixed(2);
  return (
    `The signature matches one of your registered keys, the manifest is valid and the package ` +
    `(${mib} MiB, SHA-256 ${v.packageSha256.slice(0, 16)}…) is stored. ` +
    `${v.adapterId} ${v.version} (rank ${v.rank} for ${v.baseModel}, domain ${v.domain}) is now a ` +
    `${v.state} version: publish it on My adapters when you are ready.`
  );
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const file = document.getElementById("package").files[0];
  if (!file) return;
  result.hidden = true;
  progressBox.hidden = false;
  setProgress(0);
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", form.getAttribute("action"));
  xhr.setRequestHeader("Content-Type", "application/octet-stream");
  xhr.setRequestHeader("X-Requested-With", "TenSafe");
  xhr.setRequestHeader("Accept", "application/json");
  xhr.upload.addEventListener("progress", (e) => {
    if (e.lengthComputable) setProgress(Math.floor((e.loaded * 100) / e.total));
  });
  xhr.addEventListener("load", () => {
    button.disabled = false;
    let body = null;
    try {
      body = JSON.parse(xhr.responseText);
    } catch (e) {
      body = null;
    }
    if (xhr.status === 201 && body) {
      setProgress(100);
      show(true, "Package verified and stored", verified(body));
    } else if (xhr.status === 499 || xhr.status === 401) {
      show(false, "Not uploaded", "Your session has expired. Reload the page to sign in again.");
    } else {
      show(false, "Package rejected", body ? problemMessage(body, xhr.status) : `The server answered ${xhr.status}.`);
    }
  });
  xhr.addEventListener("error", () => {
    button.disabled = false;
    show(false, "Not uploaded", "The upload could not be sent; check your connection and try again.");
  });
  xhr.send(file);
});
