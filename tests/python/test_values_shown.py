"""A value of the wrong type is shown in messages as the Python value given, not as the text it was
turned into for the core ([16, 32] is not '16,32', None is not 'None', True is not 'true')."""
import re

import pytest

import scalinglab as sl


@pytest.mark.parametrize("given, shown, never", [
    ({"d": [16, 32]}, "parameter d=[16, 32] is not a valid int", "'16,32'"),
    ({"T": None}, "parameter T=None is not a valid count", "'None'"),
    ({"d": True}, "parameter d=True is not a valid int", "'true'"),
])
def test_eval_shows_the_python_value(given, shown, never):
    with pytest.raises(ValueError, match=re.escape(shown)) as e:
        sl.eval("memory.error", N=10, **given)
    assert never not in str(e.value)


@pytest.mark.parametrize("sweep, error, shown", [
    ({"params": {"N": 10, "d": [16, 32]}}, ValueError, "params.d: expected a number, a string or a boolean, not [16, 32]"),
    ({"params": {"N": 10, "T": None}}, TypeError, "params.T=None: a sweep value must be"),
    ({"params": {"N": 10}, "grid": {"d": [[16, 32], 8]}}, ValueError, "grid.d[0]: expected a number, a string or a "
                                                                      "boolean, not [16, 32]"),
    ({"params": {"N": 10}, "grid": {"d": [True, 8]}}, ValueError, "parameter d=True is not a valid int"),
])
def test_a_dict_sweep_shows_the_python_value(tmp_path, sweep, error, shown):
    with pytest.raises(error, match=re.escape(shown)) as e:
        sl.run({"measure": "memory.error", **sweep}, out=tmp_path / "r", progress=False)
    assert ".toml" not in str(e.value) and "'true'" not in str(e.value)


def test_sweep_keywords_show_the_python_value(tmp_path):
    with pytest.raises(TypeError, match=re.escape("T=None: a sweep value must be")):
        sl.run(measure="memory.error", params={"N": 10}, T=None, out=tmp_path / "r", progress=False)
