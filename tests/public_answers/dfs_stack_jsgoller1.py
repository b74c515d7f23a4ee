"""LeetCode 1236 (single-threaded): DFS on a list used as a stack; "hostname" = the last two labels.

Source:  https://github.com/jsgoller1/algorithms (a Jupyter notebook of the repository, as stored
         in this session's page corpus: "Below is a solution to LeetCode 1236 - Web Crawler")
Author:  jsgoller1 (repository jsgoller1/algorithms)
Licence: none stated on the stored page (not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded DFS with an explicit stack; visited marked when popped, not when pushed
# racy: no
# verdict-leetcode: fail host-scope,diamond-50
# also-leetcode: large-graph,many-hosts,slow-service,check-then-add,pool-2,pool-3,seen-race,termination,cycle,basic
# verdict-interview: fail host-scope,diamond-50,fragments,fetch-error
# also-interview: large-graph,many-hosts,slow-service,check-then-add,pool-2,pool-3,seen-race,termination,cycle,basic
# why-leetcode: get_hostname keeps only the last two labels, so blog.a.com counts as a.com
#   (host-scope); a popped URL is fetched without asking whether it was fetched already, and a
#   URL is pushed again by every page that links it before it is popped, so on diamond-50 the
#   pages are fetched again and again.
# why-interview: also no urldefrag; a raising getUrls ends the crawl. The stack keeps it safe
#   on deep-chain.

from __future__ import annotations

from urllib.parse import urlparse

from leetcode_shim import leetcode_crawl


def get_hostname(url):
    url = urlparse(url).hostname
    if not url:
        return None
    found_dot = False
    for i, c in enumerate(reversed(url)):
        if c != ".":
            continue
        if not found_dot:
            found_dot = True
        else:
            return url[len(url) - i :]
    return url


class Solution:
    def crawl(self, start_url, html_parser):
        hostname = get_hostname(start_url)
        visited = set()
        stack = [start_url]
        while stack:
            curr_url = stack.pop()
            if get_hostname(curr_url) != hostname:
                continue
            visited.add(curr_url)
            for child in html_parser.getUrls(curr_url):
                if child not in visited:
                    stack.append(child)
        return list(visited)


crawl = leetcode_crawl(Solution)
