# expect-error: type.mismatch @ 3:11
@cake.schedule()
def k(lm: LM.gmem):
    pass
