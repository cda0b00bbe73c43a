// The replay viewer (templates/games/replay.html): play/pause at 0.5×/1×/2×, keys ← → and space.
// Playing is nothing but clicking the frame's "next" link on a timer; the server renders every
// frame. The next tick is scheduled only after a frame has been swapped in, so a slow network
// never piles up requests.
(function () {
  "use strict";
  var BASE_MS = 1000;

  function init() {
    var root = document.getElementById("replay");
    if (!root) return;
    var bar = root.querySelector("[data-player]");
    var playBtn = root.querySelector("[data-play]");
    var speed = 1;
    var playing = false;
    var timer = null;

    function nav(name) { return document.querySelector('#frame [data-nav="' + name + '"]'); }

    function setPlaying(on) {
      playing = on;
      clearTimeout(timer);
      timer = null;
      if (playBtn) {
        playBtn.setAttribute("aria-pressed", on ? "true" : "false");
        playBtn.textContent = on ? playBtn.dataset.labelPause : playBtn.dataset.labelPlay;
      }
      if (on) schedule();
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(function () {
        if (!playing) return;
        var next = nav("next");
        if (next) next.click(); else setPlaying(false);
      }, BASE_MS / speed);
    }

    function toggle() {
      if (playing) { setPlaying(false); return; }
      if (!nav("next")) {  // at the end: start again from the deal
        var first = nav("first");
        if (first) first.click();
      }
      setPlaying(true);
    }

    function highlight() {
      var frame = document.getElementById("frame");
      var list = document.getElementById("moves");
      if (!frame || !list) return;
      var k = frame.dataset.step;
      var current = list.querySelector('[aria-current="step"]');
      if (current) current.removeAttribute("aria-current");
      var item = list.querySelector('li[data-k="' + k + '"]');
      if (!item) return;
      item.setAttribute("aria-current", "step");
      // keep the current move in view inside the list box without scrolling the page
      var top = item.offsetTop;  // the list is position: relative, so this is inside the list
      if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 3);
      }
    }

    if (bar) bar.hidden = false;
    if (playBtn) playBtn.addEventListener("click", toggle);
    root.querySelectorAll("[data-speed]").forEach(function (b) {
      b.addEventListener("click", function () {
        speed = parseFloat(b.dataset.speed) || 1;
        root.querySelectorAll("[data-speed]").forEach(function (o) {
          o.setAttribute("aria-pressed", o === b ? "true" : "false");
        });
        if (playing) schedule();
      });
    });

    document.body.addEventListener("htmx:afterSwap", function () {
      if (!document.getElementById("frame")) return;
      highlight();
      if (playing) {
        if (nav("next")) schedule(); else setPlaying(false);
      }
    });
    document.body.addEventListener("htmx:responseError", function () { setPlaying(false); });
    document.body.addEventListener("htmx:sendError", function () { setPlaying(false); });

    document.addEventListener("keydown", function (e) {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      var tag = (e.target && e.target.tagName) || "";
      if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) || (e.target && e.target.isContentEditable)) return;
      var link = null;
      if (e.key === "ArrowRight") link = nav("next");
      else if (e.key === "ArrowLeft") link = nav("prev");
      else if (e.key === " " || e.key === "Spacebar") {
        e.preventDefault();
        toggle();
        return;
      } else return;
      e.preventDefault();
      if (link) link.click();
    });
    highlight();
  }

  // 快捷语 said during the hand: shown under the step unless the viewer hides them (remembered)
  function phrasesToggle() {
    var box = document.querySelector("[data-phrases-toggle]");
    var root = document.getElementById("replay");
    if (!box || !root) return;
    var hidden = false;
    try { hidden = localStorage.getItem("mj-replay-phrases") === "off"; } catch (e) { /* private mode */ }
    box.checked = !hidden;
    root.classList.toggle("hide-phrases", hidden);
    box.addEventListener("change", function () {
      root.classList.toggle("hide-phrases", !box.checked);
      try { localStorage.setItem("mj-replay-phrases", box.checked ? "on" : "off"); } catch (e) { /* private mode */ }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", phrasesToggle);
  else phrasesToggle();

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
