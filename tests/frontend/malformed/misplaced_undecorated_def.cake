# expect-error: type.misplaced @ 2:5
def k(lm):
    pass
