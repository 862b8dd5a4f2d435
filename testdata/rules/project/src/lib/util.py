def greet(name):
    print("hi", name)
    if name == None:
        return

print("top")
