import goeval_no_such_package  # noqa: F401


def f(x):
    return x
