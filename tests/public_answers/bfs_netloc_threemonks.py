"""LeetCode 1236 (single-threaded): the same author's first BFS, comparing urlparse(url).netloc.

Source:  https://github.com/threemonks/leetcode/blob/5dd4d83a48e694dba5cdc4a20f5f33add17f5c63/leetcode/lc1236_web-crawler.py
         (class Solution0, the file's first answer)
Author:  threemonks (repository threemonks/leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded BFS (deque), netloc equality
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error
# why-leetcode: netloc equality is exact hostname equality when no port or user info is
#   written (what only --rules strict adds); each link is queued once.
# why-interview: no urldefrag; a raising getUrls ends the crawl.

from __future__ import annotations

from collections import deque
from urllib.parse import urlparse

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        hostname = urlparse(startUrl).netloc
        urls = deque([startUrl])
        seen = {startUrl}
        ans = {startUrl}
        while urls:
            url = urls.popleft()
            while url:
                for u in htmlParser.getUrls(url):
                    if u not in seen:
                        seen.add(u)
                        if urlparse(u).netloc == hostname:
                            ans.add(u)
                            urls.append(u)
                url = urls.popleft() if urls else None
        return list(ans)


crawl = leetcode_crawl(Solution)
