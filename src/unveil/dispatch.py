"""Dispatch tables: one small handler function per opcode, registered by decorator."""


def dispatch_table():
    """A new ``(table, handles)`` pair: ``@handles("OP", ...)`` files a function under each name."""
    table = {}

    def handles(*ops):
        def register(fn):
            for op in ops:
                table[op] = fn
            return fn
        return register

    return table, handles
