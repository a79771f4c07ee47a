"""One module per operator family of Signal, named as the Swift core's
Signal_<Family>.swift and the C layer's Operators_<Family>.swift (snake_case);
signalkit._signal composes them. Their place among the modules: the package
docstring, Layers."""
