# expect-error: type.duplicate @ 3:22
@cake.schedule()
def k(lm, K: LM.i32, K: LM.i32):
    pass
