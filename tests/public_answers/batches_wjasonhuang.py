"""LeetCode 1242: BFS in batches of up to 8 threads, each batch started then joined.

Source:  https://github.com/wjasonhuang/python_utils/blob/HEAD/concurrency/LeetCode_1242.py
Author:  wjasonhuang (repository wjasonhuang/python_utils)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; `import collections` added (LeetCode's page
         imports it for the answer); LeetCode's interface through leetcode_shim.
"""
# style: raw threads, a batch of up to 8 per round, join() per batch, one mutex for the results
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,max-workers
# why-leetcode: each thread fetches, then takes the mutex to test-and-add each link; a batch is
#   joined before the next is cut from the deque, and the loop ends when the deque is empty after
#   a join, so nothing is in flight at the return. A fixed 8 is no fault under LeetCode.
# why-interview: no urldefrag (fragments); up to 8 threads at once whatever max_workers
#   (max-workers). A raising getUrls only ends that page's thread: its URL is already in
#   `visited` and the batch's join() still returns, so fetch-error passes.

from __future__ import annotations

import collections
from threading import Lock, Thread

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def crawler(page_url):
            start_host = page_url.split("/")[2]
            url_list = htmlParser.getUrls(page_url)
            with mutex:
                for url in url_list:
                    if url in visited or url.split("/")[2] != start_host:
                        continue
                    visited.add(url)
                    q.append(url)

        q, visited = collections.deque([startUrl]), {startUrl}
        n, mutex = 8, Lock()
        while q:
            threads = []
            while len(threads) < n and q:
                threads.append(Thread(target=crawler, args=[q.popleft()]))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        return list(visited)


crawl = leetcode_crawl(Solution)
