"""util flattens lists; it holds an error from before."""


def _flatten(items):
    out = []
    for x in items:
        out.extend(x)
    return out


def shout(text: str) -> str:
    return text.upper()


broken: int = "not an int"
