// live.js: the page updates itself while the agent works. The memory
// service sends an event on "events" when what the page shows may have
// changed (a journal commit, a hook, a task run, the C4 backlog, the
// health checks, a team sync); the page then fetches itself again and swaps in its
// <main>. No timer polls: without an event nothing is fetched.
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }
  var busy = false, again = false;
  function editing() {
    var a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT");
  }
  function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(location.href, {credentials: "same-origin", cache: "no-store"})
      .then(function (r) {
        if (!r.ok) {
          throw new Error(String(r.status));
        }
        return r.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        var main = document.querySelector("main");
        if (fresh && main && !editing() && fresh.innerHTML !== main.innerHTML) {
          main.innerHTML = fresh.innerHTML;
          document.documentElement.setAttribute("data-updated", String(Date.now()));
        }
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }
  var events = new EventSource("events");
  events.addEventListener("change", refresh);
})();
