def alone() -> int:
    return 1


other: int = "other"
