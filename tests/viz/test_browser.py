"""The widgets in a real browser: JupyterLab + Chromium, driven by Playwright.

The test writes a notebook into a temporary directory (no .ipynb is committed under tests/,
where nbval would collect it), starts an isolated JupyterLab on 127.0.0.1, runs every cell
from the Run menu, waits for the ReplayView and SessionView to render, moves the replay
forward with its "next" button and checks that the chips changed, then clicks a chip and
reads the detail pane. A second test scrubs a 100-turn replay and measures its layout: rows
never overlap or clip their chips, the body scrolls, and the widget keeps its height from
one snapshot to the next; the same measurements run on a deliberately broken variant (the
first edition's layout) and must catch it. Screenshots go to artifacts/.

Without /usr/bin/chromium (or CTXLAB_CHROMIUM) or the playwright package the test is
skipped, except when CI is "true": there a missing browser is a failure. Every process it
starts (JupyterLab, its kernels, the browser) is stopped even when an assertion fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from conftest import ROOT

pytestmark = pytest.mark.browser

CHROMIUM = Path(os.environ.get("CTXLAB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "artifacts"
SETTINGS_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # every cell rendered, not only those scrolled into view: outputs are measured whole
    "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True,
                                               "windowingMode": "none"},
}
SERVER_START_TIMEOUT = 60.0
#: The console errors of each open page (by id), collected by :func:`_lab_page`.
CONSOLE_ERRORS: dict[int, list[str]] = {}
UI_TIMEOUT_MS = 60_000

CONVERSATION_CELL = """\
from ctxlab import TrimmingSession
from ctxlab.viz.widgets import ReplayView, SessionView

def user(text):
    return {"role": "user", "content": text}

def assistant(text):
    part = {"type": "output_text", "text": text, "annotations": []}
    return {"type": "message", "role": "assistant", "status": "completed", "content": [part]}

def call(call_id, name, arguments):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}

def output(call_id, text):
    return {"type": "function_call_output", "call_id": call_id, "output": text}

conversation = [
    user("My laptop overheats and shuts down."),
    call("c1", "lookup_device", '{"serial": "LX-42"}'),
    output("c1", '{"model": "LX 14", "firmware": "1.0.2"}'),
    assistant("Your LX 14 runs firmware 1.0.2; please update it to 1.0.3."),
    user("Updated to 1.0.3, still hot."),
    assistant("Try a factory reset."),
    user("Reset done; now I see error 42."),
    call("c2", "search_kb", '{"query": "error 42"}'),
    output("c2", "Error 42: the battery controller needs a recalibration."),
    assistant("Leave it on charge for 30 minutes to recalibrate the battery."),
    user("Now it shows error 404 in the browser."),
    assistant("Does it happen on every site?"),
]
session = TrimmingSession("browser-test", max_turns=2)
"""

REPLAY_CELL = """\
replay_view = await ReplayView.record(conversation, session, title="trimming, last 2 turns")
replay_view.go(3)
replay_view
"""

SESSION_CELL = """\
session_view = await SessionView.from_session(session, title="after the conversation")
session_view
"""

CHIP_STATES_JS = """
els => els.map(e => {
  const state = [...e.classList].find(c => c.startsWith('ctxlab-state-'));
  return state ? state.slice('ctxlab-state-'.length) : null;
})
"""


# ------------------------------------------------------------------------- preconditions


def _require_browser(in_ci: bool) -> Any:
    """The playwright sync API module, or skip (fail in CI) saying what is missing."""
    problems = []
    if not CHROMIUM.exists():
        problems.append(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api as sync_api
    except ImportError:
        sync_api = None
        problems.append("the playwright package is not installed (pip install playwright)")
    if problems:
        message = "browser test needs a real browser: " + "; ".join(problems)
        if in_ci:
            pytest.fail(message + " (CI=true: a missing browser is a failure)")
        pytest.skip(message)
    return sync_api


# ------------------------------------------------------------------------- JupyterLab


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_notebook(path: Path, cells: tuple[str, ...] = (CONVERSATION_CELL, REPLAY_CELL,
                                                           SESSION_CELL)) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nbformat.write(nb, path)


def _pids_using(marker: str) -> list[int]:
    """Pids of processes whose command line mentions ``marker`` (our unique temp dir)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline:
            pids.append(int(entry.name))
    return pids


class JupyterLab:
    """An isolated JupyterLab server in a temporary directory (config, runtime, data,
    settings and workspaces all under it); :meth:`stop` ends it and its kernels."""

    def __init__(self, base: Path):
        self.base = base
        self.root = base / "notebooks"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = base / "jupyterlab.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        dirs = {name: self.base / name for name in
                ("config", "runtime", "data", "ipython", "workspaces", "user-settings",
                 "app-settings")}
        for path in (self.root, *dirs.values()):
            path.mkdir(parents=True, exist_ok=True)
        # The override file lives in our own app settings dir: nothing is written to the venv.
        (dirs["app-settings"] / "overrides.json").write_text(json.dumps(SETTINGS_OVERRIDES))
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
            "JUPYTER_DATA_DIR": str(dirs["data"]),
            "IPYTHONDIR": str(dirs["ipython"]),
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("OPENAI_API_KEY", None)  # the notebook must not reach a real model
        command = [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={self.root}",
            "--IdentityProvider.token=",
            "--LabApp.extension_manager=readonly",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.workspaces_dir={dirs['workspaces']}",
            f"--LabApp.user_settings_dir={dirs['user-settings']}",
            f"--LabApp.app_settings_dir={dirs['app-settings']}",
        ]
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.process.returncode}:\n"
                                   f"{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise RuntimeError(f"JupyterLab did not answer within {SERVER_START_TIMEOUT:.0f}s:\n"
                           f"{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Stop the server (on SIGTERM it shuts its kernels down), then any straggler."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        # Kernels run in their own sessions; they are ours if their command line names our
        # temporary runtime dir (their connection file lives there).
        for pid in _pids_using(str(self.base / "runtime")):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.process = None


@pytest.fixture
def sync_api(in_ci: bool) -> Any:
    """Playwright's sync API; checked before anything is started."""
    return _require_browser(in_ci)


@pytest.fixture
def lab(tmp_path: Path, sync_api: Any) -> Iterator[JupyterLab]:
    server = JupyterLab(tmp_path)
    try:
        server.start()
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------------- the test


def _chip_states(page: Any, selector: str) -> list[str | None]:
    return page.eval_on_selector_all(selector, CHIP_STATES_JS)


@contextlib.contextmanager
def _lab_page(sync_api: Any, height: int, screenshot: str | None = None,
              env: dict[str, str] | None = None) -> Iterator[Any]:
    """A page 1280 px wide and ``height`` px high in a Chromium of its own (``env``: its
    environment); when the block ends, also on a failed assertion (for debugging), the
    window is saved as ``ARTIFACTS/<screenshot>`` and the browser console's errors as
    ``ARTIFACTS/<screenshot>.errors.txt`` (:func:`_assert_no_errors` checks them)."""
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=CHROMIUM_ARGS, env=env)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": height})
            errors: list[str] = []
            CONSOLE_ERRORS[id(page)] = errors
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            try:
                yield page
            finally:
                if screenshot is not None:
                    page.screenshot(path=str(ARTIFACTS / screenshot))
                    (ARTIFACTS / f"{screenshot}.errors.txt").write_text("\n\n".join(errors))
                CONSOLE_ERRORS.pop(id(page), None)
        finally:
            browser.close()


def _open_and_run_all(page: Any, lab: JupyterLab, name: str) -> None:
    """Open ``name``, wait for its kernel, and run every cell from the Run menu."""
    page.set_default_timeout(UI_TIMEOUT_MS)
    page.goto(f"{lab.url}/lab/tree/{name}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    # The kernel has started (its name is in the toolbar) and is idle.
    page.wait_for_selector(".jp-NotebookPanel-toolbar .jp-KernelName:has-text('Python')")
    page.wait_for_selector(".jp-NotebookPanel-toolbar "
                           ".jp-Notebook-ExecutionIndicator[data-status='idle']")
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click("li[data-command='runmenu:run-all']")


def _assert_no_errors(page: Any) -> None:
    """No widget failed to load, no cell raised, and the browser console has no error
    (a widget message lost on the way shows there first: "widget model not found")."""
    errors = CONSOLE_ERRORS.get(id(page), [])
    assert not errors, "the browser console has errors:\n" + "\n".join(e[:500] for e in errors)
    outputs = page.inner_text(".jp-NotebookPanel .jp-Notebook")
    assert "Loading widget" not in outputs
    assert "Error displaying widget" not in outputs
    assert "Traceback" not in outputs, outputs


def test_widgets_render_and_scrub_in_jupyterlab(sync_api: Any, lab: JupyterLab) -> None:
    started = time.monotonic()
    _write_notebook(lab.root / "widgets.ipynb")
    ARTIFACTS.mkdir(exist_ok=True)
    # live widgets only: the static HTML fallback has no .ctxlab-replay-view and no buttons
    replay_chips = ".ctxlab-replay-view .ctxlab-session-view button.ctxlab-chip"
    with _lab_page(sync_api, 1800, "jupyterlab.png") as page:
        _open_and_run_all(page, lab, "widgets.ipynb")
        page.wait_for_selector(replay_chips)
        page.wait_for_selector(".ctxlab-session-view:not(.ctxlab-replay-view *) "
                               "button.ctxlab-chip")
        page.wait_for_selector(".jp-NotebookPanel-toolbar "
                               ".jp-Notebook-ExecutionIndicator[data-status='idle']")
        _assert_no_errors(page)

        # Step 3 of the replay (the model call of turn 3): nothing trimmed yet.
        before = _chip_states(page, replay_chips)
        assert before == ["kept"] * 6, before
        status = page.inner_text(".ctxlab-replay-status")
        assert "turn 3" in status
        height = page.locator(".ctxlab-replay-view").bounding_box()["height"]
        slider_y = page.locator(".ctxlab-replay-slider").bounding_box()["y"]
        budget_y = page.locator(".ctxlab-replay-view .ctxlab-budget").bounding_box()[
            "y"]

        page.click(".ctxlab-replay-view .ctxlab-next")
        page.wait_for_function(
            "n => document.querySelectorAll("
            "'.ctxlab-replay-view .ctxlab-session-view button.ctxlab-chip').length !== n",
            arg=len(before),
        )
        after = _chip_states(page, replay_chips)
        # Turn 4's call: turn 1 (4 items) slid out of the 2-turn window.
        assert after == ["dropped"] * 4 + ["kept"] * 6, after
        # chips share one style per state: a chip that changed state changed colour
        colours = page.eval_on_selector_all(
            replay_chips, "els => els.map(e => getComputedStyle(e).backgroundColor)")
        assert colours == ["rgb(153, 153, 153)"] * 4 + ["rgb(0, 158, 115)"] * 6, colours
        assert "turn 4" in page.inner_text(".ctxlab-replay-status")
        value = page.inner_text(".ctxlab-replay-view .widget-readout")
        assert value.strip() == "4"
        # Scrubbing keeps the widget's size, and the budget bar stays by the slider.
        after_height = page.locator(".ctxlab-replay-view").bounding_box()["height"]
        assert abs(after_height - height) <= 2, (height, after_height)
        assert 0 < budget_y - slider_y < 200, (slider_y, budget_y)

        # Clicking a chip shows its full text in the detail pane.
        page.click(f"{replay_chips}.ctxlab-kind-tool_output >> nth=0")
        detail = page.locator(".ctxlab-replay-view .ctxlab-detail-text")
        detail.wait_for()
        assert '"firmware": "1.0.2"' in detail.inner_text()

        # The final SessionView shows the whole log: turns 1-2 dropped, 3-4 kept.
        final = _chip_states(
            page, ".ctxlab-session-view:not(.ctxlab-replay-view *) button.ctxlab-chip"
        )
        assert final == ["dropped"] * 6 + ["kept"] * 6, final
        page.locator(".ctxlab-replay-view").screenshot(
            path=str(ARTIFACTS / "replay_view_in_jupyterlab.png")
        )
        _assert_no_errors(page)
        # the console check is live: an error the page logs is caught (then forgotten)
        page.evaluate("console.error('planted by the test')")
        page.wait_for_timeout(300)
        with pytest.raises(AssertionError, match="planted by the test"):
            _assert_no_errors(page)
        CONSOLE_ERRORS[id(page)].clear()
    elapsed = time.monotonic() - started
    print(f"browser test: {elapsed:.1f}s from notebook written to browser closed")


# ------------------------------------------------------------------------- a long replay

LONG_CONVERSATION_CELL = """\
import ipywidgets as widgets
from ctxlab import TrimmingSession
from ctxlab.viz.widgets import ReplayView, SessionView

def long_conversation(turns):
    items = []
    for n in range(1, turns + 1):
        items.append({"role": "user", "content": f"Turn {n}: the printer still shows error {n}."})
        if n % 3 == 0:  # every third turn has a tool round: rows of 4 chips
            items += [{"type": "function_call", "call_id": f"c{n}", "name": "lookup_printer",
                       "arguments": "{}"},
                      {"type": "function_call_output", "call_id": f"c{n}",
                       "output": f"printer record {n}: toner low, tray 2 jammed"}]
        items.append({"role": "assistant", "content": f"Try step {n} of the checklist."})
    return items

conversation = long_conversation(100)
"""

LONG_REPLAY_CELL = """\
long_view = await ReplayView.record(conversation, TrimmingSession("long", max_turns=3),
                                    title="100 turns, max_turns=3")
long_view
"""

# The first edition's layout, kept so that the test shows it catches it: the body has a
# fixed height and the rows inside it may shrink (ipywidgets boxes are flex containers
# whose children shrink), the widget is as tall as its parts, the new-input line is
# empty after the last turn, and every turn has its row.
FIRST_EDITION_CELL = """\
class FirstEditionLayout(ReplayView):
    HEIGHT = None

    def _body_layout(self):
        return widgets.Layout(height="420px", overflow="auto", border="1px solid #ddd",
                              padding="4px")

    @staticmethod
    def _new_input_html(fresh, *, final):
        return "" if final else ReplayView._new_input_html(fresh, final=final)

    def _render(self, step):
        view = self.session_view
        view.collapse_at = None
        super()._render(step)
        for part in (view, view.header, view.legend, view.groups_box, view.detail):
            part.layout.flex = None
        for row in view._rows.values():
            row.layout.flex = None

broken_view = await FirstEditionLayout.record(
    conversation, TrimmingSession("broken", max_turns=3), title="first edition layout")
broken_view
"""

# The second edition's layout: rows at their natural height, but every turn has its row
# (the view opens on turn 1, the turns the model is sent ~3,700 px below) and a clicked
# chip's full text appears under the last row.
SECOND_EDITION_CELL = """\
class SecondEditionLayout(ReplayView):
    def _render(self, step):
        view = self.session_view
        view.collapse_at = None
        view._place_detail = lambda _position: SessionView._place_detail(view, None)
        super()._render(step)

second_view = await SecondEditionLayout.record(
    conversation, TrimmingSession("second", max_turns=3), title="second edition layout")
second_view
"""

LONG_TURNS = 100
SNAPSHOTS = LONG_TURNS + 1  # one per turn, and the view after the last one
#: A snapshot of 100 turns is some 700 widget views (a button per chip): on a busy 2-core
#: machine the browser took over a minute to draw the second replay of the notebook.
LONG_UI_TIMEOUT_MS = 240_000

LAYOUT_JS = """
root => {
  const body = root.querySelector('.ctxlab-replay-body');
  const rows = [...body.querySelectorAll('.ctxlab-session-view .ctxlab-group')];
  const boxes = rows.map(r => r.getBoundingClientRect());
  let overlaps = 0, clipped = 0, chip = 0;
  for (let i = 1; i < boxes.length; i++) {
    if (boxes[i].top < boxes[i - 1].bottom - 0.5) overlaps++;
  }
  rows.forEach((row, i) => row.querySelectorAll('.ctxlab-chip').forEach(c => {
    const b = c.getBoundingClientRect();
    chip = Math.max(chip, b.height);
    if (b.bottom > boxes[i].bottom + 0.5 || b.top < boxes[i].top - 0.5) clipped++;
  }));
  return {
    rows: rows.length, overlaps, clipped, chip,
    row: rows.length ? Math.min(...boxes.map(b => b.height)) : null,
    scrollHeight: body.scrollHeight, clientHeight: body.clientHeight,
    height: root.getBoundingClientRect().height,
    status: root.querySelector('.ctxlab-replay-status').innerText,
  };
}
"""

SCROLL_TO_END_JS = """
root => {
  const body = root.querySelector('.ctxlab-replay-body');
  body.scrollTop = body.scrollHeight;
  const rows = body.querySelectorAll('.ctxlab-session-view .ctxlab-group');
  const last = rows[rows.length - 1].getBoundingClientRect();
  const frame = body.getBoundingClientRect();
  return {scrollTop: body.scrollTop, lastRowVisible: last.bottom <= frame.bottom + 0.5
          && last.top >= frame.top - 0.5};
}
"""


def layout_problems(measured: dict[str, Any]) -> list[str]:
    """What is wrong with one snapshot's layout (empty: readable)."""
    problems = []
    if measured["overlaps"]:
        problems.append(f"{measured['overlaps']} rows overlap the row above")
    if measured["clipped"]:
        problems.append(f"{measured['clipped']} chips stick out of their row")
    if measured["rows"] and measured["row"] < measured["chip"]:
        problems.append(f"rows squashed to {measured['row']:.1f} px around "
                        f"{measured['chip']:.0f} px chips")
    if measured["rows"] > 12 and measured["scrollHeight"] <= measured["clientHeight"]:
        problems.append(f"{measured['rows']} rows and the body does not scroll (scrollHeight "
                        f"= clientHeight = {measured['clientHeight']} px)")
    return problems


def _go(page: Any, root: Any, step: int) -> None:
    """Type ``step`` into the slider's readout, as a learner would, and wait for it."""
    readout = root.locator(".ctxlab-replay-slider .widget-readout")
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(step))
    page.keyboard.press("Enter")
    _wait_for_step(root, step)


def _wait_for_step(root: Any, step: int, rows: int | None = None) -> None:
    """Wait until snapshot ``step`` is drawn: its status line, and ``rows`` turn rows (by
    default one per turn stored before it: every turn shown)."""
    root.scroll_into_view_if_needed(timeout=LONG_UI_TIMEOUT_MS)
    root.locator(".ctxlab-replay-status", has_text=f"({step} of {SNAPSHOTS})").wait_for(
        timeout=LONG_UI_TIMEOUT_MS)
    rows = min(step - 1, LONG_TURNS) if rows is None else rows
    root.page.wait_for_function(
        "([el, n]) => el.querySelectorAll('.ctxlab-replay-body .ctxlab-group').length === n",
        arg=[root.element_handle(), rows], polling=250, timeout=LONG_UI_TIMEOUT_MS,
    )


def _open_long_replay(page: Any, lab: JupyterLab, name: str) -> Any:
    """Open ``name`` afresh, run it, and return its ReplayView once at the last step."""
    _open_and_run_all(page, lab, f"{name}?reset")
    page.set_default_timeout(LONG_UI_TIMEOUT_MS)
    view = page.locator(".ctxlab-replay-view")
    view.wait_for()
    _assert_no_errors(page)
    _wait_for_step(view, SNAPSHOTS)
    return view


#: Where the turns the model is sent start, in the body as it opens (not scrolled).
OPENS_AT_JS = """
root => {
  const body = root.querySelector('.ctxlab-replay-body');
  const frame = body.getBoundingClientRect();
  const rows = [...body.querySelectorAll('.ctxlab-session-view .ctxlab-group')];
  const sent = rows.find(r => r.querySelector('.ctxlab-state-kept, .ctxlab-state-summary'));
  return {scrollTop: body.scrollTop, clientHeight: body.clientHeight,
          sentTop: sent ? sent.getBoundingClientRect().top - frame.top + body.scrollTop : null,
          sentBottom: sent ? sent.getBoundingClientRect().bottom - frame.top + body.scrollTop
                           : null};
}
"""

#: Where the detail pane is, relative to the chip at ledger index ``index`` and the body.
DETAIL_AT_JS = """
(root, index) => {
  const body = root.querySelector('.ctxlab-replay-body');
  const chip = body.querySelector('button.ctxlab-chip.ctxlab-index-' + index);
  const pane = body.querySelector('.ctxlab-detail-pane');
  const c = chip.getBoundingClientRect(), d = pane.getBoundingClientRect();
  const frame = body.getBoundingClientRect();
  return {gap: d.top - c.bottom, paneTop: d.top - frame.top, chipTop: c.top - frame.top,
          clientHeight: body.clientHeight,
          text: pane.querySelector('.ctxlab-detail-text').innerText.slice(0, 60)};
}
"""


def opening_problems(opened: dict[str, Any]) -> list[str]:
    """What is wrong with where a replay opens (empty: the model's view is in sight)."""
    if opened["sentTop"] is None:
        return ["no row holds an item the model is sent"]
    if opened["scrollTop"] or opened["sentBottom"] > opened["clientHeight"]:
        return [f"the turns the model is sent start {opened['sentTop']:,.0f} px down a "
                f"{opened['clientHeight']} px body (scrolled {opened['scrollTop']} px)"]
    return []


def detail_problems(placed: dict[str, Any]) -> list[str]:
    """What is wrong with where a clicked chip's full text appears (empty: right under it,
    in sight)."""
    problems = []
    if not 0 <= placed["gap"] <= 40:
        problems.append(f"the detail pane is {placed['gap']:,.0f} px from the clicked chip")
    if not 0 <= placed["paneTop"] <= placed["clientHeight"] - 20:
        problems.append(f"the detail pane starts {placed['paneTop']:,.0f} px down a "
                        f"{placed['clientHeight']} px body: out of sight")
    return problems


def _detail_of(page: Any, root: Any, index: int) -> dict[str, Any]:
    """Click the chip of ledger item ``index`` and measure where its full text appears."""
    root.locator(f".ctxlab-replay-body button.ctxlab-chip.ctxlab-index-{index}").click()
    root.locator(".ctxlab-detail-text").wait_for()
    page.wait_for_function(
        "([el, i]) => el.querySelector('.ctxlab-detail-pane b') && el.querySelector("
        "'.ctxlab-detail-pane b').innerText.startsWith('#' + i + ' ')",
        arg=[root.element_handle(), index], polling=250, timeout=LONG_UI_TIMEOUT_MS)
    page.wait_for_timeout(300)  # the pane's new place is drawn
    return root.evaluate(DETAIL_AT_JS, index)


def test_a_100_turn_replay_scrolls_and_keeps_its_height(sync_api: Any, lab: JupyterLab) -> None:
    # Two notebooks, run one after the other: two replays of some 700 widget views each,
    # sent in one "run all", sometimes left the second one without rows on a busy machine
    # (ipywidgets' frontend: "Could not add child view to box").
    _write_notebook(lab.root / "long.ipynb", (LONG_CONVERSATION_CELL, LONG_REPLAY_CELL))
    _write_notebook(lab.root / "long_first_edition.ipynb",
                    (LONG_CONVERSATION_CELL, FIRST_EDITION_CELL))
    _write_notebook(lab.root / "long_second_edition.ipynb",
                    (LONG_CONVERSATION_CELL, SECOND_EDITION_CELL))
    ARTIFACTS.mkdir(exist_ok=True)
    with _lab_page(sync_api, 1400, "jupyterlab_long_replay.png") as page:
        _open_and_run_all(page, lab, "long.ipynb")
        page.set_default_timeout(LONG_UI_TIMEOUT_MS)
        page.wait_for_selector(".ctxlab-replay-view")
        page.wait_for_selector(".jp-NotebookPanel-toolbar "
                               ".jp-Notebook-ExecutionIndicator[data-status='idle']")
        _assert_no_errors(page)
        view = page.locator(".ctxlab-replay-view")

        # It opens at the last model call on what the model is sent: turns 1-97 are
        # one row, turns 98-100 right under it.
        _wait_for_step(view, SNAPSHOTS, rows=3)
        opened = view.evaluate(OPENS_AT_JS)
        assert opening_problems(opened) == [], opened
        assert "97 turns not sent" in view.locator(".ctxlab-unsent-toggle").inner_text()
        view.screenshot(path=str(ARTIFACTS / "replay_100_turns_opened.png"))
        # Every turn on request; a chip of turn 2 shows its text right under it.
        view.locator(".ctxlab-unsent-toggle").click()
        _wait_for_step(view, SNAPSHOTS)
        early = _detail_of(page, view, 2)
        assert detail_problems(early) == [], early
        assert "Turn 2:" in early["text"], early

        # Scrub the replay: the last snapshot, back one, far back, the start, then
        # forward again, with a chip's full text open; measure every stop.
        seen = {SNAPSHOTS: view.evaluate(LAYOUT_JS)}
        view.locator(".ctxlab-prev").click()
        _wait_for_step(view, SNAPSHOTS - 1)
        seen[SNAPSHOTS - 1] = view.evaluate(LAYOUT_JS)
        view.screenshot(path=str(ARTIFACTS / "replay_100_turns.png"))
        for step in (50, 1, 12):
            _go(page, view, step)
            seen[step] = view.evaluate(LAYOUT_JS)
        view.locator(".ctxlab-next").click()
        _wait_for_step(view, 13)
        view.locator(".ctxlab-replay-body button.ctxlab-chip").nth(3).click()
        view.locator(".ctxlab-detail-text").wait_for()
        seen[13] = view.evaluate(LAYOUT_JS)  # the detail pane is open
        _go(page, view, SNAPSHOTS)
        seen[0] = view.evaluate(LAYOUT_JS)  # back at the end, detail pane still open

        for step, measured in seen.items():
            assert layout_problems(measured) == [], (step, measured)
        heights = {step: m["height"] for step, m in seen.items()}
        assert max(heights.values()) - min(heights.values()) <= 1, heights
        late = seen[SNAPSHOTS - 1]
        assert late["rows"] == LONG_TURNS - 1 and late["row"] >= late["chip"]
        assert late["scrollHeight"] > 5 * late["clientHeight"], late
        end = view.evaluate(SCROLL_TO_END_JS)
        assert end["scrollTop"] > 0 and end["lastRowVisible"], end

        # The same measurements catch the first edition's layout.
        broken = _open_long_replay(page, lab, "long_first_edition.ipynb")
        old_last = broken.evaluate(LAYOUT_JS)
        broken.locator(".ctxlab-prev").click()
        _wait_for_step(broken, SNAPSHOTS - 1)
        old = broken.evaluate(LAYOUT_JS)
        broken.screenshot(path=str(ARTIFACTS / "replay_100_turns_first_edition.png"))
        found = " | ".join(layout_problems(old))
        assert "chips stick out of their row" in found, old
        assert "rows squashed" in found and "does not scroll" in found, old
        assert abs(old["height"] - old_last["height"]) > 1, (old, old_last)

        # ... and the second edition's: the model's view far down, the detail far off.
        second = _open_long_replay(page, lab, "long_second_edition.ipynb")
        old_opened = second.evaluate(OPENS_AT_JS)
        old_early = _detail_of(page, second, 2)
        assert "the turns the model is sent start" in " ".join(
            opening_problems(old_opened)), old_opened
        assert "from the clicked chip" in " ".join(detail_problems(old_early)), old_early
        _assert_no_errors(page)
        print(f"100-turn replay: opens with the model's view {opened['sentTop']:.0f} px "
              f"down a {opened['clientHeight']} px body (first edition: "
              f"{old_opened['sentTop']:,.0f} px); a turn-2 chip's detail "
              f"{early['gap']:.0f} px under it (first edition: {old_early['gap']:,.0f} "
              f"px); rows {late['row']:.0f} px around {late['chip']:.0f} px "
              f"chips, body scrollHeight {late['scrollHeight']} px in "
              f"{late['clientHeight']} px, height {late['height']:.0f} px at every "
              f"stop; first edition: {found}; height {old_last['height']:.0f} -> "
              f"{old['height']:.0f} px")


# ------------------------------------------------------------------------- text as a reader sees it

#: The first edition's drift legend: one 331-column line, which JupyterLab's output area
#: (``word-break: break-all``) broke inside words ("superse|ded"). Kept to show the
#: measurement catches it.
OLD_DRIFT_LEGEND = (
    "drift: rate 0.5 per fold, seed 0; current = probed facts the view presents as current; "
    "stale = model calls presenting a superseded value as current; answers to the 53 asked "
    "probes: correct, asks to confirm, states a wrong value, states none; calls = summarizer "
    "calls (a rebuild is a fold that reads the raw log), counted in vs full")

#: Soft line breaks inside a word in each output <pre>: every place where the browser
#: wrapped a line between two letters or digits (a break the text did not ask for).
BROKEN_WORDS_JS = """
n => {
  const cell = document.querySelectorAll('.jp-Cell')[n];
  const broken = [];
  cell.querySelectorAll('.jp-OutputArea-output pre').forEach(pre => {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        if (text[i] === '\\n') { top = null; continue; }
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && rect.top > top + 1 && /\\w/.test(text[i]) && /\\w/.test(text[i - 1])) {
          const from = text.lastIndexOf(' ', i), to = text.indexOf(' ', i);
          broken.push(text.slice(from + 1, i) + '|' + text.slice(i, to < 0 ? undefined : to));
        }
        top = rect.top;
      }
    }
  });
  return {cell: n, broken};
}
"""

#: How Chinese renders in the notebook's two fonts (output <pre>, rendered markdown): are
#: two different characters two different glyphs (tofu boxes are all alike), how wide is
#: a Chinese character against the font size and against a character no font has, and
#: does any Chinese paragraph or output overflow its box.
CHINESE_JS = """
() => {
  const canvas = document.createElement('canvas');
  canvas.width = 48; canvas.height = 48;
  const g = canvas.getContext('2d');
  const glyph = (ch, font) => {
    g.clearRect(0, 0, 48, 48); g.font = font; g.fillText(ch, 4, 36);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
  };
  const width = (host, text) => {
    const span = document.createElement('span');
    span.style.whiteSpace = 'pre'; span.textContent = text; host.appendChild(span);
    const w = span.getBoundingClientRect().width; span.remove(); return w;
  };
  const hosts = {
    output: document.querySelector('.jp-OutputArea-output pre'),
    markdown: document.querySelector('.jp-MarkdownOutput p, .jp-MarkdownOutput li'),
  };
  const fonts = {};
  for (const [name, host] of Object.entries(hosts)) {
    const style = getComputedStyle(host);
    const font = style.fontSize + ' ' + style.fontFamily;
    fonts[name] = {
      distinct: glyph('冰', font) !== glyph('箱', font),
      em: parseFloat(style.fontSize), chinese: width(host, '冰箱型号') / 4,
      missing: width(host, '\\uE000\\uE000\\uE000\\uE000') / 4,
    };
  }
  const overflowing = [...document.querySelectorAll(
      '.jp-OutputArea-output pre, .jp-MarkdownOutput p, .jp-MarkdownOutput li')]
    .filter(el => /[\\u4e00-\\u9fff]/.test(el.textContent) && el.scrollWidth > el.clientWidth + 1)
    .map(el => el.textContent.slice(0, 40));
  return {fonts, overflowing};
}
"""


def chinese_problems(measured: dict[str, Any]) -> list[str]:
    """What is wrong with how Chinese renders (empty: real glyphs, full width, in its box)."""
    problems = []
    for name, font in measured["fonts"].items():
        if not font["distinct"]:
            problems.append(f"{name}: 冰 and 箱 draw the same glyph (boxes: no CJK font)")
        if font["chinese"] < 0.9 * font["em"] or abs(font["chinese"] - font["missing"]) < 0.5:
            problems.append(f"{name}: a Chinese character is {font['chinese']:.1f} px wide at "
                            f"{font['em']:.0f} px, a missing glyph {font['missing']:.1f} px")
    if measured["overflowing"]:
        problems.append(f"Chinese text overflows its box: {measured['overflowing']}")
    return problems


def _lesson_cell(name: str, contains: str) -> dict[str, Any]:
    lesson = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return next(c for c in lesson.cells if contains in c.source)


def _stored_outputs_notebook(path: Path) -> list[str]:
    """A notebook of lesson cells with their committed outputs (nothing is executed), and
    one cell with the first edition's drift legend; returns what each cell is."""
    cells = [
        ("03 drift table", _lesson_cell("03_summarizing.ipynb", "drift_report(")),
        ("10 day four", _lesson_cell("10_memory_across_sessions.ipynb", "day four")),
        ("05b goals", _lesson_cell("05b_chinese_conversations.ipynb", "In this lesson you")),
        ("05b conversation", _lesson_cell("05b_chinese_conversations.ipynb", "describe_items(")),
        ("05b answers", _lesson_cell("05b_chinese_conversations.ipynb", "answer_table(")),
    ]
    old = nbformat.v4.new_code_cell("print(report.table())")
    old.outputs = [nbformat.v4.new_output("stream", name="stdout", text=OLD_DRIFT_LEGEND + "\n")]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [cell for _, cell in cells] + [old]
    nbformat.write(nb, path)
    return [name for name, _ in cells] + ["first edition's drift legend"]


#: Common laptop and desktop widths: where a line breaks depends on the width.
TEXT_WIDTHS = (1280, 1440, 1920)


def _measure_text(sync_api: Any, lab: JupyterLab, env: dict[str, str] | None = None
                  ) -> tuple[dict[int, list[dict[str, Any]]], dict[str, Any]]:
    with _lab_page(sync_api, 1000, env=env) as page:
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(f"{lab.url}/lab/tree/text.ipynb?reset")
        page.wait_for_selector(".jp-NotebookPanel .jp-OutputArea-output pre")
        page.wait_for_selector(".jp-MarkdownOutput p, .jp-MarkdownOutput li")
        page.wait_for_timeout(1000)  # fonts and layout settle
        broken: dict[int, list[dict[str, Any]]] = {}
        for width in TEXT_WIDTHS if env is None else ():
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(500)
            broken[width] = []
            for n in range(page.locator(".jp-Cell").count()):
                # in view first: JupyterLab skips the layout of cells out of sight
                page.locator(".jp-Cell").nth(n).scroll_into_view_if_needed()
                page.wait_for_timeout(200)
                broken[width].append(page.evaluate(BROKEN_WORDS_JS, n))
        page.set_viewport_size({"width": 1280, "height": 1000})
        page.locator(".jp-MarkdownOutput").first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        chinese = page.evaluate(CHINESE_JS)
        page.screenshot(path=str(ARTIFACTS / ("text_in_jupyterlab"
                                              f"{'_no_cjk_font' if env else ''}.png")),
                        full_page=True)
        return broken, chinese


def test_words_stay_whole_and_chinese_renders_in_jupyterlab(sync_api: Any, lab: JupyterLab,
                                                             tmp_path: Path) -> None:
    """Lesson outputs as a learner sees them at 1280-1920 px: no line is broken inside a word
    (03's drift legend, 10's day-four answers), and Chinese draws real, full-width glyphs
    that stay in their boxes (05b). The same measurements catch the first edition's legend
    and a browser without a CJK font (fontconfig limited to DejaVu: boxes)."""
    ARTIFACTS.mkdir(exist_ok=True)
    names = _stored_outputs_notebook(lab.root / "text.ipynb")
    broken, chinese = _measure_text(sync_api, lab)
    old_breaks = []
    for width, cells in broken.items():
        by_name = {names[b["cell"]]: b["broken"] for b in cells}
        for name in ("03 drift table", "10 day four", "05b conversation", "05b answers"):
            assert by_name[name] == [], (width, name, by_name[name])
        old_breaks += by_name["first edition's drift legend"]
    assert old_breaks, ("the measurement missed the first edition's broken words", broken)
    assert chinese_problems(chinese) == [], chinese

    # A browser without a CJK font: the measurements must see the boxes.
    config = tmp_path / "fonts-without-cjk.conf"
    config.write_text(
        "<?xml version='1.0'?><!DOCTYPE fontconfig SYSTEM 'fonts.dtd'><fontconfig>"
        "<dir>/usr/share/fonts/truetype/dejavu</dir>"
        f"<cachedir>{tmp_path / 'fontconfig-cache'}</cachedir></fontconfig>")
    _, boxes = _measure_text(sync_api, lab, {**os.environ, "FONTCONFIG_FILE": str(config)})
    found = " | ".join(chinese_problems(boxes))
    assert "draw the same glyph" in found and "a missing glyph" in found, boxes
    print(f"text at {TEXT_WIDTHS} px: no word broken in {', '.join(names[:-1])}; the first "
          f"edition's legend broke {old_breaks}; Chinese: {chinese['fonts']}; without a CJK "
          f"font: {found}")
