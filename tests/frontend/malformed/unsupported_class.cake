# expect-error: syntax.unsupported @ 2:1
class Foo:
    pass
