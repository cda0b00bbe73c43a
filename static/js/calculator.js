// The score calculator: a variant's own fields (Wenzhou's base, 天胡/地胡, 抢杠胡, 全球神; Zhuji's
// wild faces, 翻/包, settlement) show only while that variant is chosen. Each such field's box
// carries data-variant-field="<names>"; a common field a variant does not read (Zhuji has no
// indicator wild) carries data-variant-hide="<names>". Without JS all show and the server ignores
// the ones the chosen variant does not read.
(function () {
  "use strict";
  function sync(form) {
    var select = form.querySelector("select[name=variant]");
    if (!select) return;
    form.querySelectorAll("[data-variant-field]").forEach(function (el) {
      var names = el.getAttribute("data-variant-field").split(/\s+/);
      el.hidden = names.indexOf(select.value) < 0;
    });
    form.querySelectorAll("[data-variant-hide]").forEach(function (el) {
      el.hidden = el.getAttribute("data-variant-hide").split(/\s+/).indexOf(select.value) >= 0;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form.calc-form").forEach(function (form) {
      sync(form);
      form.addEventListener("change", function (e) {
        if (e.target && e.target.name === "variant") sync(form);
      });
    });
  });
})();
