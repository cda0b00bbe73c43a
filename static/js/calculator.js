// The score calculator: a variant's own fields (Wenzhou's base, 天胡/地胡, 抢杠胡, 全球神) show
// only while that variant is chosen. Each such field's box carries data-variant-field="<names>";
// without JS all show and the server ignores the ones of other variants.
(function () {
  "use strict";
  function sync(form) {
    var select = form.querySelector("select[name=variant]");
    if (!select) return;
    form.querySelectorAll("[data-variant-field]").forEach(function (el) {
      var names = el.getAttribute("data-variant-field").split(/\s+/);
      el.hidden = names.indexOf(select.value) < 0;
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
