import os


def first(a, b, c):
    print(a)
    print(b, c)
    return a


def second():
    os.getenv("HOME")
    value = [1, 2, 3]
    return value
