"""What a view shows, computed once for all of them.

The views -- the terminal app (:mod:`crawlsim.tui`), the notebook widget
(:mod:`crawlsim.notebook`) and the offline page (:mod:`crawlsim.page`) --
draw; they decide nothing.  What they draw comes from here: a what-if run
per knob setting (:mod:`~crawlsim.views.session`), a trace replayed to any
instant (:mod:`~crawlsim.views.replay`, a cluster's nodes in
:mod:`~crawlsim.views.replay_nodes`), the step table
(:mod:`~crawlsim.views.replay_steps`), one sentence of why per event
(:mod:`~crawlsim.views.narrate`) and the summary of a crawl
(:mod:`~crawlsim.views.summary`), and the one chart style (:mod:`~crawlsim.views.plots`).
"""
