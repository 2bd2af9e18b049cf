"""The table of opcode handlers: :func:`handles` files a handler under its opcodes."""
from ...dispatch import dispatch_table

HANDLERS, handles = dispatch_table()
