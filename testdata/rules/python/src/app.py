import os
from typing import List, Optional


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self, loud=False):
        if loud == True:
            print("HELLO", self.name)
        else:
            print("hello", self.name)
        return None

    async def fetch(self, url):
        data = await get(url)
        return data


def process(items: List[int]) -> Optional[int]:
    total = 0
    for item in items:
        if item == None:
            continue
        total += item
    result = [x * 2 for x in items]
    squares = list(x * x for x in items)
    ok = any([x > 3 for x in items])
    d = dict(a=1, b=2)
    try:
        os.remove("tmp")
    except Exception as e:
        print(e)
    except:
        pass
    return total


def old_style(a, b):
    assert a == b, "mismatch"
    print("%s and %s" % (a, b))
    lambda_fn = lambda v: v + 1
    return lambda_fn(a)


async def main():
    await process([1, 2, 3])
    for i in range(10):
        await asyncio.sleep(i)


async def fetch_all(urls):
    first = await get(urls[0])
    rest = [await get(u) for u in urls[1:]]
    return first, rest
