"""Shapes with an area."""


class Shape:
    """Anything with an area."""

    def area(self) -> float:
        raise NotImplementedError


class Square(Shape):
    """A shape with equal sides."""

    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def total(shapes: list[Shape]) -> float:
    """Sum the areas of shapes."""
    return sum(s.area() for s in shapes)
