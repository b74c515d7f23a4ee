"""LeetCode 1242: a default-sized ThreadPoolExecutor per BFS level; "hostname" = the host minus its first label.

Source:  https://github.com/MOMOKO606/Leetcode/blob/2a8233de8ea26ffe00e72081ad31b23a02542453/1368-web-crawler-multithreaded/1368-web-crawler-multithreaded.py
Author:  MOMOKO606 (repository MOMOKO606/Leetcode; the file has 39 LeetHub commits, several designs)
Licence: none stated (the repository has a README and no licence file).
Adapted: restated with the same design and bugs (state set up in crawl rather than __init__,
         which LeetCode runs once per Solution anyway); LeetCode's interface through leetcode_shim.
"""
# style: ThreadPoolExecutor() (default size), one level per round, Condition as the lock
# racy: no
# verdict-leetcode: fail host-scope,many-hosts
# verdict-interview: fail host-scope,many-hosts,fragments,fetch-error,max-workers
# why-leetcode: get_hostname drops the first label ('.'.join(host.split('.')[1:])), so from
#   a.com the crawl keeps every *.com host (b.com, pa.com, evil-a.com ...) and skips a.com's own
#   subdomain test only by luck; from h00.example it keeps every *.example host (many-hosts).
#   The seen set itself is right: test-and-add under the lock.
# why-interview: also no urldefrag; future.result() re-raises; the default pool has
#   min(32, cpus + 4) threads whatever max_workers.

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Condition

from leetcode_shim import leetcode_crawl


class Solution:
    def get_hostname(self, url):
        return ".".join(url.split("/")[2].split(".")[1:])

    def visit_url(self, url):
        next_urls = self._parser.getUrls(url)
        with self._lock:
            for next_url in next_urls:
                if next_url not in self._visited and self.current_hostname == self.get_hostname(next_url):
                    self._visited.add(next_url)
                    self._queue.insert(0, next_url)

    def crawl(self, startUrl, htmlParser):
        self._queue, self._lock, self._visited = [startUrl], Condition(), {startUrl}
        self.current_hostname = self.get_hostname(startUrl)
        self._parser = htmlParser
        executor = ThreadPoolExecutor()
        while self._queue:
            urls = [self._queue.pop()]
            while self._queue:
                urls.append(self._queue.pop())
            for future in [executor.submit(self.visit_url, url) for url in urls]:
                future.result()
        executor.shutdown()
        return list(self._visited)


crawl = leetcode_crawl(Solution)
