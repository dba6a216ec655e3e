/*
 * Test only: tests/collector/t-view.sh appends this to a copy of a view
 * page (collector/export/view.html). It drives the page's handlers with
 * synthetic events (wheel zoom, shift+wheel, drag, hover, click and
 * double-click, keys, buttons, table sort and rows, resize, hash) and
 * writes what it saw to the body's data-selftest: "ok", or the checks
 * that failed. Uncaught errors land in data-errors, as for the page.
 */
"use strict";
(function () {
  const body = document.body, $ = id => document.getElementById(id);
  const chart = $("chart"), tip = $("tip"), details = $("details");
  const n = document.querySelectorAll("#rq-body tr").length;
  const failed = [];

  function check(cond, what) { if (!cond) failed.push(what); }
  function mouse(type, target, x, y, opts) {
    target.dispatchEvent(new MouseEvent(type, Object.assign({ clientX: x, clientY: y,
      bubbles: true, cancelable: true, button: 0, view: window }, opts || {})));
  }
  function wheel(dy, x, y, shift) {
    chart.dispatchEvent(new WheelEvent("wheel", { deltaY: dy, clientX: x, clientY: y,
      shiftKey: !!shift, bubbles: true, cancelable: true }));
  }
  function key(k) {
    window.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
  }
  /*
   * Headless Chromium under --virtual-time-budget runs only the first
   * two or three animation frames: run the page's (it asks for one per
   * redraw) on timers instead, and wait for them the same way.
   */
  window.requestAnimationFrame = cb => setTimeout(() => cb(performance.now()), 16);
  function frame() { return new Promise(r => setTimeout(r, 40)); }
  function later() { return new Promise(r => setTimeout(r, 0)); }
  function axis() { return $("axis").textContent; }
  function centre(e) {
    const b = e.getBoundingClientRect();
    return [b.left + Math.min(b.width / 2, 3), b.top + b.height / 2];
  }

  async function run() {
    const box = chart.getBoundingClientRect();
    const cx = box.left + box.width * 0.6, cy = box.top + 60, whole = axis();

    wheel(-400, cx, cy);
    await frame();
    check(axis() !== whole, "wheel: the axis zoomed");
    const zoomed = axis();
    mouse("mousedown", chart, cx, cy);
    mouse("mousemove", window, cx - 120, cy - 10);
    mouse("mouseup", window, cx - 120, cy - 10);
    await frame();
    check(axis() !== zoomed, "drag: the axis panned");
    wheel(300, cx, cy, true);
    key("0");
    await frame();
    check(axis() === whole, "0: back to the whole range");

    const span = document.querySelector("rect.dt-span");
    check(span, "a span bar to hover");
    if (span) {
      const id = Number(span.dataset.span), [x, y] = centre(span);
      mouse("mousemove", span, x, y);
      check(tip.style.display === "block" && /request/.test(tip.textContent),
        "hover on a bar: a tooltip");
      mouse("mousedown", chart, x, y);
      mouse("mouseup", window, x, y);
      mouse("click", span, x, y);
      const h2 = details.querySelector("h2");
      check(h2 && h2.textContent.indexOf("[") > 0 && /Kernel activity/.test(details.textContent),
        "click on a bar: its details (" + (h2 ? h2.textContent : "none") + ", span " + id + ")");
      mouse("dblclick", span, x, y);
      await frame();
      check(axis() !== whole, "double-click: zoomed to the bar");
      mouse("mouseleave", $("lanes"), 0, 0);
      check(tip.style.display === "none", "leaving the chart hides the tooltip");
    }
    const arrow = document.querySelector("path.dt-arrow");
    if (arrow) {
      mouse("mousemove", arrow, 10, 10);
      check(/→/.test(tip.textContent) && /segment/.test(tip.textContent),
        "hover on an arrow: its flow and segments");
    }
    ["+", "-", "ArrowLeft", "ArrowRight", "Home"].forEach(key);
    ["zoom-in", "zoom-out", "reset", "colour"].forEach(b => $(b).click());
    await frame();
    check(/depth/.test($("colour").textContent), "the colour button: by depth");
    $("colour").click();

    key("n");
    await frame();
    check(body.dataset.req === "0", "n: request 0 (" + body.dataset.req + ")");
    key("p");
    await frame();
    check(body.dataset.req === String(n - 1), "p: the last request (" + body.dataset.req + ")");
    key("Escape");
    await frame();
    check(body.dataset.req === "-1", "Esc: all requests");
    $("next").click();
    $("prev").click();
    $("all").click();

    const dur = Array.from(document.querySelectorAll("#rq-head th"))
      .find(th => /Duration/.test(th.textContent));
    mouse("click", dur, 0, 0);
    const top = $("rq-body").firstElementChild;
    check(top && top.dataset.req === String(n - 1),
      "sort by duration: the longest (the last, open) request first (" +
      (top ? top.dataset.req : "none") + ")");
    const row = document.querySelector("#rq-body tr[data-req=\"" + Math.min(1, n - 1) + "\"]");
    mouse("click", row, 0, 0);
    await frame();
    check(row.classList.contains("sel") && /^Request /.test(details.querySelector("h2").textContent),
      "a click on a row: that request, its details");
    const link = details.querySelector(".tree button");
    if (link) {
      link.click();
      check(/Kernel activity/.test(details.textContent), "the request's span tree opens a span");
    }

    window.dispatchEvent(new Event("resize"));
    location.hash = "#req=0";
    await later();
    await frame();
    check(body.dataset.req === "0", "#req=0: request 0 (" + body.dataset.req + ")");
    body.dataset.selftest = failed.length ? failed.join("; ") : "ok";
  }
  run().catch(e => { body.dataset.selftest = "threw: " + e; throw e; });
})();
