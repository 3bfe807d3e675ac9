// The web application's only stylesheet and script, served from the emulator itself (no CDN).

export const APP_CSS = `
:root { color-scheme: light dark; --accent: #2f6fdb; --muted: #6b7280; font-family: system-ui, sans-serif; }
body { margin: 0; line-height: 1.45; }
header { display: flex; gap: 2rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid #8884; }
.brand { font-weight: 700; }
nav ul, ul.inline { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
main { padding: 1rem 1.2rem 3rem; max-width: 75rem; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible, main:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: Canvas; padding: .3rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
caption { text-align: left; font-weight: 600; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.muted { color: var(--muted); font-size: .9em; }
.status { padding: .05rem .4rem; border-radius: .3rem; font-size: .85em; border: 1px solid currentColor; }
.status.ok { color: #15803d; } .status.bad { color: #b91c1c; } .status.attention { color: #b45309; } .status.live { color: #1d4ed8; }
.filters { display: flex; gap: .8rem; flex-wrap: wrap; align-items: end; }
.filters label, form label { display: inline-flex; flex-direction: column; gap: .2rem; }
fieldset label { flex-direction: row; align-items: center; gap: .35rem; margin-right: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
pre.json { background: #8881; padding: .6rem; overflow: auto; max-height: 24rem; }
.flash { border-left: 4px solid var(--accent); padding: .4rem .8rem; background: #8881; }
.faults { display: flex; gap: 1rem; flex-wrap: wrap; align-items: end; }
form.answer { display: flex; flex-direction: column; gap: .4rem; max-width: 36rem; }
ol.attempts { margin: 0; padding-left: 1.2rem; }
.card { border: 1px solid #8884; padding: .8rem; border-radius: .4rem; max-width: 36rem; }
`;

// Live updates by polling small endpoints: robust behind any proxy, no open connections to
// track, and a page without JavaScript still works (it just does not refresh itself).
export const APP_JS = `
"use strict";
(function () {
  var table = document.querySelector("table[data-live-rows]");
  if (table) {
    var url = table.getAttribute("data-live-rows") + location.search;
    setInterval(function () {
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; }).then(function (text) {
        var body = document.getElementById("run-rows");
        if (text && body && body.outerHTML !== text) {
          var holder = document.createElement("table");
          holder.innerHTML = text;
          var fresh = holder.querySelector("tbody");
          if (fresh) body.replaceWith(fresh);
        }
      }).catch(function () {});
    }, 1500);
  }
  var facts = document.querySelector("[data-live-version]");
  if (facts) {
    var vurl = facts.getAttribute("data-live-version");
    // Compared with what the page was rendered from, so a change before the first poll counts.
    var seen = facts.getAttribute("data-version");
    setInterval(function () {
      fetch(vurl, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : null; }).then(function (v) {
        if (v === null) return;
        var busy = document.activeElement && document.activeElement.closest && document.activeElement.closest("form, video, details");
        // The query stays: it carries the message the person was just given ("Answer
        // accepted"), which must not vanish with the refresh its own action caused.
        if (v !== seen && !busy) location.replace(location.pathname + location.search);
      }).catch(function () {});
    }, 1500);
  }
})();
`;
