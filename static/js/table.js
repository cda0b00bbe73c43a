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

  // The table while a hand is on fills the screen (.in-hand, static/css/table.css); the ☰ menu
  // opens the drawer (#room-menu). The server sets .in-hand on load; each swap may change it.
  // A move is animated once (the discard dropping into its river, the called word flashing on
  // the caller's seat): [data-once] elements get .animate the first time their key is seen. A
  // page that (re)loads marks what it finds as seen without animating it.
  var seenMoves = {};
  function animateNew(quiet) {
    var items = document.querySelectorAll("[data-once]");
    for (var i = 0; i < items.length; i++) {
      var key = items[i].getAttribute("data-once");
      if (seenMoves[key]) continue;
      seenMoves[key] = true;
      if (!quiet) items[i].classList.add("animate");
    }
  }

  function syncLayout() {
    var r = room();
    if (!r) return;
    var inHand = !!document.querySelector("#table.table");
    r.classList.toggle("in-hand", inHand);
    if (!inHand) r.classList.remove("menu-open");
    var raised = document.querySelector("#hand button.mtile.raised");
    var go = document.querySelector("[data-discard-raised]");
    if (go) go.disabled = !raised;
  }
  document.addEventListener("click", function (event) {
    var phrases = event.target && event.target.closest && event.target.closest("[data-phrase-toggle]");
    if (phrases) {
      var panel = document.getElementById("phrase-panel");
      if (panel) {
        panel.hidden = !panel.hidden;
        if (!panel.hidden) listMuteSeats(panel);
      }
      return;
    }
    // traditional Taizhou: the faces still 生 (a class on #room, so it stays open while the table updates)
    var sheng = event.target && event.target.closest && event.target.closest("[data-sheng-toggle]");
    if (sheng) {
      var rs = room();
      if (rs) rs.classList.toggle("sheng-open");
      return;
    }
    var toggle = event.target && event.target.closest && event.target.closest("[data-menu-toggle]");
    if (toggle) {
      var r = room();
      if (r) r.classList.toggle("menu-open");
      return;
    }
    var go = event.target && event.target.closest && event.target.closest("[data-discard-raised]");
    if (go) {
      var raised = document.querySelector("#hand button.mtile.raised");
      if (raised) raised.click(); // raised: this click sends it
    }
  });

  // A tap raises a tile of your hand; a second tap on it (or 出牌) discards it. One accidental
  // tap never discards. The raised tile is forgotten when the hand is swapped.
  function raise(el) {
    var hand = document.querySelectorAll("#hand button.mtile.raised");
    for (var i = 0; i < hand.length; i++) hand[i].classList.remove("raised");
    el.classList.add("raised");
    syncLayout();
  }

  document.addEventListener("htmx:wsConfigSend", function (event) {
    var el = event.target;
    if (el && el.matches && el.matches("#hand .my-hand button.mtile") && !el.classList.contains("raised")) {
      event.preventDefault();
      raise(el);
      return;
    }
    var question = el && el.getAttribute && el.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); return; }
    // 再来一局: once seated in the rematch room, go there (the final panel then holds a[data-go])
    if (event.detail && event.detail.parameters && event.detail.parameters.action === "rematch") goRematch = true;
    var r = room();
    if (r) r.classList.add("sending"); // no double taps until the answer comes
  });
  // 快捷语: a bubble arrives in #phrase-bubbles; show it over the sender's seat for a few seconds
  // (fixed position from the seat's box: the table's fragments are swapped under it), unless this
  // browser muted that seat (remembered per room in localStorage).
  var PHRASE_MS = 4000;
  function mutedSeats() {
    var r = room();
    try { return JSON.parse(localStorage.getItem("mj-mute-" + (r && r.dataset.room)) || "[]"); } catch (e) { return []; }
  }
  function setMuted(position, on) {
    var r = room();
    var list = mutedSeats().filter(function (p) { return p !== position; });
    if (on) list.push(position);
    try { localStorage.setItem("mj-mute-" + (r && r.dataset.room), JSON.stringify(list)); } catch (e) { /* private mode */ }
  }
  function placeBubbles() {
    var muted = mutedSeats();
    var bubbles = document.querySelectorAll("#phrase-bubbles .phrase-bubble:not([data-shown])");
    for (var i = 0; i < bubbles.length; i++) {
      var b = bubbles[i];
      b.setAttribute("data-shown", "");
      var position = Number(b.getAttribute("data-position"));
      if (muted.indexOf(position) >= 0) { b.remove(); continue; }
      var seat = document.querySelector("#table [data-position='" + position + "'] .player-head") ||
                 document.querySelector("#seats [data-position='" + position + "']");
      if (seat) {
        var box = seat.getBoundingClientRect();
        b.style.left = Math.max(4, Math.min(window.innerWidth - 220, box.left)) + "px";
        b.style.top = Math.max(4, Math.min(window.innerHeight - 60, box.bottom + 2)) + "px";
      }
      (function (el) { setTimeout(function () { el.remove(); }, PHRASE_MS); })(b);
      var panel = document.getElementById("phrase-panel");
      if (panel) panel.hidden = true;
    }
  }
  // the other seated players as they are now (the table's seats while a hand is on, else the list)
  function listMuteSeats(panel) {
    var slot = panel.querySelector(".mute-seats");
    if (!slot) return;
    var muted = mutedSeats(), seen = {};
    var seats = document.querySelectorAll("#table .felt .player:not(.side-bottom)[data-position], #seats [data-position]");
    slot.textContent = "";
    for (var i = 0; i < seats.length; i++) {
      var position = Number(seats[i].getAttribute("data-position"));
      var name = seats[i].querySelector(".name");
      if (seen[position] || !name || seats[i].classList.contains("empty") || seats[i].classList.contains("me")) continue;
      seen[position] = true;
      var label = document.createElement("label"), box = document.createElement("input");
      box.type = "checkbox";
      box.setAttribute("data-mute-position", String(position));
      box.checked = muted.indexOf(position) >= 0;
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + name.textContent.trim()));
      slot.appendChild(label);
    }
    panel.querySelector(".mute-row").hidden = !slot.childNodes.length;
  }
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box && box.hasAttribute && box.hasAttribute("data-mute-position")) {
      setMuted(Number(box.getAttribute("data-mute-position")), box.checked);
    }
  });

  var goRematch = false;
  document.addEventListener("htmx:wsAfterMessage", function () {
    placeBubbles();
    var r = room();
    if (r) {
      r.classList.remove("sending");
      // how many socket messages this page has swapped: the page's own HTML is older than its
      // socket's first (full) view, so "live" means at least one (tests wait on it)
      r.setAttribute("data-heard", String(Number(r.getAttribute("data-heard") || 0) + 1));
    }
    var go = goRematch && document.querySelector("#result a[data-go]");
    if (go) { goRematch = false; window.location.assign(go.href); return; }
    syncLayout();
    animateNew(false);
    syncClock();
    tick();
    clearSoon();
  });
  // The socket (games/consumers.py). A heartbeat {"action": "ping"} every 25 s keeps phones' NAT
  // paths open and this seat 在线 (games/presence.py: online = heard from within 70 s); the server
  // answers PONG, which is dropped here. Reconnects back off exponentially with jitter (about
  // 1 s, 2 s, 4 s ... capped at 30 s) and the back-off is only forgiven once a socket has stayed
  // up STABLE_MS: a server that accepts and drops at once (or refuses: Redis down) is not hammered.
  // htmx-ext-ws would reset its own retry count on every open, so it asks us for the delay.
  var HEARTBEAT_MS = 25000, STABLE_MS = 10000, BACKOFF_MIN_MS = 1000, BACKOFF_MAX_MS = 30000;
  var PING = JSON.stringify({ action: "ping" }), PONG = "<!--pong-->";
  var socket = null; // the open socket's wrapper (htmx-ext-ws publicInterface)
  var failures = 0; // reconnects since a socket last stayed up STABLE_MS
  var stableTimer = null;

  function reconnectDelay() {
    var cap = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * Math.pow(2, failures));
    failures += 1;
    return cap / 2 + Math.random() * cap / 2; // "equal jitter": between half and all of the cap
  }
  if (window.htmx) window.htmx.config.wsReconnectDelay = reconnectDelay;

  function ping() {
    if (!socket) return;
    try { socket.send(PING); } catch (e) { /* closing: the close handler takes over */ }
  }
  setInterval(ping, HEARTBEAT_MS);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") ping(); // timers are throttled in background tabs
  });
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (event.detail && event.detail.message === PONG) event.preventDefault(); // nothing to swap
  });

  document.addEventListener("htmx:wsOpen", function (event) {
    socket = (event.detail && event.detail.socketWrapper) || null;
    clearTimeout(stableTimer);
    stableTimer = setTimeout(function () { failures = 0; }, STABLE_MS);
    var c = document.getElementById("conn");
    if (c) c.hidden = true;
  });
  document.addEventListener("htmx:wsClose", function (event) {
    socket = null;
    clearTimeout(stableTimer);
    var c = document.getElementById("conn");
    var code = event.detail && event.detail.event && event.detail.event.code;
    if (c && code !== 4000 && code !== 1000) c.hidden = false;
    var r = room();
    if (r) r.classList.remove("sending");
  });

  // 共享位置 (consent, never required): ask the browser, then send {"action": "location", lat, lon}
  // through the hidden #geo-send element (ws-send, triggered by "mj-located").
  function localToast(text) {
    var toast = document.getElementById("toast");
    if (!toast || !text) return;
    var span = document.createElement("span");
    span.setAttribute("data-toast", String(Date.now()));
    span.textContent = text;
    toast.textContent = "";
    toast.appendChild(span);
    toast.className = "toast show error";
    clearSoon();
  }
  var located = null;
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest && event.target.closest("[data-share-location]");
    if (!button) return;
    if (!navigator.geolocation) { localToast(button.getAttribute("data-unsupported")); return; }
    button.disabled = true;
    navigator.geolocation.getCurrentPosition(function (pos) {
      button.disabled = false;
      located = { lat: pos.coords.latitude, lon: pos.coords.longitude };
      var sender = document.getElementById("geo-send");
      if (sender && window.htmx) window.htmx.trigger(sender, "mj-located");
    }, function () {
      button.disabled = false;
      localToast(button.getAttribute("data-denied"));
    }, { enableHighAccuracy: false, timeout: 15000, maximumAge: 60000 });
  });
  document.addEventListener("htmx:wsConfigSend", function (event) {
    if (!event.target || event.target.id !== "geo-send") return;
    if (!located) {
      event.preventDefault();
      var r = room();
      if (r) r.classList.remove("sending");
      return;
    }
    event.detail.parameters.lat = located.lat;
    event.detail.parameters.lon = located.lon;
    located = null;
  });

  document.addEventListener("DOMContentLoaded", function () { syncLayout(); animateNew(true); syncClock(); tick(); });
  setInterval(tick, 250);
})();
