/* The search page opened from file:// (see site/offline_search.py): a browser refuses to
   fetch a file, so Sphinx's fetch of a page, to cut the excerpt under each result, is answered
   from window.MINIGRAD_SEARCH_PAGES (each page's text, written at build time). Served over
   http, nothing here runs and Sphinx fetches the pages itself. */
(function () {
  "use strict";
  if (window.location.protocol !== "file:" || !window.fetch || !window.Response) {
    return;
  }
  var fetchFile = window.fetch.bind(window);
  var root = new URL(document.documentElement.dataset.content_root || "./", document.baseURI);

  window.fetch = function (resource, options) {
    var pages = window.MINIGRAD_SEARCH_PAGES || {};
    var url = new URL(String(resource && resource.url ? resource.url : resource), document.baseURI);
    var key = url.href.slice(root.href.length).split("#")[0].split("?")[0];
    if (url.href.indexOf(root.href) === 0 && Object.prototype.hasOwnProperty.call(pages, key)) {
      return Promise.resolve(new window.Response(pages[key], {
        status: 200, headers: {"Content-Type": "text/html; charset=utf-8"}}));
    }
    return fetchFile(resource, options);
  };
}());
