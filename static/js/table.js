/* The room page's only script besides htmx: the countdown, toasts, confirm, connection state.
   Everything shown comes from the server; this never decides anything about the game. */
(function () {
  "use strict";
  var skew = 0; // server clock minus this clock, in ms (from #clock[data-now])

  function syncClock() {
    var clock = document.getElementById("clock");
    var now = clock && Number(clock.getAttribute("data-now"));
    if (now) skew = now - Date.now();
  }

  function tick() {
    var now = Date.now() + skew;
    var items = document.querySelectorAll("[data-deadline]");
    for (var i = 0; i < items.length; i++) {
      var el = items[i];
      var deadline = Number(el.getAttribute("data-deadline"));
      if (!deadline) continue;
      var left = Math.max(0, Math.ceil((deadline - now) / 1000));
      if (el.hasAttribute("data-hide-expired")) {
        el.hidden = left <= 0;
        continue;
      }
      if (el.classList.contains("countdown")) {
        el.textContent = String(left);
        el.classList.toggle("urgent", left <= 3);
      }
    }
  }

  function room() { return document.getElementById("room"); }

  function clearSoon() {
    var msg = document.querySelector("#toast [data-toast]");
    if (!msg) return;
    var id = msg.getAttribute("data-toast");
    setTimeout(function () {
      var still = document.querySelector('#toast [data-toast="' + id + '"]');
      if (still) { still.parentNode.classList.remove("show"); still.remove(); }
    }, 4000);
  }

  document.addEventListener("htmx:wsConfigSend", function (event) {
    var el = event.target;
    var question = el && el.getAttribute && el.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); return; }
    var r = room();
    if (r) r.classList.add("sending"); // no double taps until the answer comes
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var r = room();
    if (r) r.classList.remove("sending");
    syncClock();
    tick();
    clearSoon();
  });
  document.addEventListener("htmx:wsOpen", function () {
    var c = document.getElementById("conn");
    if (c) c.hidden = true;
  });
  document.addEventListener("htmx:wsClose", function (event) {
    var c = document.getElementById("conn");
    var code = event.detail && event.detail.event && event.detail.event.code;
    if (c && code !== 4000 && code !== 1000) c.hidden = false;
    var r = room();
    if (r) r.classList.remove("sending");
  });

  document.addEventListener("DOMContentLoaded", function () { syncClock(); tick(); });
  setInterval(tick, 250);
})();
