# expect-error: type.misplaced @ 1:1
