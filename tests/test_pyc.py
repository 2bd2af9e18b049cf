"""Tests of unveil.pyc: loading .pyc files and naming the version of foreign ones."""
import importlib.util
import marshal
import os
import py_compile
import sys
import types

import pytest

from unveil.pyc import MAGIC_RANGES, PycError, load_pyc, magic_to_version

SOURCE = "def f(x):\n    return [i * x for i in range(3)]\n\nY = f(2)\n"
THIS = "%d.%d" % sys.version_info[:2]
# The magic number of each version's final releases.
FINAL_MAGIC = {
    "2.7": 62211, "3.0": 3131, "3.1": 3151, "3.2": 3180, "3.3": 3230, "3.4": 3310,
    "3.5": 3351, "3.6": 3379, "3.7": 3394, "3.8": 3413, "3.9": 3425, "3.10": 3439,
    "3.11": 3495, "3.12": 3531, "3.13": 3571, "3.14": 3627,
}


def header(magic, flags=0):
    return magic.to_bytes(2, "little") + b"\r\n" + flags.to_bytes(4, "little") + bytes(8)


def write(tmp_path, data, name="m.pyc"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.fixture
def source_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


@pytest.mark.parametrize("mode", list(py_compile.PycInvalidationMode))
def test_loads_what_py_compile_writes(source_file, tmp_path, mode):
    pyc = py_compile.compile(str(source_file), cfile=str(tmp_path / "m.pyc"),
                             doraise=True, invalidation_mode=mode)
    code = load_pyc(pyc)
    assert isinstance(code, types.CodeType)
    assert code == compile(SOURCE, str(source_file), "exec")
    namespace = {}
    exec(code, namespace)
    assert namespace["Y"] == [0, 2, 4]


def test_accepts_path_objects_and_strings(source_file, tmp_path):
    pyc = tmp_path / "m.pyc"
    py_compile.compile(str(source_file), cfile=str(pyc), doraise=True)
    assert load_pyc(pyc) == load_pyc(str(pyc))


def test_this_interpreters_magic_is_in_the_table():
    assert magic_to_version(importlib.util.MAGIC_NUMBER) == THIS


@pytest.mark.parametrize("version, magic", sorted(FINAL_MAGIC.items()))
def test_magic_to_version(version, magic):
    assert magic_to_version(magic) == version
    assert magic_to_version(header(magic)[:4]) == version


def test_magic_table_is_ordered_and_disjoint():
    py3 = [r for r in MAGIC_RANGES if r[0] < 20000]
    for (_, last, _), (first, _, _) in zip(py3, py3[1:]):
        assert last < first


def test_unknown_and_future_magic():
    assert magic_to_version(3395) is None  # between 3.7 and 3.8
    assert magic_to_version(12345) is None
    assert magic_to_version(3655) == "3.15"
    assert magic_to_version(b"") is None


def test_missing_file(tmp_path):
    with pytest.raises(PycError, match="no such file"):
        load_pyc(tmp_path / "absent.pyc")


def test_directory(tmp_path):
    with pytest.raises(PycError, match="directory"):
        load_pyc(tmp_path)


@pytest.mark.parametrize("data", [b"", b"\x00", b"print('hello')\n", bytes(range(256))])
def test_not_a_pyc(tmp_path, data):
    with pytest.raises(PycError, match="not a .pyc file"):
        load_pyc(write(tmp_path, data))


@pytest.mark.parametrize("version", [v for v in FINAL_MAGIC if v != THIS])
def test_other_version_is_named(tmp_path, version):
    path = write(tmp_path, header(FINAL_MAGIC[version]) + marshal.dumps(None))
    with pytest.raises(PycError) as info:
        load_pyc(path)
    message = str(info.value)
    assert "Python %s " % version in message
    assert "this is Python %s " % THIS in message
    assert "\n" not in message


def test_unknown_magic(tmp_path):
    with pytest.raises(PycError, match="unknown magic number 3395"):
        load_pyc(write(tmp_path, header(3395) + marshal.dumps(None)))


def test_truncated_header(tmp_path):
    with pytest.raises(PycError, match="truncated"):
        load_pyc(write(tmp_path, importlib.util.MAGIC_NUMBER + b"\0\0"))


def test_truncated_body(source_file, tmp_path):
    pyc = tmp_path / "m.pyc"
    py_compile.compile(str(source_file), cfile=str(pyc), doraise=True)
    data = pyc.read_bytes()
    for cut in (16, 17, len(data) // 2, len(data) - 1):
        with pytest.raises(PycError, match="truncated or corrupt"):
            load_pyc(write(tmp_path, data[:cut], "cut.pyc"))


def test_corrupt_marshal_data(tmp_path):
    with pytest.raises(PycError, match="corrupt"):
        load_pyc(write(tmp_path, importlib.util.MAGIC_NUMBER + bytes(12) + b"\xff\xfe garbage"))


def test_bad_flags(tmp_path):
    data = importlib.util.MAGIC_NUMBER + (8).to_bytes(4, "little") + bytes(8)
    with pytest.raises(PycError, match="flags"):
        load_pyc(write(tmp_path, data + marshal.dumps(compile("1", "m", "exec"))))


def test_not_a_code_object(tmp_path):
    with pytest.raises(PycError, match="not a code object"):
        load_pyc(write(tmp_path, importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps([1, 2])))


def test_pyc_error_is_a_value_error():
    assert issubclass(PycError, ValueError)


def test_import_unveil_is_enough_for_unveil_pyc(source_file, tmp_path):
    """The README calls ``unveil.pyc.load_pyc(path)`` after ``import unveil`` (a new-user
    trial: AttributeError, the submodule was not imported)."""
    import subprocess
    pyc = str(tmp_path / "m.pyc")
    py_compile.compile(str(source_file), cfile=pyc, doraise=True)
    done = subprocess.run([sys.executable, "-c", "import sys, unveil; print(unveil.pyc.load_pyc(sys.argv[1]).co_name)",
                           pyc], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0 and done.stdout.strip() == "<module>", done.stderr
