"""``crawlsim model TRACE -o SITE.toml``: a recorded crawl becomes a scenario
the simulator can rerun with other settings ("how long with 16 workers?").

What the model is (the web as recorded, each page's measured time, the
recording's options) is :mod:`crawlsim.scenario.from_trace`'s; this module
parses the arguments and writes the file.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from crawlsim.commands.common import ArgumentParser
from crawlsim.errors import UsageError
from crawlsim.scenario.from_trace import model_from_trace


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim model",
        description=(
            "Turn a recorded crawl (crawlsim crawl URL -o TRACE) into a scenario file: the web as recorded, "
            "each page's measured fetch time and the recording's own options, so `crawlsim run SITE.toml` "
            "reproduces the recorded crawl and `--workers`, `--per-host`, `--gap` ask what if."
        ),
    )
    parser.add_argument("trace", help="a JSONL trace written by crawlsim crawl -o (or by the Scrapy TraceRecorder)")
    parser.add_argument("-o", "--output", required=True, metavar="SITE.toml", help="the scenario file to write")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``crawlsim model TRACE -o SITE.toml``."""
    from crawlsim.outfile import written

    args = build_parser().parse_args(argv)
    if _same_file(args.trace, args.output):
        raise UsageError(f"-o {args.output} is the trace itself: writing the model there would replace the recording; "
                         "name another file")
    text = model_from_trace(args.trace)
    with written(args.output) as out:
        out.write(text)
    print(f"model written to {args.output} (try: crawlsim run {args.output} --workers 16)")
    return 0


def _same_file(trace: str, output: str) -> bool:
    """Whether ``output`` names the file ``trace`` is (by another spelling or a link too)."""
    try:
        return os.path.samefile(trace, output)
    except OSError:  # either is missing or unreadable: then they are not one file
        return False


__all__ = ["build_parser", "main"]
