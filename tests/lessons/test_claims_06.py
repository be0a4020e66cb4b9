"""Lessons 06 and 06b: every number their prose states is the number printed above it."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after

L06 = Lesson.load("06_evaluation")
L06B = Lesson.load("06b_evaluation_in_practice")


def table(text: str) -> dict[str, list[str]]:
    """Rows of a summary table by strategy label (label = text before two spaces)."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^(\S.*?)\s{2,}(\S.*)$", line)
        if match and not line.startswith(("strategy", "-")):
            rows[match.group(1)] = match.group(2).split()
    return rows


def pct(cell: str) -> float:
    return float(cell.rstrip("%"))


def cheapest_keeping_everything(rows: dict[str, list[str]]) -> str:
    """The label of the cheapest strategy whose recall is 100% (columns: recall, current,
    [stale-as-current], answers, vs full, ...; "vs full" is the fourth from the end)."""
    complete = {label: pct(row[-4]) for label, row in rows.items() if pct(row[0]) == 100.0}
    return min(complete, key=complete.get)


def test_the_up_and_left_claims_match_both_tables():
    cell = L06.find("The two corpora tell different stories.")
    prose = L06.markdown(cell)
    shown = L06.output(L06.find("run = await evaluate(tau + planted", kind="code"))
    tau, planted = shown.split("planted:")
    tau_rows, planted_rows = table(tau), table(planted)
    assert cheapest_keeping_everything(tau_rows) == "summarize 2/4"
    assert "On tau-bench, `summarize 2/4` is there" in prose
    assert number_after(prose, "full history does, for ") == pct(tau_rows["summarize 2/4"][-4])
    assert number_after(prose, "the structured state keeps ") == pct(
        tau_rows["trim 4 + state"][0])
    assert cheapest_keeping_everything(planted_rows) == "trim 4 + state"
    assert number_after(prose, "every probed fact for ") == pct(
        planted_rows["trim 4 + state"][-4])
    assert number_after(prose, "less than the summary's ") == pct(
        planted_rows["summarize 2/4"][-4])
    assert number_after(prose, "recall is cheaper still (") == pct(
        planted_rows["trim 4 + recall"][-4])
    assert number_after(prose, "but keeps ") == pct(planted_rows["trim 4 + recall"][0])


def test_the_realistic_reader_claims_match_its_table():
    cell = L06.find("One seed is one draw of the reader's")
    prose, shown = L06.markdown(cell), L06.output_above(cell)
    assert "realistic reader" in shown  # the table says which reader produced it
    assert "seed 0)" in shown and prose.startswith("At seed 0,")
    rows = table(shown)
    answers = {k: int(v[1].split("/")[0]) for k, v in rows.items()}
    asked = int(rows["full history"][1].split("/")[1])
    assert number_after(prose, "answers ") == answers["full history"]
    assert number_after(prose, "of the ") == asked
    assert number_after(prose, "shorter window and answers ") == answers["summarize 2/4"]
    assert answers["full history"] < answers["summarize 2/4"]
    assert pct(rows["full history"][0]) == pct(rows["summarize 2/4"][0]) == 100.0


def test_the_first_edition_claims_match_its_tables():
    cell = L06.find("Recall alone cannot tell what is wrong with the first edition")
    prose, shown = L06.markdown(cell), L06.output_above(cell)
    rows = table(shown.split("in view:")[0])
    first = rows["summarize 2/4, first edition"]
    in_view = shown.split("in view:")[1].split("presented as current:")[0]
    constraint = re.search(r"constraint\s.*?(\d+)% of \d+\s*$", in_view, re.M)
    assert number_after(prose, "on constraints (") == float(constraint.group(1))
    identifiers = [line for line in in_view.splitlines()[3:] if line.strip()
                   and not line.startswith(("constraint", "commitment"))]
    assert identifiers and all(re.search(r"\s100% of \d+", line.split("  ", 1)[1])
                               for line in identifiers)  # every identifier in view
    assert number_after(prose, "tell the truth: at ") == pct(first[2])
    assert number_after(prose, "answers follow (") == int(first[3].split("/")[0])
    assert number_after(prose, "answers follow (7 of ") == int(first[3].split("/")[1])
    current = shown.split("presented as current:")[1]
    stale = {line.split()[0] for line in current.splitlines() if "stale" in line}
    assert stale == {"email", "firmware"} and "emails and firmware" in prose


def test_the_first_edition_firmware_line_is_shown_wrong():
    cell = L06.find("The chat has three devices and the note one firmware line")
    prose, shown = L06.markdown(cell), L06.output_above(cell)
    line = shown.splitlines()[0]
    history = {}
    for row in shown.splitlines()[1:]:
        device, _, versions = row.partition(" firmware, oldest first: ")
        history[device] = versions.split(", ")
    assert history == {"issue1": ["v1.6.3", "v1.7.0"], "issue2": ["v3.0.3"],
                       "issue3": ["v4.8.7", "v4.9.0"]}
    current, superseded = line.removeprefix("- Firmware: ").split(" (Superseded: ")
    assert current == "v4.9.0"  # the third device's latest, presented as the only firmware
    assert "v1.7.0" in superseded and "v3.0.3" in superseded  # other devices' current ones
    for version in ("v4.9.0", "v1.7.0", "v3.0.3"):
        assert version in prose


def test_the_parameter_guide_figures_match_the_measurement():
    cell = L06B.find("The course agent's system prompt is far shorter")
    prose, shown = L06B.markdown(cell), L06B.output_above(cell)
    assert number_after(prose, "tokens (") == number_after(shown, "system prompt:")
    assert number_after(prose, "plus ") == number_after(shown, "tool schemas")
    assert number_after(prose, "recommends ") == number_after(shown, "recommends: trim:")
    assert number_after(prose, "median ") == number_after(shown, "median")  # tokens
    window = re.search(r"median \d+ tokens, ([\d.]+)% of a 16k window", shown)[1]
    per_call = number_after(shown, "the same state per call: median ")
    assert f"{window}% of a 16k window" in " ".join(prose.split())
    assert number_after(prose, "the same state is a median ") == per_call
    # like with like (issue 31): the guide's 5-10% is a share of the window, so the
    # sentence that cites it gives the window share, never the per-call one
    cites = next(s for s in " ".join(prose.split()).split(". ") if "5-10%" in s)
    assert f"{window}%" in cites and f"{per_call:.0f}%" not in cites, cites


def test_the_split_lessons_link_in_order():
    assert "06b_evaluation_in_practice.ipynb" in "".join(L06.cells[-1]["source"])
    assert "07_production.ipynb" in "".join(L06B.cells[-1]["source"])


def test_the_chinese_comparison_matches_its_table():
    cell = L06B.find("The Chinese chats are shorter")
    prose, shown = L06B.markdown(cell), L06B.output_above(cell)
    rows = {}
    for line in shown.splitlines():
        match = re.match(r"^(\S.*?)\s{2,}(\S.*)\|(.*)$", line)
        if match and not line.startswith("strategy"):
            rows[match.group(1)] = (match.group(2).split(), match.group(3).split())
    planted_trim, zh_trim = rows["trim 8"]
    assert number_after(prose, "`trim 8` still\npresents ") == pct(zh_trim[0])
    assert number_after(prose, "as current (") == int(zh_trim[2].split("/")[0])
    assert number_after(prose, "where it keeps ") == round(pct(planted_trim[0]))
    zh_recall, zh_state = rows["trim 4 + recall"][1], rows["trim 4 + state"][1]
    assert number_after(prose, "(here ") == pct(zh_recall[0])
    assert number_after(prose, "% against ") == pct(zh_state[0])
    assert number_after(prose, "presented as current, ") == int(zh_recall[2].split("/")[0])
    assert number_after(prose, "answer all ") == int(zh_state[2].split("/")[1])
    for label in ("full history", "summarize 2/4", "full history + budget 3000",
                  "trim 4 + state"):  # "answer all 47 Chinese questions"
        got, asked = rows[label][1][2].split("/")
        assert got == asked


def test_the_planted_window_sweep_claims_match_its_table():
    cell = L06B.find("Only the widest window reaches 95% there")
    prose, shown = L06B.markdown(cell), L06B.output_above(cell)
    rows = [line.split() for line in shown.splitlines() if "trim:" in line
            and "%" in line and not line.startswith("trim:")]
    reaching = [row for row in rows if pct(row[-3]) >= 95.0]
    assert len(reaching) == 1 and reaching[0][-4].endswith("trim:32")  # only the widest
    widest = reaching[0]
    assert number_after(prose, "32 turns keep ") == round(pct(widest[-3]))
    assert number_after(prose, "and send ") == round(pct(widest[-2]))
    lesson = table(L06.output(L06.find("run = await evaluate(tau + planted", kind="code"))
                   .split("planted:")[1])
    assert number_after(prose, "kept all of them for ") == round(
        pct(lesson["trim 4 + state"][-4]))
    assert number_after(prose, "`summarize 2/4` for ") == round(
        pct(lesson["summarize 2/4"][-4]))


def seed_rows(shown: str) -> dict[str, dict[str, list[str]]]:
    """corpus -> strategy label -> its cells (answers per seed, range, vs full), from the
    spread tables."""
    out: dict[str, dict[str, list[str]]] = {}
    for block in shown.split("\n\n"):
        corpus = re.search(r"corpus (\S+)\)", block)
        if corpus:
            out[corpus[1]] = {label: rest.split() for label, rest in (
                re.split(r"\s{2,}", line.strip(), maxsplit=1)
                for line in block.splitlines()[2:-1])}
    return out


def test_the_seed_spread_claims_hold_at_every_seed():
    """Issue 31: "long context hurts" rested on seed 0. The prose now claims only what the
    five seeds' tables show; each "at every seed" is checked seed by seed, and each counter-
    example it quotes is read from the table (the old claim, "a shorter window that still
    holds the facts loses fewer", fails here for trim 4 + state and the exercise's answer)."""
    cell = L06.find("The reader's luck moves a count")
    prose, shown = " ".join(L06.markdown(cell).split()), L06.output_above(cell)
    cells = seed_rows(shown)
    tables = {corpus: {label: [int(x) for x in row[:-2]] for label, row in rows.items()}
              for corpus, rows in cells.items()}
    short, long = tables["planted:2:30-50"], tables["planted:3:80-120"]
    assert len(short["full history"]) == 5
    live = table(L06.output(L06.find("realistic = make_support_agent(", kind="code")))
    assert short["full history"][0] == int(live["full history"][1].split("/")[0])  # seed 0
    assert short["summarize 2/4"][0] == int(live["summarize 2/4"][1].split("/")[0])
    spans = [max(v) - min(v) for rows in (short,) for v in rows.values()]
    assert number_after(prose, "by up to ") == max(spans)
    full = short["full history"]
    assert (number_after(prose, "(the full history: "),
            number_after(prose, f"(the full history: {min(full)} to ")) == (min(full), max(full))

    def margins(rows, better):
        return [a - b for a, b in zip(rows[better], rows["full history"], strict=True)]

    ahead = margins(short, "summarize 2/4")
    assert min(ahead) > 0 and f"answers more than the full history (by {min(ahead)} to " \
        f"{max(ahead)})" in prose
    ahead = margins(long, "trim 4 + state")
    assert min(ahead) > 0 and f"`trim 4 + state` does (by {min(ahead)} to {max(ahead)})" in prose
    for rows, label in ((short, "trim 4 + state"), (long, "summarize 2/4"),
                        (short, "trim 1 + state + recall")):
        assert min(margins(rows, label)) <= 0 < max(margins(rows, label)), label
    seed = 1
    assert f"({long['summarize 2/4'][seed]} against {long['full history'][seed]} at seed " \
        f"{seed})" in prose
    assert f"({short['trim 1 + state + recall'][0]} against {full[0]} at seed 0)" in prose
    assert f"with {cells['planted:3:80-120']['trim 4 + state'][-1]} of its tokens" in prose
    verdicts = re.findall(r"(\S+): (.+?) answers more than full history (at every seed|not at "
                          r"every seed)", shown)
    assert len(verdicts) == 5
    for corpus, label, verdict in verdicts:
        rows = tables[corpus]
        assert (verdict == "at every seed") == (min(margins(rows, label)) > 0), (corpus, label)


def test_06_real_corpora_prose_reads_its_figures_from_the_table():
    from lesson_outputs import percents, table_rows

    prose = L06.markdown("real-after")
    rows = table_rows(L06.output_above("real-after"))
    summ, state, slots = rows["summarize 2/4"], rows["trim 4 + state"], rows["trim 1 + slots:ask"]
    # columns: planted recall, vs full | sgd recall, vs full | crosswoz recall, vs full
    assert summ[0] == state[0]  # "summarizing and the support state keep"
    assert percents(prose) == [summ[0], summ[1], state[1], summ[2], state[2], summ[4], state[4],
                               slots[0], slots[2], slots[4], slots[3], slots[5]]
    # the ranking reverses: on planted chats both beat the slot memory, on real ones it wins
    assert min(summ[0], state[0]) > slots[0]
    for recall, cost in ((2, 3), (4, 5)):
        assert slots[recall] > max(summ[recall], state[recall]) + 50
        assert 25 < slots[cost] < 40  # "about a third of the tokens"


def test_06b_real_corpora_prose_reads_its_figures_from_the_table():
    from lesson_outputs import percents, table_rows

    prose = L06B.markdown("real-after")
    rows = table_rows(L06B.output_above("real-after"))
    t16, slots = rows["trim 16"], rows["trim 1 + slots:ask"]
    assert percents(prose) == [t16[0], t16[1], t16[2], t16[4], t16[3], t16[5],
                               slots[2], slots[4], slots[3], slots[5], slots[0], slots[1]]
    # on the planted chats the slot memory "does not beat trim:16": it keeps less, for less
    assert slots[0] < t16[0] and slots[1] < t16[1]
    # a longer window buys recall on every corpus, but none is enough on real conversations,
    # where the slot memory keeps more for less
    for recall in (0, 2, 4):
        assert rows["trim 4"][recall] < rows["trim 8"][recall] < t16[recall]
    for recall, cost in ((2, 3), (4, 5)):
        assert t16[recall] < 90 and slots[recall] > t16[recall] and slots[cost] < t16[cost]
