"""LeetCode 1236 (single-threaded): recursive DFS against the start's url.split('/')[2]; returns the set itself.

Source:  https://github.com/shubhammachal/Leetcode/blob/c98a5678941fd1fbdd09a5ce299b897005932b21/1271-web-crawler/1271-web-crawler.py
Author:  shubhammachal (repository shubhammachal/Leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded recursive DFS, seen tested before each call, a set returned
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail deep-chain,fragments,fetch-error
# why-leetcode: each in-scope link not yet visited is visited once; exact hostname (with any
#   port, which only strict grades); returning a set is an iterable of the right URLs.
# why-interview: RecursionError on a 1,100-page chain; no urldefrag; a raising getUrls ends
#   the crawl.

from __future__ import annotations

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def get_hostname(url):
            return url.split("/")[2]

        start_hostname = get_hostname(startUrl)
        visited = set()

        def dfs(url, htmlParser):
            visited.add(url)
            for next_url in htmlParser.getUrls(url):
                if get_hostname(next_url) == start_hostname and next_url not in visited:
                    dfs(next_url, htmlParser)

        dfs(startUrl, htmlParser)
        return visited


crawl = leetcode_crawl(Solution)
