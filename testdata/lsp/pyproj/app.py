from pkg.shapes import Shape, Square, total


def big() -> Square:
    sq = Square(10)
    return sq


def run() -> float:
    items: list[Shape] = [big(), Square(1)]
    return total(items)
