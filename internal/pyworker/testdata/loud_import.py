# A module that prints while it is imported, as lm-eval's
# leaderboard/ifeval/instructions_util.py does.
print("Downloaded punkt_tab on rank 0")


def ident(x):
    return x
