"""The simulation subcommands of ``crawlsim``: ``run``, ``compare``, ``sweep``
and ``trace``.  Each module has a ``main(argv) -> int``; ``crawlsim.cli``
imports the one it needs, so running one never loads another's libraries
(``run`` never imports matplotlib or textual)."""
