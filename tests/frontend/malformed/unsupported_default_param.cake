# expect-error: syntax.unsupported @ 3:21
@cake.schedule()
def k(lm, K: LM.i32 = 4):
    pass
