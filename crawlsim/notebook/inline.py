"""The offline "See it" page inside a notebook: ``crawlsim.notebook.page("see-it")``.

The page (:mod:`crawlsim.page`) is shown in an iframe whose ``srcdoc`` is
the whole file, so it needs no kernel once drawn: Play, the scrubber and
every what-if key keep working in a notebook saved with its output, or
exported to HTML.  The iframe is sandboxed to scripts only.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from crawlsim.extras import needs

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario


def page_html(scenario: str | Scenario = "see-it", *, height: int = 1500, **options: Any) -> str:
    """The iframe's HTML: the page of ``scenario`` (a name, a path or a
    loaded scenario); ``options`` go to :func:`crawlsim.page.build_page`
    (``title``, ``note``, ``budget``)."""
    from crawlsim.page import build_page
    from crawlsim.scenario import load_scenario

    loaded = load_scenario(scenario) if isinstance(scenario, str) else scenario
    text, _ = build_page(loaded, **options)
    return (  # in a div: IPython warns about a bare iframe in HTML
        f'<div class="crawlsim-page"><iframe title="{html.escape(loaded.title)}" sandbox="allow-scripts" '
        f'style="width: 100%; height: {int(height)}px; border: 0" srcdoc="{html.escape(text, quote=True)}"></iframe></div>'
    )


def page(scenario: str | Scenario = "see-it", *, height: int = 1500, **options: Any) -> Any:
    """The page, shown inline (``IPython.display.HTML``): the last line of a cell."""
    with needs("notebook", "crawlsim.notebook.page"):
        from IPython.display import HTML

    return HTML(page_html(scenario, height=height, **options))


__all__ = ["page", "page_html"]
