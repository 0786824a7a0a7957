# expect-error: type.duplicate @ 7:5
@cake.schedule()
def k(lm):
    pass

@cake.schedule()
def k(lm):
    pass
