/*
 * Resilience Playground on your course page:
 *
 *   <div data-resilience-demo="5"></div>
 *   <script src="https://where-the-playground-is/embed.js" async></script>
 *
 * Each placeholder becomes a frame showing that demo alone (`?demo=5&embed=1`), as tall
 * as the demo: the frame posts {"type": "resilience-playground:resize", "height": PX}
 * whenever its height changes. Optional attributes: data-resilience-query (more of the
 * demo's link, e.g. "t=3&minimumNumberOfCalls=2") and data-resilience-title (the frame's
 * accessible name). Only messages from the playground's origin and from a frame this
 * script made are read.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var base = new URL(".", script && script.src ? script.src : location.href);
  var frames = [];

  function mount() {
    var hosts = document.querySelectorAll("[data-resilience-demo]");
    for (var i = 0; i < hosts.length; i++) {
      var host = hosts[i];
      var demo = parseInt(host.getAttribute("data-resilience-demo"), 10);
      if (!(demo > 0) || host.querySelector("iframe")) continue;
      var query = (host.getAttribute("data-resilience-query") || "").replace(/^[?&]+/, "");
      var frame = document.createElement("iframe");
      frame.src = base.href + "?demo=" + demo + (query ? "&" + query : "") + "&embed=1";
      frame.title = host.getAttribute("data-resilience-title") || "Resilience Playground, demo " + demo;
      frame.loading = "lazy";
      frame.style.width = "100%";
      frame.style.height = "640px";
      frame.style.border = "0";
      host.appendChild(frame);
      frames.push(frame);
    }
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== base.origin) return;
    var data = event.data;
    if (!data || data.type !== "resilience-playground:resize") return;
    var height = Number(data.height);
    if (!isFinite(height) || height <= 0) return;
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        // Bounded, so a confused frame cannot make the page endless.
        frames[i].style.height = Math.min(Math.ceil(height), 20000) + "px";
      }
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mount);
  } else {
    mount();
  }
})();
