"""LeetCode 1242: ThreadPoolExecutor(16); the main thread waits on futures in submission order and owns `seen`.

Source:  https://github.com/erjan/coding_exercises/blob/2b949d21df6f0c4b259c13dedf03cb4c276c99fb/web_crawler_multithreaded.py
Author:  erjan (repository erjan/coding_exercises); the same code circulates from a LeetCode
         discussion post (it also appears in paul0920/leetcode, question_leetcode/1242.py)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; `from collections import deque` added (LeetCode
         imports it for the answer); LeetCode's interface through leetcode_shim.
"""
# style: ThreadPoolExecutor(16), a deque of futures, result() of the oldest first (a coordinator)
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# why-leetcode: only the main thread reads and writes `seen`, and marks a URL when it submits
#   it; waiting on the oldest future first delays work but never loses or repeats any; the
#   `with` block waits for the pool. 16 threads is no fault under LeetCode.
# why-interview: no urldefrag; result() re-raises getUrls' error and ends the crawl; 16 threads
#   whatever max_workers.

from __future__ import annotations

from collections import deque
from concurrent import futures

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        hostname = lambda url: url.split("/")[2]  # noqa: E731 -- as the answer writes it
        seen = {startUrl}
        with futures.ThreadPoolExecutor(max_workers=16) as executor:
            tasks = deque([executor.submit(htmlParser.getUrls, startUrl)])
            while tasks:
                for url in tasks.popleft().result():
                    if url not in seen and hostname(startUrl) == hostname(url):
                        seen.add(url)
                        tasks.append(executor.submit(htmlParser.getUrls, url))
        return list(seen)


crawl = leetcode_crawl(Solution)
