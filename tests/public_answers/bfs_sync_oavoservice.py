"""The interview's synchronous version: BFS with a deque, host = urlparse(url).netloc.

Source:  https://oavoservice.com/articles/anthropic-sde-web-crawler-bfs-threadpool-oavoservice.en.html
         ("1) Synchronous BFS Version", crawl_sync(start_url, get_urls))
Author:  oavoservice (an interview-coaching article)
Licence: none stated on the stored page (an article, all rights presumably reserved).
Adapted: restated with the same design and bugs; max_workers added to the signature (unused:
         this is the article's synchronous baseline).
"""
# style: single-threaded BFS, interview signature
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error
# why-leetcode: exact netloc equality, each link queued once, the result in BFS order. No
#   concurrency: below L4 but correct (the grader exits 0 for a correct sequential answer).
# why-interview: no urldefrag; a raising get_urls ends the crawl.

from __future__ import annotations

from collections import deque
from urllib.parse import urlparse


def crawl(start_url, get_urls, max_workers=None):
    host = urlparse(start_url).netloc
    queue = deque([start_url])
    visited = {start_url}
    result = []
    while queue:
        url = queue.popleft()
        result.append(url)
        for nxt in get_urls(url):
            if urlparse(nxt).netloc != host:
                continue
            if nxt in visited:
                continue
            visited.add(nxt)
            queue.append(nxt)
    return result
