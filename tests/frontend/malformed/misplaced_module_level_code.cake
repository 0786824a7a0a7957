# expect-error: type.misplaced @ 2:1
x = 1
