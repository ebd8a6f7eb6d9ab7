"""HTML pages as Markdown-like text (headings, paragraphs, code blocks), with the stdlib parser,
so upstream documentation in HTML chunks by heading like the Markdown docs."""

from __future__ import annotations

from html.parser import HTMLParser

_BLOCKS = {"p", "div", "li", "tr", "section", "article", "br", "table", "ul", "ol", "dd", "dt"}
_SKIP = {"script", "style", "nav", "header", "footer", "noscript", "svg"}


class _ToMarkdown(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.title = ""
        self._in_title = False
        self._skip = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "pre":
            self._pre += 1
            self.out.append("\n\n```\n")
        elif tag in _BLOCKS:
            self.out.append("\n\n" if tag != "br" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.out.append("\n\n")
        elif tag == "pre":
            self._pre = max(0, self._pre - 1)
            self.out.append("\n```\n\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data.strip()
            return
        if self._pre:
            self.out.append(data)
            return
        words = " ".join(data.split())
        lead = " " if data[:1].isspace() and words else ""
        tail = " " if data[-1:].isspace() and words else ""
        self.out.append(lead + words + tail)


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, Markdown-like body) of an HTML page."""
    parser = _ToMarkdown()
    parser.feed(html)
    parser.close()
    body, blank, code = [], False, False
    for line in "".join(parser.out).splitlines():
        line = line.rstrip()
        if line.strip().startswith("```"):
            code = not code
            body.append("```")
            blank = False
            continue
        if code:
            body.append(line)
            continue
        if not line.strip():
            if not blank:
                body.append("")
            blank = True
            continue
        body.append(line.strip())
        blank = False
    return parser.title, "\n".join(body).strip() + "\n"
