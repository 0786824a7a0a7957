# expect-error: type.missing-argument @ 3:5
@cake.schedule()
def k():
    pass
