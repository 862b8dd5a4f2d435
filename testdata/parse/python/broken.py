def greet(name:
    return "hello, " + name

class (:
    pass
