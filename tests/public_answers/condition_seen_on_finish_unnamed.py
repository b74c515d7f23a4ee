"""A Condition-based pool of 4 threads with a count of active workers; a page joins `visited` after its fetch.

Source:  a public GitHub file of interview notes ("Dropbox ... Concurrency / Multithreading
         Questions", item 1 "Multithreaded Web Crawler") that this session's code index returned
         without naming its repository (index file id 71247149324, read 2026-12-06); author and
         repository unknown here.
Licence: unknown (repository unknown).
Adapted: restated with the same design and bugs; LeetCode's interface (the notes use
         crawl(startUrl, htmlParser)) through leetcode_shim.
"""
# style: threading.Condition + deque + active-worker count, 4 fixed threads, a second Lock for
#   `visited`; seen marked when the fetch finishes
# racy: yes (seen-race and basic are forced by the grader's held pages; the double fetches elsewhere vary with timing)
# verdict-leetcode: fail basic,seen-race
# also-leetcode: diamond-50,check-then-add,slow-service,large-graph,many-hosts,termination,cycle,deep-chain,pool-2,pool-3
# verdict-interview: fail basic,seen-race,fragments,fetch-error,max-workers
# revised: threads-exit dropped from verdict-interview when the grader stopped judging threads left by a crawl that never returned (the hang is fetch-error's)
# also-interview: diamond-50,check-then-add,slow-service,large-graph,many-hosts,termination,cycle,deep-chain,pool-2,pool-3
# why-leetcode: a link is queued whenever it is not yet in `visited`, and a URL enters
#   `visited` only after its fetch, so a page linked again while its first fetch is in flight
#   is queued and fetched again (basic's /y, seen-race's /c). Termination itself is right: a
#   worker waits while others are active and the last one out wakes the rest.
# why-interview: also no urldefrag; a raising getUrls kills its worker with the active count
#   raised, so the others wait forever (fetch-error) and stay blocked (threads-exit); 4 threads
#   whatever max_workers.

from __future__ import annotations

import threading
from collections import deque
from urllib.parse import urlparse

from leetcode_shim import leetcode_crawl


class MultiThreadedCrawler:
    def __init__(self):
        self.visited = set()
        self.lock = threading.Lock()
        self.queue = deque()
        self.condition = threading.Condition()
        self.active_workers = 0

    def crawl(self, startUrl, htmlParser):
        hostname = urlparse(startUrl).netloc
        self.queue.append(startUrl)
        threads = [threading.Thread(target=self.worker, args=(hostname, htmlParser)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return list(self.visited)

    def worker(self, hostname, htmlParser):
        while True:
            with self.condition:
                while not self.queue and self.active_workers > 0:
                    self.condition.wait()
                if not self.queue:
                    self.condition.notify_all()
                    return
                url = self.queue.popleft()
                self.active_workers += 1
            if url not in self.visited:
                new_urls = htmlParser.getUrls(url)
                with self.lock:
                    self.visited.add(url)
                with self.condition:
                    for r in new_urls:
                        if urlparse(r).netloc == hostname and r not in self.visited:
                            self.queue.append(r)
                    self.condition.notify_all()
            with self.condition:
                self.active_workers -= 1
                self.condition.notify_all()


crawl = leetcode_crawl(MultiThreadedCrawler)
