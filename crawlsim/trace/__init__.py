"""The trace: what a crawl did, as events.

Below the core, which emits the events (:mod:`crawlsim.trace.events`); every
reader and writer of a trace is above it and goes through here: the column
store a simulation keeps (:mod:`~crawlsim.trace.store`), the one JSONL reader
and writer (:mod:`~crawlsim.trace.jsonl`), a cluster's merged trace and its
node keys (:mod:`~crawlsim.trace.cluster`, :mod:`~crawlsim.trace.node_tags`) and the Chrome trace-event export
that Perfetto opens (:mod:`~crawlsim.trace.chrome`).  Standard library only.
"""
