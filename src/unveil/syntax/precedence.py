"""Python's expression precedence levels, and the operators' text and level, for the printer."""

# Precedence levels, lowest binding first.  An expression whose own level is
# below the level its position requires gets parenthesised.
(NAMED, YIELD, TUPLE, TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH,
 TERM, FACTOR, POWER, AWAIT, ATOM) = range(1, 19)

BINARY_OPERATORS = {
    "Add": ("+", ARITH), "Sub": ("-", ARITH), "Mult": ("*", TERM),
    "MatMult": ("@", TERM), "Div": ("/", TERM), "FloorDiv": ("//", TERM),
    "Mod": ("%", TERM), "Pow": ("**", POWER), "LShift": ("<<", SHIFT),
    "RShift": (">>", SHIFT), "BitOr": ("|", BOR), "BitXor": ("^", BXOR),
    "BitAnd": ("&", BAND),
}
UNARY_OPERATORS = {"Not": ("not ", NOT), "Invert": ("~", FACTOR),
                   "UAdd": ("+", FACTOR), "USub": ("-", FACTOR)}
COMPARISONS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">",
               "GtE": ">=", "Is": "is", "IsNot": "is not", "In": "in",
               "NotIn": "not in"}
