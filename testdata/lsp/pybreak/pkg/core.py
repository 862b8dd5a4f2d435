from .util import _flatten, shout


def run(rows):
    return _flatten(rows)


def again():
    return shout(str(_flatten([[1], [2]])))


wrong: str = 42
