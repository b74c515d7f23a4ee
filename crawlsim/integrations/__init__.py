"""Recorders for other crawlers: their real crawls written as crawlsim traces.

A trace is a trace whoever crawled: ``crawlsim tui --trace`` replays it and
``crawlsim model`` turns it into a scenario to ask what if.  Each recorder
lives in its own module and imports its crawler only there, so crawlsim
never needs the crawler installed (``pip install crawlsim[scrapy]`` adds it).

* :mod:`crawlsim.integrations.scrapy` -- ``TraceRecorder``, a Scrapy extension.
"""
