import dataclasses
from typing import Iterable


@dataclasses.dataclass
class Greeter:
    name: str
    count: int = 0

    def greet(self, *names: str) -> str:
        self.count += 1
        if not names:
            return f"hello, {self.name}"
        return "hello, " + ", ".join(names)


def total(xs: Iterable[int]) -> int:
    return sum(x * 2 for x in xs if x > 0)


async def main():
    with open("x") as f:
        data = [line async for line in f]
    return {k: v for k, v in enumerate(data)}
