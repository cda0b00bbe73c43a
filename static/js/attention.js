/* Sound and attention on the room page (issue 14): short sounds synthesised here with the Web Audio
   API (no audio files), a mute toggle remembered per device, vibration and a 轮到你 tab title when it
   becomes your turn, a Screen Wake Lock while a hand is on, and a resync when the page comes back.

   It never changes the game: it only reads what the server rendered, after every socket message
   (htmx:wsAfterMessage). What it looks for is the table below; adjust it when the layout changes.
   No sound before the first tap or key (browsers block it): the AudioContext is made then.
   window.mjAttention.state() is a read-only snapshot for tests and for a look in the console. */
(function () {
  "use strict";

  // --- what to read in the page -------------------------------------------------------------
  var SEL = {
    room: "#room",
    slot: "#sound-toggle-slot",              // the mute button goes here if the layout has it
    myTurn: "#table .bar-item.turn.mine",    // with canDiscard: it is my turn to discard
    canDiscard: "#hand .my-hand.can-discard",
    claimPrompt: "#actions .claim-buttons",  // buttons for me (吃 碰 杠 胡 过, 买底 / 顶底, 自摸 / 暗杠)
    myCountdown: "#table .bar-item.turn.mine .countdown", // seconds left (table.js updates it)
    lastMove: "#table .last-move",           // "上一步：名字 碰 三万" / "Last move: name Pung 3m"
    river: "#table .river [data-tile]",      // counted too: the same discard twice is two moves
    winner: "#result .score-card.winner",    // a hand was won
    mySeat: "#seats .seat.me",               // its data-position against the winner card's
    handOn: "#hand .my-hand"                 // a hand is on (the wake lock)
  };
  // The action word of the last-move line (games/table.py _last_move; the English words are the
  // catalogue's, pgettext "action" and 打出 -> "discarded"). The rightmost match counts: the name
  // comes before the word and no tile label holds one.
  var MOVE_WORDS = {
    "打出": "discard", "discarded": "discard",
    "吃": "chow", "Chow": "chow",
    "碰": "pung", "Pung": "pung",
    "杠": "kong", "暗杠": "kong", "加杠": "kong", "Kong": "kong", "Concealed kong": "kong", "Add kong": "kong",
    "胡": "hu", "自摸": "hu", "Win": "hu", "Win (self-drawn)": "hu"
  };
  var STORE_KEY = "mj-muted";
  var TICK_SECONDS = 3;

  var EN = /^en\b/i.test(document.documentElement.getAttribute("lang") || "");
  var TEXT = EN
    ? { mute: "Mute sound", title: "Your turn · " }
    : { mute: "静音", title: "轮到你 · " };

  function q(sel) { return document.querySelector(sel); }
  function noop() {}

  var MOVE_RE = new RegExp(Object.keys(MOVE_WORDS).sort(function (a, b) { return b.length - a.length; })
    .map(function (w) {
      var escaped = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return /^[A-Za-z]/.test(w) ? "\\b" + escaped + "(?![A-Za-z])" : escaped;
    }).join("|"), "g");

  function moveKind(text) {
    var m, last = null;
    MOVE_RE.lastIndex = 0;
    while ((m = MOVE_RE.exec(text)) !== null) last = m[0];
    return last ? MOVE_WORDS[last] : null;
  }

  // --- state ----------------------------------------------------------------------------------
  var muted = false;
  try { muted = window.localStorage.getItem(STORE_KEY) === "1"; } catch (e) { /* storage off */ }
  var ctx = null, master = null, noiseBuffer = null, gestured = false;
  var cues = [];            // the last things signalled: {name, audible}
  var vibrations = 0, resyncs = 0, opens = 0;
  var wake = { lock: null, pending: false, refused: false, status: "wakeLock" in navigator ? "none" : "unsupported" };
  var baseTitle = document.title;
  var prev = null;          // the last reading of the page
  var lastTick = "";
  var socket = null, wrapper = null; // the open WebSocket and its htmx-ext-ws wrapper

  function remember(name, audible) {
    cues.push({ name: name, audible: audible });
    if (cues.length > 40) cues.shift();
  }

  // --- sounds ---------------------------------------------------------------------------------
  function unlock() {
    gestured = true;
    if (muted) return;
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return;
    if (!ctx) {
      try {
        ctx = new AC();
        var limiter = ctx.createDynamicsCompressor();
        master = ctx.createGain();
        master.gain.value = 0.8;
        master.connect(limiter);
        limiter.connect(ctx.destination);
      } catch (e) { ctx = null; return; }
    }
    if (ctx.state !== "running" && ctx.resume) {
      var p = ctx.resume();
      if (p && p.catch) p.catch(noop);
    }
  }
  ["pointerdown", "keydown", "touchend", "click"].forEach(function (type) {
    window.addEventListener(type, unlock, true); // kept: phones suspend the context in the background
  });

  function envelope(gain, t, peak, attack, decay) {
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(peak, t + attack);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + attack + decay);
  }

  function tone(t, freq, decay, opt) {
    opt = opt || {};
    var attack = opt.attack || 0.004;
    var osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = opt.type || "sine";
    osc.frequency.setValueAtTime(freq, t);
    if (opt.to) osc.frequency.exponentialRampToValueAtTime(opt.to, t + attack + decay);
    envelope(gain, t, opt.gain || 0.25, attack, decay);
    osc.connect(gain);
    gain.connect(master);
    osc.start(t);
    osc.stop(t + attack + decay + 0.05);
  }

  function noise(t, decay, freq, q, peak) {
    if (!noiseBuffer) {
      noiseBuffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.3), ctx.sampleRate);
      var data = noiseBuffer.getChannelData(0), seed = 7;
      for (var i = 0; i < data.length; i++) { seed = (seed * 16807) % 2147483647; data[i] = seed / 1073741823.5 - 1; }
    }
    var src = ctx.createBufferSource(), filter = ctx.createBiquadFilter(), gain = ctx.createGain();
    src.buffer = noiseBuffer;
    filter.type = "bandpass";
    filter.frequency.value = freq;
    filter.Q.value = q;
    envelope(gain, t, peak, 0.002, decay);
    src.connect(filter);
    filter.connect(gain);
    gain.connect(master);
    src.start(t);
    src.stop(t + decay + 0.05);
  }

  function bell(t, freq, decay, peak) { // inharmonic partials: a struck bell / gong
    [[1, 1], [2.76, 0.45], [5.4, 0.2], [8.93, 0.08]].forEach(function (p) {
      tone(t, freq * p[0], decay / p[0] * 1.5, { gain: peak * p[1], attack: 0.003 });
    });
  }

  var SOUNDS = {
    // a rising two-note chime
    turn: function (t) { tone(t, 659.25, 0.16, { type: "triangle", gain: 0.3 }); tone(t + 0.12, 987.77, 0.4, { gain: 0.3 }); },
    // a claim is offered to me: two quick bright blips
    prompt: function (t) { tone(t, 1174.7, 0.07, { type: "square", gain: 0.25 }); tone(t + 0.1, 1174.7, 0.1, { type: "square", gain: 0.25 }); },
    // a tile put down: a click and a low knock
    discard: function (t) { noise(t, 0.045, 2600, 1.4, 0.9); tone(t, 190, 0.07, { type: "triangle", gain: 0.35, to: 95 }); },
    // 吃: a light step up
    chow: function (t) { tone(t, 523.25, 0.1, { type: "triangle", gain: 0.3 }); tone(t + 0.08, 783.99, 0.16, { type: "triangle", gain: 0.3 }); },
    // 碰: two tiles slapped down together
    pung: function (t) { noise(t, 0.06, 1500, 1, 1); noise(t + 0.07, 0.08, 1200, 1, 1); tone(t, 146.8, 0.2, { type: "square", gain: 0.12, to: 110 }); },
    // 杠: a low gong
    kong: function (t) { noise(t, 0.05, 900, 0.8, 0.8); bell(t, 98, 1.4, 0.35); },
    // 胡: a bright bell, struck twice
    hu: function (t) { bell(t, 880, 0.7, 0.22); bell(t + 0.16, 1318.5, 0.9, 0.22); },
    // my win: a major arpeggio and a held chord
    win: function (t) {
      [523.25, 659.25, 783.99, 1046.5].forEach(function (f, i) { tone(t + i * 0.09, f, 0.25, { type: "triangle", gain: 0.25 }); });
      [523.25, 659.25, 783.99].forEach(function (f) { tone(t + 0.4, f, 0.9, { gain: 0.14, attack: 0.02 }); });
    },
    // the last seconds of my timer (the last one higher)
    tick: function (t) { tone(t, 1568, 0.035, { type: "square", gain: 0.3 }); },
    tock: function (t) { tone(t, 2093, 0.05, { type: "square", gain: 0.4 }); }
  };

  function play(names) { // [name, ...] one after another, a little apart
    var audible = !muted && !!ctx && ctx.state === "running";
    var t = audible ? ctx.currentTime + 0.02 : 0;
    names.forEach(function (name, i) {
      remember(name, audible);
      if (!audible) return;
      try { SOUNDS[name](t + i * 0.28); } catch (e) { /* a browser without part of Web Audio */ }
    });
  }

  // --- what happened --------------------------------------------------------------------------
  function read() {
    var move = q(SEL.lastMove), winner = q(SEL.winner), me = q(SEL.mySeat);
    var text = move ? move.textContent.replace(/\s+/g, " ").trim() : "";
    var winPos = winner ? winner.getAttribute("data-position") : null;
    return {
      myTurn: !!(q(SEL.myTurn) && q(SEL.canDiscard)),
      prompt: !!q(SEL.claimPrompt),
      handOn: !!q(SEL.handOn),
      move: text ? moveKind(text) : null,
      moveKey: text ? text + "#" + document.querySelectorAll(SEL.river).length : "",
      winner: !!winner,
      iWon: !!(winner && me && winPos !== null && winPos === me.getAttribute("data-position"))
    };
  }

  function vibrate(pattern) {
    if (!navigator.vibrate) return;
    try { if (navigator.vibrate(pattern)) vibrations += 1; } catch (e) { /* not allowed yet */ }
  }

  function update() {
    var now = read(), sounds = [];
    if (prev) {
      if (now.winner && !prev.winner) {
        sounds.push("hu");
        if (now.iWon) sounds.push("win");
      } else if (now.move && now.moveKey !== prev.moveKey) {
        sounds.push(now.move);
      }
      if (now.myTurn && !prev.myTurn) {
        sounds.push("turn");
        vibrate([120, 80, 120]);
      } else if (now.prompt && !prev.prompt && !now.myTurn) {
        sounds.push("prompt");
        vibrate(80);
      }
    }
    prev = now;
    if (sounds.length) play(sounds);
    syncTitle();
    syncWakeLock();
    placeButton();
  }

  function countdown() {
    var el = q(SEL.myCountdown);
    if (!el) { lastTick = ""; return; }
    var left = parseInt(el.textContent, 10);
    if (!(left >= 1 && left <= TICK_SECONDS)) return;
    var key = (el.getAttribute("data-deadline") || "") + ":" + left;
    if (key === lastTick) return;
    lastTick = key;
    play([left === 1 ? "tock" : "tick"]);
  }

  // --- the tab title, the wake lock -----------------------------------------------------------
  function syncTitle() {
    var shown = document.title;
    if (shown.indexOf(TEXT.title) === 0) shown = shown.slice(TEXT.title.length);
    baseTitle = shown;
    var wanted = prev && (prev.myTurn || (prev.prompt && prev.handOn)) && document.visibilityState === "hidden"
      ? TEXT.title + baseTitle : baseTitle;
    if (document.title !== wanted) document.title = wanted;
  }

  function syncWakeLock() {
    if (!("wakeLock" in navigator)) return;
    var want = !!(prev && prev.handOn) && document.visibilityState === "visible";
    if (want && !wake.lock && !wake.pending && !wake.refused) { // refused: asked again when visible again
      wake.pending = true;
      navigator.wakeLock.request("screen").then(function (lock) {
        wake.pending = false;
        if (!(prev && prev.handOn)) { lock.release().catch(noop); wake.status = "none"; return; }
        wake.lock = lock;
        wake.status = "held";
        lock.addEventListener("release", function () {
          if (wake.lock === lock) { wake.lock = null; wake.status = "released"; }
        });
      }, function (err) {
        wake.pending = false;
        wake.refused = true;
        wake.status = "refused: " + ((err && err.name) || "error");
      });
    } else if (!(prev && prev.handOn) && wake.lock) {
      var lock = wake.lock;
      wake.lock = null;
      wake.status = "released";
      lock.release().catch(noop);
    }
  }

  // --- the socket: resync when the page comes back ------------------------------------------
  // A phone freezes a page in the background and its socket may have missed messages without
  // closing. Coming back, this closes the socket and has htmx-ext-ws open a new one at once
  // (publicInterface.reconnect); the server sends the full view on every connect.
  document.addEventListener("htmx:wsOpen", function (event) {
    var d = event.detail || {};
    if (d.synthetic) return;
    opens += 1;
    socket = (d.event && d.event.target) || null;
    wrapper = d.socketWrapper || null;
  });
  document.addEventListener("htmx:wsClose", function (event) {
    var d = event.detail || {}, closed = d.event && d.event.target;
    if (!closed || !socket || closed === socket) return;
    // A replaced socket's close arrived after the new one opened: table.js has just forgotten
    // the open socket (heartbeat) and shown 连接中断; announce the open one again.
    if (socket.readyState === 1 && wrapper) {
      var room = q(SEL.room);
      if (room && window.htmx) window.htmx.trigger(room, "htmx:wsOpen", { event: { type: "open", target: socket }, socketWrapper: wrapper, synthetic: true });
    }
  });

  function resync() {
    if (!socket || !wrapper || socket.readyState !== 1) return; // closed or connecting: already under way
    resyncs += 1;
    try { socket.close(1000, "resync"); } catch (e) { /* already closing */ }
    try { wrapper.reconnect(); } catch (e) { /* the extension's own reconnect takes over */ }
  }

  var hidden = document.visibilityState === "hidden";
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      hidden = true;
    } else if (hidden) {
      hidden = false;
      wake.refused = false;
      resync();
    }
    syncTitle();
    syncWakeLock();
  });
  window.addEventListener("pageshow", function (event) { if (event.persisted) resync(); });
  document.addEventListener("resume", resync); // Chrome's page lifecycle: unfrozen

  // --- the mute button ------------------------------------------------------------------------
  // In #sound-toggle-slot when the layout has one (styled there by its own CSS, class
  // .sound-toggle); else at the top right corner of #room, out of the flow (absolute), so that it
  // takes no room in the table's layout.
  var button = null;
  var LOOK = "z-index:60;width:2.5rem;height:2.5rem;padding:0;display:inline-flex;align-items:center;" +
    "justify-content:center;border-radius:50%;border:1px solid #ddd6c8;color:#0d5c44;" +
    "background:rgba(255,255,255,.92);box-shadow:0 1px 4px rgba(0,0,0,.2);cursor:pointer;";
  var SPEAKER = '<path d="M3.5 9h4l5-4v14l-5-4h-4z" fill="currentColor"/>';
  var ICON = {
    on: SPEAKER + '<path d="M16 9a4.2 4.2 0 0 1 0 6M18.6 6.4a7.8 7.8 0 0 1 0 11.2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
    off: SPEAKER + '<path d="M16 9.5l5 5M21 9.5l-5 5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
  };

  function drawButton() {
    button.setAttribute("aria-pressed", muted ? "true" : "false");
    button.setAttribute("data-sound", muted ? "off" : "on");
    button.innerHTML = '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">' +
      (muted ? ICON.off : ICON.on) + "</svg>";
  }

  function placeButton() {
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "sound-toggle";
      button.setAttribute("aria-label", TEXT.mute);
      button.title = TEXT.mute;
      button.addEventListener("click", function () {
        muted = !muted;
        try { window.localStorage.setItem(STORE_KEY, muted ? "1" : "0"); } catch (e) { /* kept for this page only */ }
        drawButton();
        if (!muted) { // a gesture: start the sound now and let it be heard
          unlock();
          if (ctx && ctx.resume) ctx.resume().then(function () { play(["turn"]); }, noop);
        }
      });
      drawButton();
    }
    var slot = q(SEL.slot);
    if (slot) {
      if (button.parentNode !== slot) { button.style.cssText = ""; slot.appendChild(button); }
      return;
    }
    var room = q(SEL.room);
    if (!room) return;
    if (button.parentNode !== room) room.insertBefore(button, room.firstChild);
    if (window.getComputedStyle(room).position !== "static") {
      button.style.cssText = LOOK + "position:absolute;top:max(.5rem, env(safe-area-inset-top, 0px));" +
        "right:max(.5rem, env(safe-area-inset-right, 0px));";
    } else { // the corner in page coordinates (the button's containing block is the page)
      var r = room.getBoundingClientRect();
      var top = Math.round(r.top + window.scrollY + 8), left = Math.round(r.right + window.scrollX - 8 - 40);
      button.style.cssText = LOOK + "position:absolute;top:max(" + top + "px, env(safe-area-inset-top, 0px));" +
        "left:" + Math.max(8, left) + "px;";
    }
  }
  ["resize", "load"].forEach(function (type) {
    window.addEventListener(type, function () { if (button) placeButton(); });
  });

  // --- start ----------------------------------------------------------------------------------
  document.addEventListener("htmx:wsAfterMessage", update);
  function start() { update(); setInterval(countdown, 250); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  window.mjAttention = Object.freeze({
    state: function () {
      return {
        muted: muted,
        gestured: gestured,
        audio: ctx ? ctx.state : "none",
        myTurn: !!(prev && prev.myTurn),
        prompt: !!(prev && prev.prompt),
        handOn: !!(prev && prev.handOn),
        lastMove: prev ? prev.move : null,
        cues: cues.map(function (c) { return { name: c.name, audible: c.audible }; }),
        vibrations: vibrations,
        wakeLock: wake.status,
        opens: opens,
        resyncs: resyncs,
        titlePrefix: TEXT.title
      };
    }
  });
})();
