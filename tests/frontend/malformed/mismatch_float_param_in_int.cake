# expect-error: type.mismatch @ 4:9
@cake.schedule()
def k(lm, S: LM.f32):
    n = S + 1
