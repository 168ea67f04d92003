"""Search in Chinese without a word segmenter: Chinese text indexed by pairs of characters.

Chinese is written without spaces between words. Sphinx's Chinese search (``sphinx.search.zh``)
cuts it into words with jieba when jieba is installed; without it, it indexes only the Latin
words of a page, so no Chinese word is ever found. This module replaces it for the site's
Chinese build: every run of Chinese characters (Han ideographs) is indexed as its overlapping
pairs, ``反向传播`` as ``反向``, ``向传``, ``传播``; a run of one character is kept as it is.
The search page cuts the query the same way (``splitQuery`` in ``language_data.js``), and
Sphinx's search finds the pages that hold every pair, so a query finds what contains it
whatever its word boundaries are, technical terms that no dictionary has included. (A page
that holds all the pairs of a query apart from each other is found too; the query's own
words are then rarely all there.) Latin words are indexed as by Sphinx's Chinese search: stemmed
as English.
"""

from __future__ import annotations

import re

from sphinx.search import languages
from sphinx.search.zh import SearchChinese

#: Han ideographs: the CJK Unified Ideographs, extension A, the compatibility ideographs,
#: and the supplementary plane's extensions (B onwards).
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_WORD = re.compile(r"\w+")
_HAN_RUN = re.compile(f"([{HAN}]+)")


def pairs(run: str) -> list[str]:
    """A run of Chinese characters as its overlapping pairs (a single character as itself)."""
    if len(run) < 2:
        return [run]
    return [run[at:at + 2] for at in range(len(run) - 1)]


def terms(text: str) -> list[str]:
    """What ``text`` is indexed and searched by: its Latin words and numbers, and its runs of
    Chinese characters as pairs."""
    found: list[str] = []
    for word in _WORD.findall(text):
        for part in _HAN_RUN.split(word):
            if not part:
                continue
            if _HAN_RUN.fullmatch(part):
                found.extend(pairs(part))
            else:
                found.append(part)
    return found


#: The search page's query splitter, the same cut as :func:`terms` (Sphinx puts it into
#: ``_static/language_data.js``; ``searchtools.js`` uses a ``splitQuery`` defined there).
SPLIT_QUERY_JS = r"""
function splitQuery(query) {
  const han = /^[HAN]+$/u;
  const terms = [];
  for (const word of query.split(/[^\p{Letter}\p{Number}_]+/gu)) {
    for (const part of word.split(/([HAN]+)/u)) {
      if (!part) continue;
      const chars = [...part];
      if (!han.test(part) || chars.length < 2) { terms.push(part); continue; }
      for (let at = 0; at + 1 < chars.length; at++) terms.push(chars[at] + chars[at + 1]);
    }
  }
  return terms;
}
""".replace("HAN", "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u{20000}-\\u{3ffff}")


class SearchChinesePairs(SearchChinese):
    """Sphinx's Chinese search with Chinese cut into pairs of characters instead of words."""

    js_splitter_code = SPLIT_QUERY_JS
    # Latin words are stemmed as English on both sides; Sphinx names the search page's stemmer
    # class after ``language_name`` ("ChineseStemmer", which no script defines: its Chinese
    # search page stops with "ChineseStemmer is not defined"), so the name is English's.
    language_name = "English"

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__({**options, "dict": ""})  # no jieba dictionary to load

    def split(self, input: str) -> list[str]:  # noqa: A002 - Sphinx's name
        found = terms(input)
        self.latin_terms.update(term for term in found if not _HAN_RUN.fullmatch(term))
        return found

    def word_filter(self, stemmed_word: str) -> bool:
        """Latin words of two letters or more, and every Chinese term (a lone character too)."""
        return len(stemmed_word) > 1 or bool(_HAN_RUN.fullmatch(stemmed_word))


def setup(app) -> None:
    """Use the pairs for Chinese (``language = "zh_CN"`` searches as ``zh``)."""
    languages["zh"] = SearchChinesePairs
