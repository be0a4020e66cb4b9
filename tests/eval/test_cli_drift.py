"""``python -m ctxlab drift`` prints the drift figures and refuses bad options."""

from __future__ import annotations

import io

import pytest

from ctxlab.cli import main


def test_drift_prints_every_variant():
    out = io.StringIO()
    assert main(["drift", "--corpus", "planted:1:30-35:3", "--rate", "1", "--every", "2"],
                out=out) == 0
    text = out.getvalue()
    for label in ("exact (ExtractiveSummarizer)", "drifting", "[uncertain] markers",
                  "rebuild every 2 folds", "markers + rebuild every 2"):
        assert label in text
    assert "confirm" in text and "vs full" in text


@pytest.mark.parametrize("argv", [["--rate", "1.5"], ["--every", "0"], ["--summarize", "5/2"],
                                  ["--summarize", "two"], ["--corpus", "nope:3"]])
def test_bad_options_are_refused(argv, capsys):
    assert main(["drift", *argv]) == 2
    assert "error:" in capsys.readouterr().err
