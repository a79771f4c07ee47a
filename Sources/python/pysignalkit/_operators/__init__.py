"""One module per operator family of Signal, named as the Swift core's
Signal_<Family>.swift and the C layer's Operators_<Family>.swift (snake_case);
pysignalkit._signal composes them. Each family's class extends its generated
one, pysignalkit._standard_operators._<Family>Standard: the family's operators
of a standard shape, made from the operator table by `make api-update`. Their
place among the modules: the package docstring, Layers."""
