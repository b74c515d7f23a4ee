"""asyncio: the start page fetched first, then 5 worker tasks that run `while q.qsize() > 0`; scope by startswith.

Source:  https://github.com/Nilsen11/async-parse-site/blob/HEAD/parse_pages.py
Author:  Nilsen11 (repository Nilsen11/async-parse-site)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs. get_urls(u) stands for the aiohttp GET and lxml's
         absolute hrefs; the module's `url` (the site to parse) is the start URL and is passed to
         the workers; crawl(start_url, get_urls, max_workers) replaces loop.run_until_complete
         and returns the start URL with scaned_urls (the original prints page titles); the
         title prints dropped, the error print kept.
"""
# style: asyncio, 5 fixed worker tasks on an asyncio.Queue that quit when the queue is empty
# racy: no
# verdict-leetcode: fail basic,cycle,host-scope,diamond-50,slow-service,pool-2,pool-3,many-hosts,large-graph
# verdict-interview: fail basic,cycle,host-scope,diamond-50,slow-service,pool-2,pool-3,many-hosts,large-graph,deep-chain,fragments,max-workers
# also-interview: workers-quit
# why-leetcode: the start URL never enters scaned_urls, so a page linking back to it fetches it
#   again (basic, host-scope's /about, slow-service's leaves, pool-N's children); scope is
#   link.startswith(start_url), so from a start that is not the site's root (/1, /p0, /n0,
#   h00.example/0) nothing else is in scope (cycle, diamond-50, many-hosts, large-graph).
#   One event loop: the test-and-add has no await inside, so no race.
# why-interview: also deep-chain's /c0 start; fragments are kept; 5 workers whatever
#   max_workers; workers quit whenever the queue is momentarily empty (the also list). A raising
#   get_urls is caught per page, so fetch-error passes.

from __future__ import annotations

import asyncio

scaned_urls = set()


async def worker(q, url, get_urls):
    while q.qsize() > 0:
        u = await q.get()
        try:
            links = set(await get_urls(u))
            for link in links:
                if not link.startswith(url):
                    continue
                elif link in scaned_urls:
                    continue
                else:
                    scaned_urls.add(link)
                    await q.put(link)
        except Exception as e:
            print(type(e), e)


async def crawl(start_url, get_urls, max_workers=None):
    scaned_urls.clear()
    url = start_url
    links = set(await get_urls(url))
    qu = asyncio.Queue()
    for link in links:
        if link.startswith(url):
            scaned_urls.add(link)
            await qu.put(link)
    tasks = [asyncio.ensure_future(worker(qu, url, get_urls)) for _ in range(5)]
    await asyncio.gather(*tasks)
    return list({url} | scaned_urls)
