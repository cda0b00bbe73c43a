// The create-room form: a variant's own settings (e.g. Wenzhou's 底数) show only while that
// variant is chosen. Each such select carries data-variants="<names>"; without JS all show and
// the server ignores the ones of other variants.
(function () {
  "use strict";
  function sync(form) {
    var select = form.querySelector("select[name=variant]");
    if (!select) return;
    form.querySelectorAll("[data-variants]").forEach(function (el) {
      var names = el.getAttribute("data-variants").split(/\s+/);
      var field = el.closest(".field") || el;
      field.hidden = names.indexOf(select.value) < 0;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form.room-form").forEach(function (form) {
      sync(form);
      form.addEventListener("change", function (e) {
        if (e.target && e.target.name === "variant") sync(form);
      });
    });
  });
})();
