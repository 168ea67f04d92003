"""The built course website's pages for the browser tests in tests/site: which pages there are,
and a page opened from ``file://`` with its problems (errors, requests off the site) recorded."""

from __future__ import annotations

from pathlib import Path


def pages(site: Path) -> list[Path]:
    """Every page of the site, in both languages (the Chinese ones under ``zh/``)."""
    return sorted(path for path in site.rglob("*.html")
                  if "_static" not in path.parts and "_sources" not in path.parts)


def open_page(browser, path: Path, problems: list[str], width: int = 1280, height: int = 720):
    """``path`` in a new page; console errors, page errors, failed requests and any request
    that leaves the site's folder are appended to ``problems``."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.on("console", lambda message: problems.append(f"console: {message.text}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(
        f"failed: {request.url} ({request.failure})"))
    page.on("request", lambda request: problems.append(f"network: {request.url}")
            if not request.url.startswith(("file://", "data:", "blob:", "about:")) else None)
    page.goto(path.as_uri(), wait_until="load")
    # MathJax typesets after load; wait for it wherever the page has maths.
    page.wait_for_function("!window.MathJax || !MathJax.startup || MathJax.startup.promise"
                           " && MathJax.startup.document", timeout=30_000)
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    return context, page


def search_results(browser, url: str) -> tuple[list[str], list[str], list[str]]:
    """The result links and excerpts of the search page at ``url``, and its problems."""
    problems: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    # A resource that fails is named by its response below (a browser also asks a host for
    # /favicon.ico, which a site need not have); the console's notice of it names no file.
    page.on("console", lambda message: problems.append(f"console: {message.text}")
            if message.type in ("error", "warning")
            and not message.text.startswith("Failed to load resource") else None)
    page.on("response", lambda response: problems.append(f"{response.status}: {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico") else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    try:
        page.goto(url, wait_until="load")
        page.locator("#search-results li").first.wait_for(timeout=30_000)
        page.wait_for_function(
            "() => { const items = document.querySelectorAll('#search-results li');"
            " return items.length && [...items].every(li => li.querySelector('p.context')); }",
            timeout=30_000)
        excerpts = page.locator("#search-results li p.context").all_inner_texts()
        links = page.locator("#search-results li > a").evaluate_all(
            "links => links.map(a => a.getAttribute('href'))")
    finally:
        context.close()
    return links, excerpts, problems
