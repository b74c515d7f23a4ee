"""LeetCode 1242: eight workers in a ThreadPoolExecutor() quit after 50 ms of empty queue; an RLock the author thought idle.

Source:  a public GitHub file of LeetCode notes that this session's code index returned without
         naming its repository (index file id 23341935554, section "LC1242. Web Crawler
         Multithreaded", read 2026-12-06); author and repository unknown here.
Licence: unknown (repository unknown).
Adapted: restated with the same design and bugs (the author's comment on the lock, "lock don't
         do anything due to GIL", kept as the one quoted line); imports added (the notes file
         relies on LeetCode's); LeetCode's interface through leetcode_shim.
"""
# style: ThreadPoolExecutor() (default size) running 8 loop workers on a queue.Queue,
#   idle timeout queue.get(timeout=0.05), bare `except: pass` around each worker's loop
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,max-workers,workers-quit
# why-leetcode: the test-and-add is under the RLock; a worker quits only after 50 ms with an
#   empty queue, and the worker still fetching keeps going and takes what its own page added,
#   so every page is fetched once and the `with` block returns after the last worker quits.
#   The workers that quit early make it mostly serial, which LeetCode does not grade.
# why-interview: no urldefrag; up to 8 workers whatever max_workers (the default pool has
#   min(32, cpus + 4)); workers quit while a fetch is in flight (slow-service's 0.2 s start page
#   outlasts the 50 ms timeout), leaving one worker (workers-quit). A raising getUrls ends only
#   its own worker (the bare except) after the page was recorded, so fetch-error passes.

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from queue import Queue
from threading import RLock

from leetcode_shim import leetcode_crawl


class Solution:
    def __init__(self):
        self.queue = Queue()
        self.visited = set()
        self.result = []
        self.lock = RLock()

    def crawl(self, startUrl, htmlParser):
        self.visited = {startUrl}
        self.queue.put(startUrl)
        with ThreadPoolExecutor() as e:
            for _ in range(8):
                e.submit(self.run, htmlParser)
        return self.result

    def run(self, htmlParser):
        try:
            while True:
                item = self.queue.get(block=True, timeout=0.05)
                self.result.append(item)
                for url in htmlParser.getUrls(item):
                    with self.lock:  # lock don't do anything due to GIL
                        if self.hostname(url) != self.hostname(item):
                            continue
                        if url in self.visited:
                            continue
                        self.visited.add(url)
                        self.queue.put(url)
        except:  # noqa: E722 -- the answer's own bare except: it ends the worker on queue.Empty
            pass

    def hostname(self, url):
        return url.split("//")[1].split("/")[0]


crawl = leetcode_crawl(Solution)
