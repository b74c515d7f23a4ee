"""One vocabulary: every surface names a concept by the table's word
(``crawlsim/words.py``), and a normalization by its one name."""

from __future__ import annotations

import contextlib
import io
import json
import re
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from crawlsim import words
from crawlsim.cli import COMMANDS, main
from crawlsim.core.urls import MODES, STEPS, mode_name, parse_steps
from crawlsim.scenario import load_scenario
from crawlsim.trace.events import HostDeferred
from crawlsim.tui.app import CrawlApp
from crawlsim.sim.driver import simulate
from crawlsim.tui.seen import SeenSets, seen_title
from crawlsim.views.narrate import narrate_trace
from crawlsim.views.replay import describe_event
from crawlsim.views.session import normalize_label
from crawlsim.views.summary import options_line
from tests.shared_builds import SharedBuilds
from tests.test_page import page_data

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "reference" / "words.md"
PAGE = ROOT / "crawlsim" / "page"


def misspelled(text: str) -> list[str]:
    """The refused spellings ``text`` uses, each with the word to use instead.
    A table word that contains one (``HTTP request``) is its own concept."""
    text = " ".join(text.split())
    for w in words.WORDS:
        text = re.sub(rf"\b{re.escape(w.word)}s?\b", " ", text)
    return [
        f"{wrong!r} (say {word!r})"
        for wrong, word in words.refused().items()
        if re.search(rf"\b{re.escape(wrong)}\b", text, re.IGNORECASE)
    ]


def test_the_docs_page_shows_the_table_as_it_renders() -> None:
    assert words.render() in DOCS.read_text()


def test_the_table_names_the_same_normalization_modes_as_the_core() -> None:
    assert words.NORMALIZATION_MODES == tuple(MODES)


def test_the_checker_finds_a_refused_spelling() -> None:
    assert misspelled("busiest host 4 s (a.com, 7 requests)") == ["'requests' (say 'fetch')"]
    assert misspelled("a whole HTTP request") == []


@pytest.mark.parametrize("mode", list(MODES))
def test_a_named_modes_steps_are_shown_by_its_name(mode: str) -> None:
    assert mode_name(MODES[mode]) == mode
    assert mode_name(sorted(MODES[mode])) == mode


def test_a_mode_the_keys_cannot_reach_is_the_nearest_named_one_plus_what_differs() -> None:
    # what `run variants` advised, and what the see-it page advised
    assert mode_name("rfc3986+www+https+trailing_slash+session_ids") == "aggressive-sort_query"
    assert mode_name({"fragment", "lowercase", "default_port"}) == "rfc3986-dot_segments"
    assert mode_name({"www"}) == "off+www"
    assert mode_name("rfc3986+www") == "rfc3986+www"


def test_every_step_set_reads_back_from_its_name() -> None:
    for n in range(len(STEPS) + 1):
        for steps in combinations(STEPS, n):
            name = mode_name(frozenset(steps))
            assert parse_steps(name) == frozenset(steps), name
            assert name.split("+")[0].split("-")[0] in MODES


def test_the_summary_and_the_app_name_a_step_set_by_its_mode() -> None:
    safe = sorted(MODES["rfc3986"])
    assert "normalize rfc3986," in options_line({"normalize": safe})
    assert normalize_label(frozenset(MODES["aggressive"])) == "aggressive"


@pytest.mark.parametrize(("name", "normalize"), [("variants", "off"), ("see-it", "off")])
def test_the_advice_names_each_normalization_it_measured_by_its_one_name(
    name: str, normalize: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", name, "--normalize", normalize, "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)["explanation"]
    specs = re.findall(r"With normalize (\S+):", advice)
    assert specs and "rfc3986" in specs
    for spec in specs:
        assert spec == mode_name(spec) and spec.split("+")[0].split("-")[0] in ("rfc3986", "aggressive"), spec


def _help(command: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
        main([command, "--help"])
    return out.getvalue()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_help_spells_a_concept_outside_the_table(command: str) -> None:
    text = _help(command)
    assert text.strip(), command
    assert misspelled(text) == []


def shown_in_json(data: Any) -> str:
    """Every key (``queue_size`` read as ``queue size``) and every string
    value of a command's ``--json``, one per line: what a reader of it sees."""
    if isinstance(data, dict):
        return "\n".join(f"{str(key).replace('_', ' ')}\n{shown_in_json(value)}" for key, value in data.items())
    if isinstance(data, list):
        return "\n".join(shown_in_json(item) for item in data)
    return data if isinstance(data, str) else ""


JS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
JS_COMMENT = re.compile(r"/\*.*?\*/|^\s*//[^\n]*", re.DOTALL | re.MULTILINE)


def shown_by_script(script: str) -> str:
    """The string literals of a script, one per line: the only text it can put
    on screen (``requestAnimationFrame`` is a name, not a word shown)."""
    return "\n".join(m.group()[1:-1] for m in JS_STRING.finditer(JS_COMMENT.sub(" ", script)))


def test_the_walks_find_a_refused_spelling_put_back() -> None:
    assert misspelled(shown_in_json({"queue_size": 3})) == ["'queue size' (say 'frontier')"]
    assert misspelled(shown_in_json({"lines": ["node 1 holds the crawl: its requests"]})) == [
        "'requests' (say 'fetch')"
    ]
    script = 'requestAnimationFrame(tick); /* 7 requests */ label("7 requests");'
    assert misspelled(shown_by_script(script)) == ["'requests' (say 'fetch')"]
    assert misspelled(shown_by_script("requestAnimationFrame(tick); /* 7 requests */")) == []


def _json_of(argv: list[str], capsys: pytest.CaptureFixture[str], exit_code: int = 0) -> Any:
    assert main(argv) == exit_code
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [
        (["run", "see-it", "--json"], 0),
        (["compare", "see-it", "--b", "workers=2", "--json"], 0),
        (["sweep", "see-it", "--vary", "workers=1,2", "--json"], 0),
        (["run", "see-it", "--nodes", "2", "--json"], 0),
        (["check", "--example", "buggy_seen_on_finish", "--quick", "--json"], 1),  # a failing report says most
    ],
    ids=["run", "compare", "sweep", "nodes", "check"],
)
def test_no_json_spells_a_concept_outside_the_table(
    argv: list[str], exit_code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = shown_in_json(_json_of(argv, capsys, exit_code))
    assert "fetches" in shown
    assert misspelled(shown) == []


def test_the_cluster_advice_says_fetches(capsys: pytest.CaptureFixture[str]) -> None:
    shown = shown_in_json(_json_of(["run", "see-it", "--nodes", "2", "--json"], capsys))
    assert "whose fetches alone keep it busy" in shown


def test_no_json_of_a_real_crawl_spells_a_concept_outside_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real HTTP on loopback: ``crawl --json`` of a served three-page site."""
    from crawlsim.real.server import ServerProcess
    from tests.test_real_crawl import make_scenario

    site = {"http://a.test/": ["/p1", "/p2"], "http://a.test/p1": [], "http://a.test/p2": []}
    with ServerProcess(make_scenario(site, latency=0.01)) as server:
        resolve = [f"--resolve={h}={a}:{p}" for h, (a, p) in server.resolve().items()]
        data = _json_of(["crawl", "http://a.test/", *resolve, "--gap", "0", "-o", str(tmp_path / "t.jsonl"), "--json"],
                        capsys)
    shown = shown_in_json(data)
    assert data["pages_fetched"] == 3
    assert misspelled(shown) == []


def test_no_text_of_the_see_it_page_spells_a_concept_outside_the_table() -> None:
    page = PAGE.joinpath("see_it.html").read_text(encoding="utf-8")
    script = PAGE.joinpath("see_it.js").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", " ", page)
    assert "frontier" in shown_by_script(script)
    assert misspelled(text) == [] and misspelled(shown_by_script(script)) == []


@pytest.mark.slow
def test_no_label_in_the_see_it_pages_data_spells_a_concept_outside_the_table(shared_builds: SharedBuilds) -> None:
    """Slow: the session's shared see-it page (1,440 small crawls)."""
    done = shared_builds.cli(("html", "see-it"), "see-it.html")
    assert done.returncode == 0, done.stderr
    shown = shown_in_json(page_data(done.path.read_text(encoding="utf-8")))
    assert "duplicate" in shown
    assert misspelled(shown) == []


async def test_no_label_of_the_app_spells_a_concept_outside_the_table() -> None:
    app = CrawlApp(load_scenario("polite"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        shown = [b.description for b in app.BINDINGS if hasattr(b, "description")]
        for widget in app.query("*"):
            shown.append(str(widget.border_title or ""))
            if hasattr(widget, "plain"):
                shown.append(widget.plain())
    text = "\n".join(shown)
    assert "busiest host" in text and "lower bounds" in text
    assert misspelled(text) == []


def test_the_narration_of_a_polite_crawl_says_fetch() -> None:
    scenario = load_scenario("polite")
    run = simulate(scenario)
    sentences = [text for _, text in narrate_trace(run.trace, run.options)]
    assert any("no fetch from a.com before" in text for text in sentences)
    assert misspelled("\n".join(sentences)) == []


def test_the_seen_title_says_what_it_checks_in_words() -> None:
    title = seen_title(SeenSets(seen=14, frontier=3, in_flight=1, outside=0))
    assert "⊇" not in title
    assert title.startswith("seen 14 URLs, the frontier and in flight among them")


def test_one_seen_url_is_one_url_in_the_app_as_on_the_page() -> None:
    """At t=0 a crawl has seen its seed: "seen 1 URL", the page's words too."""
    assert seen_title(SeenSets(seen=1, frontier=0, in_flight=1, outside=0)).startswith("seen 1 URL, ")
    assert seen_title(SeenSets(seen=1, frontier=1, in_flight=1, outside=1)).startswith("seen 1 URL ")


@pytest.mark.parametrize(("n", "word", "shown"), [(1, "retry", "1 retry"), (2, "retry", "2 retries"),
                                                  (3, "fetch", "3 fetches"), (2, "day", "2 days"), (0, "URL", "0 URLs"),
                                                  (2360, "page", "2,360 pages"), (11500, "retry", "11,500 retries")])
def test_one_plural_rule(n: int, word: str, shown: str) -> None:
    assert words.counted(n, word) == shown


def test_a_hold_logged_with_the_start_that_causes_it_does_not_read_as_a_wait() -> None:
    line = describe_event(HostDeferred(t=3.2, host="a.com", until=4.2, reason="gap"))
    assert not line.startswith("wait")
    assert line == "next    a.com not before 4.2 s (gap)"


@pytest.mark.parametrize("model", [False, True], ids=["scenario", "model"])
def test_run_compare_the_widget_and_the_page_head_the_bounds_alike(
    model: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One heading over the three bounds, a model's saying whose they are."""
    import html as html_module

    from crawlsim.notebook import CrawlWidget
    from crawlsim.page.build import scenario_data
    from crawlsim.scenario.files import find_scenario

    site = tmp_path / "site.toml"
    site.write_text(("margin = 0.05\n" if model else "") + find_scenario("isro").read_text(encoding="utf-8"))
    shown = {}
    for command in (["run", str(site)], ["compare", str(site), "--b", "workers=2"]):
        assert main(command) == 0
        shown[command[0]] = capsys.readouterr().out
    shown["widget"] = html_module.unescape(CrawlWidget(load_scenario(site), frames=10).summary.value)
    shown["page"] = scenario_data(load_scenario(site), budget=0.01)["boundsTitle"]
    heading, other = words.bounds_heading(model=model), words.bounds_heading(model=not model)
    for surface, text in shown.items():
        assert heading in text and other not in text, surface


@pytest.mark.parametrize(("width", "short"), [(160, False), (90, True)])
async def test_the_apps_bounds_panel_is_headed_as_run_heads_them(width: int, short: bool) -> None:
    """The full heading in a wide window; cut down to its first words in a narrow one."""
    from crawlsim.tui.bars import NARROW, BoundsView

    app = CrawlApp(load_scenario("polite"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=(width, 48)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        panel = app.query_one(BoundsView)
        assert (panel.size.width < NARROW) == short
        shown = " ".join(panel.plain().split())
    assert shown.startswith(words.bounds_heading(short=short) + " depth ")


def test_crawls_text_writes_a_count_as_counted_does() -> None:
    """``(2,360 pages; ...)`` and ``11,500 seen``, as every other count is written."""
    from types import SimpleNamespace

    from crawlsim.commands.crawl import _print_pages, _print_problems

    pages = {f"http://a.test/{i}": 200 for i in range(2360)}
    result = SimpleNamespace(
        statuses=pages, failures={}, unfinished={}, links_dropped={}, refused=[], robots_refused={},
        stats=SimpleNamespace(skipped={"seen": 11500, "scope": 2}),
    )
    out = io.StringIO()
    _print_pages(result, out)
    _print_problems(result, out)
    assert out.getvalue() == (f"  ({words.counted(2360, 'page')}; --json or -o FILE for all of them)\n"
                              "links not followed: 2 scope, 11,500 seen\n")


@pytest.mark.parametrize(
    ("share", "said"),
    [(-0.32, "-32%"), (0.19, "+19%"), (-0.0022, "-0.2%"), (0.004, "+0.4%"), (0.014, "+1%"), (-0.0004, "-<0.1%"), (0.0, "0%")],
)
def test_a_signed_change_never_reads_as_a_signed_zero(share: float, said: str) -> None:
    """``-0%`` says "no change" with a sign: a small change shows a decimal, or ``<0.1%``."""
    assert words.signed_percent(share) == said


async def test_every_surface_writes_the_busiest_host_one_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``b.com, 6 fetches`` beside the busiest-host bound in run, compare, the app, the page
    and the animated picture; sweep.png's curve spans crawls, so its host alone, the same way."""
    from crawlsim.commands.sweep import sweep_figure
    from crawlsim.notebook.runs import snapshot
    from crawlsim.page.build import scenario_data
    from crawlsim.tui.bars import BoundsView

    busiest = _json_of(["run", "polite", "--json"], capsys)["busiest_host"]
    note = words.busiest_host_note(busiest["host"], busiest["fetches"])
    assert note == f"{busiest['host']}, {busiest['fetches']} fetches"
    shown = {}
    for command in (["run", "polite"], ["compare", "polite", "--b", "workers=2"]):
        assert main(command) == 0
        shown[command[0]] = capsys.readouterr().out
    app = CrawlApp(load_scenario("polite"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        shown["app"] = " ".join(app.query_one(BoundsView).plain().split())
    shown["page"] = scenario_data(load_scenario("polite"), budget=0.01)["runs"][0]["bounds"]["busiestHostNote"]
    legend = snapshot("polite", dpi=30).ax_lanes.get_legend().get_texts()
    shown["picture"] = " ".join(" ".join(t.get_text() for t in legend).split())
    for surface, text in shown.items():
        assert note in text, surface
    assert main(["sweep", "polite", "--vary", "workers=1,2", "--no-plot", "-o", str(tmp_path), "--json"]) == 0
    figure = sweep_figure(json.loads(capsys.readouterr().out), {"workers": [1, 2]}, "polite")
    sweep_png = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert f"busiest host bound ({busiest['host']})" in sweep_png


@pytest.mark.parametrize(("per_host", "said"), [(1, "per host at most 1 fetch at a time"),
                                                 (2, "per host at most 2 fetches at a time"),
                                                 (None, "no per-host limit")])
def test_run_and_crawl_say_the_per_host_limit_alike(per_host: int | None, said: str) -> None:
    """``run``'s banner and ``crawl``'s politeness line name the same setting in the same words, a fetch's."""
    from crawlsim.core.options import CrawlOptions
    from crawlsim.real.flags import politeness_line
    from crawlsim.views.summary import options_dict, options_line

    options = CrawlOptions(workers=4, per_host=per_host)
    for banner in (options_line(options_dict(options)), politeness_line(options)):
        assert said in banner and "request" not in banner
