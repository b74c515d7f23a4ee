"""LeetCode 1242: a ThreadPoolExecutor(5) fed one BFS level at a time; workers test-and-add unlocked.

Source:  https://github.com/MOMOKO606/Leetcode/blob/11824e1435816c4e23e9072b9801fc1c57ea2654/1368-web-crawler-multithreaded/1368-web-crawler-multithreaded.py
Author:  MOMOKO606 (repository MOMOKO606/Leetcode; the file has 39 LeetHub commits, several designs)
Licence: none stated (the repository has a README and no licence file).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: ThreadPoolExecutor(5), level by level (submit a level, wait each result in order)
# racy: yes
# verdict-leetcode: fail check-then-add
# also-leetcode: seen-race
# verdict-interview: fail check-then-add,fragments,fetch-error,max-workers
# also-interview: seen-race
# why-leetcode: each worker runs `if new not in visited: visited.add(new)` with no lock, so two
#   workers handling pages with the same links can both pass the test and both return the link:
#   it is fetched twice in the next level (a race a few bytecodes wide: the explorer's to find).
# why-interview: also no urldefrag; future.result() re-raises getUrls' error and ends the crawl;
#   5 workers whatever max_workers.

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from queue import Queue

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def _crawl(url):
            next_level = []
            for new_url in htmlParser.getUrls(url):
                if new_url.split("http://")[1].split("/")[0] == domain and new_url not in visited:
                    visited.add(new_url)
                    next_level.append(new_url)
            return next_level

        domain, visited = startUrl.split("http://")[1].split("/")[0], {startUrl}
        cur_queue = Queue()
        cur_queue.put(startUrl)
        with ThreadPoolExecutor(max_workers=5) as executor:
            while not cur_queue.empty():
                futures = []
                while not cur_queue.empty():
                    futures.append(executor.submit(_crawl, cur_queue.get()))
                for future in futures:
                    for url in future.result():
                        cur_queue.put(url)
        return list(visited)


crawl = leetcode_crawl(Solution)
