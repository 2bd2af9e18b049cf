"""What unveil knows of Dynamo's guard text that names Dynamo's privates: its helpers'
names (``___check_type_id``, ``___dict_version``, ...) and the descriptions that are not
Python (the global state, saved-tensors-hooks and function-mode-stack guards).
``guards/conditions.py`` keeps the rest of its translation (the shapes of Python guard
expressions).  Names and patterns only: no torch is imported."""
import re


#: Dynamo's guard helpers, as its guard text calls them
CHECK_TYPE_ID = "___check_type_id"
CHECK_OBJ_ID = "___check_obj_id"
DICT_CONTAINS = "___dict_contains"


#: how Dynamo's own helpers' names begin (``not `` may stand before a call)
GUARD_HELPER_PREFIX = "___"


#: Dynamo's helpers in guard text -> the names dumped guards call (guard_runtime's)
GUARD_HELPER_RENAMES = {
    CHECK_TYPE_ID: "check_type_id",
    CHECK_OBJ_ID: "check_obj_id",
    DICT_CONTAINS: "dict_contains",
    "__math_isnan": "math_isnan",
    "___dict_version": "dict_version",
    "___tuple_iterator_len": "tuple_iterator_len",
    "___tuple_iterator_getitem": "tuple_iterator_getitem",
    "___odict_getitem": "odict_getitem",
    "___namedtuple_fields": "namedtuple_fields",
    "___dataclass_fields": "dataclass_fields",
}


#: GLOBAL_STATE's description (not Python): group 1 is the state at compile time, as JSON
GLOBAL_STATE_GUARD = re.compile(r"^___check_global_state\(\) against (\{.*\})$")
#: AUTOGRAD_SAVED_TENSORS_HOOKS's description: group 1 is the hooks' ids (a tuple or None)
SAVED_TENSORS_HOOKS_GUARD = re.compile(
    r"^torch\._functorch\.aot_autograd\.utils\.top_saved_tensors_hooks ids == (.*)$")
#: TORCH_FUNCTION_MODE_STACK's description (the modes are in the compile's record, not in it)
FUNCTION_MODE_STACK_GUARD = "___check_torch_function_mode_stack()"
