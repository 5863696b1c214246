// The class page: follows the session's event stream and swaps in each
// frame the server rendered (every string in it already escaped).
"use strict";
(function () {
  const live = document.getElementById("live");
  const status = document.getElementById("status");
  const first = document.getElementById("frame");
  let session = first ? first.dataset.session : "";
  let next = "";
  let ended = false;
  function say(text, cls) {
    status.textContent = text;
    status.className = "status " + (cls || "");
  }
  const es = new EventSource("events");
  es.addEventListener("open", function () { say("live", "good"); });
  es.addEventListener("error", function () {
    // After the end the server goes away: the page keeps saying why.
    if (!ended) {
      say("disconnected: reconnecting…", "bad");
    }
  });
  es.addEventListener("session", function (e) { next = e.data; });
  es.addEventListener("frame", function (e) {
    if (next !== session) {
      // A new session: say so, and draw only its frames from now on.
      if (session !== "") {
        say("a new session started", "warn");
      }
      session = next;
    } else {
      say("live", "good");
    }
    live.innerHTML = e.data;
    ended = false;
    document.body.classList.remove("ended");
  });
  es.addEventListener("end", function (e) {
    ended = true;
    say(e.data || "the session ended", "bad");
    document.body.classList.add("ended");
  });
})();
