# expect-error: type.unknown-op @ 2:2
@cake.kernel()
def k(lm):
    pass
