// Package py is goeval's one Python-emulation layer: the few pieces of
// CPython semantics that lm-eval's numbers and files depend on — str
// methods and repr(float), the re module's syntax, json.dumps' spelling and
// key order (with an insertion-ordered Map), and random.Random. Every other
// package calls these instead of approximating Python itself.
package py
