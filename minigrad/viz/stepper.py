"""A self-contained HTML stepper: one SVG per frame, buttons and arrow keys to move between them.

No widget library and nothing loaded from the network: the frames are inline SVG, the script
is a few lines of plain JavaScript, so the same markup works as a notebook output, as a file
opened in a browser, and inside a slide deck. Without JavaScript (an untrusted notebook) the
first frame and its text still show.

Keys (when the stepper has focus; click it): → / ← next and previous, Home / End first and
last, space play / pause. A picture wider than the page is shrunk to fit; a click on it shows
it full size (click again to fit).
"""

from __future__ import annotations

import html
import json
import uuid

# Colours that read on a light and on a dark page alike.
_CSS = """
#{uid} {{ font-family: Helvetica, Arial, sans-serif; max-width: 100%; outline: none; }}
#{uid} .mg-bar {{ display: flex; gap: .4em; align-items: center; margin: .3em 0; }}
#{uid} .mg-bar button {{ font-size: 1em; padding: .15em .7em; cursor: pointer; }}
#{uid} .mg-count {{ min-width: 5em; font-variant-numeric: tabular-nums; }}
#{uid} .mg-picture {{ overflow: auto; cursor: zoom-in; }}
#{uid} .mg-picture svg {{ max-width: 100%; height: auto; }}
#{uid} .mg-picture.mg-full {{ cursor: zoom-out; }}
#{uid} .mg-picture.mg-full svg {{ max-width: none; }}
#{uid} .mg-text {{ font-family: Menlo, Consolas, 'DejaVu Sans Mono', monospace;
  font-size: {text_size}; white-space: pre; overflow-x: auto; margin: .3em 0; padding: .4em;
  border-left: 3px solid #d9480f; }}
"""

_SCRIPT = """
(function () {
  var root = document.getElementById(%(uid)s);
  if (!root || root.dataset.ready) { return; }
  root.dataset.ready = "1";
  var frames = root.querySelectorAll(".mg-frame");
  var texts = root.querySelectorAll(".mg-text");
  var count = root.querySelector(".mg-count");
  var play = root.querySelector(".mg-play");
  var step = 0, timer = null;
  function show(k) {
    step = Math.max(0, Math.min(frames.length - 1, k));
    for (var j = 0; j < frames.length; j++) {
      frames[j].style.display = j === step ? "" : "none";
      texts[j].style.display = j === step ? "" : "none";
    }
    count.textContent = "step " + (step + 1) + " / " + frames.length;
    root.setAttribute("data-step", String(step + 1));
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } play.textContent = "play"; }
  function toggle() {
    if (timer) { stop(); return; }
    if (step === frames.length - 1) { show(0); }
    play.textContent = "pause";
    timer = setInterval(function () {
      if (step >= frames.length - 1) { stop(); } else { show(step + 1); }
    }, %(interval)d);
  }
  var actions = {
    first: function () { stop(); show(0); },
    prev: function () { stop(); show(step - 1); },
    next: function () { stop(); show(step + 1); },
    last: function () { stop(); show(frames.length - 1); },
    play: toggle
  };
  root.querySelectorAll("button[data-action]").forEach(function (button) {
    button.addEventListener("click", function () {
      actions[button.dataset.action]();
      root.focus();
    });
  });
  var keys = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last", " ": "play" };
  function onKey(event) {
    var action = keys[event.key];
    if (!action) { return; }
    event.preventDefault();
    event.stopPropagation();  // in Jupyter: not a notebook shortcut
    actions[action]();
  }
  root.addEventListener("keydown", onKey);
  if (%(whole_page)s) {
    document.addEventListener("keydown", function (event) {
      if (event.target === document.body) { onKey(event); }
    });
  }
  root.querySelectorAll(".mg-picture").forEach(function (picture) {
    picture.addEventListener("click", function () { picture.classList.toggle("mg-full"); });
  });
  show(0);
})();
"""


def stepper_fragment(svgs: list[str], texts: list[str], *, title: str = "",
                     interval_ms: int = 1200, whole_page: bool = False,
                     font_size: float | None = None) -> str:
    """The stepper as an HTML fragment (a ``<div>`` with its style and script); the step's
    arithmetic is set at ``font_size`` points (default: a little smaller than the page's text)."""
    if len(svgs) != len(texts) or not svgs:
        raise ValueError("a stepper needs one text per frame and at least one frame")
    uid = "mg-steps-" + uuid.uuid4().hex[:12]
    parts = [f'<div id="{uid}" class="mg-stepper" tabindex="0" data-frames="{len(svgs)}">',
             f"<style>{_CSS.format(uid=uid, text_size=_text_size(font_size))}</style>"]
    if title:
        parts.append(f'<div class="mg-title"><b>{html.escape(title)}</b></div>')
    parts.append('<div class="mg-bar">'
                 '<button data-action="first" title="first step (Home)">|&lt;</button>'
                 '<button data-action="prev" title="previous step (←)">&lt; prev</button>'
                 '<button class="mg-play" data-action="play" title="play / pause (space)">'
                 'play</button>'
                 '<button data-action="next" title="next step (→)">next &gt;</button>'
                 '<button data-action="last" title="last step (End)">&gt;|</button>'
                 f'<span class="mg-count">step 1 / {len(svgs)}</span></div>')
    for number, (svg, text) in enumerate(zip(svgs, texts)):
        hidden = "" if number == 0 else ' style="display:none"'
        parts.append(f'<div class="mg-frame mg-picture" data-frame="{number + 1}"{hidden}>'
                     f"{_strip_prolog(svg)}</div>")
        parts.append(f'<div class="mg-text"{hidden}>{html.escape(text)}</div>')
    script = _SCRIPT % {"uid": json.dumps(uid), "interval": interval_ms,
                        "whole_page": "true" if whole_page else "false"}
    parts.append(f"<script>{script}</script></div>")
    return "\n".join(parts)


def stepper_page(svgs: list[str], texts: list[str], *, title: str = "",
                 background: str = "white", color: str = "black",
                 font_size: float | None = None) -> str:
    """The stepper as a whole HTML document (what ``.save("steps.html")`` writes)."""
    body = stepper_fragment(svgs, texts, title=title, whole_page=True, font_size=font_size)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title or 'backward, step by step')}</title></head>"
            f'<body style="background:{background};color:{color};margin:1em">\n{body}\n'
            "</body></html>\n")


def _text_size(font_size: float | None) -> str:
    return ".85em" if font_size is None else f"{font_size:g}pt"


def trace_fragment(text: str, font_size: float) -> str:
    """The trace as a block of monospaced text at ``font_size`` points (for Jupyter)."""
    return (f'<pre class="mg-trace" style="font-family: Menlo, Consolas, \'DejaVu Sans Mono\', '
            f'monospace; font-size: {font_size:g}pt; line-height: 1.25">{html.escape(text)}</pre>')


def picture_fragment(svg: str) -> str:
    """One drawing that fits the output area, and shows full size on a click (no script)."""
    uid = "mg-graph-" + uuid.uuid4().hex[:12]
    return (f'<div id="{uid}"><style>#{uid} input {{ display: none; }} '
            f"#{uid} label {{ display: block; overflow: auto; cursor: zoom-in; }} "
            f"#{uid} svg {{ max-width: 100%; height: auto; }} "
            f"#{uid} input:checked + label {{ cursor: zoom-out; }} "
            f"#{uid} input:checked + label svg {{ max-width: none; }}</style>"
            f'<input type="checkbox" id="{uid}-full"><label for="{uid}-full" '
            f'title="click: full size / fit">{_strip_prolog(svg)}</label></div>')


def _strip_prolog(svg: str) -> str:
    """The ``<svg>`` element alone: no XML declaration or DOCTYPE, which HTML does not allow."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
