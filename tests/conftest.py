"""Test-wide settings.

Hypothesis' per-example deadline is off everywhere: CI machines are shared
and slow calls are not what these properties are about (speed is measured by
``benchmarks/``, never asserted in tests)."""

from hypothesis import settings

settings.register_profile("crawlsim", deadline=None)
settings.load_profile("crawlsim")
