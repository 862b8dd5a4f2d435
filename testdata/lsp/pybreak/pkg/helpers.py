from pkg import util


def helper(rows):
    return util._flatten(rows)


bad: bytes = "text"
