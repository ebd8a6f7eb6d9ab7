"""`aka replay SESSION`: the interactive inspector (Textual). A timeline on the left, the selected
step's details on the right (with the model calls behind a proposal; c shows their prompt and
reply in full); keys to step, jump between promoted versions, filter by event kind and search; a
running session is followed (the files are re-read when the journal grows)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from aka.replay import details
from aka.replay.load import SessionView, load
from aka.replay.story import KINDS, Step, steps

FILTERS = ("all",) + KINDS


class ReplayApp(App):
    """The session inspector; reads the session's files, never writes them."""

    TITLE = "aka replay"
    CSS = """
    #timeline { width: 45%; border: round $accent; }
    #details-scroll { width: 55%; border: round $secondary; }
    #search { dock: bottom; display: none; }
    #search.shown { display: block; }
    """
    BINDINGS = [
        Binding("j", "step(1)", "next"), Binding("k", "step(-1)", "previous"),
        Binding("n", "promoted(1)", "next promoted"), Binding("p", "promoted(-1)", "prev promoted"),
        Binding("f", "cycle_filter", "filter kind"), Binding("slash", "search", "search"),
        Binding("c", "toggle_calls", "call text"), Binding("escape", "clear", "clear"),
        Binding("r", "reload", "reload"), Binding("q", "quit", "quit"),
    ]

    def __init__(self, root: Path, follow: bool = True, poll_s: float = 1.0):
        super().__init__()
        self.root, self.follow, self.poll_s = Path(root), follow, poll_s
        self.view: SessionView = load(self.root)
        self.all_steps: list[Step] = steps(self.view)
        self.kind_filter = "all"
        self.search_text = ""
        self.listed: list[Step] = []
        self.selected: Step | None = None
        self.full_calls = False
        """Whether the model calls' prompt and reply are shown in full (key c)."""
        self.shown = ""
        """The details text on screen (what tests read)."""
        self._stamp = self._journal_stamp()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield OptionList(id="timeline")
            with VerticalScroll(id="details-scroll"):
                yield Static("", id="details")
        yield Input(placeholder="search text (Enter applies, Escape clears)", id="search")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.view.id}: {self.view.op}"
        self._fill()
        self.query_one("#timeline", OptionList).focus()
        if self.follow:
            self.set_interval(self.poll_s, self._poll)

    # --- the timeline ------------------------------------------------------------------------
    def _fill(self, keep_seq: int | None = None) -> None:
        text = self.search_text.lower()
        self.listed = [s for s in self.all_steps
                        if (self.kind_filter == "all" or s.kind == self.kind_filter)
                        and (not text or text in self._haystack(s))]
        timeline = self.query_one("#timeline", OptionList)
        timeline.clear_options()
        timeline.add_options([Option(self._label(s), id=str(s.seq)) for s in self.listed])
        if not self.listed:
            self._show(None)
            return
        index = next((i for i, s in enumerate(self.listed) if s.seq == keep_seq), 0)
        timeline.highlighted = index
        self._show(self.listed[index])

    def _haystack(self, s: Step) -> str:
        """What search looks in: the step's kind, title and version, and its candidate's name."""
        v = self.view.versions.get(s.version) if s.version else None
        name = v.candidate.name if v is not None and v.candidate is not None else ""
        return f"{s.kind} {s.title} {s.version or ''} {name}".lower()

    def _label(self, s: Step) -> Text:
        style = {"evaluate": "cyan", "dropout": "yellow", "error": "red", "stop": "bold"}.get(s.kind, "")
        label = Text(f"#{s.seq:<3} {s.kind:<8} ", style=style)
        label.append(s.title, style="bold green" if s.promoted else "")
        return label

    def _show(self, step: Step | None) -> None:
        self.selected = step
        if step is None:
            self.shown = "(no step matches the filter" + (f" '{self.search_text}'" if self.search_text else "") + ")"
        else:
            self.shown = details.text(self.view, step, self.all_steps, self.full_calls)
        if self.view.problems:
            self.shown += "\n\n── missing or unreadable ──\n" + "\n".join(self.view.problems)
        self.query_one("#details", Static).update(Text(self.shown))
        status = f"filter: {self.kind_filter}" + (f"; search: {self.search_text}" if self.search_text else "")
        self.query_one("#timeline", OptionList).border_title = f"timeline ({len(self.listed)} steps; {status})"

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index is not None and event.option_index < len(self.listed):
            self._show(self.listed[event.option_index])

    # --- actions -----------------------------------------------------------------------------
    def _select(self, index: int) -> None:
        if self.listed:
            index = max(0, min(index, len(self.listed) - 1))
            self.query_one("#timeline", OptionList).highlighted = index
            self._show(self.listed[index])

    def _index(self) -> int:
        h = self.query_one("#timeline", OptionList).highlighted
        return h if h is not None else 0

    def action_step(self, delta: int) -> None:
        self._select(self._index() + delta)

    def action_promoted(self, direction: int) -> None:
        """Jump to the next (or previous) promotion of an accepted version."""
        i = self._index()
        order = range(i + 1, len(self.listed)) if direction > 0 else range(i - 1, -1, -1)
        for j in order:
            if self.listed[j].promoted:
                self._select(j)
                return
        self.notify("no further promoted version", timeout=2)

    def action_toggle_calls(self) -> None:
        """Show or hide the full prompt and reply of the selected step's model calls."""
        self.full_calls = not self.full_calls
        self._show(self.selected)

    def action_cycle_filter(self) -> None:
        present = ["all"] + [k for k in FILTERS[1:] if any(s.kind == k for s in self.all_steps)]
        i = present.index(self.kind_filter) if self.kind_filter in present else 0
        self.kind_filter = present[(i + 1) % len(present)]
        self._fill(self.selected.seq if self.selected else None)

    def set_filter(self, kind: str) -> None:
        self.kind_filter = kind if kind in FILTERS else "all"
        self._fill(self.selected.seq if self.selected else None)

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.add_class("shown")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.search_text = event.value.strip()
        event.input.remove_class("shown")
        self.query_one("#timeline", OptionList).focus()
        self._fill()

    def action_clear(self) -> None:
        self.search_text, self.kind_filter = "", "all"
        box = self.query_one("#search", Input)
        box.value = ""
        box.remove_class("shown")
        self.query_one("#timeline", OptionList).focus()
        self._fill(self.selected.seq if self.selected else None)

    def action_reload(self) -> None:
        keep = self.selected.seq if self.selected else None
        at_end = bool(self.listed) and self.selected is self.listed[-1]
        self.view = load(self.root)
        self.all_steps = steps(self.view)
        self._fill(self.all_steps[-1].seq if at_end and self.all_steps else keep)

    def _journal_stamp(self) -> tuple[int, float]:
        try:
            st = (self.root / "events.jsonl").stat()
            return st.st_size, st.st_mtime
        except OSError:
            return 0, 0.0

    def _poll(self) -> None:
        """Follow a running session: re-read when the journal changed."""
        stamp = self._journal_stamp()
        if stamp != self._stamp:
            self._stamp = stamp
            self.action_reload()


def run_tui(root: Path, follow: bool = True) -> None:
    ReplayApp(root, follow=follow).run()
