/* Display equations wider than the text column are scaled down by minigrad.css to fit it;
   here each gets a floor, 70 % of its own width (MathJax writes that width on the SVG in ex),
   so its symbols stay legible. Below the floor the equation keeps that width and scrolls
   inside its box (the theme gives the box overflow-x: auto). */
(function () {
  "use strict";
  var FLOOR = 0.7;

  function setFloors() {
    var boxes = document.querySelectorAll('div.math mjx-container[display="true"]');
    Array.prototype.forEach.call(boxes, function (box) {
      var svg = box.querySelector(":scope > svg");
      var width = svg && /^([0-9.]+)ex$/.exec(svg.getAttribute("width") || "");
      if (width) {
        svg.style.minWidth = (FLOOR * parseFloat(width[1])).toFixed(3) + "ex";
      }
    });
  }

  window.addEventListener("load", function () {
    if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
      window.MathJax.startup.promise.then(setFloors);
    }
  });
}());
