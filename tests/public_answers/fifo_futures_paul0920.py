"""LeetCode 1242: ThreadPoolExecutor(16) and a deque of futures waited in order, the coordinator owning `visited`.

Source:  https://github.com/paul0920/leetcode/blob/HEAD/question_leetcode/1242.py
Author:  paul0920 (repository paul0920/leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; the file's sample urls/edges dropped;
         LeetCode's interface through leetcode_shim. The design is fifo_futures_erjan.py's
         (both follow one LeetCode discussion post); this one's own parts are the empty-start
         guard and computing the start host once.
"""
# style: ThreadPoolExecutor(16), collections.deque of futures, oldest result first
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# why-leetcode: as fifo_futures_erjan: only the main thread touches `visited`, marking a URL
#   when it submits it.
# why-interview: no urldefrag; result() re-raises; 16 threads whatever max_workers.

from __future__ import annotations

import collections
import concurrent.futures

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        if not startUrl:
            return []
        hostname = startUrl.split("/")[2]
        visited = {startUrl}
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as executor:
            q = collections.deque([executor.submit(htmlParser.getUrls, startUrl)])
            while q:
                for next_url in q.popleft().result():
                    if next_url not in visited and next_url.split("/")[2] == hostname:
                        q += [executor.submit(htmlParser.getUrls, next_url)]
                        visited.add(next_url)
        return list(visited)


crawl = leetcode_crawl(Solution)
