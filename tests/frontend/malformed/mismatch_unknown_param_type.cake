# expect-error: type.mismatch @ 3:14
@cake.schedule()
def k(lm, Q: LM.tma9d):
    pass
