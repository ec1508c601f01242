// Shows the live /q/health report of the marketplace. No third-party code.
"use strict";

async function showStatus() {
  const summary = document.getElementById("status-summary");
  const list = document.getElementById("status-checks");
  try {
    const response = await fetch("/q/health", { headers: { Accept: "application/json" } });
    const report = await response.json();
    summary.textContent = report.status === "UP" ? "All checks are up." : "Some checks are down.";
    summary.className = report.status === "UP" ? "up" : "down";
    list.replaceChildren(
      ...(report.checks || []).map((check) => {
        const item = document.createElement("li");
        const state = document.createElement("span");
        state.textContent = check.status;
        state.className = check.status === "UP" ? "up" : "down";
        item.append(state, " ", check.name);
        if (check.status !== "UP" && check.data) {
          // Say why: e.g. which fleet has no fresh node.
          const why = Object.entries(check.data)
            .map(([key, value]) => `${key}: ${value}`)
            .join("; ");
          item.append(` (${why})`);
        }
        return item;
      })
    );
  } catch (error) {
    summary.textContent = "The health report could not be read: " + error.message;
    summary.className = "down";
  }
}

document.addEventListener("DOMContentLoaded", showStatus);
