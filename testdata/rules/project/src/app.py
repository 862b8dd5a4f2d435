def run():
    print("not in lib")
x = None
if x == None:
    pass
