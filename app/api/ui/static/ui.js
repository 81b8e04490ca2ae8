// Perdure dashboard: live updates without a build step or a third-party script.
// [data-refresh=ms]: re-fetch this page every ms and swap that element in (the runs list).
// [data-stream=url]: follow the run's event stream; on each event, swap the element in
// from a fresh copy of this page (the run page); stop after the run's last event.
"use strict";
(function () {
  const TERMINAL = new Set(["run.finished", "run.failed", "run.cancelled"]);

  async function swap(id) {
    const response = await fetch(window.location.href, { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const next = fresh.getElementById(id);
    const current = document.getElementById(id);
    if (next && current) current.replaceWith(next);
  }

  function poll(element) {
    const every = Number(element.dataset.refresh) || 5000;
    const id = element.id;
    setInterval(() => { if (!document.hidden) swap(id); }, every);
  }

  function follow(element) {
    const id = element.id;
    const source = new EventSource(element.dataset.stream);
    let pending = null;
    source.onmessage = (message) => {
      let type = "";
      try { type = JSON.parse(message.data).type; } catch (_) { /* not ours */ }
      if (TERMINAL.has(type)) source.close();
      clearTimeout(pending);  // a burst of events redraws once
      pending = setTimeout(() => swap(id), 150);
    };
    // The server ends the stream after the run's last event: no reconnection loop.
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) source.close(); };
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("[data-refresh]").forEach(poll);
    document.querySelectorAll("[data-stream]").forEach(follow);
  });
})();
